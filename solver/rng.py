"""The game's random generator in Python: xoshiro256** seeded by SplitMix64.

The same generator as csrc/rng.c, draw for draw, so a game played in C can be
replayed and checked in Python. A spawn draws the cell first (uniform over the
empty cells in increasing index), then the value (4 when below(10) == 0, else 2).
"""

from __future__ import annotations

from solve2048.errors import InvalidArgumentError

MASK64 = (1 << 64) - 1
MAX_SEED = MASK64  # seeds are any 64-bit unsigned number


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


class Rng:
    """xoshiro256** (Blackman and Vigna, 2018) over a 64-bit seed."""

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= MAX_SEED:
            raise InvalidArgumentError(f"expected a seed in 0..2**64-1, got {seed}")
        x = seed
        self.state = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK64  # SplitMix64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            self.state.append(z ^ (z >> 31))

    @classmethod
    def from_state(cls, words: list[int] | tuple[int, ...]) -> Rng:
        """The generator at a state recorded earlier (four 64-bit words, as
        ``state`` holds them), to go on drawing where it stopped."""
        rng = cls.__new__(cls)
        rng.state = list(words)
        return rng

    def next(self) -> int:
        s = self.state
        result = (_rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1 (Lemire's method on the top 32 bits)."""
        m = (self.next() >> 32) * n
        if (m & 0xFFFFFFFF) < n:
            threshold = (-n % (1 << 32)) % n
            while (m & 0xFFFFFFFF) < threshold:
                m = (self.next() >> 32) * n
        return m >> 32

    def spawn(self, cells: list[int]) -> tuple[int, int]:
        """Draws a spawn for these 16 cells: (cell, value). Does not change cells."""
        empty = [i for i, v in enumerate(cells) if v == 0]
        cell = empty[self.below(len(empty))]
        value = 4 if self.below(10) == 0 else 2
        return cell, value
