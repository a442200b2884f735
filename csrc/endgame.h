/* endgame.h -- formations of the endgame tables and the board's symmetries.
 *
 * A formation is named by k, the number of frozen cells: the first k cells of
 * the snake path below hold big tiles that must not move; the other 16 - k
 * cells are free. The anchor is the last frozen cell, the target the first
 * free one, and the goal is a tile of the anchor's rank g on the target:
 *
 *      path order            k = 7: F frozen, A anchor, T target, . free
 *    0  1  2  3               F  F  F  F
 *    7  6  5  4               T  A  F  F
 *    8  9 10 11               .  .  .  .
 *   15 14 13 12               .  .  .  .
 *
 * A table for (k, g) holds, for every arrangement of ranks 0..g-1 on the free
 * cells, the probability of reaching the goal under optimal play without
 * moving a frozen tile, and the move that achieves it. Its index is the
 * arrangement read as a number in base g, free cell j (path cell k + j) being
 * digit j.
 */
#ifndef ENDGAME_H_INCLUDED
#define ENDGAME_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "board.h"

/* Shapes: how the frozen cells lie. EG_BLOCK formations freeze the top-left
 * block of 3 columns and k / 3 rows (k = 6 or 9), cells in reading order; the
 * anchor is the block's bottom-right cell and the goal may land on either
 * free neighbour of it:
 *
 *      k = 9: F frozen, A anchor, T targets, . free
 *               F  F  F  .
 *               F  F  F  .
 *               F  F  A  T
 *               .  .  T  .
 */
#define EG_SNAKE 0
#define EG_BLOCK 1
#define EG_CHAIN 2
#define EG_ENTRY 3
#define EG_SHAPES 4

/* EG_CHAIN (k = 6 only) freezes the top-left 3x2 block. Its anchor rank a is
 * the smallest tile of the block's lower row, and the table is named by a
 * (its "goal" parameter). The free cells are capped below the anchor so that
 * none can ever merge into the block, and the table plays for a ready chain:
 * a-1 and a-2 in a line leading away from the block, then a-3 with a second
 * a-3 beside it, which a few moves collapse into a tile of rank a next to the
 * block. The ranks allowed per free cell:
 *
 *               F  F  F  a-1        two such chains count:
 *               F  F  F  a-2          along row 2: a-1 a-2 a-3 at (2,0..2),
 *             a-1 a-2 a-3 a-3           the second a-3 at (3,2) or (2,3),
 *             a-3 a-3 a-3 a-3           or a-3 at (3,1) and at (3,0) or (3,2);
 *                                     down column 3: a-1 a-2 a-3 at (0..2,3),
 *                                       the second a-3 at (2,2) or (3,3).
 * A move that lifts a free tile over its cap fails, as does a 4 spawned on a
 * cell capped at rank 1 (only in tiny test tables). The table is indexed in
 * mixed radix: free cell j is a digit of base cap_j + 1. */
#define EG_CHAIN_FROZEN 6
#define EG_CHAIN_MIN_ANCHOR 4

/* EG_ENTRY (k = 5 only) builds the sixth tile of the chain block: the 3x2
 * block without (1,2) is frozen, and the table (named by its goal rank g)
 * plays for g on (1,2) with two tiles of rank g-1 side by side next to it,
 * one merge away from g+1 on (1,2). On a board, g is one below the smaller
 * of (1,1) and (0,2), or the highest table built when that is higher, so
 * the goal tile can never merge into the block. The ranks allowed:
 *
 *               F  F  F  g-1        the ready pair of g-1 (h = g-1):
 *               F  F  g  g-1          h on (1,3) and on (0,3) or (2,3);
 *             g-1 g-1 g-1 g-1         or h on (0,3), h-1 on (1,3) and (2,3);
 *             g-2 g-2 g-2 g-2         or h on (2,2) and on (2,1), (3,2) or (2,3). */
#define EG_ENTRY_FROZEN 5
#define EG_ENTRY_GOAL_CELL 6   /* (1,2): the block's cell an entry table fills */
#define EG_ENTRY_MIN_GOAL 3

#define EG_MIN_FROZEN 6     /* 10 free cells */
#define EG_MAX_FROZEN 13    /* 3 free cells */
#define EG_MIN_GOAL 3       /* a spawn (rank 1 or 2) is always below the goal */
#define EG_MAX_GOAL 13      /* frozen placeholders 14 and 15 stay above it */
#define EG_PROB_ONE 16383   /* probabilities are 14-bit fixed point */

/* The cells of the snake path, row-major indices. */
extern const int eg_path[16];

/* An entry: probability q / EG_PROB_ONE in the high 14 bits, direction below. */
static inline double eg_entry_prob(uint16_t entry) { return (double)(entry >> 2) / EG_PROB_ONE; }
static inline int eg_entry_dir(uint16_t entry) { return entry & 3; }

/* The board under symmetry s (0..7): bit 0 mirrors left-right, bit 1 flips
 * top-bottom, bit 2 then transposes. */
board_t eg_symmetry(board_t b, int s);
/* The direction on the original board that direction dir on eg_symmetry(b, s) is. */
int eg_direction_back(int s, int dir);

#endif /* ENDGAME_H_INCLUDED */
