"""Hedging in two stages (spec §3.3): the recall net, the embedded judge and its verdicts, the
model file rebuilt bit for bit, ``omkd calibrate``, and the marker convention (spec §3.2)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from omkd.engine import conventions, cues
from omkd.engine.agreement import Cells, krippendorff_alpha
from omkd.engine.cues import Candidate, Net
from omkd.engine.gold import read_gold
from omkd.engine.hedge_judge import EmbeddedJudge, embedded_judge, threshold_of
from omkd.engine.segmenting import SegmenterRules
from omkd.shell.calibrate import SelfPreference, calibrate
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


def test_a_candidate_carries_its_neighbours_and_its_cue() -> None:
    """Spec §3.3: a candidate is the sentence, its neighbours (up to two before it, one after, in
    the same part, code left out) and the cue; where the sentence stands is marked."""
    text = (
        "I read the client. Then the tests.\n```\nretry = 3\n```\nThe limit might be read from the env. It is 3. Done."
    )
    [candidate] = cues.candidates(text, Net(), False, False)
    assert (candidate.sentence, candidate.cue) == ("The limit might be read from the env.", "might")
    assert candidate.context == f"I read the client. Then the tests. {cues.CONTEXT_MARK} It is 3."
    [first] = cues.candidates("Maybe the cache. It is 3.", Net(), False, False)
    assert first.context == f"{cues.CONTEXT_MARK} It is 3."


def test_a_sentence_may_start_with_inline_code() -> None:
    """Inline code opens a sentence as often as a word does: the sentence before it is not part of it."""
    text = "The build passed. `retry_limit` might be read from the environment."
    assert cues.sentences(text) == ["The build passed.", "`…` might be read from the environment."]
    assert candidates(text) == [("might", "`…` might be read from the environment.")]


@pytest.mark.parametrize(
    "text",
    [
        "```\nit might be the cache\n```\nDone.",
        "Run `might_fail --probably` to see.",
        "> it might be the cache, the guide says\nDone.",
        "| option | note |\n|---|---|\n| retry | might be slow |",
        "````md\n```\nit might be the cache\n```\n````",
        "Run ``might_fail --probably`` to see.",
    ],
    ids=["fenced", "inline code", "quote line", "table row", "nested fence", "inline code of two backticks"],
)
def test_quoted_text_and_code_hold_no_candidate(text: str) -> None:
    assert candidates(text) == []


def test_prose_after_a_table_is_read() -> None:
    text = "| key | value |\n|---|---|\n| retry | might be slow |\n\nThe `a | b` pipe might drop lines."
    assert candidates(text) == [("might", "The `…` pipe might drop lines.")]


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Der Fehler könnte an der Konfiguration liegen.", [("de", "könnte", cues.WEAK)]),
        ("Ich weiß nicht, wo die Datei liegt.", [("de", "Ich weiß nicht", cues.STRONG)]),
        ("Vermutlich fehlt die Variable in der Datei.", [("de", "Vermutlich", cues.WEAK)]),
        ("Não tenho certeza se o arquivo existe.", [("pt", "Não tenho certeza", cues.STRONG)]),
        ("O erro provavelmente vem do cache.", [("pt", "provavelmente", cues.WEAK)]),
        ("这个配置可能不对。", [("zh", "可能", cues.WEAK)]),
        ("這個設定應該是在 CI 裡面。", [("zh", "應該是", cues.WEAK)]),
        ("我不確定遷移檔放在哪裡。", [("zh", "不確定", cues.STRONG)]),
        ("设置文件在哪里还需要确认。", [("zh", "需要确认", cues.STRONG)]),
        ("この設定はたぶん古いです。", [("ja", "たぶん", cues.WEAK)]),
        ("原因はキャッシュかもしれません。", [("ja", "かもしれ", cues.WEAK)]),
        ("設定ファイルの場所が分かりません。", [("ja", "分かりません", cues.STRONG)]),
        ("세션의 작업 디렉토리가 문제인 것 같습니다.", [("ko", "것 같", cues.WEAK)]),
        ("아마 환경 변수가 없는 것입니다.", [("ko", "아마", cues.WEAK)]),
        ("설정 파일이 어디 있는지 모르겠습니다.", [("ko", "모르겠", cues.STRONG)]),
        ("버전이 맞는지 확인이 필요합니다.", [("ko", "확인이 필요", cues.STRONG)]),
        ("Let me check whether the flag is exported.", [("en", "Let me check", cues.WEAK)]),
        ("I suspect the env file is not loaded.", [("en", "I suspect", cues.STRONG)]),
    ],
)
def test_each_language_has_cues(text: str, expected: list[tuple[str, str, str]]) -> None:
    """One hand-made sentence per language and kind of cue: its language, its cue, its strength."""
    assert [(cues.language_of(c.sentence), c.cue, c.strength) for c in cues.candidates(text, Net(), False, False)] == (
        expected
    )
    assert cues.has_cues(expected[0][0])


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("The retry count might be read from the environment.", "might"),
        ("这个参数可能没有生效。", "可能"),
        ("The cache is likely stale.", "likely"),
        ("I need to check whether the flag is exported.", "need to check"),
        ("The handler seems to swallow the error.", "seems"),
        ("The config appears to be generated.", "appears to"),
        ("Maybe the module is vendored.", "Maybe"),
        ("I think the migrations live in db/.", "I think"),
        ("This is probably because the env var is not loaded.", "probably"),
        ("应该是缓存没刷新。", "应该是"),
        ("應該是快取沒有更新。", "應該是"),
        ("需要确认这个字段的含义。", "需要确认"),
        ("需要確認這個欄位的含義。", "需要確認"),
        ("It could be a race in the worker.", "could be"),
        ("Not sure where the migrations live.", "Not sure"),
        ("Unclear which version this repo pins.", "Unclear"),
        ("I need to confirm where the proxy is configured.", "need to confirm"),
    ],
)
def test_the_commonest_genuine_forms_are_caught(text: str, cue: str) -> None:
    """Spec §3.3 names the commonest genuine forms and its examples of each kind: the net catches
    every one (the judge decides them)."""
    assert candidates(text) == [(cue, text)]


def test_a_korean_word_that_only_holds_a_cue_is_no_cue() -> None:
    """아마 is "probably" as a word; 아마존 (Amazon) holds it and is not one."""
    assert candidates("아마존 서버에 배포했습니다.") == []


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Je ne sais pas où se trouve le fichier de configuration.", "fr"),
        ("Не уверен, где лежит конфигурация.", "ru"),
        ("The cache might be stale.", "en"),
        ("The user calls it 笨 here, it might be a joke.", "en"),
        ("12345 -> 678", "und"),
    ],
)
def test_a_language_without_cues_is_reported(text: str, lang: str) -> None:
    assert cues.language_of(text) == lang
    assert cues.uncovered_language(text) == (None if lang in ("en", "und") else lang)


@pytest.mark.parametrize(
    "text",
    [
        'He wrote "the cache might be stale" in the ticket.',
        "The guide says “it might be the cache”.",
        "The label reads 「たぶん古い」 on that page.",
        "文档里写着「可能需要重启」。",
        "The option is called 'might be stale' in the UI.",
    ],
    ids=["straight", "curly", "corner ja", "corner zh", "single"],
)
def test_a_cue_inside_quotation_marks_is_no_candidate(text: str) -> None:
    assert candidates(text) == []


def test_apostrophes_are_not_quotation_marks() -> None:
    text = "I don't know where the users' settings live, it's odd."
    assert candidates(text) == [("I don't know", text)]


@pytest.mark.parametrize(
    "text",
    [
        "The user is not sure which plan to pick.",
        "They don't know where the file is.",
        "用户可能不知道这个功能。",
        "客户不清楚迁移的步骤。",
        "사용자가 잘 모르는 부분입니다.",
        "ユーザーは分かりませんでした。",
        "Der Benutzer weiß nicht, wo die Datei liegt.",
        "Der Nutzer weiß nicht, wo die Datei liegt.",
        "Er weiß nicht, welche Version installiert ist.",
        "Sie ist sich nicht sicher, welcher Plan gilt.",
        "They're not sure which plan applies.",
        "She's unsure where the file lives.",
        "You don't know where the file is yet.",
        "If you're not sure which plan applies, pick the first.",
        "你不知道这个配置在哪里。",
        "您可能不清楚这个配置。",
        "用户自己也不知道这个配置。",
        "あなたは分からない部分です。",
    ],
)
def test_someone_elses_not_knowing_is_not_the_agents(text: str) -> None:
    """Spec §3.3: someone else's not-knowing — a third person's, or the person's the agent
    addresses — is not the agent's uncertainty, in every language the net covers."""
    assert candidates(text) == []


