"""``omkd scan`` throughput per MB on a Codex-heavy and a Gemini corpus against a Claude Code one.

Run from the repository root::

    .venv/bin/python bench/agents_throughput.py [--size-mb 60] [--runs 3] [--out DIR]

1. Builds three corpora of about ``--size-mb`` MB each by copying the real fixtures of one agent
   again and again (each copy in its own ``copy-NNNN/`` folder, the rollouts' and chats' session
   ids made fresh per copy so that no two copies are the same session): Claude Code transcripts,
   Codex rollouts (and ``exec --json`` streams), Gemini chats (JSONL and ``.json`` documents).
2. Times ``omkd scan CORPUS --json`` on each, the three alternating run after run (one run each in
   turn, ``--runs`` rounds, the best of each kept: this machine is shared).
3. Reports MB/s per agent and the ratio of each agent's seconds per MB to Claude Code's: the target
   is at most 1.5 (issue 14).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from common import DEFAULT_OUT, MB, heading, run_scan, save, status, this_run, time_binary
from corpus import DEFAULT_FIXTURES, agent_of, source_files, warm_cache

TARGET_RATIO: Final = 1.5
"""seconds per MB of an agent's corpus / seconds per MB of the Claude Code corpus."""
DEFAULT_SIZE_MB: Final = 60.0
CORPORA: Final = Path(__file__).resolve().parent / "corpus" / "agents"
UUID: Final = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def sources(fixtures: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {"claude_code": [], "codex": [], "gemini": []}
    for path in sorted(fixtures.rglob("*.jsonl")):
        found[agent_of(path)].append(path)
    found["claude_code"] = source_files(fixtures)
    found["gemini"] += sorted(
        p for p in fixtures.rglob("*.json") if "chats" in p.parts or p.name.startswith("session-")
    )
    return found


def build(agent: str, files: Sequence[Path], fixtures: Path, size_mb: float) -> tuple[Path, int]:
    """The corpus of one agent (reused when it is already as large): its root and its size."""
    root = CORPORA / agent
    marker = root / ".size"
    if marker.exists() and int(marker.read_text()) >= size_mb * MB:
        return root, int(marker.read_text())
    shutil.rmtree(root, ignore_errors=True)
    total, copy = 0, 0
    originals = [(p, p.read_bytes()) for p in files]
    while total < size_mb * MB:
        prefix = f"{copy:08x}".encode()

        def renamed(found: re.Match[bytes], prefix: bytes = prefix) -> bytes:
            return prefix + found.group(0)[8:]

        for path, data in originals:
            # fresh ids per copy: a copy is another session, not a second copy of the same one
            fresh = UUID.sub(renamed, data)
            target = root / f"copy-{copy:04d}" / path.relative_to(fixtures)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(fresh)
            total += len(fresh)
        copy += 1
    marker.write_text(str(total))
    return root, total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=DEFAULT_SIZE_MB)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    run = this_run("bench/agents_throughput.py", argv)
    corpora = {
        agent: build(agent, files, args.fixtures, args.size_mb) for agent, files in sources(args.fixtures).items()
    }
    for root, _ in corpora.values():
        warm_cache(sorted(p for p in root.rglob("*") if p.is_file()))
    timer = time_binary()
    best: dict[str, float] = {}
    rss: dict[str, int] = {}
    for _ in range(args.runs):
        for agent, (root, _) in corpora.items():
            measured = run_scan([root], timer)
            if measured.seconds < best.get(agent, float("inf")):
                best[agent], rss[agent] = measured.seconds, measured.peak_rss_bytes
    per_mb = {agent: best[agent] / (size / MB) for agent, (_, size) in corpora.items()}
    ratios = {agent: per_mb[agent] / per_mb["claude_code"] for agent in corpora}
    lines = heading("omkd scan throughput per agent (best of alternating runs)", run)
    lines += [
        "| agent | corpus MB | seconds | MB/s | s per MB ÷ Claude Code's | peak RSS MB | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for agent, (_, size) in corpora.items():
        target = "—" if agent == "claude_code" else f"≤ {TARGET_RATIO} {status(ratios[agent] <= TARGET_RATIO)}"
        lines.append(
            f"| {agent} | {size / MB:.1f} | {best[agent]:.2f} | {size / MB / best[agent]:.1f} | {ratios[agent]:.2f} "
            f"| {rss[agent] / MB:.0f} | {target} |"
        )
    document = {
        "run": run,
        "corpora": {
            agent: {"bytes": size, "seconds": best[agent], "peak_rss_bytes": rss[agent]}
            for agent, (_, size) in corpora.items()
        },
        "ratios": ratios,
        "target_ratio": TARGET_RATIO,
    }
    save(args.out, "agents_throughput.json", document, "\n".join(lines))
    return 0 if all(r <= TARGET_RATIO for r in ratios.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
