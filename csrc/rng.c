/* rng.c -- the game's seeded generator and the spawn it draws.
 *
 * xoshiro256** (Blackman and Vigna), its 256-bit state spread from a 64-bit
 * seed by SplitMix64, with Lemire's unbiased below(n). It is the twin of
 * solver/rng.py, draw for draw, so that a game played in C can be replayed
 * and checked in Python.
 *
 * A spawn draws two numbers, in this order: the cell, uniform over the empty
 * cells taken in increasing index; then the value, 4 when below(10) == 0
 * (p = 0.1) and 2 otherwise (docs/rules.md).
 */
#include "api.h"
#include "board.h"

/* SplitMix64: spreads one 64-bit seed over the generator's 256-bit state. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void s2048_rng_seed(s2048_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

uint64_t s2048_rng_next(s2048_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t s2048_rng_below(s2048_rng *r, uint32_t n)
{
    /* Lemire: the high half of a 32x32 product, rejecting the few low halves
     * that would favour some results. Uses the top 32 bits of each draw. */
    uint64_t m = (s2048_rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (s2048_rng_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

uint64_t s2048_spawn(s2048_rng *r, uint64_t board, int *cell, int *value)
{
    return s2048_spawn_on(r, board, board_empty_mask(board), cell, value);
}

uint64_t s2048_spawn_on(s2048_rng *r, uint64_t board, uint64_t empty, int *cell, int *value)
{
    uint32_t k = s2048_rng_below(r, (uint32_t)nibble_flags_count(empty));
    int at = 0;
    /* Walk to the k-th empty cell. */
    for (;; at++) {
        if (empty >> (4 * at) & 1) {
            if (k == 0) break;
            k--;
        }
    }
    int rank = s2048_rng_below(r, 10) == 0 ? 2 : 1;
    *cell = at;
    *value = 1 << rank;
    return board | (uint64_t)rank << (4 * at);
}
