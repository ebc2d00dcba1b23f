"""How a followed file is recognised: a hash of its first bytes (the head, up to ``HEAD_BYTES``)
and, on restore, of the ``MARKER_BYTES`` before the saved offset (the offset marker).

The tailer, restore and the catch-up workers (``first_read.py``, which import little) check a
file by these.
"""

from __future__ import annotations

import hashlib
import os
from typing import Final

HEAD_BYTES: Final = 1024
MARKER_BYTES: Final = 64


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def head_length(offset: int) -> int:
    """How much of a file read to ``offset`` its head (the identity hash) covers."""
    return min(HEAD_BYTES, offset)


def pread_exact(fd: int, length: int, offset: int) -> bytes:
    parts: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, length, offset)
        if not chunk:
            break
        parts.append(chunk)
        length -= len(chunk)
        offset += len(chunk)
    return b"".join(parts)
