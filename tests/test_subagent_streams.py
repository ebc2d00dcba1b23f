"""Spec §2: sub-agent streams of Codex CLI and Gemini CLI, told by their own content (Codex's
``session_meta.payload.source`` ``{"subagent": …}``, Gemini's ``kind: "subagent"``). "A sub-agent
stream therefore has no typed prompts": the launching agent's prompt makes no miss ``user_given``
(§3.1), ends no skill segment and no §8 window; "in a sub-agent stream the window ends at the end of
the stream" (§8.4.4) and "a sub-agent is never ``asked``" (§8.5.3). Unlinked to its launcher, such a
stream still folds at once, in ``general``: a skill launched inside it opens no segment of its own (§2:
"a sub-agent's work is done for the skill whose segment launched it", as a Claude Code sub-agent's
``Skill`` call). Hand-made transcripts; the
same transcript as a main stream is the control."""

from __future__ import annotations

import json
from typing import Any

import pytest

from omkd.engine.fold import Fold
from omkd.engine.stream import StreamProcessor
from omkd.engine.summary import SegmentSummary
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.metacog_helpers import only

pytestmark = pytest.mark.engine

CODEX = "2026/04/15/rollout-2026-04-15T11-58-23-019d924b.jsonl"
GEMINI_JSONL = "chats/b1f31681/tl63m8.jsonl"
GEMINI_JSON = "chats/b1f31681/tl63m8.json"
PARENT = "019d9249-parent"
SOURCES: list[object] = [
    {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1, "agent_role": "explorer"}}},
    {"subagent": "review"},
    {"subagent": {"other": "guardian"}},
]
DELEGATION = "Read config/deploy.yaml and report what it deploys."
GEMINI_DELEGATION = "Read /home/dev/shop/config/deploy.yaml and report what it deploys."
MISSING = "cat: config/deploy.yaml: No such file or directory"
CLOSING = "I couldn't find config/deploy.yaml. Where is it?"


def rollout(source: object | None) -> Rollout:
    """A rollout whose first ``session_meta`` has ``source``; a sub-agent's repeats its parent's after its own."""
    r = Rollout()
    if source is not None:
        r.lines[0]["payload"]["source"] = source
        parent = {"id": PARENT, "cwd": "/home/dev/shop", "cli_version": "0.118.0", "source": "vscode"}
        r.lines.insert(1, {**r.lines[0], "payload": parent})
    return r


def gemini(kind: str) -> GeminiChat:
    chat = GeminiChat("tl63m8")
    chat.jsonl[0]["kind"] = kind
    return chat


def gemini_document(chat: GeminiChat, kind: str) -> bytes:
    return json.dumps({**json.loads(chat.document()), "kind": kind}).encode()


def read(data: bytes, name: str) -> list[SegmentSummary]:
    stream = StreamProcessor(name)
    stream.feed(data)
    return [s for s in stream.close() if s.counts]


def gemini_miss(chat: GeminiChat) -> None:
    path = "/home/dev/shop/config/deploy.yaml"
    chat.reply(calls=[tool_call("read_file", {"file_path": path}, error=f"File not found: {path}")])


def gemini_data(chat: GeminiChat, kind: str, name: str) -> bytes:
    return gemini_document(chat, kind) if name.endswith(".json") else chat.data()


GEMINI_NAMES = pytest.mark.parametrize("name", [GEMINI_JSONL, GEMINI_JSON], ids=["jsonl", "json"])


# --- §3.1: the delegation prompt names nothing the person gave --------------------------------------


@pytest.mark.parametrize("source", [None, *SOURCES], ids=["main", "thread_spawn", "review", "guardian"])
def test_codex_a_path_in_a_sub_agents_prompt_is_not_user_given(source: object | None) -> None:
    r = rollout(source)
    r.prompt(DELEGATION)
    r.exec("cat config/deploy.yaml", MISSING, code=1)
    (segment,) = read(r.data(), CODEX)
    assert bool(segment.user_given) == (source is None)
    assert len(segment.signals) == (1 if source is not None else 0)


@GEMINI_NAMES
@pytest.mark.parametrize("kind", ["main", "subagent"])
def test_gemini_a_path_in_a_sub_agents_prompt_is_not_user_given(kind: str, name: str) -> None:
    chat = gemini(kind)
    chat.prompt(GEMINI_DELEGATION)
    gemini_miss(chat)
    (segment,) = read(gemini_data(chat, kind, name), name)
    assert bool(segment.user_given) == (kind == "main")


# --- §2: the launching agent's later messages end no skill segment ---------------------------------


