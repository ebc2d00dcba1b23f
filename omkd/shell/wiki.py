"""The gap wiki on disk: read it, lock it, merge into it, write it atomically, lint it.

What the pages say is decided in ``omkd/engine/wiki/``; this module only does the I/O around it.
The kept entries live in ``STATE_FILE`` (versioned plain data) beside the pages, and every page is
rendered from them on each update, so a page a person deleted comes back and a page is rewritten
only when its bytes change. Writers serialise through an ``fcntl`` lock on ``LOCK_FILE`` (the
daemon adds an ``asyncio.Lock`` in front of it, seed 002 §7); each write goes to a temporary file
in the same directory, is flushed to disk and renamed over the page. Every path written is
resolved and must stay inside the wiki directory: a symlinked ``skills/`` pointing elsewhere is
refused, never followed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import orjson

from omkd.engine.fold import Fold
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.report.build import KnowledgeIndex, agents_of, knowledge_of
from omkd.engine.report.gaps import gap_entries
from omkd.engine.summary import SegmentSummary
from omkd.engine.wiki import entries, pages, quiet, state_plain
from omkd.engine.wiki.entries import Change, Occurrence
from omkd.engine.wiki.lint import Problem, lint
from omkd.shell.impact import impact_of
from omkd.shell.knowledge_history import knowledge_changes


def _umask() -> int:
    current = os.umask(0o022)  # read once, at import, before any thread runs
    os.umask(current)
    return current


NEW_FILE_MODE: Final = 0o666 & ~_umask()
"""Pages are made as any file the user writes is (mkstemp would make them private)."""
STATE_FILE: Final = ".omkd-wiki.json"
LOCK_FILE: Final = ".omkd-wiki.lock"


class WikiError(Exception):
    """The wiki cannot be read or written; the message says which file and why."""


@dataclass(frozen=True, slots=True)
class Updated:
    new: int
    updated: int
    written: list[str]
    skipped: list[str]
    """Pages left alone because their markers are damaged (``omkd wiki --lint`` names them)."""


class WikiDirectory:
    """One wiki directory: paths inside it, atomic writes, the lock."""

    def __init__(self, root: Path) -> None:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise WikiError(f"{root}: cannot create the wiki directory ({error.strerror or error})") from error
        if not root.is_dir():
            raise WikiError(f"{root}: not a directory")
        self.root = root.resolve()

    def inside(self, relative: str) -> Path:
        """The path of ``relative`` in the wiki, resolved; WikiError when it would lie outside."""
        target = (self.root / relative).resolve()
        if target == self.root or not target.is_relative_to(self.root):
            raise WikiError(f"{relative!r}: refused, it resolves outside the wiki directory {self.root}")
        return target

    def read(self, relative: str) -> str | None:
        try:
            return self.inside(relative).read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise WikiError(f"{relative}: cannot read ({error.strerror or error})") from error

    def write(self, relative: str, text: str) -> None:
        """Write ``text`` to ``relative``: a temporary file in its directory, fsync, rename."""
        target = self.inside(relative)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target = self.inside(relative)  # the directories just made must not lead elsewhere
            fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            try:
                try:
                    mode = target.stat().st_mode & 0o777
                except FileNotFoundError:
                    mode = NEW_FILE_MODE
                os.fchmod(fd, mode)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(text.encode("utf-8", "surrogateescape"))
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
            directory = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except OSError as error:
            raise WikiError(f"{relative}: cannot write ({error.strerror or error})") from error

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the wiki's lock file (exclusively) for the duration: one writer at a time."""
        path = self.inside(LOCK_FILE)
        try:
            handle = open(path, "a+b")  # noqa: SIM115 (held open for the duration of the lock)
        except OSError as error:
            raise WikiError(f"{path}: cannot open the lock file ({error.strerror or error})") from error
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def markdown_pages(self) -> dict[str, str]:
        """Every Markdown page of the wiki (dot-files skipped), by its path relative to it."""
        found = {}
        for directory, subdirs, files in os.walk(self.root):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(".md") and not name.startswith("."):
                    relative = Path(directory, name).relative_to(self.root).as_posix()
                    found[relative] = self.read(relative) or ""
        return found