def test_the_agents_own_not_knowing_is_kept() -> None:
    assert [c for c, _ in candidates("I am not sure which plan applies. 我不知道这个配置在哪里。")] == [
        "I am not sure",
        "不知道",
    ]
    # 其他 ("the other ones") and 吉他 are no third person
    assert [c for c, _ in candidates("其他不确定的部分，我会再查。")] == ["不确定"]
    assert [c for c, _ in candidates("Thank you, I'm not sure where the file is. Ich weiß nicht, wo sie liegt.")] == [
        "I'm not sure",
        "Ich weiß nicht",
    ]
    # a cue that names its own subject, the agent, after someone else's name
    assert candidates("I told them I don't know where it lives.") == [
        ("I don't know", "I told them I don't know where it lives.")
    ]
    assert candidates("To be honest with you I don't know where it lives.") == [
        ("I don't know", "To be honest with you I don't know where it lives.")
    ]


def test_the_threshold_table_by_part_and_language() -> None:
    """A language with its own threshold uses it; another falls back to its part's."""
    table = {"text": {"*": 0.6, "en": 0.5}, "thinking": {"*": 0.7, "zh": 0.8}}
    assert threshold_of(table, False, "en") == 0.5
    assert threshold_of(table, False, "ko") == 0.6
    assert threshold_of(table, True, "zh") == 0.8
    assert threshold_of(table, True, "en") == 0.7
    shipped = embedded_judge().thresholds
    assert set(shipped) == {"text", "thinking"}
    assert all("*" in t and all(0 < v < 1 for v in t.values()) for t in shipped.values())