@pytest.mark.parametrize("source", [None, SOURCES[2]], ids=["main", "guardian"])
def test_codex_a_sub_agents_later_prompt_does_not_end_its_skill(source: object | None) -> None:
    r = rollout(source)
    r.prompt("Assess this action.")
    r.skill("ui-review", "/home/dev/.agents/skills/ui-review/SKILL.md")
    r.exec("ls src", "app.py\n")
    r.prompt("The following is the history added since your last assessment.")
    r.exec("ls tests", "test_app.py\n")
    skills = [s.skill for s in read(r.data(), CODEX)]
    # a skill injected into a sub-agent's conversation (a guardian gets the parent's copied) is not its
    # own segment: a sub-agent's work is its launcher's skill's (§2, as a Claude Code sub-agent's Skill call)
    assert skills == (["general"] if source is not None else ["ui-review", "general"])


# --- §8.4.4 / §8.5.3: no person's turn, never asked --------------------------------------------------


@pytest.mark.parametrize("source", [None, SOURCES[0]], ids=["main", "thread_spawn"])
def test_codex_a_sub_agents_closing_question_is_not_asked(source: object | None) -> None:
    r = rollout(source)
    r.prompt("Find the deploy config.")
    r.exec("cat config/deploy.yaml", MISSING, code=1)
    r.say(CLOSING)
    r.prompt("It is not there; carry on.")
    r.say("Carrying on.")
    episode = only([e for s in read(r.data(), CODEX) for e in s.episodes])
    assert episode.outcome == ("dropped" if source is not None else "asked")


@pytest.mark.parametrize("source", [None, SOURCES[1]], ids=["main", "review"])
def test_codex_a_sub_agents_window_runs_past_the_launchers_message(source: object | None) -> None:
    r = rollout(source)
    r.prompt("Find the deploy config.")
    r.exec("cat config/deploy.yaml", MISSING, code=1)
    r.prompt("Keep looking.")
    r.exec("git ls-files", "README.md\nops/deploy.yaml\n")
    episode = only([e for s in read(r.data(), CODEX) for e in s.episodes])
    assert episode.outcome == ("recovered" if source is not None else "dropped")


@GEMINI_NAMES
@pytest.mark.parametrize("kind", ["main", "subagent"])
def test_gemini_a_sub_agent_is_never_asked(kind: str, name: str) -> None:
    chat = gemini(kind)
    chat.prompt("Find the deploy config.")
    gemini_miss(chat)
    chat.reply(CLOSING)
    chat.prompt("It is not there; carry on.")
    chat.reply("Carrying on.")
    episode = only([e for s in read(gemini_data(chat, kind, name), name) for e in s.episodes])
    assert episode.outcome == ("asked" if kind == "main" else "dropped")


@GEMINI_NAMES
def test_gemini_a_sub_agents_ask_user_call_is_not_asked(name: str) -> None:
    chat = gemini("subagent")
    chat.prompt("Find the deploy config.")
    gemini_miss(chat)
    chat.reply(calls=[tool_call("ask_user", {"question": "Where is the deploy config?"}, output="in ops/")])
    episode = only([e for s in read(gemini_data(chat, "subagent", name), name) for e in s.episodes])
    assert episode.outcome == "dropped"


# --- §2: unlinked, such a stream folds at once, as it did ------------------------------------------


def folded(data: bytes, name: str) -> dict[str, Any]:
    stream = StreamProcessor(name)
    stream.feed(data)
    fold = Fold()
    fold.add_stream(stream)  # no ``finish``: a segment waiting for its launcher's link would be missing
    return {skill: totals.tool_calls for skill, totals in fold.skills.items()}


def test_an_unlinked_codex_sub_agent_folds_at_once_in_general() -> None:
    plain = rollout(SOURCES[0])
    plain.prompt(DELEGATION)
    plain.exec("ls", "app.py\n")
    assert [s.inherit for s in read(plain.data(), CODEX)] == [()]
    assert folded(plain.data(), CODEX) == {"codex/general": 1}
    skilled = rollout(SOURCES[0])
    skilled.prompt(DELEGATION)
    skilled.skill("deploy", "/home/dev/.agents/skills/deploy/SKILL.md")
    skilled.exec("ls", "app.py\n")
    assert folded(skilled.data(), CODEX) == {"codex/general": 1}  # its own skill launch opens no segment


@GEMINI_NAMES
def test_an_unlinked_gemini_sub_agent_folds_at_once_in_general(name: str) -> None:
    chat = gemini("subagent")
    chat.prompt(DELEGATION)
    gemini_miss(chat)
    assert folded(gemini_data(chat, "subagent", name), name) == {"gemini/general": 1}
