"""Hedging in two stages (spec §3.3): the recall net, the embedded judge and its verdicts, the
model file rebuilt bit for bit, ``omkd calibrate``, and the marker convention (spec §3.2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from omkd.engine import conventions, cues
from omkd.engine.agreement import Cells, krippendorff_alpha
from omkd.engine.cues import Candidate, Net
from omkd.engine.hedge_judge import embedded_judge
from omkd.engine.segmenting import SegmenterRules
from omkd.shell.knowledge import FileKnowledgeIndex
from tests.conftest import REAL_FIXTURES
from tests.live_helpers import omkd
from tests.transcript_builder import Transcript, report_of

REPO = Path(__file__).resolve().parent.parent


def candidates(text: str, thinking: bool = False) -> list[tuple[str, str]]:
    return [(c.cue, c.sentence) for c in cues.candidates(text, Net(), thinking, False)]


def hedging_gaps(t: Transcript, rules: SegmenterRules | None = None) -> list[dict[str, Any]]:
    report = report_of(t, rules=rules)
    return [g.evidence for g in report.gaps if g.type == "hedging"]


# --- the net --------------------------------------------------------------------------------------


def test_sentences_split_in_english_and_chinese() -> None:
    text = "The cache might be stale. Then I rebuild it! 这个配置可能不对。还需要确认\nnext line? ok"
    assert cues.sentences(text) == [
        "The cache might be stale.",
        "Then I rebuild it!",
        "这个配置可能不对。",
        "还需要确认",
        "next line? ok",
    ]
    assert candidates(text) == [
        ("might", "The cache might be stale."),
        ("可能", "这个配置可能不对。"),
        ("需要确认", "还需要确认"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "```\nit might be the cache\n```\nDone.",
        "Run `might_fail --probably` to see.",
        "> it might be the cache, the guide says\nDone.",
        "| option | note |\n|---|---|\n| retry | might be slow |",
    ],
    ids=["fenced", "inline code", "quote line", "table row"],
)
def test_quoted_text_and_code_hold_no_candidate(text: str) -> None:
    assert candidates(text) == []


def test_a_sentence_is_judged_by_its_first_strong_cue() -> None:
    """ "might" comes first, but "not sure" says outright that a fact is not known."""
    assert candidates("It might work, but I'm not sure the flag exists.") == [
        ("I'm not sure", "It might work, but I'm not sure the flag exists.")
    ]
    assert cues.strength_of("might") == cues.WEAK
    assert cues.strength_of("需要确认") == cues.STRONG


def test_the_fast_net_finds_what_the_plain_alternation_finds() -> None:
    """On every assistant text of the real fixtures, ``Net`` finds every cue the table's plain
    alternation finds (and picks each sentence's cue from them)."""
    net, reference = Net(), cues.reference_net()
    texts = 0
    for path in sorted(REAL_FIXTURES.rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            message = record.get("message") if isinstance(record, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            for part in content if isinstance(content, list) else []:
                text = part.get("text") or part.get("thinking") if isinstance(part, dict) else None
                if not isinstance(text, str):
                    continue
                texts += 1
                found = {(start, end) for start, end, _ in net.hits(text)}
                assert {m.span() for m in reference.finditer(text)} <= found, text[:200]
    assert texts > 1500


def test_thinking_is_read_only_when_asked_and_marked() -> None:
    t = Transcript()
    t.prompt("which config applies?")
    t.think("I'm not sure which config file applies here.")
    t.say("Let me look.")
    assert hedging_gaps(t) == []
    [hedge] = hedging_gaps(t, SegmenterRules(include_thinking=True))
    assert hedge["thinking"] is True


# --- the judge ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "uncertain"),
    [
        ("I'm not sure which config file applies here.", True),
        ("I don't know where the retry limit is defined.", True),
        ("This is presumably set in CI.", True),
        ("这一点需要查证。", True),
        ("You might want to restart the server.", False),
        ("It seems the test passed.", False),
    ],
)
def test_the_embedded_judge_on_unambiguous_sentences(sentence: str, uncertain: bool) -> None:
    """Sentences no reader would hesitate over (the spec's own examples of each side)."""
    [candidate] = cues.candidates(sentence, Net(), False, False)
    verdict = embedded_judge().judge(candidate)
    assert verdict.is_uncertainty is uncertain
    assert 0.5 <= verdict.confidence <= 1.0
    assert verdict.judge == "embedded-v1"


def test_a_hedging_signal_carries_its_verdict_and_sentence() -> None:
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say("Done with the client. I'm not sure which config file applies here.")
    [hedge] = hedging_gaps(t)
    assert hedge["sentence"] == "I'm not sure which config file applies here."
    assert hedge["is_uncertainty"] is True
    assert hedge["judge"] == "embedded-v1"
    assert hedge["reason"]
    assert hedge["confidence"] >= 0.5


def test_one_hedge_per_segment_the_strongest() -> None:
    """Two uncertain sentences in one segment: one signal, the one the judge is surest of."""
    first, second = "The retry count is probably read from the environment.", "I'm not sure the flag exists."
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say(first)
    t.say(second)
    judge = embedded_judge()
    sure = {
        s: judge.judge(Candidate(s, cues.CONTEXT_MARK, Net().pick(s) or "", False, False)).confidence
        for s in (first, second)
    }
    [hedge] = hedging_gaps(t)
    assert hedge["sentence"] == max(sure, key=lambda s: sure[s])


def test_the_model_file_is_rebuilt_bit_for_bit() -> None:
    """``bench/train_hedging_judge.py`` trains the shipped weights from the labelled sentences."""
    ran = subprocess.run(
        [sys.executable, str(REPO / "bench" / "train_hedging_judge.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "rebuilt bit for bit" in ran.stdout


def test_explain_shows_every_candidate_with_its_verdict(tmp_path: Path) -> None:
    t = Transcript()
    t.prompt("restart?")
    t.say("You might want to restart the server. I'm not sure the flag exists.")
    (tmp_path / "s.jsonl").write_bytes(t.to_bytes())
    ran = omkd("explain", "--json", tmp_path / "s.jsonl")
    assert ran.returncode == 0, ran.stderr
    found = orjson.loads(ran.stdout)["candidates"]
    assert [(c["cue"], c["is_uncertainty"], c["judge"]) for c in found] == [
        ("might", False, "embedded-v1"),
        ("I'm not sure", True, "embedded-v1"),
    ]
    assert all(c["reason"] and 0.5 <= c["confidence"] <= 1 for c in found)


# --- omkd calibrate -------------------------------------------------------------------------------

GOLD = [True, True, True, True, False, False, False, False, False, False]
OTHER = [True, True, True, False, True, False, False, False, False, False]


def write_rows(path: Path, labels: list[bool], with_sentences: bool = True) -> None:
    rows = []
    for n, label in enumerate(labels):
        row: dict[str, Any] = {"id": f"r{n}", "is_uncertainty": label}
        if with_sentences:
            row["sentence"] = f"Sentence {n} might be about the config."
        rows.append(orjson.dumps(row))
    path.write_bytes(b"\n".join(rows) + b"\n")


def test_krippendorff_alpha_by_hand() -> None:
    """Ten sentences, two coders: 3 both yes, 5 both no, 2 disagreements (d = 2). Coincidences:
    n = 20 values, n_1 = 4 + 4 = 8 positives, n_0 = 12. D_o = 2d/n = 4/20; D_e = 2 n_0 n_1 /
    (n (n - 1)) = 192/380; alpha = 1 - (4/20)/(192/380) = 1 - 76/192 = 29/48."""
    cells = Cells.of(list(zip(GOLD, OTHER, strict=True)))
    assert (cells.tp, cells.fp, cells.fn, cells.tn) == (3, 1, 1, 5)
    assert krippendorff_alpha(cells) == pytest.approx(29 / 48, abs=1e-12)
    assert krippendorff_alpha(Cells(0, 0, 0, 10)) is None  # one value everywhere: undefined


def test_calibrate_two_labellings_of_ten_sentences(tmp_path: Path) -> None:
    write_rows(tmp_path / "gold.jsonl", GOLD)
    write_rows(tmp_path / "second.jsonl", OTHER, with_sentences=False)
    ran = omkd("calibrate", "--gold", tmp_path / "gold.jsonl", "--labels", tmp_path / "second.jsonl", "--json")
    assert ran.returncode == 0, ran.stderr
    found = orjson.loads(ran.stdout)
    overall = found["overall"]
    assert overall["cells"] == {"tp": 3, "fp": 1, "fn": 1, "tn": 5}
    assert overall["measures"]["alpha"]["value"] == pytest.approx(29 / 48)
    assert overall["measures"]["precision"]["value"] == pytest.approx(0.75)
    assert overall["measures"]["recall"]["value"] == pytest.approx(0.75)
    low, high = overall["measures"]["alpha"]["lower"], overall["measures"]["alpha"]["upper"]
    assert low < 29 / 48 < high
    again = omkd("calibrate", "--gold", tmp_path / "gold.jsonl", "--labels", tmp_path / "second.jsonl", "--json")
    assert again.stdout == ran.stdout  # the bootstrap is seeded by the labels


def test_calibrate_the_embedded_judge_against_the_held_out_sentences() -> None:
    ran = omkd("calibrate", "--gold", REPO / "tests" / "data" / "hedging_sentences.jsonl", "--split", "heldout")
    assert ran.returncode == 0, ran.stderr
    assert "judge embedded-v1" in ran.stdout
    assert "Krippendorff α" in ran.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"id": "a", "is_uncertainty": true, "sentence": "x might"}\nnot json\n', "gold.jsonl:2: not JSON"),
        (b'{"id": "a", "sentence": "x might"}\n', "gold.jsonl:1: 'is_uncertainty' must be true or false"),
        (b'{"id": "a", "is_uncertainty": true}\n', "gold.jsonl:1: 'sentence' is missing or empty"),
    ],
    ids=["bad line", "no label", "no sentence"],
)
def test_calibrate_names_the_bad_line(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "gold.jsonl").write_bytes(content)
    ran = omkd("calibrate", "--gold", tmp_path / "gold.jsonl")
    assert ran.returncode == 2
    assert message in ran.stderr


# --- the marker convention ------------------------------------------------------------------------


def test_conventions_prints_both_blocks() -> None:
    ran = omkd("conventions")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count(conventions.OPENING) == 2
    for marker in ("[inferred]", "[unknown]", "[knowledge gap]", "【推断】", "【未知】", "【知识缺口】"):
        assert marker in ran.stdout
    assert conventions.asks_for_markers(ran.stdout)


def test_a_project_asks_for_markers_when_its_instructions_hold_the_block(tmp_path: Path) -> None:
    home, asked, silent = tmp_path / "home", tmp_path / "asked", tmp_path / "silent"
    for directory in (home, asked, silent):
        directory.mkdir()
    (asked / "AGENTS.md").write_text("# Agents\n\n" + conventions.BLOCK_EN)
    (silent / "CLAUDE.md").write_text("# Claude\nBe brief.\n")
    index = FileKnowledgeIndex(home=home)
    assert index.asks_markers(str(asked)) is True
    assert index.asks_markers(str(silent)) is False
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text(conventions.BLOCK_ZH)
    assert FileKnowledgeIndex(home=home).asks_markers(str(silent)) is True  # the user's asks everywhere


def test_scan_says_where_a_marker_count_means_not_asked(tmp_path: Path) -> None:
    silent = tmp_path / "silent"
    silent.mkdir()
    t = Transcript(cwd=str(silent))
    t.prompt("deploy")
    t.skill("deploy")
    t.say("Deployed.")
    (tmp_path / "s.jsonl").write_bytes(t.to_bytes())
    ran = omkd("scan", "--json", "--home", tmp_path / "nohome", tmp_path / "s.jsonl")
    assert ran.returncode == 0, ran.stderr
    report = orjson.loads(ran.stdout)
    assert report["conventions"] == [{"cwd": str(silent), "asked": False}]
    assert [s["markers"] for s in report["skills"]] == ["not asked"]
    shown = omkd("scan", "--home", tmp_path / "nohome", tmp_path / "s.jsonl")
    assert "not asked" in shown.stdout
    (silent / "CLAUDE.md").write_text(conventions.BLOCK_EN)
    asked = orjson.loads(omkd("scan", "--json", "--home", tmp_path / "nohome", tmp_path / "s.jsonl").stdout)
    assert [s["markers"] for s in asked["skills"]] == ["asked"]
