"""Restart matrix on the real daemon: stops, kill -9, rotation,
copytruncate, deletion, a corrupt state and a second instance. Each scenario runs ``omkd run``
as a subprocess (``DaemonProcess``) over real transcripts copied into a temporary root plus
hand-made sessions, changes the files while the daemon runs or is stopped, then compares
``/api/v1/status`` with ``omkd scan --json`` over the files a clean pass must see: those under
the root plus, where a scenario moved content out of the glob (``x.jsonl.1`` after copytruncate
or rotation) or deleted a file whose records were already read, that content. Synchronisation
is by observation only: the daemon has exported as many complete lines as the clean pass
holds, and reports no lag.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import threading
from functools import partial
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from click.testing import CliRunner

from omkd.cli import main
from omkd.testing import DaemonProcess
from tests.transcript_builder import Transcript

pytestmark = pytest.mark.slow

FIXTURES: Final = (
    "iansherr__claude-code-log/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl",
    "d-kimuson__claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "iansherr__claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a52886dc180afb356.jsonl",
)
"""Real transcripts with failed searches, runs of them, a sub-agent stream."""
BIG_FIXTURES: Final = (
    "d-kimuson__claude-code-viewer/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl",
)
"""Large real transcripts (0.8-0.9 MB), appended in random chunks while the daemon is killed."""
SHOP_SESSION: Final = "6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11"
TUNING: Final = {
    "state": 'checkpoint_interval = "50ms"\ncheckpoint_bytes = "32KiB"\n',
    "tail": 'rescan_interval = "2s"\n',
}
"""Frequent checkpoints, so that kills land before, between and after them."""


# --- files ----------------------------------------------------------------------------------------


class Session:
    """A hand-made Claude Code session appended to its file record by record."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.transcript = Transcript(session_id=session_id)
        self.written = 0
        path.parent.mkdir(parents=True, exist_ok=True)

    def work(self, exchanges: int) -> Session:
        """Queue ``exchanges`` realistic exchanges: a prompt, a skill, searches that miss or hit."""
        t = self.transcript
        for _ in range(exchanges):
            k = len(t.records)
            t.prompt(f"Étape {k} : où est le runbook du déploiement ? 推断一下")
            t.skill(("deploy", "db-migrate")[k % 2])
            t.glob_miss(f"docs/**/runbook-{k % 3}.md")
            if k % 2:
                t.say("I'm not sure which runbook applies here — 我不确定.")
            t.glob_hit("src/**/*.py")
            if k % 3 == 0:
                t.read_missing("/home/dev/shop/docs/déploiement.md")
        return self

    def pending(self) -> bytes:
        """The queued records as file bytes."""
        records = self.transcript.records[self.written :]
        return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)

    def flush(self) -> bytes:
        """Append the queued records; returns the bytes written."""
        data = self.pending()
        self.written = len(self.transcript.records)
        append(self.path, data)
        return data


def shop_session(root: Path) -> Session:
    """The main session of a project, as Claude Code names its file: by session id."""
    return Session(root / "-home-dev-shop" / f"{SHOP_SESSION}.jsonl", SHOP_SESSION)


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def append_all(chunks: list[tuple[Path, bytes]]) -> None:
    for path, chunk in chunks:
        append(path, chunk)


def copy_fixtures(real_fixtures: Path, root: Path, names: tuple[str, ...] = FIXTURES) -> list[Path]:
    copied = []
    for relative in names:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real_fixtures / relative, target)
        copied.append(target)
    return copied


