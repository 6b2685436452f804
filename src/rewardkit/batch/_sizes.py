"""How many samples a worker gets at once (`ChunkSizes`)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ChunkSizes"]

_CHUNK_S = 0.1
"""About how long one chunk of samples takes: its round trip (a few ms on a busy machine)
then costs a few percent."""
_MAX_CHUNK = 256


class ChunkSizes:
    """How many samples to send a worker at once: a few at first, so the first results come
    soon, then doubling up to about `_CHUNK_S` of work, and no more than an even share of a
    known total, so that every worker gets some."""

    def __init__(self, *, total: int | None = None, workers: int = 1, single: bool = False) -> None:
        self.single = single
        self.limit = 1 if single else _MAX_CHUNK
        if total is not None:
            self.limit = max(1, min(self.limit, -(-total // workers)))
        self.next = min(4, self.limit)

    def learn(self, seconds: Sequence[float]) -> None:
        """Size the next chunk from how long each sample of a finished one took."""
        took = sum(seconds) / max(len(seconds), 1)
        fits = int(_CHUNK_S / took) if took > 0 else self.limit
        self.next = max(1, min(self.limit, self.next * 2, fits))
