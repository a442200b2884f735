/* ladder.c -- the whole ladder: boards with tiles past 32768.
 *
 * A 4-bit cell holds ranks up to 15 (32768); the real game goes on to rank 16
 * (65536) and rank 17 (131072), the largest a 16-cell game can make. A "wide"
 * board is the 64-bit board holding each cell's rank modulo 16 (its low four
 * bits) and a 16-bit word whose bit i is the fifth bit of cell i:
 *
 *   rank(i) = ((low >> 4i) & 15) | ((high >> i) & 1) << 4
 *
 * so a board below 65536 is its 64-bit board with high = 0, and a cell is
 * empty only when both parts are 0. Wide boards are moved exactly here, once
 * per real move, on the slow path of unpacked ranks; everything that is hot
 * (the search, the heuristic, the transposition table, the endgame tables)
 * works on a 64-bit copy from s2048_downgrade, in which ranks absent from the
 * board are taken out and the ranks above them moved down. That keeps the
 * order and the equalities of the tiles on the board, so every direction is
 * legal in the copy exactly when it is on the board, and merges the same
 * tiles.
 */
#include "api.h"
#include "moves.h"

#define WIDE_MAX_RANK 17  /* 131072: no 16-cell game makes more */

/* Writes the 16 ranks of a wide board, row-major. */
static void unpack_ranks(uint64_t low, uint16_t high, int rank[16])
{
    for (int i = 0; i < 16; i++) rank[i] = board_cell(low, i) | ((high >> i) & 1) << 4;
}

/* Packs 16 ranks (each 0..31) into a wide board. */
static void pack_ranks(const int rank[16], uint64_t *low, uint16_t *high)
{
    uint64_t l = 0;
    uint16_t h = 0;
    for (int i = 0; i < 16; i++) {
        l |= (uint64_t)(rank[i] & 15) << (4 * i);
        h |= (uint16_t)(((rank[i] >> 4) & 1) << i);
    }
    *low = l;
    *high = h;
}

/* The cells of line k (0..3) of a move in dir, in the order the tiles slide
 * toward: line[0] is the cell at the target edge. */
static void line_cells(int dir, int k, int cells[4])
{
    for (int j = 0; j < 4; j++) {
        switch (dir) {
        case DIR_UP:    cells[j] = 4 * j + k; break;
        case DIR_DOWN:  cells[j] = 4 * (3 - j) + k; break;
        case DIR_LEFT:  cells[j] = 4 * k + j; break;
        default:        cells[j] = 4 * k + 3 - j; break;
        }
    }
}

/* Returns 1 when a move in dir on this 64-bit board needs no fifth bit. */
static inline int fits_four_bits(uint64_t low, uint16_t high, int dir)
{
    return high == 0 && !board_move_overflows(low, dir);
}

int s2048_wide_move(uint64_t low, uint16_t high, int dir, uint64_t *out_low, uint16_t *out_high,
                    uint32_t *gain)
{
    dir &= 3;
    if (fits_four_bits(low, high, dir)) {
        *out_low = board_move(low, dir);
        *out_high = 0;
        *gain = board_move_gain(low, dir);
        return *out_low != low;
    }
    int rank[16];
    unpack_ranks(low, high, rank);
    uint32_t points = 0;
    for (int k = 0; k < 4; k++) {
        int cells[4], line[4], overflow;
        line_cells(dir, k, cells);
        for (int j = 0; j < 4; j++) line[j] = rank[cells[j]];
        points += slide_line(line, WIDE_MAX_RANK, &overflow);
        if (overflow) return -1;  /* two 131072s: no real game holds them */
        for (int j = 0; j < 4; j++) rank[cells[j]] = line[j];
    }
    pack_ranks(rank, out_low, out_high);
    *gain = points;
    return *out_low != low || *out_high != high;
}

int s2048_wide_legal_mask(uint64_t low, uint16_t high)
{
    if (high == 0) return s2048_legal_mask(low);  /* a merge of 32768s changes the board too */
    int mask = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t l;
        uint16_t h;
        uint32_t g;
        if (s2048_wide_move(low, high, d, &l, &h, &g) > 0) mask |= 1 << d;
    }
    return mask;
}

/* Returns a mask with bit 4*i set exactly when cell i is empty (rank 0). */
static uint64_t wide_empty_mask(uint64_t low, uint16_t high)
{
    uint64_t mask = board_empty_mask(low);
    for (int i = 0; i < 16; i++)
        if (high >> i & 1) mask &= ~(1ULL << (4 * i));
    return mask;
}

int s2048_wide_count_empty(uint64_t low, uint16_t high)
{
    return nibble_flags_count(wide_empty_mask(low, high));
}

int s2048_wide_is_game_over(uint64_t low, uint16_t high)
{
    /* RULES.md: the game ends when no valid move remains. A board with a
     * tile and an empty cell always has one (some tile shares a line with
     * some empty cell), unless two 131072s, which do not merge, block every
     * direction (a given board: two in a row, the columns below them full and
     * unmergeable). The empty board has no move either, but it is no lost
     * game (docs/rules.md). So only a full board, or one with two 131072s, is
     * tried move by move. */
    int empty = s2048_wide_count_empty(low, high);
    if (empty == 16 || (empty > 0 && wide_count_131072(low, high) < 2)) return 0;
    return s2048_wide_legal_mask(low, high) == 0;
}

uint64_t s2048_wide_spawn(s2048_rng *r, uint64_t low, uint16_t high, int *cell, int *value)
{
    /* The same draws as s2048_spawn, over the cells that are really empty. */
    return s2048_spawn_on(r, low, wide_empty_mask(low, high), cell, value);
}

uint64_t s2048_downgrade(uint64_t low, uint16_t high, int *lossless)
{
    *lossless = 1;
    if (high == 0 && !board_has_two_maxed(low)) return low;

    int rank[16], count[32] = {0};
    unpack_ranks(low, high, rank);
    int top = 0;
    for (int i = 0; i < 16; i++) {
        count[rank[i]]++;
        if (rank[i] > top) top = rank[i];
    }
    /* The copy's top rank must be at most 15, and at most 14 when two tiles
     * hold it, so that the copy can merge them as the board can. */
    int need = top - 15 + (count[top] >= 2);
    int removed[32] = {0};
    /* Take out the absent ranks nearest below the top: merges into them are
     * rare in a search (they build the second-largest tile), where a gap among
     * the small tiles would make the copy mistake every new small tile. Ranks
     * 1 and 2 are what spawns make, so they go only when nothing else can. */
    for (int r = top - 1; r >= 3 && need > 0; r--)
        if (count[r] == 0) { removed[r] = 1; need--; }
    for (int r = 2; r >= 1 && need > 0; r--)
        if (count[r] == 0) { removed[r] = 1; need--; *lossless = 0; }
    if (need > 0) *lossless = 0;  /* every rank is on the board: the top ones share 15 */

    int below[32], shift = 0;
    for (int r = 0; r < 32; r++) {
        below[r] = shift;
        shift += removed[r];
    }
    uint64_t copy = 0;
    for (int i = 0; i < 16; i++) {
        int r = rank[i] ? rank[i] - below[rank[i]] : 0;
        copy |= (uint64_t)(r > 15 ? 15 : r) << (4 * i);
    }
    return copy;
}
