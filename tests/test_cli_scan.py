"""``omkd scan`` end to end: exit codes, JSON, window, skill filter, gates and baselines (README).

Transcripts are written by hand into ``tmp_path``; each skill segment is a typed prompt, a
``Skill`` call and its result, and one Glob call whose result is a miss ("No files found",
numFiles 0) or a hit, sometimes preceded by a hedging sentence. Expected rates are worked
out by hand from those recipes.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from omkd.cli import main
from tests import claude_lines as cl

WATERMARK_STATEMENT = (
    "These figures describe only the traces observed in this window; "
    "they do not measure the completeness of the knowledge base."
)
TOP_LEVEL_KEYS = {
    "schema_version",
    "conventions",
    "reproducibility",
    "watermark",
    "overall",
    "skills",
    "top_failed_searches",
    "gaps",
    "pipeline",
    "gate_failures",
}

_calls = itertools.count(1)


def skill_segment(skill: str, outcome: str, timestamp: str = cl.TS) -> list[cl.Record]:
    """One segment of ``skill``: prompt, Skill call, then a Glob that misses or hits ("hedge": hit + hedging text)."""
    n = next(_calls)
    records = [
        cl.user(f"task number {n}", timestamp),
        cl.tool_use(f"toolu_s{n}", "Skill", {"skill": skill}, f"msg_s{n}", timestamp),
        cl.tool_result(
            f"toolu_s{n}", f"Launching skill: {skill}", {"success": True, "commandName": skill}, timestamp=timestamp
        ),
    ]
    if outcome == "hedge":
        records.append(cl.text("I'm not sure which config file applies here.", f"msg_t{n}", timestamp))
    pattern = f"docs/**/missing-{n}.md" if outcome == "miss" else "src/**/*.py"
    records.append(cl.tool_use(f"toolu_g{n}", "Glob", {"pattern": pattern}, f"msg_g{n}", timestamp))
    if outcome == "miss":
        records.append(cl.tool_result(f"toolu_g{n}", "No files found", cl.GLOB_EMPTY, timestamp=timestamp))
    else:
        records.append(
            cl.tool_result(f"toolu_g{n}", "/p/src/app.py", cl.glob_hit("/p/src/app.py"), timestamp=timestamp)
        )
    return records


def transcript(path: Path, plan: list[tuple[str, str]], timestamp: str = cl.TS) -> Path:
    """Write one session file whose segments follow ``plan`` (skill, outcome), in order."""
    records = [record for skill, outcome in plan for record in skill_segment(skill, outcome, timestamp)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cl.jsonl(records))
    return path


# alpha: 5 segments, 2 misses        -> gap rate 2/5 = 0.4, weighted (1.0 + 1.0) / 5 = 0.4, confidence low
# beta:  5 segments, 1 hedging only  -> gap rate 1/5 = 0.2, weighted 0.5 / 5 = 0.1,          confidence low
# gamma: 1 segment, 1 miss           -> gap rate 1.0, weighted 1.0, underpowered (< 5 segments): never gated
GATES_PLAN = [
    *[("alpha", o) for o in ("miss", "miss", "hit", "hit", "hit")],
    *[("beta", o) for o in ("hedge", "hit", "hit", "hit", "hit")],
    ("gamma", "miss"),
]
# alpha again, now with 3 misses in 5 segments -> gap rate 0.6 (a rise of 0.2); beta and gamma unchanged.
WORSE_PLAN = [
    *[("alpha", o) for o in ("miss", "miss", "miss", "hit", "hit")],
    *[("beta", o) for o in ("hedge", "hit", "hit", "hit", "hit")],
    ("gamma", "miss"),
]


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["scan", *(str(a) for a in args)])


def scan_json(*args: str | Path) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def rates(document: dict[str, Any]) -> dict[str, tuple[int, float, float, str]]:
    return {
        s["skill"]: (s["segments"], s["gap_rate"], s["weighted_gap_rate"], s["confidence"]) for s in document["skills"]
    }


def gate_lines(text: str) -> list[str]:
    """Lines like ``gate failed: alpha: gap_rate 40.0 % exceeds 30.0 %``."""
    return [line for line in text.splitlines() if line.startswith("gate failed")]


def failing_skills(lines: list[str]) -> list[str]:
    return [line.split(": ")[1] for line in lines]


def skill_table_rows(text: str) -> list[str]:
    """First-column cells of the "Skill health" table's body rows (rich box drawing)."""
    table = text.split("└", maxsplit=1)[0]
    return [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]


