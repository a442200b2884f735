/* formations.c -- the formations of the endgame tables laid out: which cells
 * are frozen and free, the caps, the digit weights and the entry count of
 * each table (formations.h says what each shape is).
 */
#include <string.h>

#include "api.h"
#include "formations.h"

const int eg_path[16] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};

/* The block shape's cell order: the top-left block of 3 columns in reading
 * order (less (1,2) for an entry formation), then the free cells in
 * increasing order. Returns 0, or -1 when k is no block. */
static int block_order(int frozen, int order[16])
{
    if (frozen != 5 && frozen != 6 && frozen != 9) return -1;
    int rows = (frozen + 1) / 3, n = 0, in_block[16];
    for (int cell = 0; cell < 16; cell++)
        in_block[cell] = (cell & 3) < 3 && (cell >> 2) < rows
                      && !(frozen == EG_ENTRY_FROZEN && cell == EG_ENTRY_GOAL_CELL);
    for (int cell = 0; cell < 16; cell++)
        if (in_block[cell]) order[n++] = cell;
    for (int cell = 0; cell < 16; cell++)
        if (!in_block[cell]) order[n++] = cell;
    return 0;
}

/* The entry shape's cap on free cell `cell`, given the goal rank g: the goal
 * itself on its cell, two below on the bottom row (at most
 * EG_ENTRY_BOTTOM_CAP from goal EG_ENTRY_LOW_BOTTOM on), one below elsewhere. */
static int entry_cap(int cell, int goal)
{
    if (cell == EG_ENTRY_GOAL_CELL) return goal;
    if (cell >= 12) return goal >= EG_ENTRY_LOW_BOTTOM ? EG_ENTRY_BOTTOM_CAP : goal - 2;
    return goal - 1;
}

/* 1 when (shape, frozen, goal) names a formation with a table. */
static int formation_valid(int shape, int frozen, int goal)
{
    if (goal < EG_MIN_GOAL || goal > EG_MAX_GOAL) return 0;
    switch (shape) {
    case EG_SNAKE: return frozen >= EG_MIN_FROZEN && frozen <= EG_MAX_FROZEN;
    case EG_BLOCK: return frozen == 6 || frozen == 9;
    case EG_CHAIN: return frozen == EG_CHAIN_FROZEN && goal >= EG_CHAIN_MIN_ANCHOR;
    case EG_ENTRY: return frozen == EG_ENTRY_FROZEN && goal >= EG_ENTRY_MIN_GOAL;
    default:       return 0;
    }
}

int eg_formation_init(formation *f, int shape, int frozen, int goal)
{
    if (!formation_valid(shape, frozen, goal)) return -1;
    memset(f, 0, sizeof *f);
    f->shape = shape;
    f->goal = goal;
    f->free_count = 16 - frozen;
    f->targets[0] = f->targets[1] = -1;
    if (shape == EG_SNAKE) {
        memcpy(f->order, eg_path, sizeof f->order);
        f->targets[0] = eg_path[frozen];
    } else {
        if (block_order(frozen, f->order) != 0) return -1;
        if (shape == EG_BLOCK) {
            int anchor = f->order[frozen - 1];
            f->targets[0] = anchor + 1;   /* right of it */
            f->targets[1] = anchor + 4;   /* below it */
        }
    }
    for (int i = 0; i < frozen; i++) {
        int cell = f->order[i];
        int rank = ((cell >> 2) + (cell & 3)) & 1 ? 14 : 15;
        f->frozen_bits |= (board_t)0xf << (4 * cell);
        f->placeholders |= (board_t)rank << (4 * cell);
    }
    size_t p = 1;
    for (int j = 0; j < f->free_count; j++) {
        int cell = f->order[frozen + j];
        f->shift[j] = 4 * cell;
        f->cap[j] = shape == EG_CHAIN ? eg_chain_cap(cell, goal)
                  : shape == EG_ENTRY ? entry_cap(cell, goal) : goal - 1;
        f->power[j] = p;
        p *= (size_t)f->cap[j] + 1;
    }
    f->entries = p;
    for (int j = f->free_count - 1; j >= 0; j--)
        f->sum_after[j] = f->sum_after[j + 1] + (1 << f->cap[j]);
    return 0;
}

size_t s2048_table_entries(int shape, int frozen, int goal)
{
    formation f;
    return eg_formation_init(&f, shape, frozen, goal) == 0 ? f.entries : 0;
}

int s2048_table_max_sum(int shape, int frozen, int goal)
{
    formation f;
    if (eg_formation_init(&f, shape, frozen, goal) != 0) return -1;
    return f.sum_after[0];
}
