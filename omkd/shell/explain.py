"""``omkd explain`` over files: read each transcript with an explaining observer, fold them all
(so sub-agents find their launching skill), and gather the explanation."""

from __future__ import annotations

from collections.abc import Iterable

from omkd.engine.explain import Explanation, StreamExplainer, explanation
from omkd.engine.fold import Fold
from omkd.engine.links import LinkBook
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor
from omkd.shell.scan import Source, scan_file


def explain(
    sources: Iterable[Source], rules: SegmenterRules | None = None
) -> tuple[Explanation, Fold, list[tuple[StreamExplainer, str]]]:
    """The explanation of these transcripts, the fold it was made with, and each stream's explainer."""
    fold = Fold()
    fold.links = LinkBook(record_sources=True)
    streams: list[tuple[StreamExplainer, str]] = []
    for source in sources:
        explainer = StreamExplainer(source.name)
        stream = StreamProcessor(source.name, rules, observer=explainer)
        scan_file(source.path, stream)
        stream_key = stream.adapter.stream_key or stream.name
        fold.add_stream(stream)
        streams.append((explainer, stream_key))
    fold.finish()
    return explanation(streams, fold), fold, streams