def transcripts(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


# --- the daemon and the clean pass -----------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "root").mkdir()
    return tmp_path


def daemon_for(workdir: Path) -> DaemonProcess:
    """A daemon over ``workdir/root`` with frequent checkpoints."""
    daemon = DaemonProcess(workdir, [workdir / "root"])
    daemon.write_config()
    text = daemon.config_path.read_text()
    text = text.replace("[state]\n", "[state]\n" + TUNING["state"], 1) + "[tail]\n" + TUNING["tail"]
    daemon.config_path.write_text(text)
    return daemon


def scan(workdir: Path, files: list[Path]) -> dict[str, Any]:
    """``omkd scan --json`` over exactly these files: the clean pass."""
    result = CliRunner().invoke(main, ["scan", "--json", "--home", str(workdir / "home"), *map(str, files)])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = orjson.loads(result.stdout)
    return document


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The figures both must agree on.

    Left out: ``open_segments`` (the daemon's streams are open, scan closes them), the
    pipeline (compared on its own), the roots, gap ``stream`` and ``file`` names (a rotated file
    is read as ``x.jsonl.1`` by scan, which is given files, not the roots) and ``window_from``
    (the daemon's window starts at now minus its length, scan's at the first segment).
    """

    def health(entry: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in entry.items() if k != "open_segments"}

    watermark = report["watermark"]
    return {
        "overall": health(report["overall"]),
        "skills": [health(s) for s in report["skills"]],
        "gaps": [{k: v for k, v in g.items() if k not in ("stream", "file")} for g in report["gaps"]],
        "top_failed_searches": report["top_failed_searches"],
        "watermark": {k: watermark[k] for k in ("window_to", "sessions", "segments", "fingerprint", "statement")},
    }


def settle(daemon: DaemonProcess, lines: int) -> dict[str, float]:
    """Wait until the daemon has folded and checkpointed ``lines`` complete lines (what
    ``omkd_lines_total`` exports) and has nothing left to read."""
    seen: dict[str, float] = {}

    def folded() -> bool:
        nonlocal seen
        seen = daemon.metrics()
        return (
            seen.get("omkd_lines_total", -1) >= lines
            and seen.get("omkd_lag_bytes") == 0
            and seen.get("omkd_replaying") == 0
        )

    daemon.wait_for(folded, f"{lines} lines folded")
    return seen


def read_at_least(daemon: DaemonProcess, count: int) -> bool:
    return daemon.metrics().get("omkd_read_bytes_total", 0) >= count


def assert_one_clean_pass(daemon: DaemonProcess, workdir: Path, files: list[Path]) -> dict[str, Any]:
    """The daemon's status equals ``omkd scan`` over ``files``: no record lost, none counted twice."""
    expected = scan(workdir, files)
    settle(daemon, expected["pipeline"]["lines"])
    status: dict[str, Any] = daemon.get("/api/v1/status")
    assert comparable(status) == comparable(expected)
    assert (status["pipeline"]["lines"], status["pipeline"]["records"]) == (
        expected["pipeline"]["lines"],
        expected["pipeline"]["records"],
    )
    assert status["pipeline"]["bad_lines"] == expected["pipeline"]["bad_lines"]
    assert expected["overall"]["segments"] > 0
    return status


# --- the matrix --------------------------------------------------------------------------------------


def test_clean_stop_and_start_with_appends_between(workdir: Path, real_fixtures: Path) -> None:
    """SIGTERM and start again, with appends and a new file while stopped: one clean pass."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root)
    shop = shop_session(root)
    shop.work(3).flush()
    with daemon_for(workdir) as daemon:
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        for round_ in range(2):
            assert daemon.stop() == 0
            shop.work(2).flush()
            later = Session(
                root / "-home-dev-api" / f"0b3c4d5e-1111-4222-8333-94445555000{round_}.jsonl",
                f"0b3c4d5e-1111-4222-8333-94445555000{round_}",
            )
            later.work(2).flush()
            daemon.start()
            assert_one_clean_pass(daemon, workdir, transcripts(root))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_while_appending(workdir: Path, real_fixtures: Path, seed: int) -> None:
    """kill -9 at random moments while transcripts grow in random chunks: nothing lost, nothing twice."""
    rng = random.Random(seed)  # noqa: S311 (reproducible test data, not cryptography)
    root = workdir / "root"
    copy_fixtures(real_fixtures, root, FIXTURES[:2])
    sources: list[tuple[Path, bytes]] = [
        (root / relative, (real_fixtures / relative).read_bytes()) for relative in BIG_FIXTURES
    ]
    shop = shop_session(root)
    sources.append((shop.path, shop.work(40).pending()))
    # Every file grows in chunks of random size (cutting lines and characters anywhere), in
    # file order; the files' chunks are interleaved at random.
    pieces: dict[Path, list[bytes]] = {}
    for path, data in sources:
        path.parent.mkdir(parents=True, exist_ok=True)
        cuts = sorted({0, len(data), *(rng.randrange(len(data)) for _ in range(60))})
        pieces[path] = [data[a:b] for a, b in itertools.pairwise(cuts)][::-1]
    turns = [path for path, chunks in pieces.items() for _ in chunks]
    rng.shuffle(turns)
    schedule = [(path, pieces[path].pop()) for path in turns]

    position = 0
    with daemon_for(workdir) as daemon:
        daemon.start()
        for _ in range(3):
            end = position + rng.randint(1, (len(schedule) - position) // 3)
            round_chunks = schedule[position:end]
            position = end
            round_bytes = sum(len(c) for _, c in round_chunks)
            threshold = rng.randint(1, round_bytes)

            writer = threading.Thread(target=append_all, args=(round_chunks,))
            writer.start()
            try:
                daemon.wait_for(partial(read_at_least, daemon, threshold), f"{threshold} bytes read")
                exported = daemon.metrics()["omkd_lines_total"]
                daemon.kill()
            finally:
                writer.join()
            daemon.start()
            # An exported counter never goes back across a kill (Prometheus would see a reset).
            assert daemon.metrics()["omkd_lines_total"] >= exported
        append_all(schedule[position:])
        for path, data in sources:
            assert path.read_bytes() == data
        assert_one_clean_pass(daemon, workdir, transcripts(root))


def test_partial_line_completed_across_a_restart_is_folded_once(workdir: Path, real_fixtures: Path) -> None:
    """A line half written (cut inside a multi-byte character) when omkd stops is folded once, when complete."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root, FIXTURES[:1])
    shop = shop_session(root)
    shop.work(2).flush()
    shop.transcript.prompt("Vérifie le déploiement, puis 推断一下 la cause")
    line = shop.pending()
    cut = line.index("推".encode()) + 1  # inside the three bytes of 推
    append(shop.path, line[:cut])
    on_disk = sum(p.stat().st_size for p in transcripts(root))
    with daemon_for(workdir) as daemon:
        daemon.start()
        daemon.wait_for(lambda: daemon.metrics().get("omkd_read_bytes_total") == on_disk, "the partial line read")
        assert daemon.stop() == 0
        append(shop.path, line[cut:])
        shop.written = len(shop.transcript.records)
        shop.work(1).flush()
        daemon.start()
        status = assert_one_clean_pass(daemon, workdir, transcripts(root))
    assert status["pipeline"]["bad_lines"] == {}


def test_partial_line_completed_after_its_parser_was_evicted_is_folded_once(workdir: Path, real_fixtures: Path) -> None:
    """A short line read half written, its parser evicted (max_open_files = 1), then completed: folded once,
    also after a restart."""
    root = workdir / "root"
    (fixture,) = copy_fixtures(real_fixtures, root, FIXTURES[:1])
    shop = shop_session(root)
    shop.work(1).flush()
    short = b'{"type":"turn.started"}\n'  # a real JSONL record shorter than the 64-byte offset marker
    append(shop.path, short[:9])
    daemon = daemon_for(workdir)
    text = daemon.config_path.read_text().replace("[tail]\n", "[tail]\nmax_open_files = 1\n", 1)
    daemon.config_path.write_text(text)
    with daemon:
        daemon.start()
        read = sum(p.stat().st_size for p in transcripts(root))
        daemon.wait_for(partial(read_at_least, daemon, read), "the half-written line read")
        # The fixture grows: read last, it keeps the one parser slot; the session's is evicted.
        addition = Session(fixture, "0b3c4d5e-1111-4222-8333-944455556666").work(1).pending()
        append(fixture, addition)
        settle(daemon, sum(p.read_bytes().count(b"\n") for p in transcripts(root)))
        append(shop.path, short[9:])
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        assert daemon.stop() == 0
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))


