/* rules.c -- the exported rules API: thin wrappers over moves.h. */
#include "api.h"
#include "moves.h"

void s2048_init(void)
{
    static int done = 0;
    if (done) return;
    move_tables_init();
    done = 1;
}

uint64_t s2048_move(uint64_t board, int dir) { return board_move(board, dir & 3); }

uint32_t s2048_move_gain(uint64_t board, int dir) { return board_move_gain(board, dir & 3); }

int s2048_move_overflows(uint64_t board, int dir) { return board_move_overflows(board, dir & 3); }

s2048_moved s2048_move_full(uint64_t board, int dir)
{
    s2048_moved m = {0, UINT32_MAX};
    dir &= 3;
    if (!board_move_overflows(board, dir)) {
        m.board = board_move(board, dir);
        m.gain = board_move_gain(board, dir);
    }
    return m;
}

int s2048_count_empty(uint64_t board) { return board_count_empty(board); }

int s2048_legal_mask(uint64_t board)
{
    int mask = 0;
    for (int d = 0; d < 4; d++)
        if (board_move(board, d) != board) mask |= 1 << d;
    return mask;
}

int s2048_is_game_over(uint64_t board)
{
    /* docs/rules.md: all 16 cells full and no valid move. (The empty board has no
     * valid move either, but it is not a lost game.) */
    return board_count_empty(board) == 0 && s2048_legal_mask(board) == 0;
}

/* One direction's batch loop; inlined with a constant dir so that each case
 * of s2048_move_batch compiles to a branch-free loop. */
static inline int64_t move_batch_in(const uint64_t *boards, size_t n, int dir,
                                    uint64_t *out, uint32_t *gains)
{
    int64_t first_overflow = -1;
    for (size_t i = 0; i < n; i++) {
        board_t b = boards[i];
        if (board_move_overflows(b, dir)) {
            if (first_overflow < 0) first_overflow = (int64_t)i;
            out[i] = b;
            gains[i] = 0;
            continue;
        }
        out[i] = board_move(b, dir);
        gains[i] = board_move_gain(b, dir);
    }
    return first_overflow;
}

int64_t s2048_move_batch(const uint64_t *boards, size_t n, int dir,
                         uint64_t *out, uint32_t *gains)
{
    switch (dir & 3) {
    case DIR_UP:   return move_batch_in(boards, n, DIR_UP, out, gains);
    case DIR_DOWN: return move_batch_in(boards, n, DIR_DOWN, out, gains);
    case DIR_LEFT: return move_batch_in(boards, n, DIR_LEFT, out, gains);
    default:       return move_batch_in(boards, n, DIR_RIGHT, out, gains);
    }
}
