/* network.c -- the n-tuple network of network.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "network.h"

nt_net *nt_new(void)
{
    nt_net *n = malloc(sizeof *n);
    if (!n) return NULL;
    size_t bytes = (size_t)NT_TUPLES * NT_ENTRIES * sizeof(float);
    /* 2 MB aligned, so that huge pages can back it: the 32 look-ups of a
     * value land on random pages, and a TLB miss each would double their cost. */
    if (posix_memalign((void **)&n->w, 1 << 21, bytes) != 0) { free(n); return NULL; }
#ifdef MADV_HUGEPAGE
    madvise(n->w, bytes, MADV_HUGEPAGE);
#endif
    memset(n->w, 0, bytes);
    return n;
}

void nt_free(nt_net *n)
{
    if (!n) return;
    free(n->w);
    free(n);
}

/* The 8 symmetries of b, in a fixed order (the order of the sum in nt_value). */
static inline void symmetries(board_t b, board_t s[NT_SYMMETRIES])
{
    board_t t = board_transpose(b);
    s[0] = b; s[1] = board_mirror_columns(b); s[2] = board_flip_rows(b); s[3] = board_flip_rows(s[1]);
    s[4] = t; s[5] = board_mirror_columns(t); s[6] = board_flip_rows(t); s[7] = board_flip_rows(s[5]);
}

/* The four tuples' indices on one board: each is 6 cells, 24 bits. */
static inline void indices(board_t x, uint32_t i[NT_TUPLES])
{
    i[0] = (uint32_t)(x & 0xffffff);                                   /* cells 0-5 */
    i[1] = (uint32_t)((x >> 16) & 0xffffff);                           /* cells 4-9 */
    i[2] = (uint32_t)((x & 0xfff) | ((x >> 4) & 0xfff000));            /* 0,1,2,4,5,6 */
    i[3] = (uint32_t)(((x >> 16) & 0xfff) | ((x >> 20) & 0xfff000));   /* 4,5,6,8,9,10 */
}

double nt_value(const nt_net *n, board_t b)
{
    board_t s[NT_SYMMETRIES];
    symmetries(b, s);
    float sum = 0.0f;
    for (int k = 0; k < NT_SYMMETRIES; k++) {
        uint32_t i[NT_TUPLES];
        indices(s[k], i);
        sum += (n->w[i[0]] + n->w[NT_ENTRIES + i[1]])
             + (n->w[2 * (size_t)NT_ENTRIES + i[2]] + n->w[3 * (size_t)NT_ENTRIES + i[3]]);
    }
    return sum;
}

void nt_update(nt_net *n, board_t b, float delta)
{
    board_t s[NT_SYMMETRIES];
    symmetries(b, s);
    for (int k = 0; k < NT_SYMMETRIES; k++) {
        uint32_t i[NT_TUPLES];
        indices(s[k], i);
        for (int t = 0; t < NT_TUPLES; t++) n->w[(size_t)t * NT_ENTRIES + i[t]] += delta;
    }
}

double nt_points(board_t b)
{
    double p = 0.0;
    for (int c = 0; c < 16; c++) {
        int r = board_cell(b, c);
        if (r >= 2) p += (double)(r - 1) * (double)(1u << r);
    }
    return p;
}

double nt_leaf(const nt_net *n, board_t b) { return nt_points(b) + nt_value(n, b); }

int nt_save(const char *path, const nt_header *h, const nt_net *n)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    size_t count = (size_t)NT_TUPLES * NT_ENTRIES;
    int ok = fwrite(h, sizeof *h, 1, f) == 1 && fwrite(n->w, sizeof(float), count, f) == count;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) { remove(tmp); return -1; }
    return 0;
}

nt_net *nt_load(const char *path, nt_header *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    nt_net *n = nt_new();
    size_t count = (size_t)NT_TUPLES * NT_ENTRIES;
    int ok = n && fread(h, sizeof *h, 1, f) == 1 && memcmp(h->magic, NT_MAGIC, 8) == 0
          && fread(n->w, sizeof(float), count, f) == count && fgetc(f) == EOF;
    fclose(f);
    if (!ok) { nt_free(n); return NULL; }
    return n;
}
