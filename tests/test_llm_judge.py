"""The optional LLM judge of hedging candidates, against a real local HTTP server speaking the
OpenAI chat-completions (and Anthropic messages) protocol (``tests/fake_llm.py``): verdicts are
cached, the candidate and cost caps hold, and on an error, a timeout or an unreadable answer the
embedded verdict stands. The daemon refines a segment it has already counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from omkd.config import Config, parse_config
from omkd.engine import hedge_prompt
from omkd.engine.cues import CONTEXT_MARK, Candidate
from omkd.engine.fold import Fold
from omkd.engine.hedge_judge import embedded_judge
from omkd.engine.report.build import build_report
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor
from omkd.shell.llm_judge import CACHE_FILE, LlmRefiner, VerdictCache, open_refiner
from omkd.shell.scan import scan
from omkd.testing import DaemonProcess
from tests.fake_llm import COMPLETION_TOKENS, PROMPT_TOKENS, FakeModel
from tests.live_helpers import append, omkd
from tests.transcript_builder import Transcript

MODEL = "fake-judge-1"
SUGGESTION = "You might want to restart the server after this change."
"""The embedded judge: a suggestion to the person (not uncertain); the fake model: uncertain."""


@pytest.fixture
def model() -> Iterator[FakeModel]:
    fake = FakeModel().start()
    yield fake
    fake.stop()


def llm_toml(state: Path, fake: FakeModel, provider: str = "openai", **settings: object) -> str:
    url = fake.anthropic_url if provider == "anthropic" else fake.openai_url
    lines = [f'provider = "{provider}"', f'base_url = "{url}"', f'model = "{MODEL}"', "concurrency = 1"]
    lines += [f"{key} = {value!r}" if isinstance(value, str) else f"{key} = {value}" for key, value in settings.items()]
    return f'[state]\ndirectory = "{state}"\n\n[hedging.llm]\nenabled = true\n' + "\n".join(lines) + "\n"


def config_of(tmp_path: Path, fake: FakeModel, **settings: object) -> Config:
    return parse_config(llm_toml(tmp_path / "state", fake, "openai", **settings))


def refiner_of(config: Config) -> LlmRefiner:
    refiner = open_refiner(config.hedging.llm, config.state_dir())
    assert refiner is not None
    return refiner


def write(tmp_path: Path, *sentences: str, segments: int = 1) -> Path:
    """One session: ``segments`` skill segments, each saying every one of ``sentences``."""
    t = Transcript()
    for n in range(segments):
        t.prompt(f"task {n}: make the client retry")
        t.skill("http-client")
        for sentence in sentences:
            t.say(sentence.replace("{n}", str(n)))
    path = tmp_path / "projects" / "-home-dev-shop" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(t.to_bytes())
    return path


def scanned(path: Path, config: Config, refiner: LlmRefiner | None) -> Fold:
    try:
        return scan([path], rules=config.segmenter_rules(), refiner=refiner)
    finally:
        if refiner is not None:
            refiner.cache.close()


def hedges(fold: Fold) -> list[dict[str, object]]:
    report = build_report(fold, ["projects"], gap_limit=None)
    return [g.evidence for g in report.gaps if g.type == "hedging"]


def test_the_cache_key_is_model_prompt_sentence_and_context() -> None:
    """Spec §3.3: verdicts are cached by a hash of (model, prompt version, sentence, context)."""
    sentence = "The retry count might be read from the environment."

    def key(model: str, context: str, text: str = sentence) -> str:
        return hedge_prompt.cache_key(model, Candidate(text, context, "might", False, False))

    here = key(MODEL, f"I read the client. {CONTEXT_MARK}")
    assert here == key(MODEL, f"I read the client. {CONTEXT_MARK}")
    assert here != key("another-model", f"I read the client. {CONTEXT_MARK}")
    assert here != key(MODEL, f"I read the server. {CONTEXT_MARK}")
    assert here != key(MODEL, f"I read the client. {CONTEXT_MARK}", "The backoff is probably exponential.")
    assert hedge_prompt.judge_name(MODEL) == f"llm:{MODEL}:{hedge_prompt.PROMPT_VERSION}"


def test_a_verdict_is_asked_once_then_cached(tmp_path: Path, model: FakeModel) -> None:
    """The first scan asks the model and counts its verdict; a second one (a new process, the same
    state directory) asks nothing and counts the same."""
    path = write(tmp_path, SUGGESTION)
    config = config_of(tmp_path, model)
    assert hedges(scanned(path, config, None)) == []  # the embedded judge alone
    first = refiner_of(config)
    found = hedges(scanned(path, config, first))
    assert model.sentences() == [SUGGESTION]
    assert first.stats.requests["ok"] == 1
    assert [(h["sentence"], h["judge"], h["is_uncertainty"]) for h in found] == [
        (SUGGESTION, hedge_prompt.judge_name(MODEL), True)
    ]
    again = refiner_of(config)
    assert hedges(scanned(path, config, again)) == found
    assert len(model.requests) == 1
    assert again.stats.cache_hits == 1
    assert sum(again.stats.requests.values()) == 0


def test_candidates_per_segment_are_capped(tmp_path: Path, model: FakeModel) -> None:
    """With max_candidates = 1, a segment's second and third candidates keep the embedded verdict."""
    path = write(
        tmp_path,
        "The retry count might be read from the environment.",
        "The backoff is probably exponential.",
        "The client might cache the token.",
    )
    config = config_of(tmp_path, model, max_candidates=1)
    refiner = refiner_of(config)
    scanned(path, config, refiner)
    assert model.sentences() == ["The retry count might be read from the environment."]
    assert refiner.stats.capped["candidates"] == 2