@pytest.fixture
def gates_file(tmp_path: Path) -> Path:
    return transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty home: no user-level knowledge leaks in from the machine running the tests."""
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_hand_made_figures(gates_file: Path, home: Path) -> None:
    """The hand-made transcript gives the rates worked out by hand."""
    document = scan_json(gates_file, "--home", home)
    assert rates(document) == {
        "alpha": (5, 0.4, 0.4, "low"),
        "beta": (5, 0.2, 0.1, "low"),
        "gamma": (1, 1.0, 1.0, "underpowered"),
    }
    # 11 segments; the general stretches before each Skill call hold only a prompt, so they do not count.
    assert (
        document["overall"]["segments"],
        document["overall"]["gap_segments"],
        document["overall"]["by_type"]["failed_search"],
    ) == (11, 4, 3)


def test_exit_0_on_real_fixtures(real_fixtures: Path, home: Path) -> None:
    """Scanning the real fixture directory succeeds and reports what it read."""
    result = run(real_fixtures, "--home", home)
    assert (result.exit_code, "Skill health" in result.stdout) == (0, True)


def test_codex_and_gemini_files_are_read_as_their_agents(real_fixtures: Path, home: Path) -> None:
    """Gemini ``.json`` documents and Codex rollouts and ``exec --json`` streams: each agent's rows.

    6 Gemini sessions with replies (one segment each); 5 Codex rollouts and 6 exec streams, of
    which ``stream-output-multi-1`` stops after ``turn.started`` (no reply, no segment)."""
    agentcmd = real_fixtures / "jnarowski__agentcmd"
    files = sorted((agentcmd / "gemini").rglob("*.json")) + sorted((agentcmd / "codex").rglob("*.jsonl"))
    document = scan_json(*files, "--home", home)
    rows = {(s["skill"], s["agent"]): s["segments"] for s in document["skills"]}
    assert (len(files), document["pipeline"]["files"], rows) == (
        17,
        17,
        {("general", "codex"): 10, ("general", "gemini"): 6},
    )
    assert document["pipeline"]["bad_lines"] == {}


def test_json_has_schema_version_and_documented_keys(real_fixtures: Path, home: Path) -> None:
    """``--json`` prints one object with ``schema_version`` 1 and the README's top-level keys."""
    document = scan_json(real_fixtures, "--home", home)
    assert (document["schema_version"], set(document)) == (1, TOP_LEVEL_KEYS)


def test_json_watermark_carries_the_statement(gates_file: Path, home: Path) -> None:
    """The JSON watermark names roots, window, sessions, segments, fingerprint and the watermark sentence."""
    watermark = scan_json(gates_file, "--home", home)["watermark"]
    assert {"roots", "window_from", "window_to", "sessions", "segments", "fingerprint", "statement"} <= set(watermark)
    # All records of the file are at 2026-01-01T00:00:00.000Z, in one session.
    actual = (watermark["roots"], watermark["window_from"], watermark["sessions"], watermark["segments"])
    assert actual == ([str(gates_file)], "2026-01-01T00:00:00.000Z", 1, 11)
    assert watermark["statement"] == WATERMARK_STATEMENT


def test_text_report_carries_the_watermark_statement(gates_file: Path, home: Path) -> None:
    """The terminal report shows the watermark sentence next to the rates."""
    result = run(gates_file, "--home", home)
    assert (result.exit_code, WATERMARK_STATEMENT in " ".join(result.stdout.split())) == (0, True)


