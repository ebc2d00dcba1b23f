"""omkd's configuration: one TOML file, validated by pydantic, immutable once loaded. The daemon
runs on all of it; ``omkd scan``, ``calibrate`` and ``wiki --config`` read the same ``Config``.

Durations are written as ``"30s"``, ``"5m"``, ``"24h"``, ``"7d"`` (or a number of
seconds); sizes as ``"16MiB"``, ``"512KiB"`` (or a number of bytes): ``config_values.py``.
Every bad key is reported by its dotted name, e.g. ``tail.rescan_interval: …``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, TypeAdapter, ValidationError, field_validator

from omkd.api import DEFAULT_PORT
from omkd.config_checks import llm_checks, wiki_checks
from omkd.config_values import Bytes, Seconds, default_roots, default_state_dir
from omkd.config_values import Section as _Section
from omkd.engine import skills
from omkd.engine.impact.changes import DEFAULT_MERGE_WITHIN, DEFAULT_SPAN
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.lines import DEFAULT_MAX_LINE_BYTES
from omkd.engine.metacog import rules as metacog_rules
from omkd.engine.segmenting import SegmenterRules


class Sources(_Section):
    roots: list[Path] = Field(default_factory=lambda: default_roots(), min_length=1)  # noqa: PLW0108 (pydantic would pass its data to a one-argument factory)
    """Directories searched recursively for transcripts (``*.jsonl``; Gemini's ``chats/*.json``)."""
    knowledge_roots: list[Path] = Field(default_factory=list)
    """Extra knowledge roots: every text file below them counts for coverage."""
    home: Path = Path("~")
    """Where the user-level ``~/.claude`` knowledge lives."""
    knowledge_refresh: Seconds = 15.0
    """How often the knowledge files are listed again (coverage, change detection)."""


class Tail(_Section):
    mode: Literal["auto", "events", "polling"] = "auto"
    """events: filesystem events wake the reader; polling: only rescans; auto: events, or
    polling when a watch cannot be added."""
    rescan_interval: Seconds = 30.0
    """Full rescan of the roots in events mode: the source of truth, events are a hint."""
    poll_interval: Seconds = 1.0
    """Rescan interval in polling mode."""
    max_line_bytes: Bytes = DEFAULT_MAX_LINE_BYTES
    max_open_files: int = Field(default=128, ge=1)
    idle_after: Seconds = 300.0
    """A file unchanged this long gets its descriptor closed and its state evicted."""
    read_chunk: Bytes = 1 << 20
    catch_up_workers: int | None = Field(default=None, ge=0)
    """Worker processes that read files never read before while omkd is more than 8 MiB behind
    (at start, or later); 0 reads everything on the event loop. Unset: the cores omkd may
    run on, at most 4. Not used with the LLM judge of hedging (its verdicts are asked on the loop)."""


class Segments(_Section):
    idle_close: Seconds = 1800.0
    subagent_link_timeout: Seconds = 1800.0
    """How long (event time) a sub-agent's segments wait for the link to the skill that launched
    them before they count as ``general``."""
    include_thinking: bool | None = None
    """Deprecated alias of ``hedging.include_thinking`` (release 1 configs)."""
    extra_hedging: list[str] | None = None
    """Deprecated alias of ``hedging.extra_cues`` (release 1 configs)."""
    extra_search_tools: list[str] = Field(default_factory=list)
    builtin_commands: list[str] = Field(default_factory=lambda: sorted(skills.BUILTIN_COMMANDS))


class HedgingLlm(_Section):
    """The optional LLM judge of hedging candidates (spec §3.3): off unless ``enabled``."""

    enabled: bool = False
    provider: Literal["openai", "anthropic"] = "openai"
    """``openai``: any OpenAI-compatible chat-completions endpoint (OpenAI, a local Ollama or
    llama.cpp server); ``anthropic``: the Anthropic messages API."""
    base_url: str | None = None
    """E.g. ``http://127.0.0.1:11434/v1`` for Ollama; the provider's own when unset."""
    model: str = ""
    api_key_env: str = ""
    """The environment variable holding the API key (a local server may need none)."""
    max_candidates: int = Field(default=5, ge=0)
    """Candidates per segment sent to the LLM; further ones keep the embedded verdict."""
    daily_cost_cap: float = Field(default=1.0, ge=0)
    """US dollars per UTC day; once spent, candidates keep the embedded verdict until the next day."""
    input_price: float = Field(default=0.0, ge=0)
    """US dollars per million input tokens (0: a local model, free)."""
    output_price: float = Field(default=0.0, ge=0)
    """US dollars per million output tokens."""
    timeout: Seconds = 20.0
    concurrency: int = Field(default=2, ge=1, le=64)

    @field_validator("model")
    @classmethod
    def _model(cls, model: str) -> str:
        return model.strip()


class Hedging(_Section):
    enabled: bool = True
    """Look for hedging at all (markers are always looked for)."""
    include_thinking: bool = False
    """Also look in ``thinking`` parts (signals from them are marked)."""
    extra_cues: list[str] = Field(default_factory=list)
    """Extra cues of the recall net (regular expressions, case-insensitive)."""
    llm: HedgingLlm = Field(default_factory=HedgingLlm)


class Metacog(_Section):
    """What the agent did at a gap (spec §8)."""

    enabled: bool = True
    """Follow each gap's outcome (off only to measure what it costs)."""
    window_calls: int = Field(default=metacog_rules.WINDOW_CALLS, ge=1)
    """The follow-up window ends at this many tool calls after the gap."""
    unchecked_write_load: float = Field(default=metacog_rules.UNCHECKED_WRITE_LOAD, gt=0)
    """M4: a project write made at this load of unresolved gaps is unchecked."""


class WindowSection(_Section):
    length: Seconds = 7 * 86400.0
    """The event-time window of the gauges and the status report."""
    retention: Seconds = 30 * 86400.0
    """How long segments and their gaps are kept (at least the window)."""
    rollup_days: int = Field(default=90, ge=1)
    """How many days of daily per-skill roll-ups are kept."""


class Impact(_Section):
    """Knowledge changes and their effect (spec §9): ``omkd impact`` and ``/api/v1/impact``."""

    span: Seconds = DEFAULT_SPAN
    """Each side's length before and after a change (cut at the neighbouring change)."""
    merge_within: Seconds = DEFAULT_MERGE_WITHIN
    """Edits this close to the one before are one change."""

    def query(self) -> ImpactQuery:
        """What is asked before a command's own options (``--span`` overrides ``span``)."""
        return ImpactQuery(span=self.span, merge_within=self.merge_within)


class State(_Section):
    directory: Path | None = None
    """Default: $STATE_DIRECTORY (systemd), else $XDG_STATE_HOME/omkd or ~/.local/state/omkd."""
    checkpoint_interval: Seconds = 1.0
    checkpoint_bytes: Bytes = 8 << 20


class Http(_Section):
    listen: str = f"127.0.0.1:{DEFAULT_PORT}"
    """host:port; port 0 picks a free port (tests). Keep it on loopback: status and gaps
    expose transcript snippets."""

    @field_validator("listen")
    @classmethod
    def _host_port(cls, listen: str) -> str:
        host, sep, port = listen.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"{listen!r} is not host:port")
        return listen

    @property
    def host(self) -> str:
        return self.listen.rpartition(":")[0].strip("[]")

    @property
    def port(self) -> int:
        return int(self.listen.rpartition(":")[2])

    @property
    def url(self) -> str:
        """Where a client on this host reaches the daemon: a wildcard address on loopback."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self.host, self.host)  # noqa: S104 (read, not bound)
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"


class Metrics(_Section):
    max_skills: int = Field(default=200, ge=1)
    """Distinct skill label values; further skills are folded into ``__other__``."""
    snapshot_interval: Seconds = 0.05
    """Least time between two rebuilds of the /metrics snapshot."""


class Wiki(_Section):
    """The gap wiki (``omkd wiki``) kept current from the live fold: off unless ``directory`` is set."""

    directory: Path | None = None
    """Where the wiki lives (created when missing); ``omkd wiki --lint DIR`` checks it."""
    interval: Seconds = 300.0
    """How often its pages are merged with what the daemon has read (never while history is read)."""
    llm: bool = False
    """Each entry's prose summary written (and merged as it grows) by the model of
    ``[hedging.llm]``; the deterministic entry stays whenever the model fails."""


class Config(_Section):
    sources: Sources = Field(default_factory=Sources)
    tail: Tail = Field(default_factory=Tail)
    segments: Segments = Field(default_factory=Segments)
    hedging: Hedging = Field(default_factory=Hedging)
    metacog: Metacog = Field(default_factory=Metacog)
    window: WindowSection = Field(default_factory=WindowSection)
    impact: Impact = Field(default_factory=Impact)
    state: State = Field(default_factory=State)
    http: Http = Field(default_factory=Http)
    metrics: Metrics = Field(default_factory=Metrics)
    wiki: Wiki = Field(default_factory=Wiki)

    def roots(self) -> list[Path]:
        return [root.expanduser() for root in self.sources.roots]

    def listening(self, listen: str | None) -> Config:
        """This config with ``http.listen`` replaced (``omkd run --listen``, ``OMKD_LISTEN``)."""
        if listen is None:
            return self
        return self.model_copy(update={"http": Http(listen=listen)})

    def state_dir(self) -> Path:
        return (self.state.directory or default_state_dir()).expanduser()

    def segmenter_rules(self) -> SegmenterRules:
        """The engine's rules as this config sets them."""
        seg, hedging = self.segments, self.hedging
        thinking = hedging.include_thinking if seg.include_thinking is None else seg.include_thinking
        return SegmenterRules(
            builtin_commands=frozenset(name.lower() for name in seg.builtin_commands),
            hedging=hedging.enabled,
            include_thinking=thinking or hedging.include_thinking,
            extra_hedging=(*hedging.extra_cues, *(seg.extra_hedging or ())),
            extra_search_tools=frozenset(seg.extra_search_tools),
            metacog=self.metacog.enabled,
            window_calls=self.metacog.window_calls,
            unchecked_write_load=self.metacog.unchecked_write_load,
        )