def test_the_daily_cost_cap_stops_asking(tmp_path: Path, model: FakeModel) -> None:
    """At $1000 per million tokens a request costs $0.34: under a $0.5 cap the second request
    brings the day to $0.68 and the third candidate is not sent, now or in a later run that day."""
    path = write(tmp_path, "The retry count in segment {n} might be read from the environment.", segments=3)
    config = config_of(tmp_path, model, daily_cost_cap=0.5, input_price=1000.0, output_price=1000.0)
    refiner = refiner_of(config)
    scanned(path, config, refiner)
    cost = (PROMPT_TOKENS + COMPLETION_TOKENS) * 1000.0 / 1e6
    assert len(model.requests) == 2
    assert refiner.stats.cost_dollars == pytest.approx(2 * cost)
    assert refiner.stats.capped["cost"] == 1
    later = refiner_of(config)
    scanned(path, config, later)
    assert len(model.requests) == 2
    assert later.stats.spent_today == pytest.approx(2 * cost)
    assert later.stats.capped["cost"] == 1


@pytest.mark.parametrize(
    ("mode", "outcome", "settings"),
    [("error", "error", {}), ("slow", "timeout", {"timeout": "300ms"}), ("garbage", "unreadable", {})],
    ids=["server error", "timeout", "unreadable answer"],
)
def test_the_embedded_verdict_stands_when_the_model_fails(
    tmp_path: Path, model: FakeModel, mode: str, outcome: str, settings: dict[str, object]
) -> None:
    path = write(tmp_path, SUGGESTION, "The backoff is probably exponential.")
    config = config_of(tmp_path, model, **settings)
    alone = hedges(scanned(path, config, None))
    model.mode = mode
    refiner = refiner_of(config)
    assert hedges(scanned(path, config, refiner)) == alone
    assert refiner.stats.requests[outcome] == 2
    assert len(VerdictCache(config.state_dir() / CACHE_FILE)) == 0


def test_each_candidate_awaiting_a_failed_answer_keeps_its_own_embedded_verdict(
    tmp_path: Path, model: FakeModel
) -> None:
    """One sentence said alone in a thinking part and in a text part is one cache key, asked once;
    when the model fails, each candidate keeps the embedded verdict of its own part (the embedded
    judge's thresholds differ by part), not the first one's."""
    sentence = "The cache is likely stale."
    t = Transcript()
    t.prompt("task 0: make the client retry")
    t.skill("http-client")
    t.think(sentence)
    t.say("Checking the client.")
    t.prompt("task 1: make the client retry")
    t.skill("http-client")
    t.say(sentence)
    model.mode = "error"
    refiner = refiner_of(config_of(tmp_path, model))
    stream = StreamProcessor("s.jsonl", SegmenterRules(include_thinking=True), refiner=refiner)
    refiner.deliver = stream.segmenter.refine
    stream.feed(t.to_bytes())
    asyncio.run(refiner.drain())
    refiner.cache.close()
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    own = {
        part: embedded_judge().judge(Candidate(sentence, CONTEXT_MARK, "likely", part, False)) for part in (True, False)
    }
    assert own[True].confidence != own[False].confidence, "the test needs verdicts that differ by part"
    assert refiner.stats.requests["error"] == 1
    assert sorted((h["thinking"], h["confidence"], h["judge"]) for h in hedges(fold)) == sorted(
        (part, v.confidence, v.judge) for part, v in own.items() if v.is_uncertainty
    )


def test_the_anthropic_messages_protocol(tmp_path: Path, model: FakeModel) -> None:
    path = write(tmp_path, SUGGESTION)
    config = parse_config(llm_toml(tmp_path / "state", model, provider="anthropic"))
    found = hedges(scanned(path, config, refiner_of(config)))
    assert [p for p, _ in model.requests] == ["/v1/messages"]
    assert [h["judge"] for h in found] == [hedge_prompt.judge_name(MODEL)]


def test_scan_reads_the_judge_from_a_config_file(tmp_path: Path, model: FakeModel) -> None:
    path = write(tmp_path, SUGGESTION)
    config_path = tmp_path / "omkd.toml"
    config_path.write_text(llm_toml(tmp_path / "state", model))
    ran = omkd("scan", "--json", "--config", config_path, path)
    assert ran.returncode == 0, ran.stderr
    assert model.sentences() == [SUGGESTION]
    assert '"judge": "llm:fake-judge-1:p1"' in ran.stdout.replace('":"', '": "')


@pytest.mark.slow
def test_the_daemon_refines_a_segment_it_has_counted(tmp_path: Path, model: FakeModel) -> None:
    """The daemon counts the segment with the embedded verdict at once, then the model's answer
    arrives and the segment is counted again with it; /metrics shows the request."""
    root = tmp_path / "projects"
    root.mkdir()
    extra = llm_toml(tmp_path / "state", model).split("\n\n", 1)[1]
    with DaemonProcess(tmp_path, [root], extra) as daemon:
        daemon.start()
        t = Transcript()
        t.prompt("make the client retry")
        t.skill("http-client")
        t.say(SUGGESTION)
        append(root / "-home-dev-shop" / "s.jsonl", t.to_bytes())
        hedged = 'omkd_signals_total{agent="claude_code",skill="http-client",type="hedging"}'
        daemon.wait_for(lambda: daemon.metrics().get(hedged) == 1.0, "the refined hedge")
        samples = daemon.metrics()
        assert samples['omkd_hedging_llm_requests_total{outcome="ok"}'] == 1.0
        assert samples["omkd_hedging_llm_enabled"] == 1.0
        gaps = daemon.get("/api/v1/gaps?type=hedging")
        assert [g["evidence"]["judge"] for g in gaps["gaps"]] == [hedge_prompt.judge_name(MODEL)]
