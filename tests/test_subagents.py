"""Sub-agent streams inherit the skill whose segment launched them, linked by what the files carry:
the call's prompt, its result's ``agentId``, the ``progress`` mirrors. Hand-made transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from omkd.config import Config
from omkd.daemon.parts import Parts
from omkd.daemon.state.store import StateStore
from omkd.testing import ManualClock
from tests.transcript_builder import Transcript, health_of, report_of, segments_by_skill

SESSION = "5e551011-aaaa-4bbb-8ccc-ddddeeeeffff"
PROMPT = "Find every place the retry policy is configured and report the file paths."


def parent(launch: str = "prompt") -> Transcript:
    """A session in skill ``deploy`` that launches one sub-agent (``Agent`` tool, id ``a7c1``)."""
    t = Transcript(session_id=SESSION, version="2.1.90")
    t.prompt("deploy the api")
    t.skill("deploy")
    prompt = PROMPT if launch != "agent_id" else "(a prompt the sub-agent's file does not repeat)"
    call = t.tool_use("Agent", {"description": "find retry config", "prompt": prompt, "subagent_type": "Explore"})
    if launch == "progress":
        t.agent_progress({"type": "user", "message": {"role": "user", "content": prompt}})
        t.records[-1]["parentToolUseID"] = call
        t.records[-1]["data"]["agentId"] = "a7c1"
    detail = {"status": "completed", "prompt": prompt, "agentId": "a7c1", "content": [{"type": "text", "text": "ok"}]}
    t.tool_result(call, [{"type": "text", "text": "Found 2 places."}], detail=detail)
    t.say("The retry policy lives in two places.")
    return t


def subagent(own_skill: str | None = None) -> Transcript:
    t = Transcript(session_id=SESSION, sidechain=True, agent_id="a7c1", version="2.1.90")
    t.user(PROMPT, parentUuid=None)
    t.say("Searching.")
    t.glob_miss("**/retry*.yaml")
    t.grep_miss("retry_policy")
    if own_skill is not None:
        t.skill(own_skill)
        t.say("Using the skill.")
    return t


NAMES = [f"{SESSION}.jsonl", f"{SESSION}/subagents/agent-a7c1.jsonl"]


@pytest.mark.parametrize("launch", ["prompt", "agent_id", "progress"])
@pytest.mark.parametrize("parent_first", [True, False], ids=["parent first", "sub-agent first"])
def test_a_subagent_counts_for_the_skill_that_launched_it(launch: str, parent_first: bool) -> None:
    """Linked by its first prompt, by the result's agentId or by a progress mirror, in either order."""
    streams = [parent(launch), subagent()]
    names = NAMES if parent_first else NAMES[::-1]
    report = report_of(*(streams if parent_first else streams[::-1]), names=names)
    # deploy: the parent's segment and the sub-agent's stretch; the typed prompt opened nothing counted.
    assert segments_by_skill(report) == {"deploy": 2}
    assert health_of(report, "deploy").by_type["failed_search"] == 2


def test_a_subagent_without_its_parent_counts_as_general() -> None:
    """No launching stream in the fold: once every stream is in, the sub-agent's work is ``general``."""
    report = report_of(subagent(), names=NAMES[1:])
    assert segments_by_skill(report) == {"general": 1}


def test_a_skill_the_subagent_calls_is_for_the_agents_it_launches() -> None:
    """Claude Code stamps every record of a sub-agent with its launcher's skill, even after the
    sub-agent calls a skill itself; the agents it launches after that call work for that skill."""
    inner_prompt = "Summarise each config file."
    middle = subagent(own_skill="code-search")
    middle.tool_use("Agent", {"description": "summarise", "prompt": inner_prompt, "subagent_type": "general-purpose"})
    inner = Transcript(session_id=SESSION, sidechain=True, agent_id="c3e4", version="2.1.90")
    inner.user(inner_prompt, parentUuid=None)
    inner.say("Summarising.")
    names = [*NAMES, f"{SESSION}/subagents/agent-c3e4.jsonl"]
    report = report_of(parent(), middle, inner, names=names)
    # deploy: the parent's segment and the whole middle sub-agent; code-search: the inner one.
    assert segments_by_skill(report) == {"deploy": 2, "code-search": 1}


