"""The optional LLM judge of hedging candidates: asks, caches, caps, and falls back.

``LlmRefiner`` is the segmenters' ``Refiner``: a candidate with a cached verdict gets it at once;
another is queued (at most ``max_candidates`` per segment, none once the day's spend reached
``daily_cost_cap``) and keeps the embedded verdict until the answer comes back through
``deliver``. ``run`` is the worker that asks, ``concurrency`` at a time, each request bounded by
``timeout``; a failure, a timeout or an unreadable answer leaves the embedded verdict standing.
Verdicts and the spend per UTC day are kept in ``verdicts.db`` in the state directory, keyed by
``hedge_prompt.cache_key`` (model, prompt version and text, sentence, context).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import structlog

from omkd.engine import hedge_prompt
from omkd.engine.counters import metric
from omkd.engine.cues import Candidate
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.timespec import day_of
from omkd.shell.llm_clients import AnthropicChat, ChatClient, OpenAIChat, Reply

log = structlog.get_logger("omkd.llm")

CACHE_FILE: Final = "verdicts.db"
MAX_QUEUED: Final = 10_000

Deliver = Callable[[str, HedgeVerdict | None], None]


@dataclass(slots=True)
class LlmStats:
    """What the LLM judge did in this process (exported; restart from 0 with it)."""

    requests: Counter[str] = field(
        default_factory=lambda: Counter(dict.fromkeys(("ok", "error", "timeout", "unreadable"), 0)),
        metadata=metric(
            "omkd_hedging_llm_requests",
            "Requests to the LLM judge, by outcome (ok, error, timeout, unreadable).",
            "outcome",
        ),
    )
    cache_hits: int = field(
        default=0, metadata=metric("omkd_hedging_llm_cache_hits", "Hedging candidates answered from the verdict cache.")
    )
    capped: Counter[str] = field(
        default_factory=lambda: Counter(dict.fromkeys(("candidates", "cost", "queue"), 0)),
        metadata=metric(
            "omkd_hedging_llm_capped",
            "Candidates not sent to the LLM judge, by cap (candidates per segment, daily cost, queue).",
            "cap",
        ),
    )
    cost_dollars: float = field(
        default=0.0,
        metadata=metric("omkd_hedging_llm_cost_dollars", "What the LLM judge's requests cost, in US dollars."),
    )
    queued: int = 0
    spent_today: float = 0.0


class VerdictCache:
    """Verdicts by key and dollars spent per UTC day, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, judge TEXT NOT NULL,"
            " is_uncertainty INTEGER NOT NULL, confidence REAL NOT NULL, reason TEXT NOT NULL, created REAL NOT NULL)"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS spend (day INTEGER PRIMARY KEY, dollars REAL NOT NULL)")

    def get(self, key: str) -> HedgeVerdict | None:
        row = self._db.execute(
            "SELECT is_uncertainty, confidence, reason, judge FROM verdicts WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else HedgeVerdict(bool(row[0]), float(row[1]), str(row[2]), str(row[3]))

    def put(self, key: str, verdict: HedgeVerdict) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)",
            (key, verdict.judge, int(verdict.is_uncertainty), verdict.confidence, verdict.reason, time.time()),
        )

    def spent(self, day: int) -> float:
        """Dollars spent on ``day`` (days since the epoch, UTC)."""
        row = self._db.execute("SELECT dollars FROM spend WHERE day = ?", (day,)).fetchone()
        return float(row[0]) if row else 0.0

    def spend(self, day: int, dollars: float) -> None:
        self._db.execute(
            "INSERT INTO spend VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET dollars = dollars + excluded.dollars",
            (day, dollars),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        self._db.close()


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """``[hedging.llm]`` as the refiner needs it."""

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str = ""
    max_candidates: int = 5
    daily_cost_cap: float = 1.0
    input_price: float = 0.0
    output_price: float = 0.0
    timeout: float = 20.0
    concurrency: int = 2

    @classmethod
    def of(cls, llm: Any) -> LlmSettings:
        return cls(
            provider=llm.provider,
            model=llm.model,
            base_url=llm.base_url,
            api_key_env=llm.api_key_env,
            max_candidates=llm.max_candidates,
            daily_cost_cap=llm.daily_cost_cap,
            input_price=llm.input_price,
            output_price=llm.output_price,
            timeout=llm.timeout,
            concurrency=llm.concurrency,
        )

    def client(self) -> ChatClient:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if self.provider == "anthropic":
            return AnthropicChat(self.model, self.base_url, key)
        return OpenAIChat(self.model, self.base_url, key)

    def cost(self, reply: Reply) -> float:
        return (reply.input_tokens * self.input_price + reply.output_tokens * self.output_price) / 1e6


class LlmRefiner:
    """The LLM judge as the segmenters see it (``text_signals.Refiner``)."""

    def __init__(
        self,
        settings: LlmSettings,
        cache: VerdictCache,
        client: ChatClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.stats = LlmStats()
        self.deliver: Deliver = lambda key, verdict: None
        self._client = client
        self._clock = clock
        self._queue: dict[str, Candidate] = {}
        """Candidates to ask, by key, in the order asked (a key asked twice is asked once)."""
        self._failed: set[str] = set()
        """Keys that failed in this process: not asked again (the embedded verdict stands)."""
        self._wake = asyncio.Event()
        self._counting = True
        self._day = -1
        self._refresh_day()

    @property
    def judge(self) -> str:
        return hedge_prompt.judge_name(self.settings.model)

    @property
    def identity(self) -> str:
        """The judge with its prompt's hash (the reproducibility block's)."""
        return f"{self.judge}@{hedge_prompt.PROMPT_HASH}"

    def _refresh_day(self) -> int:
        day = day_of(self._clock())
        if day != self._day:
            self._day = day
            self.stats.spent_today = self.cache.spent(day)
        return day

    def _over_budget(self) -> bool:
        """The day's spend reached the cap (a model priced at 0 never does)."""
        self._refresh_day()
        priced = self.settings.input_price > 0 or self.settings.output_price > 0
        return priced and self.stats.spent_today >= self.settings.daily_cost_cap

    # --- the Refiner protocol (called while reading, on the loop thread) --------------------------

    def consult(self, candidate: Candidate, asked: int) -> HedgeVerdict | str | None:
        key = hedge_prompt.cache_key(self.settings.model, candidate)
        if asked >= self.settings.max_candidates:
            self._count(self.stats.capped, "candidates")
            return None
        verdict = self.cache.get(key)
        if verdict is not None:
            if self._counting:
                self.stats.cache_hits += 1
            return verdict
        if key in self._failed:
            return None
        if self._over_budget():
            self._count(self.stats.capped, "cost")
            return None
        if key not in self._queue and len(self._queue) >= MAX_QUEUED:
            self._count(self.stats.capped, "queue")
            return None
        self._queue.setdefault(key, candidate)
        self.stats.queued = len(self._queue)
        self._wake.set()
        return key

    def _count(self, counter: Counter[str], key: str) -> None:
        if self._counting:
            counter[key] += 1

    @contextlib.contextmanager
    def quietly(self) -> Iterator[None]:
        """Consult without counting (``omkd scan``'s second reading repeats the first one's decisions)."""
        self._counting = False
        try:
            yield
        finally:
            self._counting = True

    # --- asking -----------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def drain(self) -> None:
        """Ask everything queued (``omkd scan``), then close the client (the cache stays open)."""
        try:
            while self._queue:
                await self._round()
        finally:
            if self._client is not None:
                await self._client.close()
                self._client = None

    async def run(self) -> None:
        """Ask as candidates come (the daemon); cancelled at shutdown."""
        while True:
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
            await self._round()

    async def _round(self) -> None:
        take = list(self._queue.items())[: self.settings.concurrency]
        await asyncio.gather(*(self._ask_one(key, candidate) for key, candidate in take))

    async def _ask_one(self, key: str, candidate: Candidate) -> None:
        verdict: HedgeVerdict | None = None
        try:
            day = self._refresh_day()
            if self._over_budget():
                self._count(self.stats.capped, "cost")
                return
            reply = await asyncio.wait_for(
                self._chat().complete(hedge_prompt.SYSTEM, hedge_prompt.user_message(candidate), self.settings.timeout),
                self.settings.timeout,
            )
            cost = self.settings.cost(reply)
            self.stats.cost_dollars += cost
            self.stats.spent_today += cost
            self.cache.spend(day, cost)
            verdict = hedge_prompt.parse_reply(reply.text, self.settings.model)
            if verdict is None:
                self.stats.requests["unreadable"] += 1
                log.warning("llm_reply_unreadable", model=self.settings.model, reply=reply.text[:200])
            else:
                self.stats.requests["ok"] += 1
                self.cache.put(key, verdict)
        except TimeoutError:
            self.stats.requests["timeout"] += 1
            log.warning("llm_timeout", model=self.settings.model, timeout=self.settings.timeout)
        except Exception as error:
            self.stats.requests["error"] += 1
            log.warning("llm_error", model=self.settings.model, error=f"{type(error).__name__}: {error}"[:300])
        finally:
            self._queue.pop(key, None)
            self.stats.queued = len(self._queue)
            if verdict is None:
                self._failed.add(key)
            self.deliver(key, verdict)

    def _chat(self) -> ChatClient:
        if self._client is None:
            self._client = self.settings.client()
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
        self.cache.close()


def open_refiner(llm: Any, state_dir: Path) -> LlmRefiner | None:
    """The refiner ``[hedging.llm]`` asks for, None when it is off."""
    if not llm.enabled:
        return None
    return LlmRefiner(LlmSettings.of(llm), VerdictCache(state_dir / CACHE_FILE))
