"""Plays the default's stopped games, or whole games, with another program's moves.

Another program's play is compared with ours on the same boards and spawns:
each game that stopped at its first 16384 (`solve2048 batch --stop-at 16384`)
is played on to 32768 (or another goal), or to its end, with the moves a
move server chooses, solve2048's rules, and the game's own generator state
(the spawns it had to come), as `solve2048 batch --from` plays it on with
ours. The server speaks
the protocol of the tables AI's server mode (macroxue/2048-ai, `./2048b -d 4
-S PORT`): a request `GET /move?board=` followed by the 16 ranks in reading
order, one digit each (0-9, then A-G), answered by an HTTP reply whose body is
one letter, u, l, r or d (or g: no move). An answer that is not a legal move is
counted, and the first legal move played instead.

Usage: python bench/peer_phase.py PORT OUT [--stops FILE | --opening] [--goal TILE] [--first SEED] [--last SEED]
Writes one JSON line a game to OUT as it ends (seed, max_tile, score of the
whole game, moves after the stop, final_board, illegal, seconds) and resumes:
seeds already in OUT are skipped. The last phase: `--stops
bench/results/depth5-stop32768.jsonl --goal 65536`; whole games from
their openings (seeds 0 to 999 unless told): `--opening --goal 65536` (the
protocol has no digit past 65536).
Judge OUT with `python bench/phase_screen.py --peer OUT`.

       python bench/peer_phase.py PORT --agree GAMES [--stops FILE] [--goal TILE]
plays the first GAMES stopped games on with solve2048's own moves (depth 5,
the installed tables) and asks the server about every board too; prints how
often the two choose the same move, by where ours came from (a table, or the
search).
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from solve2048 import Board
from solve2048.batch import stopped_rows
from solve2048.human_game import HumanGame
from solve2048.moves import Move
from solve2048.results import load
from solve2048.rng import Rng
from solve2048.selfplay import GameState

STOPS = Path(__file__).parent / "results" / "depth5-stop16384.jsonl"
GOAL = 32768
RANK_DIGITS = "0123456789ABCDEFG"
LETTERS = {"u": Move.UP, "d": Move.DOWN, "l": Move.LEFT, "r": Move.RIGHT}

# chooses a move for a board: a Move, or None for none
Chooser = Callable[[Board], "Move | None"]


def request(board: Board) -> bytes:
    """The server's request for ``board`` (its digits end at G, 65536)."""
    if board.max_tile >= 1 << len(RANK_DIGITS):
        raise ValueError(f"the protocol has no digit for {board.max_tile}")
    return ("GET /move?board=" + "".join(RANK_DIGITS[r] for r in board.exponents)).encode()


def answer(reply: bytes) -> Move | None:
    """The move in a server's reply (None: no move, or a letter it does not know)."""
    body = reply.partition(b"\n\n")[2]
    return LETTERS.get(body[:1].decode("ascii", "replace"))


class Server:
    """A move server on 127.0.0.1, one connection kept open for every request."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))

    def __call__(self, board: Board) -> Move | None:
        self.sock.sendall(request(board))
        reply = b""
        while b"\n\n" not in reply or reply.endswith(b"\n\n"):
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the move server closed the connection")
            reply += chunk
        return answer(reply)


def play_on(row: dict[str, Any], choose: Chooser, goal: int = GOAL) -> dict[str, Any]:
    """Plays the stopped game of results line ``row`` on to ``goal``, or its end."""
    game = HumanGame(Board.parse(row["final_board"]), Rng.from_state(GameState.from_json(row["state"]).rng),
                     row["seed"])
    return play(game, choose, goal, row["score"])


def play_whole(seed: int, choose: Chooser, goal: int = GOAL) -> dict[str, Any]:
    """Plays game ``seed`` from its opening (as `solve2048 batch` opens it) to ``goal``, or its end."""
    return play(HumanGame.new(seed), choose, goal, 0)


def play(game: HumanGame, choose: Chooser, goal: int, score_before: int) -> dict[str, Any]:
    """Plays ``game`` on with ``choose``'s moves; its line (moves: those played here)."""
    # The terminal game's step is the rules' move and the generator's spawn.
    illegal = 0
    start = time.perf_counter()
    while game.board.max_tile < goal and (legal := game.board.legal_moves()):
        move = choose(game.board)
        if move not in legal:
            illegal += 1
            move = legal[0]
        game.move(move)
    return {"seed": game.seed, "max_tile": game.board.max_tile, "score": score_before + game.score,
            "moves": game.moves, "final_board": game.board.hex(), "illegal": illegal,
            "seconds": round(time.perf_counter() - start, 3)}


