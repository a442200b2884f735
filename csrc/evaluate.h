/* evaluate.h -- the heuristic: a row table summed over rows and columns. */
#ifndef EVALUATE_H_INCLUDED
#define EVALUATE_H_INCLUDED

#include "api.h"
#include "board.h"

struct s2048_eval {
    s2048_weights weights;
    double row[65536];   /* heuristic value of each row_t, read left to right */
};

/* Returns the heuristic of board b whose transpose is t: the values of rows
 * 0..3 and of columns 0..3 read top to bottom, added as
 * ((r0 + r1) + (r2 + r3)) + ((c0 + c1) + (c2 + c3)), the order the Python
 * oracle uses too. */
static inline double eval_board_t(const s2048_eval *e, board_t b, board_t t)
{
    /* Added as a tree, not a chain: three additions deep instead of seven,
     * which the leaves of the search feel. */
    double rows = (e->row[b & ROW_MASK] + e->row[(b >> 16) & ROW_MASK])
                + (e->row[(b >> 32) & ROW_MASK] + e->row[(b >> 48) & ROW_MASK]);
    double cols = (e->row[t & ROW_MASK] + e->row[(t >> 16) & ROW_MASK])
                + (e->row[(t >> 32) & ROW_MASK] + e->row[(t >> 48) & ROW_MASK]);
    return rows + cols;
}

/* The same, when only the board is at hand. */
static inline double eval_board(const s2048_eval *e, board_t b)
{
    return eval_board_t(e, b, board_transpose(b));
}

#endif /* EVALUATE_H_INCLUDED */
