"""Calibration of the close-calls trial (bench/trials/close-calls.patch,
bench/RESULTS.md "Close calls one move deeper"): with the trial build and
S2048_CLOSE set, plays the given seeds at depth 5 with the installed tables,
one game at a time, and prints moves, searched moves, the searched moves
deepened to 6, and seconds. Usage: S2048_CLOSE=EPS python
bench/trials/close-calls-calibrate.py SEED..."""
import json
import sys
import time

from solve2048.selfplay import Game
from solve2048.settings import SearchSettings
from solve2048.tables import load

tables = load().tables
settings = SearchSettings(depth=5, tables=tables, threads=1)
moves = searched = deepened = 0
seconds = 0.0
for seed in map(int, sys.argv[1:]):
    game = Game(seed, settings)
    start = time.perf_counter()
    while not game.over:
        for step in game.advance(4096):
            moves += 1
            if not step.from_table:
                searched += 1
                deepened += step.depth == 6
    seconds += time.perf_counter() - start
print(json.dumps({"moves": moves, "searched": searched, "deepened": deepened, "seconds": seconds}))
