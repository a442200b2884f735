/* network.h -- an n-tuple network: a learned value of a board after a move.
 *
 * Four 6-cell tuples (cells 0-5, 4-9, {0,1,2,4,5,6}, {4,5,6,8,9,10}; the
 * shapes of Yeh et al. 2016, used by TDL2048+), each read on the board's 8
 * symmetries: 32 look-ups into 4 tables of 2^24 floats (256 MB), one 4-bit
 * rank per cell, as the board stores it. The value estimates the points still
 * to come from a board just after a move (an "afterstate"), as TD(0) learns
 * it (Szubert and Jaskowski 2014).
 *
 * An experiment of issue 22 (bench/RESULTS.md, "An n-tuple network at the
 * leaves"), not part of the package; the search reads it only on the branch
 * ntuple.
 */
#ifndef NETWORK_H_INCLUDED
#define NETWORK_H_INCLUDED

#include <stdint.h>
#include "board.h"

#define NT_TUPLES 4
#define NT_ENTRIES (1u << 24)
#define NT_SYMMETRIES 8
#define NT_MAGIC "S2048NT1"

typedef struct {
    float *w;             /* NT_TUPLES * NT_ENTRIES weights, tuple-major */
} nt_net;

/* The file: this header, then the 4 tables' floats in native byte order. */
typedef struct {
    char magic[8];             /* "S2048NT1" */
    uint64_t games, moves, seed;
    uint64_t rng[4];           /* the trainer's generator, to resume */
    double alpha;
} nt_header;

/* Reads a network file; NULL when it cannot be read or is not one. */
nt_net *nt_load(const char *path, nt_header *h);
/* Writes it (to path.part, then renamed); 0 on success. */
int nt_save(const char *path, const nt_header *h, const nt_net *n);

/* Allocates a network with every weight 0; NULL when memory is short. */
nt_net *nt_new(void);
void nt_free(nt_net *n);

/* The learned value of afterstate b. */
double nt_value(const nt_net *n, board_t b);

/* Adds delta to each of the 32 weights that make up nt_value(n, b). */
void nt_update(nt_net *n, board_t b, float delta);

/* The points a game has scored to reach b if every spawn was a 2: each tile
 * of rank r >= 2 counts (r - 1) * 2^r. Two boards one move apart differ by
 * that move's points exactly. */
double nt_points(board_t b);

/* What the search scores a leaf by: nt_points + nt_value. */
double nt_leaf(const nt_net *n, board_t b);

#endif /* NETWORK_H_INCLUDED */
