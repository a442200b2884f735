/* train.c -- trains the n-tuple network of network.h by TD(0).
 *
 * Plays games greedily on (move points + value of the board after the move)
 * and after each move pulls the value of the previous afterstate toward the
 * points and value of the new one (Szubert and Jaskowski 2014, "TD-afterstate").
 * One thread, one seeded generator: the same seed and the same number of games
 * give the same network, bit for bit. It saves the network and the generator
 * every --save-every seconds and on SIGINT/SIGTERM (at the end of a game, so
 * a save is always between games), and resumes from --out when it exists.
 *
 * Build and run (an experiment of issue 22, not part of the package):
 *   gcc -O2 -Icsrc -o /tmp/nt_train bench/ntuple/train.c bench/ntuple/network.c \
 *       csrc/moves.c csrc/rng.c csrc/rules.c
 *   /tmp/nt_train --out NET --hours 2 [--seed 1] [--alpha 0.1]
 * Progress, one line per 1,000 games, goes to stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "moves.h"
#include "network.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The best move by points + value of the afterstate; -1 when none is legal.
 * *after, *points and *worth (points + value) describe the move chosen. */
static int best_move(const nt_net *n, board_t b, board_t *after, uint32_t *points, double *worth)
{
    int best = -1;
    for (int dir = 0; dir < 4; dir++) {
        board_t a = board_move(b, dir);
        if (a == b || board_move_overflows(b, dir)) continue;
        uint32_t g = board_move_gain(b, dir);
        double v = g + nt_value(n, a);
        if (best < 0 || v > *worth) { best = dir; *worth = v; *after = a; *points = g; }
    }
    return best;
}

/* Plays one game, learning as it goes. Returns its score; *top is its largest
 * rank and *moves is increased by its moves. */
static uint64_t train_game(nt_net *n, s2048_rng *rng, float step, int *top, uint64_t *moves)
{
    int cell, value;
    board_t b = s2048_spawn(rng, 0, &cell, &value);
    b = s2048_spawn(rng, b, &cell, &value);
    board_t prev = 0;
    int have_prev = 0;
    uint64_t score = 0;
    for (;;) {
        board_t a;
        uint32_t g;
        double worth;
        if (best_move(n, b, &a, &g, &worth) < 0) {
            if (have_prev) nt_update(n, prev, step * (float)(0.0 - nt_value(n, prev)));
            break;
        }
        /* No weight has changed since best_move valued a, so its worth stands. */
        if (have_prev) nt_update(n, prev, step * (float)(worth - nt_value(n, prev)));
        prev = a;
        have_prev = 1;
        score += g;
        (*moves)++;
        b = s2048_spawn(rng, a, &cell, &value);
    }
    int t = 0;
    for (int c = 0; c < 16; c++) if (board_cell(b, c) > t) t = board_cell(b, c);
    *top = t;
    return score;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    double hours = 1.0, alpha = 0.1, save_every = 600.0;
    uint64_t seed = 1, max_games = UINT64_MAX;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--out")) out = argv[i + 1];
        else if (!strcmp(argv[i], "--hours")) hours = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--alpha")) alpha = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--games")) max_games = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--save-every")) save_every = atof(argv[i + 1]);
        else { fprintf(stderr, "ntuple_train: unknown option %s\n", argv[i]); return 2; }
    }
    if (!out) { fprintf(stderr, "ntuple_train: --out PATH is required\n"); return 2; }

    s2048_init();
    nt_net *n = nt_new();
    if (!n) { fprintf(stderr, "ntuple_train: out of memory\n"); return 1; }
    nt_header h;
    int loaded = 0;
    FILE *probe = fopen(out, "rb");
    if (probe) {
        fclose(probe);
        nt_free(n);
        if (!(n = nt_load(out, &h))) { fprintf(stderr, "ntuple_train: %s is not a network\n", out); return 2; }
        loaded = 1;
    } else {
        memset(&h, 0, sizeof h);
        memcpy(h.magic, NT_MAGIC, 8);
        h.seed = seed;
        s2048_rng_seed((s2048_rng *)h.rng, seed);
    }
    h.alpha = alpha;
    fprintf(stderr, "ntuple_train: %s %s at game %llu, alpha %g\n", out,
            loaded ? "resumed" : "started", (unsigned long long)h.games, alpha);

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    float step = (float)(alpha / (NT_TUPLES * NT_SYMMETRIES));
    double start = now(), last_save = start, window_start = start;
    uint64_t window_score = 0, window_moves = 0, window_max = 0, reached[16] = {0};
    int window_games = 0;
    while (!stop_requested && now() - start < hours * 3600.0 && h.games < max_games) {
        int top;
        uint64_t s = train_game(n, (s2048_rng *)h.rng, step, &top, &window_moves);
        h.games++;
        window_games++;
        window_score += s;
        if (s > window_max) window_max = s;
        for (int r = 0; r <= top; r++) reached[r]++;
        if (window_games == 1000) {
            double t = now();
            fprintf(stderr, "games %llu mean %.0f max %llu 2048 %.1f%% 8192 %.1f%% 16384 %.1f%% "
                    "32768 %.1f%% moves/s %.0f\n", (unsigned long long)h.games,
                    window_score / 1000.0, (unsigned long long)window_max, reached[11] / 10.0,
                    reached[13] / 10.0, reached[14] / 10.0, reached[15] / 10.0,
                    window_moves / (t - window_start));
            h.moves += window_moves;
            window_games = 0; window_score = window_moves = window_max = 0;
            memset(reached, 0, sizeof reached);
            window_start = t;
        }
        if (now() - last_save > save_every) {
            if (nt_save(out, &h, n) != 0) { fprintf(stderr, "ntuple_train: cannot write %s\n", out); return 1; }
            last_save = now();
        }
    }
    h.moves += window_moves;
    if (nt_save(out, &h, n) != 0) { fprintf(stderr, "ntuple_train: cannot write %s\n", out); return 1; }
    fprintf(stderr, "ntuple_train: saved %s at game %llu\n", out, (unsigned long long)h.games);
    nt_free(n);
    return 0;
}