def from_fold(
    fold: Fold, index: KnowledgeIndex, path_of: Callable[[str], str]
) -> tuple[list[Occurrence], dict[str, frozenset[str]]]:
    """The failed searches of the fold's window, and the knowledge files of each row that has any
    (those coverage counts: the projects the row ran in, and the user's)."""
    found = entries.occurrences(gap_entries(fold.gapped_in_window()), path_of)
    rows = {o.row for o in found}
    knowledge = {
        row: knowledge_of(totals, index, agents_of([row])) for row, totals in fold.skills.items() if row in rows
    }
    return found, knowledge


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def changes_by_row(knowledge: Mapping[str, frozenset[str]]) -> dict[str, list[Change]]:
    """The knowledge changes of each row's knowledge files (git asked once for all of them)."""
    every = sorted(set().union(*knowledge.values())) if knowledge else []
    found = knowledge_changes(every)
    return {
        row: [Change(_iso(c.timestamp), c.commit, c.subject) for c in found if files.intersection(c.files)]
        for row, files in knowledge.items()
    }


def judged_of(
    segments: Iterable[SegmentSummary], index: KnowledgeIndex, query: ImpactQuery, held_since: float | None = None
) -> dict[str, list[quiet.Judged]]:
    """What the impact report of these segments says of each row's patterns after each change
    (spec §9.6: ``not seen since`` or ``too early to tell``)."""
    return quiet.judged(impact_of(segments, index, query, held_since).results)


def load_state(wiki: WikiDirectory) -> entries.WikiState:
    text = wiki.read(STATE_FILE)
    if text is None:
        return entries.WikiState()
    try:
        return state_plain.from_plain(orjson.loads(text))
    except (orjson.JSONDecodeError, state_plain.StateError) as error:
        raise WikiError(f"{wiki.root / STATE_FILE}: {error}; move it aside to start the wiki's state afresh") from None


def update(
    root: Path,
    found: Iterable[Occurrence],
    changes: Mapping[str, list[Change]],
    now: float,
    source: str = "omkd wiki",
    prose: Callable[[entries.WikiState], entries.WikiState] | None = None,
    judged: Mapping[str, list[quiet.Judged]] | None = None,
) -> Updated:
    """Merge ``found`` into the wiki at ``root``, under its lock; a line in its log when anything
    changed (``now`` is only ever written there). ``judged`` (``judged_of``) says which quiet
    entries it is too early to call not seen since; ``prose`` (``shell/wiki_prose.writer``) adds
    the optional LLM's summaries to the merged entries before the pages are written."""
    wiki = WikiDirectory(root)
    occurrences = list(found)
    with wiki.locked():
        before = load_state(wiki)
        merged = entries.merge(before, occurrences, changes)
        if judged is not None:
            merged = entries.compared(before, quiet.settle(merged.state, judged))
        if prose is not None:
            merged = entries.compared(before, prose(merged.state))
        written, skipped = [], []
        plain = orjson.dumps(state_plain.to_plain(merged.state), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        if wiki.read(STATE_FILE) != plain.decode() + "\n":
            wiki.write(STATE_FILE, plain.decode() + "\n")
        rendered = pages.pages_of(merged.state)
        for page in rendered:
            if _put(wiki, page.path, page.generated):
                written.append(page.path)
            elif _damaged(wiki, page.path):
                skipped.append(page.path)
        if _put(wiki, pages.INDEX, pages.index_part(rendered)):
            written.append(pages.INDEX)
        if written or merged.new or merged.updated:
            log = wiki.read(pages.LOG) or pages.LOG_HEAD
            line = pages.log_line(_iso(now), source, merged.new, merged.updated, written)
            wiki.write(pages.LOG, log + ("" if log.endswith("\n") else "\n") + line + "\n")
    return Updated(merged.new, merged.updated, written, skipped)


def _put(wiki: WikiDirectory, relative: str, generated: str) -> bool:
    """Splice ``generated`` into the page; True when its bytes changed."""
    existing = wiki.read(relative)
    try:
        text = pages.splice(existing, generated)
    except pages.MarkerError:
        return False
    if text == existing:
        return False
    wiki.write(relative, text)
    return True


def _damaged(wiki: WikiDirectory, relative: str) -> bool:
    existing = wiki.read(relative)
    if existing is None:
        return False
    try:
        pages.splice(existing, "")
    except pages.MarkerError:
        return True
    return False


def lint_wiki(root: Path) -> list[Problem]:
    """The problems of the wiki at ``root`` (``engine/wiki/lint.py``)."""
    if not root.is_dir():
        raise WikiError(f"{root}: no such wiki directory")
    wiki = WikiDirectory(root)
    return lint(wiki.markdown_pages(), os.path.exists)