def test_copytruncate_while_stopped(workdir: Path, real_fixtures: Path) -> None:
    """x.jsonl copied to x.jsonl.1 and truncated while stopped: the old records stay, the new ones are read from 0."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root)
    shop = shop_session(root)
    shop.work(3).flush()
    rotated = shop.path.with_name(shop.path.name + ".1")
    with daemon_for(workdir) as daemon:
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        assert daemon.stop() == 0
        shutil.copyfile(shop.path, rotated)
        os.truncate(shop.path, 0)
        fresh = Session(shop.path, "0b3c4d5e-1111-4222-8333-944455556666")
        fresh.work(1).flush()
        daemon.start()
        assert_one_clean_pass(daemon, workdir, [*transcripts(root), rotated])


def test_rename_rotation_while_stopped(workdir: Path, real_fixtures: Path) -> None:
    """x.jsonl renamed to x.jsonl.1 while stopped, after more lines: the rotated file is drained, the new one read."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root)
    shop = shop_session(root)
    shop.work(2).flush()
    rotated = shop.path.with_name(shop.path.name + ".1")
    with daemon_for(workdir) as daemon:
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        assert daemon.stop() == 0
        shop.work(2).flush()  # written after the stop, before the rename: only the drain can see it
        live = shop.path
        live.rename(rotated)
        shop.path = live  # the session goes on in a new x.jsonl
        shop.work(1).flush()
        daemon.start()
        assert_one_clean_pass(daemon, workdir, [*transcripts(root), rotated])


