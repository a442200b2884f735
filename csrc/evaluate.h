/* evaluate.h -- the heuristic: a row table summed over rows and columns. */
#ifndef EVALUATE_H_INCLUDED
#define EVALUATE_H_INCLUDED

#include "api.h"
#include "board.h"

struct s2048_eval {
    s2048_weights weights;
    double row[65536];   /* heuristic value of each row_t, read left to right */
};

/* Returns the heuristic of board b whose transpose is t: rows 0..3, then columns 0..3 read top to
 * bottom, added in that order (the Python oracle adds them in the same order). */
static inline double eval_board_t(const s2048_eval *e, board_t b, board_t t)
{
    double v = e->row[b & ROW_MASK];
    v += e->row[(b >> 16) & ROW_MASK];
    v += e->row[(b >> 32) & ROW_MASK];
    v += e->row[(b >> 48) & ROW_MASK];
    v += e->row[t & ROW_MASK];
    v += e->row[(t >> 16) & ROW_MASK];
    v += e->row[(t >> 32) & ROW_MASK];
    v += e->row[(t >> 48) & ROW_MASK];
    return v;
}

/* The same, when only the board is at hand. */
static inline double eval_board(const s2048_eval *e, board_t b)
{
    return eval_board_t(e, b, board_transpose(b));
}

#endif /* EVALUATE_H_INCLUDED */