def test_real_subprocess_json(real_fixtures: Path, home: Path) -> None:
    """``python -m omkd scan --json`` as a real process exits 0 and prints the documented object."""
    completed = subprocess.run(
        [sys.executable, "-m", "omkd", "scan", str(real_fixtures), "--json", "--home", str(home)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    document = json.loads(completed.stdout)
    assert (completed.returncode, document["schema_version"], set(document)) == (0, 1, TOP_LEVEL_KEYS)


def test_missing_path_exits_2_naming_it(tmp_path: Path, home: Path) -> None:
    """A path that does not exist is an input error: exit 2, and the message names the path."""
    missing = tmp_path / "no-such-dir" / "session.jsonl"
    result = run(missing, "--home", home)
    assert (result.exit_code, str(missing) in result.stderr) == (2, True), result.stderr


def test_missing_path_exits_2_naming_it_in_a_real_process(tmp_path: Path, home: Path) -> None:
    """The same from a real process: exit 2 and the path, whole, on stderr."""
    missing = tmp_path / "no-such-dir" / "session.jsonl"
    completed = subprocess.run(
        [sys.executable, "-m", "omkd", "scan", str(missing), "--home", str(home)],
        capture_output=True,
        check=False,
        timeout=60,
        text=True,
    )
    assert (completed.returncode, str(missing) in completed.stderr) == (2, True), completed.stderr


@pytest.mark.parametrize("value", ["yesterday", "7 days", "2026-13-01", "d7"])
def test_bad_since_exits_2(gates_file: Path, home: Path, value: str) -> None:
    """A ``--since`` that is neither ISO-8601 nor an age is bad usage: exit 2 naming the option."""
    result = run(gates_file, "--since", value, "--home", home)
    assert (result.exit_code, "--since" in result.stderr) == (2, True)


def test_bad_until_exits_2(gates_file: Path, home: Path) -> None:
    """A bad ``--until`` is bad usage too."""
    result = run(gates_file, "--until", "soon", "--home", home)
    assert (result.exit_code, "--until" in result.stderr) == (2, True)


def iso_z(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture
def dated_files(tmp_path: Path) -> Path:
    """Two sessions: skill ``old`` on 2001-01-01 (1 segment) and skill ``recent`` one hour ago (2 segments)."""
    root = tmp_path / "dated"
    transcript(root / "old.jsonl", [("old", "miss")], "2001-01-01T00:00:00.000Z")
    transcript(root / "recent.jsonl", [("recent", "hit"), ("recent", "miss")], iso_z(time.time() - 3600))
    return root


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        pytest.param([], {"old": 1, "recent": 2}, id="no-window"),
        pytest.param(["--since", "7d"], {"recent": 2}, id="since-age"),
        pytest.param(["--until", "7d"], {"old": 1}, id="until-age"),
        pytest.param(["--since", "2000-06-01", "--until", "2001-06-01"], {"old": 1}, id="iso-dates"),
        pytest.param(["--since", "2001-01-01T00:00:00Z"], {"old": 1, "recent": 2}, id="since-is-inclusive"),
        pytest.param(["--until", "2001-01-01T00:00:00Z"], {}, id="until-is-exclusive"),
        pytest.param(["--since", "2999-01-01"], {}, id="far-future"),
        pytest.param(["--until", "1990-01-01T00:00:00+00:00"], {}, id="far-past"),
    ],
)
def test_since_until_keep_segments_starting_in_the_window(
    dated_files: Path, home: Path, window: list[str], expected: dict[str, int]
) -> None:
    """``--since``/``--until`` keep the segments that start in ``[since, until)``, ISO or age."""
    document = scan_json(dated_files, *window, "--home", home)
    assert {s["skill"]: s["segments"] for s in document["skills"]} == expected


def test_skill_option_filters_rows(gates_file: Path, home: Path) -> None:
    """``--skill NAME`` (repeatable) reports only those skills; the overall row still covers everything."""
    document = scan_json(gates_file, "--skill", "beta", "--skill", "gamma", "--home", home)
    assert (sorted(s["skill"] for s in document["skills"]), document["overall"]["segments"]) == (["beta", "gamma"], 11)


def test_skill_option_filters_text_rows(gates_file: Path, home: Path) -> None:
    """In the terminal table too, only the chosen skill has a row."""
    result = run(gates_file, "--skill", "beta", "--home", home)
    assert (result.exit_code, skill_table_rows(result.stdout)) == (0, ["beta", "overall"])


def test_skill_option_filters_failed_searches_and_gaps(gates_file: Path, home: Path) -> None:
    """README: ``--skill`` reports only these skills, so the failed-search patterns and gaps are theirs alone."""
    document = scan_json(gates_file, "--skill", "beta", "--home", home)
    # beta's only signal is one hedging sentence; alpha's and gamma's Glob misses are not beta's.
    assert (
        document["top_failed_searches"],
        sorted({gap["skill"] for gap in document["gaps"]}),
    ) == ([], ["beta"])


def test_max_gap_rate_fails_offending_skill(gates_file: Path, home: Path) -> None:
    """``--max-gap-rate 0.3``: alpha (0.4) fails, beta (0.2) passes, gamma (1.0, underpowered) is not gated."""
    result = run(gates_file, "--max-gap-rate", "0.3", "--home", home)
    assert (result.exit_code, failing_skills(gate_lines(result.stdout))) == (1, ["alpha"])


def test_max_gap_rate_json_lists_gate_failures(gates_file: Path, home: Path) -> None:
    """With ``--json`` the gate failures are in the document and printed on stderr; exit 1."""
    result = run(gates_file, "--max-gap-rate", "0.3", "--json", "--home", home)
    failures = json.loads(result.stdout)["gate_failures"]
    assert (
        result.exit_code,
        [(f["skill"], f["gate"], f["value"], f["limit"]) for f in failures],
    ) == (1, [("alpha", "gap_rate", 0.4, 0.3)])
    assert failing_skills(gate_lines(result.stderr)) == ["alpha"]


def test_underpowered_skill_never_fails_a_gate(gates_file: Path, home: Path) -> None:
    """``--max-gap-rate 0.5``: only gamma (1 segment, rate 1.0) exceeds it, and it is underpowered: exit 0."""
    result = run(gates_file, "--max-gap-rate", "0.5", "--max-weighted-gap-rate", "0.5", "--home", home)
    assert (result.exit_code, gate_lines(result.stdout)) == (0, [])


def test_max_weighted_gap_rate_fails_on_the_weighted_rate(gates_file: Path, home: Path) -> None:
    """``--max-weighted-gap-rate 0.15``: alpha (0.4) fails; beta passes (gap rate 0.2, but weighted only 0.1)."""
    result = run(gates_file, "--max-weighted-gap-rate", "0.15", "--json", "--home", home)
    failures = json.loads(result.stdout)["gate_failures"]
    assert (result.exit_code, [(f["skill"], f["gate"]) for f in failures]) == (1, [("alpha", "weighted_gap_rate")])


def test_baseline_regression_gate(tmp_path: Path, gates_file: Path, home: Path) -> None:
    """After ``--save-baseline``, a rise of alpha's rate from 0.4 to 0.6 fails ``--gap-rate-regression 0.1``."""
    baseline = tmp_path / "baseline.json"
    saved = run(gates_file, "--save-baseline", baseline, "--home", home)
    worse = transcript(tmp_path / "later" / f"{cl.SESSION}.jsonl", WORSE_PLAN)
    result = run(worse, "--baseline", baseline, "--gap-rate-regression", "0.1", "--home", home)
    failed = gate_lines(result.stdout)
    assert (saved.exit_code, result.exit_code, failing_skills(failed)) == (0, 1, ["alpha"])
    assert "gap_rate_rise" in failed[0]


@pytest.mark.parametrize(
    ("later_plan", "allowed_rise"),
    [
        pytest.param(WORSE_PLAN, "0.25", id="rise-0.2-within-0.25"),
        pytest.param(GATES_PLAN, "0", id="unchanged-with-zero-allowance"),
    ],
)
def test_baseline_regression_passes_when_within_allowance(
    tmp_path: Path, gates_file: Path, home: Path, later_plan: list[tuple[str, str]], allowed_rise: str
) -> None:
    """No skill's rate rose by more than D: the regression gate passes with exit 0."""
    baseline = tmp_path / "baseline.json"
    saved = run(gates_file, "--save-baseline", baseline, "--home", home)
    later = transcript(tmp_path / "later" / f"{cl.SESSION}.jsonl", later_plan)
    result = run(later, "--baseline", baseline, "--gap-rate-regression", allowed_rise, "--home", home)
    assert (saved.exit_code, result.exit_code, gate_lines(result.stdout)) == (0, 0, [])


def test_saved_baseline_holds_per_skill_rates(tmp_path: Path, gates_file: Path, home: Path) -> None:
    """The saved baseline holds each skill's gap rate."""
    baseline = tmp_path / "baseline.json"
    run(gates_file, "--save-baseline", baseline, "--home", home)
    skills = json.loads(baseline.read_text())["skills"]
    assert {name: entry["gap_rate"] for name, entry in skills.items()} == {"alpha": 0.4, "beta": 0.2, "gamma": 1.0}


def test_a_baseline_of_other_rules_is_marked_not_comparable(tmp_path: Path, gates_file: Path, home: Path) -> None:
    """A baseline keeps the rules hash it was computed by: the same rules are comparable; a baseline
    whose hash differs (as after a rules change) is marked ``baseline_comparable: false`` and warned
    about in the terminal view; one saved before the hash existed is ``null``."""
    baseline = tmp_path / "baseline.json"
    run(gates_file, "--save-baseline", baseline, "--home", home)
    saved = json.loads(baseline.read_text())
    same = json.loads(run(gates_file, "--baseline", baseline, "--json", "--home", home).stdout)
    other = tmp_path / "other-rules.json"
    other.write_text(json.dumps({**saved, "reproducibility": {**saved["reproducibility"], "rules_hash": "0" * 12}}))
    differs = run(gates_file, "--baseline", other, "--json", "--home", home)
    older = tmp_path / "older.json"
    older.write_text(json.dumps({k: v for k, v in saved.items() if k != "reproducibility"}))
    unknown = json.loads(run(gates_file, "--baseline", older, "--json", "--home", home).stdout)
    terminal = run(gates_file, "--baseline", other, "--home", home).stdout
    assert saved["reproducibility"]["rules_hash"] == same["reproducibility"]["rules_hash"]
    assert (same["baseline_comparable"], json.loads(differs.stdout)["baseline_comparable"]) == (True, False)
    assert (unknown["baseline_comparable"], "rules hash differs" in differs.stderr) == (None, True)
    assert "rules hash differs" in terminal.replace("\n", " ")


def test_terminal_footer_says_what_computed_the_figures(gates_file: Path, home: Path) -> None:
    """The footer names omkd's version, the rules hash and the judge of the JSON's ``reproducibility``."""
    audit = json.loads(run(gates_file, "--json", "--home", home).stdout)["reproducibility"]
    footer = run(gates_file, "--home", home).stdout
    assert f"rules {audit['rules_hash']}" in footer
    assert f"judge {audit['judge']}" in footer
    assert audit["methods"]["rate_interval"] in footer


def test_missing_kb_dir_exits_2_naming_it(tmp_path: Path, gates_file: Path, home: Path) -> None:
    """``--kb`` pointing at a missing directory is bad usage: exit 2, naming the directory."""
    missing = tmp_path / "no-such-knowledge"
    result = run(gates_file, "--kb", missing, "--home", home)
    assert (result.exit_code, str(missing) in result.stderr) == (2, True), result.stderr


def test_regression_without_baseline_is_bad_usage(gates_file: Path, home: Path) -> None:
    """``--gap-rate-regression`` without ``--baseline`` is bad usage: exit 2."""
    result = run(gates_file, "--gap-rate-regression", "0.1", "--home", home)
    assert (result.exit_code, "--baseline" in result.stderr) == (2, True)


def test_gates_say_how_many_skills_they_gated(gates_file: Path, home: Path) -> None:
    """alpha and beta (5 segments each) are gated, gamma (1) is underpowered: said on stderr."""
    result = run(gates_file, "--max-gap-rate", "0.9", "--home", home)
    assert (result.exit_code, "gates: 2 skills gated, 1 underpowered (< 5 segments) not gated" in result.stderr) == (
        0,
        True,
    )


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param(lambda tmp: [tmp / "empty"], id="no-files"),
        pytest.param(lambda tmp: [tmp / "projects", "--skill", "gamma"], id="only-underpowered"),
        pytest.param(lambda tmp: [tmp / "bad.jsonl"], id="only-bad-lines"),
    ],
)
def test_gates_over_no_evidence_exit_3_unless_allowed(
    tmp_path: Path, gates_file: Path, home: Path, inputs: Any
) -> None:
    """Gates asked for and nothing to gate (no files, only underpowered skills, a file of bad
    lines): exit 3 saying so; ``--allow-empty`` makes it 0. (An unknown skill is a usage error,
    exit 2: ``tests/test_views_small.py``, issue 29 item 8.)"""
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.jsonl").write_bytes(b"not json\n" * 774)
    paths = inputs(tmp_path)
    refused = run(*paths, "--max-gap-rate", "0.1", "--home", home)
    allowed = run(*paths, "--max-gap-rate", "0.1", "--allow-empty", "--home", home)
    assert (refused.exit_code, "nothing was gated" in refused.stderr, allowed.exit_code) == (3, True, 0)


