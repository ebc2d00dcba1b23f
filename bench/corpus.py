"""Corpora for the benchmarks: copies of the real fixtures that omkd reads as new sessions.

Two ways of copying, for two needs. A *copy set* (``write_copy_set``) is every Claude Code
fixture once, with every known session id replaced by a fresh uuid in the bytes and in file and
folder names, so the layout and the sub-agent → parent links survive and each copy has exactly
the size of its original; ``build_corpus`` stacks copy sets into the ~300 MB corpus that
``scan_throughput.py`` and ``catch_up.py`` read (``bench/corpus``, reused while its manifest
matches). A ``UuidTemplate`` renders one transcript again with *every* uuid fresh (session ids,
record uuids, parent links), for the thousands of distinct small files of ``many_files.py``.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson
from common import BENCH_DIR, MB, free_disk_check

from omkd.engine import formats

DEFAULT_FIXTURES: Final = Path("/work/shared/fixtures/real")
DEFAULT_CORPUS: Final = BENCH_DIR / "corpus"
DEFAULT_SIZE_MB: Final = 300.0
SKIPPED_PATH_PARTS: Final = ("/codex/", "madshn__localpush")
COPY_PREFIX: Final = "copy-"
MANIFEST_NAME: Final = "manifest.json"
MANIFEST_VERSION: Final = 3
"""2: the manifest holds the bytes written (copies of a non-uuid session id change size). 3: the
copy sets hold Claude Code's transcripts only (six Codex rollouts outside a ``codex/`` folder had
slipped in with their session ids unchanged, the same session in every copy set)."""
COPY_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/omkd/bench/scan_throughput")
"""Fresh session ids of the copy sets (the name is the benchmark that first built them)."""
DAEMON_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/omkd/bench/daemon_bench")
"""Fresh uuids of the daemon benchmarks' files and synthetic records."""
UUID_RE: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_BYTES_RE: Final = re.compile(b"(" + UUID_RE.pattern.encode() + b")")


# ---------------------------------------------------------------------------------------------
# Copy sets: every fixture once, session ids fresh
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceFile:
    """One real fixture: where it sits (relative to the fixtures root), its bytes, its ids."""

    rel: Path
    data: bytes
    ids: tuple[str, ...]
    """Known session ids that occur in ``data``, to be replaced in every copy."""


def first_record(path: Path) -> dict[str, object]:
    try:
        record = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


def agent_of(path: Path) -> str:
    """Which agent wrote a fixture, by the formats' documented first records (not omkd's code)."""
    if path.suffix == ".json":
        return "gemini"
    record = first_record(path)
    kind = record.get("type")
    if "payload" in record or (isinstance(kind, str) and "." in kind):
        return "codex"
    if "sessionId" in record and kind is None:
        return "gemini"
    return "claude_code"


def source_files(fixtures: Path) -> list[Path]:
    """The Claude Code ``*.jsonl`` fixtures (other agents' skipped: their session ids live in other
    fields and file names than ``copy_bytes`` and ``copy_path`` rewrite), in a stable order."""
    found = []
    for path in sorted(fixtures.rglob("*.jsonl")):
        posix = path.as_posix()
        if any(part in posix for part in SKIPPED_PATH_PARTS) or not path.is_file() or agent_of(path) != "claude_code":
            continue
        found.append(path)
    if not found:
        raise SystemExit(f"no Claude Code *.jsonl fixtures under {fixtures}")
    return found


def session_ids_of(path: Path, data: bytes) -> set[str]:
    """The ``sessionId`` values of a transcript, plus its file stem when that is a uuid."""
    ids: set[str] = set()
    if UUID_RE.fullmatch(path.stem):
        ids.add(path.stem)
    for line in data.split(b"\n"):
        if b'"sessionId"' not in line:
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        session = record.get("sessionId") if isinstance(record, dict) else None
        if isinstance(session, str) and session:
            ids.add(session)
    return ids


def load_sources(fixtures: Path) -> tuple[list[SourceFile], list[str]]:
    """Read the fixtures once; return them with every session id known across all of them.

    Ids are shared between files (a sub-agent transcript carries its parent's session id, and its
    folder is named after it), so one id -> new id mapping is used per copy set for all files.
    """
    raw = [(path, path.read_bytes()) for path in source_files(fixtures)]
    known: set[str] = set()
    for path, data in raw:
        known |= session_ids_of(path, data)
    ordered = sorted(known)
    sources = [
        SourceFile(path.relative_to(fixtures), data, tuple(i for i in ordered if i.encode() in data))
        for path, data in raw
    ]
    return sources, ordered


def fresh_id(copy_index: int, original: str) -> str:
    return str(uuid.uuid5(COPY_NAMESPACE, f"copy-{copy_index:04d}/{original}"))


def copy_bytes(source: SourceFile, mapping: dict[str, str]) -> bytes:
    """The source bytes with every known session id replaced by its fresh id."""
    data = source.data
    for original in source.ids:
        new = mapping[original]
        if UUID_RE.fullmatch(original):
            # Same length: the copy has exactly the size of the original.
            data = data.replace(original.encode(), new.encode())
        else:
            # A free-form id could be a substring of anything; replace it only as a JSON string.
            data = data.replace(orjson.dumps(original), orjson.dumps(new))
    return data


