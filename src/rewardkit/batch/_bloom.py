"""`Bloom`: "have I seen this key?" in fixed memory, for streams too long to keep every key.

It may answer "seen" for a new key (rarely, see `Bloom`), never "new" for a seen one; callers
confirm a "seen" some exact way (e.g. reading the input again).
"""

from __future__ import annotations

from collections.abc import Hashable

__all__ = ["Bloom"]


class Bloom:
    """A Bloom filter of `2**log2_bits` bits and `probes` bits per key.

    With `n` keys, a new key reads as seen with probability about
    `(1 - exp(-probes * n / 2**log2_bits)) ** probes`. The bits are a zeroed `bytearray`,
    whose pages cost no memory until a key touches them.
    """

    def __init__(self, log2_bits: int, probes: int) -> None:
        self.mask = (1 << log2_bits) - 1
        self.probes = probes
        self.bits = bytearray(1 << max(log2_bits - 3, 0))

    def add(self, key: Hashable) -> bool:
        """Record `key`; True when it may have been added before."""
        digest = hash((key, type(key).__name__))  # 1 and "1" are two keys
        step, bits, seen = digest >> 32 | 1, self.bits, True
        for _ in range(self.probes):
            digest = (digest + step) & self.mask
            byte, bit = digest >> 3, 1 << (digest & 7)
            if not bits[byte] & bit:
                bits[byte] |= bit
                seen = False
        return seen