def test_a_judge_is_tuned_on_the_languages_with_a_threshold_of_their_own() -> None:
    """A part's language without its own threshold (too few labelled uncertain sentences of it) is
    one the judge was not tuned on: views say so (its hedges are a floor)."""
    model = {"version": "t", "bias": 0.0, "weights": {},
             "thresholds": {"text": {"*": 0.6, "en": 0.5}, "thinking": {"*": 0.7, "zh": 0.8}}}  # fmt: skip
    judge = EmbeddedJudge(model)
    assert [judge.tuned(False, "en"), judge.tuned(False, "zh"), judge.tuned(False, "ko")] == [True, False, False]
    assert [judge.tuned(True, "zh"), judge.tuned(True, "en")] == [True, False]


def test_a_verdict_at_its_threshold_has_confidence_one_half() -> None:
    """The confidence is how far the score lies from the threshold of its part and language."""
    judge = embedded_judge()
    [candidate] = cues.candidates("I'm not sure which config file applies here.", Net(), False, False)
    verdict = judge.judge(candidate)
    p, t = judge.score(candidate), judge.threshold(candidate)
    assert verdict.is_uncertainty is (p >= t)
    assert verdict.confidence == pytest.approx(
        1 / (1 + math.exp(-abs(math.log(p / (1 - p)) - math.log(t / (1 - t))))), abs=1e-3
    )


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
        pytest.param(
            "这一点需要查证。",
            True,
            marks=pytest.mark.xfail(
                reason="the threshold cross-validation chose for Chinese text is above this sentence's score: "
                "the judge trades Chinese recall for precision (bench/README.md)",
                strict=True,
            ),
        ),
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
    assert verdict.judge == "embedded-v2"


def test_a_hedging_signal_carries_its_verdict_and_sentence() -> None:
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say("Done with the client. I'm not sure which config file applies here.")
    [hedge] = hedging_gaps(t)
    assert hedge["sentence"] == "I'm not sure which config file applies here."
    assert hedge["is_uncertainty"] is True
    assert hedge["judge"] == "embedded-v2"
    assert hedge["reason"]
    assert hedge["confidence"] >= 0.5