def copy_path(rel: Path, mapping: dict[str, str]) -> Path:
    """``rel`` with session-id folder names and a session-id file stem renamed."""
    parts = [mapping.get(part, part) for part in rel.parent.parts]
    name = mapping[rel.stem] + rel.suffix if rel.stem in mapping else rel.name
    return Path(*parts, name)


def write_copy_set(sources: Sequence[SourceFile], known_ids: Sequence[str], copy_index: int, base: Path) -> int:
    """Copy set number ``copy_index`` of ``sources`` below ``base``; returns the bytes written."""
    mapping = {original: fresh_id(copy_index, original) for original in known_ids}
    written = 0
    for source in sources:
        target = base / copy_path(source.rel, mapping)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = copy_bytes(source, mapping)
        target.write_bytes(data)
        written += len(data)
    return written


def write_fixture_copy(fixtures: Path, root: Path) -> int:
    """One copy set of all the real fixtures below ``root``, as background files; returns bytes."""
    sources, known_ids = load_sources(fixtures)
    return write_copy_set(sources, known_ids, 9999, root)


# ---------------------------------------------------------------------------------------------
# The replicated corpus
# ---------------------------------------------------------------------------------------------


def copy_dirs(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.glob(f"{COPY_PREFIX}*") if p.is_dir())


def list_files(roots: Sequence[Path], documents: bool = False) -> list[Path]:
    """Every ``*.jsonl`` below ``roots`` (with ``documents``, every file omkd reads as a
    transcript: Gemini's whole-document chats too), in the order ``omkd scan`` walks them."""
    wanted = formats.is_transcript if documents else (lambda path: path.endswith(".jsonl"))
    files: list[Path] = []
    for root in roots:
        for directory, subdirs, names in os.walk(root):
            subdirs.sort()
            files.extend(Path(directory, n) for n in sorted(names) if wanted(os.path.join(directory, n)))
    return files


def warm_cache(files: Sequence[Path]) -> None:
    """Read ``files`` once (untimed), so that what is timed next reads from the page cache."""
    for path in files:
        with path.open("rb") as handle:
            while handle.read(1 << 20):
                pass


@dataclass(frozen=True)
class Corpus:
    root: Path
    copies: list[Path]
    set_bytes: int
    reused: bool


def build_corpus(fixtures: Path, corpus: Path, size_mb: float) -> Corpus:
    """Replicate the fixtures until the corpus holds at least ``size_mb`` MB; reuse a matching build."""
    sources, known_ids = load_sources(fixtures)
    set_bytes = sum(len(s.data) for s in sources)
    copies = max(1, math.ceil(size_mb * MB / set_bytes))
    wanted = {
        "version": MANIFEST_VERSION,
        "size_mb": size_mb,
        "copies": copies,
        "fixtures": str(fixtures),
        "sources": [[s.rel.as_posix(), len(s.data)] for s in sources],
    }
    manifest = corpus / MANIFEST_NAME
    if manifest.is_file():
        try:
            existing = orjson.loads(manifest.read_bytes())
        except orjson.JSONDecodeError:
            existing = None
        dirs = copy_dirs(corpus)
        if (
            isinstance(existing, dict)
            and {k: v for k, v in existing.items() if k != "bytes"} == wanted
            and len(dirs) == copies
            and sum(f.stat().st_size for f in list_files(dirs)) == existing.get("bytes")
        ):
            return Corpus(corpus, dirs, set_bytes, reused=True)
        manifest.unlink()

    corpus.mkdir(parents=True, exist_ok=True)
    for stale in copy_dirs(corpus):
        shutil.rmtree(stale)
    free_disk_check(corpus, copies * set_bytes)
    print(f"building corpus: {copies} copies x {set_bytes / MB:.2f} MB of {len(sources)} files -> {corpus}")
    written = sum(
        write_copy_set(sources, known_ids, index, corpus / f"{COPY_PREFIX}{index:04d}") for index in range(copies)
    )
    # The bytes written, not copies x set_bytes: a session id that is not a uuid gets a uuid, longer or shorter.
    manifest.write_bytes(orjson.dumps({**wanted, "bytes": written}, option=orjson.OPT_INDENT_2))
    return Corpus(corpus, copy_dirs(corpus), set_bytes, reused=False)


# ---------------------------------------------------------------------------------------------
# Every uuid fresh
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusStats:
    root: str
    files: int
    dirs: int
    bytes: int
    lines: int
    build_seconds: float


class UuidTemplate:
    """A real transcript split at every uuid, rendered again with a fresh uuid for each."""

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel = rel
        self.parts = UUID_BYTES_RE.split(data)
        self.uuids = sorted({p.decode() for p in self.parts[1::2]})
        self.lines = data.count(b"\n")
        self.stem_is_uuid = Path(rel).stem in self.uuids

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.parts)

    def render(self, copy_key: str) -> tuple[bytes, dict[str, str]]:
        """The bytes with every uuid ``u`` replaced by ``uuid5(namespace, f"{copy_key}/{u}")``, and that mapping."""
        mapping = {u: str(uuid.uuid5(DAEMON_NAMESPACE, f"{copy_key}/{u.lower()}")) for u in self.uuids}
        encoded = {u.encode(): m.encode() for u, m in mapping.items()}
        out = [encoded[p] if i % 2 else p for i, p in enumerate(self.parts)]
        return b"".join(out), mapping
