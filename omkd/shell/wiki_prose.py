"""Asking the optional LLM for the wiki entries' prose (``engine/wiki/prose.py`` decides what).

The model is the hedging judge's (``[hedging.llm]``: the same providers, endpoint and key), asked
``concurrency`` at a time, each request bounded by its ``timeout``, at most ``limit`` entries per
update. A failure, a timeout or an answer that is not plain text leaves that entry as it was: the
wiki stays the deterministic one (seed 002's fallback), and the failure is counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from omkd.engine.wiki import prose
from omkd.engine.wiki.entries import WikiState
from omkd.shell.llm_judge import LlmSettings

log = structlog.get_logger("omkd.wiki")

DEFAULT_LIMIT = 50
"""Entries written per update."""


@dataclass
class ProseStats:
    asked: int = 0
    written: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    """Failures by cause (the exception's type, or ``not_plain_text``)."""


async def _ask_all(
    settings: LlmSettings, state: WikiState, keys: list[prose.Key], stats: ProseStats
) -> dict[prose.Key, str]:
    client = settings.client()
    gate = asyncio.Semaphore(max(1, settings.concurrency))
    written: dict[prose.Key, str] = {}

    async def ask(key: prose.Key) -> None:
        row, pattern = key
        skill = state.skills[row]
        async with gate:
            stats.asked += 1
            try:
                reply = await asyncio.wait_for(
                    client.complete(prose.SYSTEM, prose.request(skill.label, skill.entries[pattern]), settings.timeout),
                    settings.timeout + 1,
                )
            except Exception as error:  # any failure of the model falls back
                stats.failed[type(error).__name__] = stats.failed.get(type(error).__name__, 0) + 1
                return
        text = prose.accept(reply.text)
        if text is None:
            stats.failed["not_plain_text"] = stats.failed.get("not_plain_text", 0) + 1
            return
        written[key] = text

    try:
        await asyncio.gather(*(ask(key) for key in keys))
    finally:
        await client.close()
    return written


def writer(
    settings: LlmSettings, limit: int = DEFAULT_LIMIT, stats: ProseStats | None = None
) -> Callable[[WikiState], WikiState]:
    """What ``shell.wiki.update`` calls on the merged state: the prose of up to ``limit`` entries
    written or merged by the model (runs its own event loop: a CLI, or the daemon's worker thread)."""
    counted = stats if stats is not None else ProseStats()

    def write(state: WikiState) -> WikiState:
        keys = prose.wanted(state, settings.model, limit)
        if not keys:
            return state
        written = asyncio.run(_ask_all(settings, state, keys, counted))
        if counted.failed:
            log.warning("wiki_prose_failed", asked=counted.asked, failed=counted.failed,
                        action="the entries keep their deterministic text")  # fmt: skip
        return prose.with_prose(state, written, settings.model)

    return write
