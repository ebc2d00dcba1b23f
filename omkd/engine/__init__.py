"""The pure core: bytes -> lines -> records -> events -> segments -> signals -> folded health.

Nothing in this package touches files, sockets, asyncio or the clock; every step takes
data and returns data, so the same pipeline runs over a whole file (``omkd scan``) or a
live tail (``omkd run``).
"""