def agreement(rows: Iterable[dict[str, Any]], ours: Callable[[Board], tuple[Move, str]],
              theirs: Chooser, goal: int = GOAL) -> Counter[tuple[str, bool]]:
    """Plays each stopped game on to ``goal`` with ``ours`` (a move and where
    it came from) and counts, by where, the boards on which ``theirs`` agrees."""
    count: Counter[tuple[str, bool]] = Counter()

    def both(board: Board) -> Move | None:
        move, source = ours(board)
        count[(source, theirs(board) == move)] += 1
        return move

    for row in rows:
        play_on(row, both, goal)
    return count


def stopped_games(path: Path, first: int, last: int, done: set[int]) -> Iterator[dict[str, Any]]:
    """The games of a results file that stopped (not ended), in its order."""
    for seed, row in stopped_rows(load(str(path), repair=False).rows).items():
        if first <= seed <= last and seed not in done:
            yield row


def print_agreement(stops: Path, games: int, server: Server, goal: int = GOAL) -> None:
    from solve2048.decide import decide
    from solve2048.settings import SearchSettings
    from solve2048.tables import load as load_tables

    settings = SearchSettings(depth=5, tables=load_tables().tables, threads=1)

    def ours(board: Board) -> tuple[Move, str]:
        d = decide(board, settings, values=False)
        assert d.move is not None   # play_on asks only about boards with a legal move
        return d.move, str(d.table.spec) if d.source == "table" and d.table else "search"

    rows = list(itertools.islice(stopped_games(stops, 0, 2**64 - 1, set()), games))
    count = agreement(rows, ours, server, goal)
    for source in sorted({s for s, _ in count}):
        same, other = count[(source, True)], count[(source, False)]
        print(f"{source:<36} {same + other:>8,} boards, the same move on {same / (same + other):6.1%}")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--agree", type=int, metavar="GAMES", help="count agreement on this many games instead")
    parser.add_argument("--stops", type=Path, default=STOPS, help="the stopped games (default: depth 5's at 16384)")
    parser.add_argument("--goal", type=int, default=GOAL, help="play on to this tile (default: 32768)")
    parser.add_argument("--opening", action="store_true",
                        help="play whole games from their openings, seeds FIRST to LAST, instead of stopped ones")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--last", type=int, default=None, help="the last seed (default: every stopped game; "
                        "with --opening, 999)")
    a = parser.parse_args(argv)
    if a.agree:
        print_agreement(a.stops, a.agree, Server(a.port), a.goal)
        return
    if a.out is None:
        parser.error("OUT is needed to play")
    done = {json.loads(line)["seed"] for line in a.out.read_text().splitlines()} if a.out.exists() else set()
    server = Server(a.port)
    if a.opening:
        last = 999 if a.last is None else a.last
        games = (play_whole(seed, server, a.goal) for seed in range(a.first, last + 1) if seed not in done)
    else:
        last = 2**64 - 1 if a.last is None else a.last
        games = (play_on(row, server, a.goal) for row in stopped_games(a.stops, a.first, last, done))
    with a.out.open("a") as out:
        for result in games:
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(f"seed {result['seed']}: {result['max_tile']} in {result['moves']:,} moves", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
