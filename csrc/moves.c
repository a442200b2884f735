/* moves.c -- the row move tables: every 16-bit row slid left and right, once. */
#include "moves.h"

row_t row_left_table[65536];
row_t row_right_table[65536];
uint32_t row_gain_table[65536];
uint8_t row_overflow_table[65536];

uint32_t slide_line(int line[4], int top, int *overflow)
{
    int out[4] = {0, 0, 0, 0};
    int n = 0;
    uint32_t gain = 0;
    *overflow = 0;
    for (int i = 0; i < 4; i++) {
        if (line[i] == 0) continue;
        /* Merge with the last placed tile only if it has not merged already:
         * a merged tile is marked by a negative sign until the row is done. */
        if (n > 0 && out[n - 1] == line[i]) {
            if (line[i] == top) *overflow = 1;
            out[n - 1] = line[i] == top ? -top : -(line[i] + 1);
            gain += 1u << (line[i] + 1);
        } else {
            out[n++] = line[i];
        }
    }
    for (int i = 0; i < 4; i++) line[i] = out[i] < 0 ? -out[i] : out[i];
    return gain;
}

static row_t pack_row(const int line[4])
{
    return (row_t)(line[0] | line[1] << 4 | line[2] << 8 | line[3] << 12);
}

void move_tables_init(void)
{
    for (unsigned row = 0; row < 65536; row++) {
        int left[4], right[4], overflow_left, overflow_right;
        for (int i = 0; i < 4; i++) {
            left[i] = (row >> (4 * i)) & 0xf;
            right[i] = (row >> (4 * (3 - i))) & 0xf;  /* reversed: slide toward index 0 */
        }
        uint32_t gain = slide_line(left, 15, &overflow_left);
        slide_line(right, 15, &overflow_right);
        int right_back[4] = {right[3], right[2], right[1], right[0]};
        row_left_table[row] = pack_row(left);
        row_right_table[row] = pack_row(right_back);
        /* A row's runs of equal tiles merge pairwise either way, so the gain
         * and the overflow do not depend on the direction. */
        row_gain_table[row] = gain;
        row_overflow_table[row] = (uint8_t)(overflow_left | overflow_right);
    }
}