class ConfigError(Exception):
    """The config file is unreadable or invalid; ``problems`` lists each bad key."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))


def _problems(error: ValidationError) -> list[str]:
    problems = []
    for issue in error.errors():
        key = ".".join(str(part) for part in issue["loc"]) or "(top level)"
        message = issue["msg"].removeprefix("Value error, ")
        if issue["type"] == "extra_forbidden":
            message = "unknown key"
        problems.append(f"{key}: {message}")
    return problems


_SECONDS: Final = TypeAdapter(Seconds)


def _cross_checks(document: dict[str, Any]) -> list[str]:
    """Rules between keys, checked even when other keys are bad so every problem is named."""
    return [
        *_window_checks(document.get("window", {})),
        *llm_checks(document.get("hedging", {})),
        *wiki_checks(document.get("wiki", {}), document.get("hedging", {})),
    ]


def _window_checks(window: object) -> list[str]:
    if not isinstance(window, dict):
        return []
    try:
        length = _SECONDS.validate_python(window.get("length", WindowSection().length))
        retention = _SECONDS.validate_python(window.get("retention", WindowSection().retention))
    except ValidationError:
        return []
    if retention < length:
        return ["window.retention: must be at least window.length"]
    return []


def parse_config(text: str, source: str = "<config>") -> Config:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(source, [f"not valid TOML: {error}"]) from None
    problems = _cross_checks(document)
    try:
        config = Config.model_validate(document)
    except ValidationError as error:
        raise ConfigError(source, _problems(error) + problems) from None
    if problems:
        raise ConfigError(source, problems)
    return config


def load_config(path: Path | None) -> Config:
    """The config at ``path``, or the embedded default when ``path`` is None."""
    if path is None:
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(str(path), [error.strerror or str(error)]) from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), ["not UTF-8 text"]) from None
    return parse_config(text, str(path))