def test_a_subagent_launched_by_a_subagent_inherits_through_it() -> None:
    """deploy launches a7c1, which launches b9d2: both count for deploy (the chain is followed)."""
    inner_prompt = "List the YAML files under config/."
    middle = subagent()
    middle.tool_use("Task", {"description": "list", "prompt": inner_prompt, "subagent_type": "Explore"})
    inner = Transcript(session_id=SESSION, sidechain=True, agent_id="b9d2", version="2.1.90")
    inner.user(inner_prompt, parentUuid=None)
    inner.say("Listing.")
    names = [*NAMES, f"{SESSION}/subagents/agent-b9d2.jsonl"]
    report = report_of(inner, middle, parent(), names=[names[2], names[1], names[0]])
    assert segments_by_skill(report) == {"deploy": 3}


def test_a_side_question_fork_inherits_the_skill_current_at_the_fork_point() -> None:
    """The fork's copied head ends inside ``deploy``: its question and answer count for deploy."""
    fork = Transcript(session_id=SESSION, sidechain=True, agent_id="aside_question-0f1e2d3c", version="2.1.92")
    fork.prompt("deploy the api")
    fork.skill("deploy")
    fork.say("Deploying.")
    fork.user("<system-reminder>This is a side question from the user. Answer it directly.</system-reminder>")
    fork.say("The staging host is staging-1.")
    report = report_of(fork, names=[f"{SESSION}/subagents/agent-aside_question-0f1e2d3c.jsonl"])
    assert segments_by_skill(report) == {"deploy": 1}
    assert health_of(report, "deploy").turns == 1


# --- live: the daemon's reader, the files written in any order ---------------------------------


def _live_figures(tmp_path: Path, writes: list[tuple[str, bytes]]) -> dict[str, int]:
    """Write the pieces in order, reading after each (as a tail does); the live fold's skills."""
    root = tmp_path / "projects" / "-home-dev-shop"
    config = Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "window": {"length": "3650d", "retention": "3650d"},
        }
    )
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), ManualClock())
    for name, piece in writes:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as handle:
            handle.write(piece)
        for file in parts.reader.rescan():
            while parts.reader.feed(file, 1 << 20):
                pass
    figures = {skill: totals.segments for skill, totals in parts.keeper.live.fold.skills.items()}
    parts.shutdown()
    store.close()
    return figures


def _halves(data: bytes) -> tuple[bytes, bytes]:
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: len(lines) // 2]), b"".join(lines[len(lines) // 2 :])


@pytest.mark.parametrize("order", ["sub-agent after", "sub-agent before", "interleaved"])
def test_live_tail_links_a_subagent_written_in_any_order(tmp_path: Path, order: str) -> None:
    """Read live as it is written — the sub-agent after its parent, before it, or line by line in
    between — the daemon's reader counts what one scan of both files counts."""
    parent_bytes, child_bytes = parent("agent_id").to_bytes(), subagent().to_bytes()
    a, b = NAMES
    if order == "sub-agent after":
        writes = [(a, parent_bytes), (b, child_bytes)]
    elif order == "sub-agent before":
        writes = [(b, child_bytes), (a, parent_bytes)]
    else:
        (p1, p2), (c1, c2) = _halves(parent_bytes), _halves(child_bytes)
        writes = [(a, p1), (b, c1), (a, p2), (b, c2)]
    batch = report_of(parent("agent_id"), subagent(), names=NAMES)
    assert _live_figures(tmp_path, writes) == segments_by_skill(batch) == {"deploy": 2}


def test_a_waiting_subagent_segment_without_timestamps_is_given_up_after_the_timeout() -> None:
    """A sub-agent stream that carries no timestamp (a ``codex exec --json`` stream) has no event time
    to measure its wait by: the live fold measures it from when it first saw it waiting, and gives it
    up as ``general`` after the timeout, as a batch read gives up every waiting segment at its end."""
    from omkd.engine.live import LiveFold
    from omkd.engine.stream import StreamProcessor
    from tests.agent_lines import exec_stream

    stream = StreamProcessor("p/s/subagents/agent-a1.jsonl")
    stream.feed(exec_stream([{"type": "agent_message", "text": "Looking for the runbook."}]))
    (summary,) = stream.take_changed()
    assert (summary.first_ts, bool(summary.inherit)) == (None, True)
    live = LiveFold(window_length=3600.0, retention=3600.0, rollup_days=7, now=1000.0)
    live.apply(summary)
    assert (live.give_up_waiting(1000.0, 60.0), live.give_up_waiting(1059.0, 60.0)) == (0, 0)
    assert live.give_up_waiting(1061.0, 60.0) == 1
    assert [(s.skill, s.inherit) for s in live.fold.segments.values()] == [("general", ())]
