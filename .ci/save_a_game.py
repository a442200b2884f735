"""Saves a game in progress (and a best score) in each folder given, as the
terminal game would after a few moves: the state a user's machine may hold."""

import sys
from pathlib import Path

from solve2048.human_game import HumanGame
from solve2048.saves import SaveStore

for folder in sys.argv[1:]:
    session = HumanGame.new(seed=2048)
    for direction in ("left", "up", "right", "down", "left"):
        session.move(direction)
    SaveStore(Path(folder)).save(session)
    print(f"saved a game of {session.moves} moves in {folder}")