def test_one_hedge_per_segment_the_strongest() -> None:
    """Two uncertain sentences in one segment: one signal, the one the judge is surest of."""
    first, second = "I don't know where the retry limit is defined.", "I'm not sure the flag exists."
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say(first)
    t.say(second)
    judge = embedded_judge()
    sure = {
        s: judge.judge(Candidate(s, cues.CONTEXT_MARK, Net().pick(s) or "", False, False)).confidence
        for s in (first, second)
    }
    assert all(judge.judge(Candidate(s, cues.CONTEXT_MARK, Net().pick(s) or "", False, False)).is_uncertainty
               for s in (first, second)), "the test needs two sentences the judge finds uncertain"  # fmt: skip
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
        ("might", False, "embedded-v2"),
        ("I'm not sure", True, "embedded-v2"),
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


def test_calibrate_flags_possible_self_preference(tmp_path: Path) -> None:
    """Spec §3.3: an LLM judge of the same model family as the agent that wrote the transcripts is
    flagged, with how many sentences that family wrote; a judge of another family, or the embedded
    one, is not."""
    models = ["claude-opus-4-5-20251101", "claude-sonnet-4-20250514", "gpt-5-codex", None]
    rows = [
        {"id": f"r{n}", "sentence": f"Sentence {n} might be about the config.", "is_uncertainty": n % 2 == 0}
        | ({"model": model} if model else {})
        for n, model in enumerate(models)
    ]
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    sentences = list(read_gold(gold))
    said = [s.is_uncertainty for s in sentences]

    def flag(model: str | None) -> SelfPreference | None:
        return calibrate(gold, sentences, said, "judge", judge_model=model).self_preference

    assert flag("claude-haiku-4-5") == SelfPreference("anthropic", 2)
    assert flag("gpt-4.1-mini") == SelfPreference("openai", 1)
    assert flag("gemini-2.5-flash") is None
    assert flag("qwen2.5-coder:7b") is None
    assert flag(None) is None


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


def test_calibrate_leaves_out_what_the_embedded_judge_was_trained_on(tmp_path: Path) -> None:
    """Two sentences of the training data and two made up here: only the new ones are scored,
    and the two left out are counted; ``--include-training`` scores all four."""
    trained = [s for s in read_gold(REPO / "tests" / "data" / "hedging_sentences.jsonl") if not s.written][:2]
    assert all(embedded_judge().trained_on(s.candidate.sentence) for s in trained)
    rows = [{"id": s.id, "sentence": s.candidate.sentence, "is_uncertainty": s.is_uncertainty} for s in trained]
    rows += [
        {"id": "new1", "sentence": "I am not sure which port the staging proxy listens on.", "is_uncertainty": True},
        {"id": "new2", "sentence": "You might want to restart the staging proxy.", "is_uncertainty": False},
    ]
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    ran = omkd("calibrate", "--gold", gold, "--json")
    assert ran.returncode == 0, ran.stderr
    found = orjson.loads(ran.stdout)
    assert found["left_out"] == 2
    assert found["overall"]["cells"]["tp"] + found["overall"]["cells"]["fn"] == 1
    shown = omkd("calibrate", "--gold", gold)
    assert "judge embedded-v2" in shown.stdout
    assert "2 sentence(s) left out" in shown.stdout
    everything = orjson.loads(omkd("calibrate", "--gold", gold, "--json", "--include-training").stdout)
    assert everything["left_out"] == 0
    assert sum(everything["overall"]["cells"].values()) == 4