def test_file_deleted_while_stopped_stays_counted(workdir: Path, real_fixtures: Path) -> None:
    """A transcript deleted while stopped (cleanupPeriodDays) keeps the records already read."""
    root = workdir / "root"
    deleted, *_ = copy_fixtures(real_fixtures, root)
    kept = workdir / "deleted-copy.jsonl"
    with daemon_for(workdir) as daemon:
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        assert daemon.stop() == 0
        shutil.copyfile(deleted, kept)
        deleted.unlink()
        shop = shop_session(root)
        shop.work(1).flush()
        daemon.start()
        assert_one_clean_pass(daemon, workdir, [*transcripts(root), kept])


def test_corrupt_state_is_moved_aside_and_everything_read_again(workdir: Path, real_fixtures: Path) -> None:
    """A state file overwritten with garbage is moved aside with a log line naming it; the figures come back whole."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root)
    garbage = os.urandom(8192)
    with daemon_for(workdir) as daemon:
        daemon.start()
        assert_one_clean_pass(daemon, workdir, transcripts(root))
        assert daemon.stop() == 0
        (daemon.state_dir / "state.db").write_bytes(garbage)
        daemon.start()
        moved = daemon.wait_log_event("state_moved_aside")
        unreadable = daemon.wait_log_event("state_was_unreadable")
        assert moved["moved_to"] == unreadable["moved_to"]
        assert Path(moved["moved_to"]).read_bytes() == garbage
        assert_one_clean_pass(daemon, workdir, transcripts(root))


def test_second_daemon_on_the_same_state_exits_naming_it(workdir: Path, real_fixtures: Path) -> None:
    """A second omkd on a state directory in use exits non-zero and names the directory; the first runs on."""
    root = workdir / "root"
    copy_fixtures(real_fixtures, root, FIXTURES[:1])
    other = workdir / "second"
    other.mkdir()
    with daemon_for(workdir) as first, DaemonProcess(other, [root]) as second:
        first.start()
        second.state_dir = first.state_dir
        second.write_config()
        second.start(wait_ready=False)
        assert second.process is not None
        code = second.process.wait(30)
        second.process = None
        assert code != 0
        assert str(first.state_dir) in second.log_text()
        assert first.get("/readyz", raw=True) == b"ready\n"
        assert_one_clean_pass(first, workdir, transcripts(root))
