/* tables_build.h -- the public header of the endgame table builder
 * (tables_build.c): what Python calls to make a table file, and the file's
 * checksum.
 *
 * It is apart from api.h because no game runs through it: the engine id that
 * every results line records (solver/_ffi_build.py, engine_id) leaves both
 * builder files out, so that work on the builder keeps results files
 * resumable. A game depends on the entries, which a line names by checksum
 * (table_sums), not on the code that computed them.
 *
 * solver/_ffi_build.py feeds the part between the CDEF markers to cffi's
 * cdef after api.h's: plain declarations only (no macros, no includes).
 */
#ifndef TABLES_BUILD_H_INCLUDED
#define TABLES_BUILD_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* CDEF BEGIN */

/* A table being built: the counts that rank an arrangement within its layer,
 * and three layers of 16-bit entries, the one being written and the two it
 * reads (tables_build.c). NULL for an unsupported triple, or no memory. */
typedef struct s2048_builder s2048_builder;
s2048_builder *s2048_builder_new(int shape, int frozen, int goal);
void s2048_builder_free(s2048_builder *b);
/* The most arrangements of any one layer of a table: its builder holds three
 * layers of that many 16-bit entries. -1 for an unsupported triple, or no
 * memory for the counts. */
int64_t s2048_table_widest_layer(int shape, int frozen, int goal);
/* Solves every entry whose free cells add up to sum, once the layers of
 * sum + 2 and sum + 4 are solved, and writes each to `stored` (8 bits, as in
 * a table file) and to `built` (16 bits), by its index in the table; either
 * may be NULL. part and parts split the layer between threads (by the values
 * of the most significant free cells, so that each thread writes regions of
 * its own). Returns the number of entries written, or -1 for a bad argument. */
int64_t s2048_builder_layer(s2048_builder *b, int sum, int part, int parts,
                            uint8_t *stored, uint16_t *built);
/* Turns n built entries (16 bits) into the entries a table file stores and
 * play reads (8 bits: the same move, the probability rounded down to a step
 * of 1/60; formations.h, eg_store). */
void s2048_table_store(const uint16_t *built, uint8_t *stored, size_t n);
/* A 64-bit checksum of n stored entries (FNV-1a over 64-bit words). */
uint64_t s2048_table_checksum(const uint8_t *table, size_t n);
/* The checksum h of some entries, carried on over n more: the checksum of the
 * two runs together when the first one's length is a multiple of 8. */
uint64_t s2048_table_checksum_more(uint64_t h, const uint8_t *table, size_t n);
/* The checksum of a version-1 file's n 16-bit entries, for converting one. */
uint64_t s2048_table_checksum_v1(const uint16_t *table, size_t n);

/* CDEF END */

#endif /* TABLES_BUILD_H_INCLUDED */