def test_calibrate_refuses_when_every_sentence_was_trained_on(tmp_path: Path) -> None:
    trained = [s for s in read_gold(REPO / "tests" / "data" / "hedging_sentences.jsonl") if not s.written][:3]
    rows = [{"id": s.id, "sentence": s.candidate.sentence, "is_uncertainty": s.is_uncertainty} for s in trained]
    (tmp_path / "gold.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    ran = omkd("calibrate", "--gold", tmp_path / "gold.jsonl")
    assert ran.returncode == 2
    assert "training data" in ran.stderr
    assert "--include-training" in ran.stderr


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


_SPAN = st.tuples(st.integers(0, 60), st.integers(0, 30)).map(lambda p: (p[0], p[0] + p[1]))


@given(st.lists(_SPAN, max_size=12), st.lists(_SPAN, max_size=12))
def test_a_range_is_held_by_some_span_exactly_when_the_cover_says_so(
    spans: list[tuple[int, int]], ranges: list[tuple[int, int]]
) -> None:
    """The guards' cover (quotation marks, a third person's clause) answers "does a span hold this range"
    as a walk over every span would: it is only faster on a text of thousands of quoted cues."""
    cover = cues.span_cover(spans)
    for start, end in ranges:
        assert cues.covers(cover, start, end) == any(a <= start and end <= b for a, b in spans)


def test_a_text_of_many_quoted_cues_keeps_none_of_them() -> None:
    """Three thousand quoted cues in one text: each is a hit of the net and each is inside quotation marks."""
    text = '"maybe" ' * 3000
    hits = Net().row_hits(text)
    assert len(hits) == 3000
    assert cues.guarded(text, hits) == []


@pytest.mark.parametrize(
    "text",
    [
        "注释里写着‘这里也许有内存泄漏’，我已经改成用 `defer` 关闭文件。",
        "설정 화면의 라벨은 '확실하지 않음'이고 백엔드에는 `2`로 저장됩니다.",
        "Der letzte Commit heißt »vielleicht Race Condition behoben« und ändert nur `worker.py`.",
    ],
    ids=["Chinese between single curly quotes", "Korean between straight quotes", "German between »«"],
)
def test_a_hedge_quoted_between_letters_of_any_script_is_no_candidate(text: str) -> None:
    """§3.3: the net excludes "quoted text … as in §3.2", and the judge's ``quote_code`` names "quoted text in
    any quotation marks". A quote opening or closing beside a Chinese or Korean letter is still a quote;
    only a Latin letter's neighbour is an apostrophe (``don't``), which stays no quote."""
    assert cues.candidates(text, cues.Net(), False, False) == []


def test_an_apostrophe_is_still_no_quotation() -> None:
    assert [c.sentence for c in cues.candidates("It's probably the users' cache.", cues.Net(), False, False)] == [
        "It's probably the users' cache."
    ]


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("プロキシが `Authorization` ヘッダを落としている気がします。", "気がします"),
        ("CI がどちらを使っているのか確認しないといけない。", "確認しないと"),
        ("`tenant_id` カラムを誰が埋めているのか、まだ把握できていません。", "把握できていません"),
        ("Die aktuelle Langsamkeit liegt wohl am synchronen DNS-Lookup in `init()`.", "wohl"),
        ("Soweit ich weiß, liest das CLI `~/.toolrc` nur, wenn `--config` fehlt.", "Soweit ich weiß"),
        ("Ich halte einen TLS-Timeout für wahrscheinlicher.", "wahrscheinlicher"),
        ("Das betrifft sowohl den Client als auch den Server.", None),  # ``wohl`` inside a word
    ],
    ids=["ja 気がします", "ja 確認しないと", "ja 把握できていません", "de wohl", "de soweit ich weiß",
         "de wahrscheinlicher", "de sowohl"],
)  # fmt: skip
def test_the_net_holds_japanese_and_german_hedges_of_everyday_writing(text: str, cue: str | None) -> None:
    """§3.3: the net's cue table covers Japanese and German; these forms of a guess, a need to check and a
    not-knowing (a battery's, written from §3.3's kinds) are candidates for the judge."""
    assert [c.cue for c in cues.candidates(text, cues.Net(), False, False)] == ([cue] if cue else [])


@pytest.mark.parametrize(
    ("text", "cues_found"),
    [
        ("这段代码是在'24年写的，注释写着：'也许这里有内存泄漏'。", []),  # an apostrophe after a letter opens nothing
        ("Unter Einstellungen » Netzwerk ist vielleicht der Proxy falsch gesetzt, der Schalter heisst «Proxy».",
         ["vielleicht"]),  # a » between words is no quotation mark
        ("Go to Settings » Network; the proxy is probably misconfigured, the toggle is labelled «Proxy».",
         ["probably"]),
    ],
    ids=["a year's apostrophe after a Chinese letter", "a German breadcrumb", "an English breadcrumb"],
)  # fmt: skip
def test_a_stray_mark_opens_no_quotation_that_would_swallow_a_hedge(text: str, cues_found: list[str]) -> None:
    """§3.3 excludes quoted text from the net; a mark that quotes nothing must not hide a hedge after it."""
    assert [c.cue for c in cues.candidates(text, cues.Net(), False, False)] == cues_found