def test_excluded_skills_are_reported_but_not_gated(gates_file: Path, home: Path) -> None:
    """``--exclude-skill alpha``: alpha (gap rate 40 %) no longer fails a 30 % gate, and is still in the report."""
    failing = run(gates_file, "--max-gap-rate", "0.3", "--home", home)
    excluded = run(gates_file, "--max-gap-rate", "0.3", "--exclude-skill", "alpha", "--json", "--home", home)
    skills = [s["skill"] for s in json.loads(excluded.stdout)["skills"]]
    assert (failing.exit_code, excluded.exit_code, "alpha" in skills) == (1, 0, True)


@pytest.mark.parametrize(("since", "segments"), [("1h30m", 0), ("20000d", 11), ("9000d12h", 11)])
def test_since_takes_compound_ages(gates_file: Path, home: Path, since: str, segments: int) -> None:
    """``--since 1h30m`` is an age like any other (the transcript is from 2026-01-01)."""
    result = run(gates_file, "--since", since, "--json", "--home", home)
    assert (result.exit_code, json.loads(result.stdout)["overall"]["segments"]) == (0, segments)


def test_scan_without_path_reads_the_default_roots(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No PATH: ``$CLAUDE_CONFIG_DIR/projects`` (and the usual places) are read; none there: exit 2
    naming where it looked."""
    config_dir = tmp_path / "claude-config"
    transcript(config_dir / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    found = run("--json", "--home", home)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    missing = run("--home", home)
    assert (found.exit_code, json.loads(found.stdout)["overall"]["segments"]) == (0, 11)
    assert (missing.exit_code, ".claude/projects" in missing.stderr) == (2, True)


def test_bare_omkd_prints_its_help() -> None:
    result = CliRunner().invoke(main, [])
    assert (result.exit_code, "Commands:" in result.output) == (0, True)


def test_a_scan_whose_segments_are_all_outside_the_window_says_so(gates_file: Path, home: Path) -> None:
    """Old history only: the table would show an empty overall row; a warning says why and what to do."""
    result = run(gates_file, "--since", "2026-06-01", "--home", home)
    text = " ".join(result.stdout.split())
    assert (result.exit_code, "11 segments read, all outside the window" in text) == (0, True)
    # the transcript is of 2026-01-01: the warning says how far back the history is
    assert "newest event 2026-01-01" in text
    document = json.loads(run(gates_file, "--since", "2026-06-01", "--json", "--home", home).stdout)
    assert document["pipeline"]["newest_outside_window"].startswith("2026-01-01")


def test_scan_without_path_reads_every_agents_default_roots(
    real_fixtures: Path, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No PATH: Claude Code's, Codex's (``$CODEX_HOME/sessions``) and Gemini's (``~/.gemini/tmp``)
    session folders are all read, each file as its own agent's; ``--agent`` keeps one agent's rows."""
    user = tmp_path / "user"
    transcript(user / ".claude" / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)
    codex_home = tmp_path / "codex-home"
    rollout = (
        real_fixtures
        / "Xu-Wentao__dotfile/2026/04/08/rollout-2026-04-08T22-02-46-019d6d67-1952-7e83-93ef-94497e3c15b6.jsonl"
    )
    (codex_home / "sessions" / "2026" / "04" / "08").mkdir(parents=True)
    (codex_home / "sessions" / "2026" / "04" / "08" / rollout.name).write_bytes(rollout.read_bytes())
    chats = user / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    document = real_fixtures / "jnarowski__agentcmd/gemini/full/session-2025-10-27T19-55-981c87cb.json"
    (chats / document.name).write_bytes(document.read_bytes())
    (user / ".gemini" / "tmp" / "proj" / "logs.json").write_text("[]")  # not a chat: not read
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    everything = run("--json", "--since", "20000d", "--home", home)
    only_codex = run("--json", "--since", "20000d", "--agent", "codex", "--home", home)
    assert everything.exit_code == 0, everything.output
    document_json = json.loads(everything.stdout)
    agents = sorted({s["agent"] for s in document_json["skills"]})
    assert (document_json["pipeline"]["files"], agents) == (3, ["claude_code", "codex", "gemini"])
    assert {s["agent"] for s in json.loads(only_codex.stdout)["skills"]} == {"codex"}


def test_compressed_rollouts_are_told_not_read(tmp_path: Path, home: Path) -> None:
    """A ``.jsonl.zst`` rollout: no zstd decoder in the standard library or omkd's dependencies."""
    day = tmp_path / "sessions" / "2026" / "04" / "08"
    day.mkdir(parents=True)
    (day / "rollout-2026-04-08T08-27-18-019d6d46.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfd\x00")
    result = run(tmp_path / "sessions", "--json", "--home", home)
    document = json.loads(result.stdout)
    assert (result.exit_code, document["pipeline"]["skipped_files"], document["pipeline"]["files"]) == (
        0,
        {"compressed": 1},
        0,
    )
    assert "no zstd decoder" in result.stderr


def _rendered(report: Any, width: int) -> str:
    from io import StringIO

    from rich.console import Console

    from omkd.cli import render

    console = Console(file=StringIO(), width=width, force_terminal=True, color_system=None)
    render.render(report, console, [])
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def _skill_rows(text: str) -> list[list[str]]:
    """The skill table's body rows, cell by cell (the first table of the page)."""
    table = text.split("Skill health", 1)[1].split("└", 1)[0]
    return [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]


def test_an_80_column_terminal_keeps_the_skill_names(tmp_path: Path) -> None:
    """At 80 columns stability and coverage are left out first, and a note names them; a long skill
    name keeps its one line (issue 29 item 6: it was folded mid-word), cut with an ellipsis only when
    the figures need its room."""
    from omkd.engine.report.build import build_report
    from omkd.shell.scan import scan

    path = transcript(tmp_path / "p" / f"{cl.SESSION}.jsonl", [("superpowers:brainstorming", "miss")] * 6)
    report = build_report(scan([path]), [str(path)])
    text, wide = _rendered(report, 80), _rendered(report, 160)
    header = next(line for line in text.splitlines() if "segments" in line)
    names = [row[0] for row in _skill_rows(text)]
    assert ("stability" in header, names, "stability, coverage" in text) == (
        False, ["superpowers:brainstorming", "overall"], True,
    )  # fmt: skip
    assert "stability" in wide


def _two_agents(tmp_path: Path, skill: str) -> Any:
    """The report of a Claude Code skill (six segments, each a miss) and a Codex one: the skill table
    has an agent column."""
    from omkd.engine.report.build import build_report
    from omkd.shell.scan import scan
    from tests.agent_lines import Rollout

    claude = transcript(tmp_path / "p" / f"{cl.SESSION}.jsonl", [(skill, "miss")] * 6)
    rollout = Rollout()
    rollout.prompt("task")
    rollout.skill("deploy", "/home/dev/.codex/skills/deploy/SKILL.md")
    rollout.exec("ls docs/deploy.md", "ls: cannot access 'docs/deploy.md': No such file or directory", 2)
    codex = tmp_path / "sessions" / "rollout-2026-04-08T13-27-20-019d6d46-test.jsonl"
    codex.parent.mkdir(parents=True)
    codex.write_bytes(rollout.data())
    return build_report(scan([claude, codex]), [str(claude), str(codex)])


def test_a_narrow_terminal_never_cuts_a_figure(tmp_path: Path) -> None:
    """With an agent column (a Claude Code and a Codex skill) the figures need more room than the
    fixed widths allowed: rates were cut to ``33.6…``. Now every width from 80 to 200 shows each
    figure whole; at 80 the table gives up the intervals and uses short labels, and says so."""
    report = _two_agents(tmp_path, "a-skill-with-a-rather-long-name")
    for width in (80, 90, 100, 120, 140, 200):
        rows = _skill_rows(_rendered(report, width))
        figures = [cell for row in rows for cell in row[1:]]
        assert [cell for cell in figures if cell.endswith("…")] == [], width
        assert all(len(line) <= width for line in _rendered(report, width).splitlines()), width
    narrow = _rendered(report, 80)
    assert [row[1:4] for row in _skill_rows(narrow)] == [
        ["claude", "6", "100.0 %"], ["codex", "1", "100.0 %"], ["", "7", "100.0 %"],
    ]  # fmt: skip
    assert "short labels: segs = segments, claude = claude_code, under = underpowered" in " ".join(narrow.split())
    wide = _skill_rows(_rendered(report, 200))
    assert [bool(re.fullmatch(r"100\.0 % \[\d+\.\d–100\.0\]", row[3])) for row in wide] == [True] * 3
    assert "stability" in _rendered(report, 200).split("Skill health", 1)[1].split("┡", 1)[0]


def test_a_log_is_as_wide_as_the_skill_table_needs(tmp_path: Path) -> None:
    """Written to a pipe or a file (a CI log) the view has no terminal width: the skill table was
    squeezed into 160 columns and, with a 40-character skill name and an agent column, cut its
    figures (a rate's interval, a band, the stability header). The log now takes the table's own width."""
    from io import StringIO

    from rich.console import Console

    from omkd.cli import render

    name = "superpowers:requesting-a-second-code-rev"
    report = _two_agents(tmp_path, name)
    console = Console(file=StringIO(), width=render.PIPE_WIDTH, color_system=None)
    assert not console.is_terminal
    render.render(report, console, [])
    text = console.file.getvalue()  # type: ignore[attr-defined]
    rows = _skill_rows(text)
    assert [row[0] for row in rows] == [name, "deploy", "overall"]
    assert [cell for row in rows for cell in row[1:] if cell.endswith("…")] == []
    assert "stability" in text.split("┡", 1)[0]
    assert max(len(line) for line in text.splitlines()) > render.PIPE_WIDTH


def test_the_report_is_the_same_whatever_the_number_of_jobs(real_fixtures: Path, home: Path) -> None:
    """``--jobs 2`` reads the real fixtures (42 MB, over the parallel threshold) in two worker
    processes: the JSON report is byte for byte the serial one."""
    serial = subprocess.run(
        [sys.executable, "-m", "omkd", "scan", str(real_fixtures), "--json", "--jobs", "1", "--home", str(home)],
        capture_output=True, check=False, timeout=300,
    )  # fmt: skip
    parallel = subprocess.run(
        [sys.executable, "-m", "omkd", "scan", str(real_fixtures), "--json", "--jobs", "2", "--home", str(home)],
        capture_output=True, check=False, timeout=300,
    )  # fmt: skip
    assert (serial.returncode, parallel.returncode) == (0, 0), parallel.stderr
    assert json.loads(serial.stdout)["pipeline"]["files"] > 100
    assert parallel.stdout == serial.stdout
