#!/bin/sh
# Strength with and without the endgame tables, on paired seeds (game i of every
# run uses seed i), as reported in bench/RESULTS.md ("Strength, with and without
# the endgame tables"). One worker per run, so moves/s is
# per core; two runs at a time fill a 2-core machine. Resumable: run it again
# after an interrupt and each batch plays only the seeds it is missing.
#
#   solve2048 tables build          # once, before the runs with tables
#   sh bench/strength.sh            # about an hour on 2 cores
#   sh bench/strength.sh DIR        # the same, results in DIR instead
set -e
mkdir -p "${1:-$(dirname "$0")/results}"
cd "${1:-$(dirname "$0")/results}"
run() {  # depth games variant
    if [ "$3" = tables ]; then flag=""; else flag="--no-tables"; fi
    # --quiescence off: the plain search these figures were published with
    # (a fixed depth has looked past crowded leaves by default since 2026-12-05).
    solve2048 batch --games "$2" --depth "$1" --jobs 1 $flag --quiescence off --out "depth$1-$3.jsonl" \
        --plot "depth$1-$3.png" > "depth$1-$3.txt"
}
{ run 5 600 tables; run 4 300 search; } &
{
    run 4 1000 tables
    run 3 1000 search; run 3 1000 tables
    run 2 2000 search; run 2 2000 tables
    run 5 300 search
} &
wait
for d in 2 3 4 5; do
    solve2048 stats --compare "depth$d-search.jsonl" "depth$d-tables.jsonl" > "depth$d-compare.txt"
done
