"""Metacognition (spec §8) across agents, chunkings, saved parser states and ``omkd scan --json``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from omkd.cli import main
from omkd.engine import stream_state
from omkd.engine.figures import CATALOGUE
from omkd.engine.health import confidence_tier
from omkd.engine.metacog import rules
from omkd.engine.metacog.measures import ALL_TALLIES
from omkd.engine.stream import StreamProcessor
from omkd.engine.summary import SegmentSummary
from tests import claude_lines as cl
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.metacog_helpers import edit, episodes, glob_miss, only, read_miss, tallies

pytestmark = pytest.mark.engine
CODEX = "rollout-2026-04-08T13-27-20-019d6d46.jsonl"
GEMINI = "chats/session-2026-04-08T13-27-55b29702.jsonl"


def test_every_tally_is_a_catalogue_figure() -> None:
    assert set(ALL_TALLIES) <= {name for name, _ in CATALOGUE}


def test_codex_recovered_by_naming_output() -> None:
    rollout = Rollout()
    rollout.prompt("fix the style loader")
    rollout.exec("rg -n spotter_config src", "", code=1)
    rollout.exec("git ls-files", "README.md\nlib/spotter_config.ex\n", code=0)
    episode = only(episodes(rollout.data(), CODEX))
    assert (episode.eligible, episode.outcome) == (True, "recovered")


def test_codex_commit_after_a_miss_is_a_proceeded_candidate() -> None:
    rollout = Rollout()
    rollout.prompt("ship it")
    rollout.exec("cat config/deploy.yaml", "cat: config/deploy.yaml: No such file or directory", code=1)
    rollout.exec("git commit -am 'wip'", "[main 1a2b3c] wip", code=0)
    assert only(episodes(rollout.data(), CODEX)).outcome == "proceeded"
    assert tallies(rollout.data(), CODEX)["outcome_proceeded"] == 1


def test_gemini_asked_by_ask_user() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy.toml"}, output=missed)])
    chat.reply(calls=[tool_call("ask_user", {"question": "Where is the deploy config?"}, output="in ops/")])
    assert only(episodes(chat.data(), GEMINI)).outcome == "asked"


def test_gemini_created_by_write_file() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    path = "/home/dev/shop/ops/deploy.toml"
    chat.reply(calls=[tool_call("read_file", {"file_path": path}, error=f"File not found: {path}")])
    chat.reply(calls=[tool_call("write_file", {"file_path": path, "content": "x"}, output="ok")])
    assert only(episodes(chat.data(), GEMINI)).outcome == "created"


def test_a_kept_hedge_is_an_anchor_and_any_project_write_proceeds() -> None:
    data = cl.jsonl(
        [
            cl.user("add the column"),
            cl.text("I'm not sure where the migrations live; they are probably in db/migrate.", "m1"),
            *edit("e1", f"{cl.CWD}/src/app.py", "m2"),
        ]
    )
    episode = only(episodes(data), "hedging")
    assert (episode.eligible, episode.outcome) == (None, "proceeded")
    assert tallies(data) == {
        "open_gap_segments": 1, "writing_segments": 1, "write_load_0_5": 1, "episodes_hedging_proceeded": 1
    }  # fmt: skip


def test_the_hedge_sentence_itself_states_the_gap_in_a_closing_question() -> None:
    sentence = "I need to check whether the parser is exported."
    asking = cl.text(f"{sentence}\n\nShould I export it?", "m1")
    assert only(episodes(cl.jsonl([cl.user("wire it"), asking, cl.user("yes")])), "hedging").outcome == "asked"
    other = cl.text(f"{sentence}", "m1"), cl.text("Should the banner be blue?", "m2")
    assert only(episodes(cl.jsonl([cl.user("wire it"), *other, cl.user("yes")])), "hedging").outcome == "dropped"


def _summaries_of(name: str, data: bytes, cuts: list[int], resume: bool) -> list[SegmentSummary]:
    stream = StreamProcessor(name)
    kept: dict[str, SegmentSummary] = {}
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        stream.feed(data[start:cut])
        start = cut
        for summary in stream.take_changed():
            kept[summary.key] = summary
        if resume:  # the daemon's checkpoint: the parser state saved, read back, read on from its offset
            start = stream.consumed
            stream = stream_state.loads(stream_state.dumps(stream))
    for summary in stream.close():
        kept[summary.key] = summary
    return [kept[k] for k in sorted(kept)]


def _figures(found: list[SegmentSummary]) -> list[tuple[Any, ...]]:
    return [(s.key, s.episodes, tuple(t for t in s.tallies if t[0] in ALL_TALLIES)) for s in found]


REAL = [
    "marot__spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
]


@pytest.mark.parametrize("relative", REAL, ids=lambda r: Path(r).name)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_chunking_and_saved_states_decide_like_one_pass(real_fixtures: Path, relative: str, seed: int) -> None:
    data = (real_fixtures / relative).read_bytes()
    chooser = random.Random(seed)  # noqa: S311 (cuts, not secrets)
    cuts = [chooser.randrange(len(data)) for _ in range(12)]
    once = _figures(_summaries_of(relative, data, [], resume=False))
    assert any(episodes for _, episodes, _ in once), "the file has anchors"
    assert _figures(_summaries_of(relative, data, cuts, resume=False)) == once
    assert _figures(_summaries_of(relative, data, cuts, resume=True)) == once


def test_summaries_keep_their_episodes_as_plain_data(real_fixtures: Path) -> None:
    found = _summaries_of(REAL[0], (real_fixtures / REAL[0]).read_bytes(), [], resume=False)
    for summary in found:
        assert SegmentSummary.from_plain(json.loads(json.dumps(summary.to_plain()))) == summary


def _scan(*paths: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["scan", *(str(p) for p in paths), "--json"])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_scan_json_carries_the_metacognition_figures(tmp_path: Path) -> None:
    root = cl.CWD
    records = [cl.user("fix the deploy"), *read_miss("r1", f"{root}/config/settings.yaml", "m1")]
    records += [*glob_miss("t1", "**/deploy.yaml", "m2"), *edit("e1", f"{root}/src/app.py", "m3")]
    (tmp_path / "session.jsonl").write_bytes(cl.jsonl(records))
    document = _scan(tmp_path)
    meta = document["overall"]["metacognition"]
    assert meta["lookup_gap_segments"] == 1
    assert meta["outcomes"]["proceeded"] == 1
    assert meta["self_recovery_ratio"] == 0.0
    assert meta["unchecked_write_ratio"] == 1.0
    assert meta["max_write_load"]["2+"] == 1
    assert meta["unchecked_write_kinds"]["file_edit"] == 1
    assert meta["confidence"]["lookup_gap_segments"] == "underpowered"
    lower, upper = meta["intervals"]["unchecked_write_ratio"]
    assert 0 < lower < 1 == upper
    gaps = {g["line"]: g for g in document["gaps"]}
    assert gaps[3]["outcome"] == "proceeded"
    assert gaps[3]["outcome_line"] == 6
    assert gaps[3]["window_end"] == 7


def test_no_lookup_gap_segment_gives_no_ratio(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_bytes(cl.jsonl([cl.user("hi"), cl.text("Hello.", "m1")]))
    meta = _scan(tmp_path)["overall"]["metacognition"]
    assert meta["self_recovery_ratio"] is None
    assert meta["asked_at_gap_ratio"] is None
    assert meta["unchecked_write_ratio"] is None
    assert meta["intervals"]["self_recovery_ratio"] is None


def test_the_partition_sums_to_the_lookup_gap_segments_on_every_row(real_fixtures: Path, real2_fixtures: Path) -> None:
    document = _scan(real_fixtures, real2_fixtures)
    rows = [document["overall"], *document["skills"]]
    assert document["overall"]["metacognition"]["lookup_gap_segments"] > 0
    for row in rows:
        meta = row["metacognition"]
        assert sum(meta["outcomes"][o] for o in rules.OUTCOMES) == meta["lookup_gap_segments"], row["skill"]
        assert meta["asked_at_gap"] <= meta["open_gap_segments"]
        assert meta["unchecked_write_segments"] <= meta["writing_segments"] == sum(meta["max_write_load"].values())
    # §8.6: overall is the same over all segments of all skills, `general` included, with its own tiers
    overall, skills = document["overall"]["metacognition"], [row["metacognition"] for row in document["skills"]]
    assert any(row["skill"] == "general" and row["metacognition"]["lookup_gap_segments"] for row in document["skills"])
    for name in ("lookup_gap_segments", "open_gap_segments", "asked_at_gap", "writing_segments"):
        assert overall[name] == sum(meta[name] for meta in skills), name
    assert overall["outcomes"] == {o: sum(meta["outcomes"][o] for meta in skills) for o in rules.OUTCOMES}
    assert overall["confidence"]["lookup_gap_segments"] == confidence_tier(overall["lookup_gap_segments"])
