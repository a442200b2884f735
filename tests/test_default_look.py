"""The default look past crowded leaves: quiescence 3, then 2 once the board
holds 32768, unless told otherwise. One rule (settings.given_look) for the
library, the CLI, a batch and the page, and every path that says which look
a game was played with."""

from __future__ import annotations

import json
import socket

import pytest
from click.testing import CliRunner
from helpers import one_error_line

from solve2048 import SearchSettings, analyze, play_game
from solve2048.batch import Settings
from solve2048.cli.main import cli
from solve2048.engine import DEFAULT_LATE_QUIESCENCE, DEFAULT_QUIESCENCE
from solve2048.settings import NOT_GIVEN, given_look
from solve2048.web.api import ApiError, Limits
from solve2048.web.api import settings_of as request_settings

EARLY = "2 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"          # 2 empty cells, no 32768
LATE = "32768 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"       # the same, its corner 32768


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def same_search(a, b) -> bool:
    return (a.values, a.nodes) == (b.values, b.nodes)


def test_the_default_look_is_3_then_2() -> None:
    assert (DEFAULT_QUIESCENCE, DEFAULT_LATE_QUIESCENCE) == (3, 2)


@pytest.mark.parametrize("quiescence, late, look", [
    (NOT_GIVEN, NOT_GIVEN, (3, 2)),     # the default
    (2, NOT_GIVEN, (2, None)),          # a quiescence given alone holds throughout
    (None, NOT_GIVEN, (None, None)),    # no look at all
    (NOT_GIVEN, 1, (3, 1)),             # a late one given alone follows the default quiescence
    (None, 2, (None, 2)),               # only the last phase looks
    (4, 1, (4, 1)),
])
def test_one_rule_says_what_a_search_at_a_fixed_depth_looks_at(quiescence, late, look) -> None:
    assert given_look(quiescence, late, 2, None) == look
    fields = {name: value for name, value in (("quiescence", quiescence), ("late_quiescence", late))
              if value is not NOT_GIVEN}
    for made in (SearchSettings(depth=2, **fields), Settings(depth=2, **fields)):
        assert (made.quiescence, made.late_quiescence) == look
        assert made.default_look is (not fields) if isinstance(made, SearchSettings) else True


@pytest.mark.parametrize("depth, time_ms", [(6, None), (16, None), (5, 50.0), ("auto", 50.0)])
def test_deeper_depths_and_a_timed_search_look_only_when_told(depth, time_ms) -> None:
    # Depth 6 gained nothing measurable from the look; a timed search's depth
    # depends on the machine.
    assert given_look(NOT_GIVEN, NOT_GIVEN, depth, time_ms) == (None, None)
    assert given_look(NOT_GIVEN, 1, depth, time_ms) == (None, 1)
    assert given_look(2, NOT_GIVEN, depth, time_ms) == (2, None)
    for make in (SearchSettings, Settings):
        made = make(depth=depth, time_ms=time_ms)
        assert (made.quiescence, made.late_quiescence) == (None, None)


def test_a_copy_at_another_depth_takes_its_default_look_and_keeps_a_given_one() -> None:
    default = SearchSettings(depth=3)
    assert (default.replace(quiescence=2).quiescence, default.replace(quiescence=2).late_quiescence) == (2, None)
    assert default.replace(quiescence=None).late_quiescence is None
    assert (default.replace(late_quiescence=1).quiescence, default.replace(late_quiescence=1).late_quiescence) == (3, 1)
    assert default.replace(depth=4).late_quiescence == 2 and default.replace(depth=4).default_look
    auto = default.replace(depth="auto")
    assert (auto.quiescence, auto.late_quiescence) == (3, 2) and auto.default_look
    assert auto.replace(depth=6).quiescence is None and auto.replace(depth=6).replace(depth="auto").quiescence == 3
    timed = default.replace(time_ms=20.0)
    assert (timed.quiescence, timed.late_quiescence) == (None, None)
    given = SearchSettings(depth=3, quiescence=3, late_quiescence=2)
    assert given == default and not given.default_look
    assert given.replace(depth="auto").quiescence == 3


def test_a_search_by_default_is_the_search_with_3_then_2() -> None:
    for board, quiescence in ((EARLY, 3), (LATE, 2)):
        looked = analyze(board, depth=2)
        assert same_search(looked, analyze(board, depth=2, quiescence=quiescence))
        assert not same_search(looked, analyze(board, depth=2, quiescence=None))


def test_a_game_by_default_plays_3_then_2_and_says_so() -> None:
    default = play_game(3, depth=2)
    assert (default.quiescence, default.late_quiescence) == (3, 2)
    assert default.to_json() | {"seconds": 0, "moves_per_second": 0} == \
        play_game(3, depth=2, quiescence=3, late_quiescence=2).to_json() | {"seconds": 0, "moves_per_second": 0}
    plain = play_game(3, depth=2, quiescence=None)
    assert (plain.quiescence, plain.late_quiescence) == (None, None)
    assert (plain.score, plain.moves) != (default.score, default.moves)


def test_the_cli_looks_by_default_and_off_looks_at_none() -> None:
    def played(*options: str) -> dict:
        result = invoke("play", "-d", "1", "--seed", "3", "--json", "--quiet", "--no-tables", *options)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    for options, look in [((), (3, 2)), (("--quiescence", "2"), (2, None)), (("--quiescence", "off"), (None, None)),
                          (("--quiescence", "OFF", "--late-quiescence", "1"), (None, 1)),
                          (("--late-quiescence", "1"), (3, 1))]:
        answer = played(*options)
        assert (answer["quiescence"], answer["late_quiescence"]) == look, options
        assert answer["score"] == play_game(3, depth=1, quiescence=look[0], late_quiescence=look[1]).score
    auto = json.loads(invoke("play", "--seed", "3", "--json", "--quiet", "--no-tables", "--stop-at-win").output)
    assert (auto["depth"], auto["quiescence"], auto["late_quiescence"]) == ("auto", 3, 2)
    timed = json.loads(invoke("play", "--seed", "3", "--json", "--quiet", "--no-tables", "--stop-at-win",
                              "--time", "1").output)
    assert (timed["quiescence"], timed["late_quiescence"]) == (None, None)
    footer = invoke("hint", EARLY, "-d", "3", "--no-tables").output.splitlines()[-1]
    assert footer.startswith("depth 3, quiescence 3, late quiescence 2 · ")
    assert invoke("hint", EARLY, "-d", "3", "--quiescence", "off", "--no-tables").output.splitlines()[-1] \
        .startswith("depth 3 · ")
    result = invoke("hint", EARLY, "--quiescence", "of")
    assert result.exit_code == 2
    assert one_error_line(result) == \
        "solve2048: error: Invalid value for '--quiescence': 'of' is neither 'off' nor a number of empty cells"
    assert "'off' is not a valid integer" in one_error_line(invoke("hint", EARLY, "--late-quiescence", "off"))


def test_hint_json_names_the_look_and_the_danger_it_searched_with() -> None:
    def hinted(*options: str) -> dict:
        result = invoke("hint", EARLY, "--json", "--no-tables", *options)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    for options, named in [(("-d", "3"), (None, 3, 2)), (("-d", "3", "--quiescence", "off"), (None, None, None)),
                           (("-d", "4", "--danger", "2", "--quiescence", "4"), (2, 4, None)),
                           (("-d", "auto",), (None, 3, 2)), (("--time", "5",), (None, None, None))]:
        answer = hinted(*options)
        assert (answer["danger"], answer["quiescence"], answer["late_quiescence"]) == named, options
    # The values are those of the search it names: off differs from the default.
    assert hinted("-d", "3")["values"] != hinted("-d", "3", "--quiescence", "off")["values"]


def test_the_bench_searches_with_the_default_look_unless_told() -> None:
    looked = json.loads(invoke("bench", "-d", "2", "--json").output)
    three = json.loads(invoke("bench", "-d", "2", "--quiescence", "3", "--json").output)
    plain = json.loads(invoke("bench", "-d", "2", "--quiescence", "off", "--json").output)
    assert looked["quiescence"] == 3 and plain["quiescence"] is None
    assert looked["nodes"] == three["nodes"] > plain["nodes"]
    assert "Quiescence:        off" in invoke("bench", "-d", "2", "--quiescence", "off").output


def test_a_file_played_without_a_look_names_the_option_that_resumes_it(tmp_path) -> None:
    out = tmp_path / "r.jsonl"
    assert invoke("batch", "-n", "2", "-d", "1", "--no-tables", "--quiescence", "off", "-o", str(out)).exit_code == 0
    kept = out.read_bytes()
    result = invoke("batch", "-n", "3", "-d", "1", "--no-tables", "-o", str(out))
    assert result.exit_code == 2 and one_error_line(result).endswith("(--quiescence off goes on with it)")
    assert out.read_bytes() == kept
    result = invoke("batch", "-n", "3", "-d", "2", "--no-tables", "-o", str(out))  # more than the look differs
    assert result.exit_code == 2 and "goes on with it" not in one_error_line(result)
    assert invoke("batch", "-n", "3", "-d", "1", "--no-tables", "--quiescence", "off", "-o", str(out)).exit_code == 0
    assert len(out.read_text().splitlines()) == 3


def test_a_request_naming_its_quiescence_alone_looks_alike_throughout() -> None:
    base, limits = SearchSettings(depth=3), Limits(max_depth=6)
    assert request_settings({}, base, limits) == base
    asked = request_settings({"quiescence": 1}, base, limits)
    assert (asked.quiescence, asked.late_quiescence) == (1, None)
    asked = request_settings({"quiescence": None}, base, limits)
    assert (asked.quiescence, asked.late_quiescence) == (None, None)
    asked = request_settings({"late_quiescence": 1}, base, limits)
    assert (asked.quiescence, asked.late_quiescence) == (3, 1)


def test_a_request_takes_the_default_look_of_its_own_depth() -> None:
    auto, limits = SearchSettings(), Limits(max_depth=5)   # the server's defaults: depth auto and its look
    assert request_settings({}, auto, Limits(max_depth=6)).quiescence == 3
    for body, look in [({}, (None, None)), ({"depth": 4}, (3, 2)), ({"depth": 5}, (None, None)),  # no room
                       ({"depth": 4, "time_ms": 20}, (None, None)), ({"depth": 4, "quiescence": None}, (None, None))]:
        asked = request_settings(body, auto, limits)
        assert (asked.quiescence, asked.late_quiescence) == look, body
    given = SearchSettings(quiescence=2)                    # a server told its look keeps it at any depth
    asked = request_settings({"depth": 4}, given, limits)
    assert (asked.quiescence, asked.late_quiescence) == (2, None)


def test_a_server_whose_default_look_would_pass_its_deepest_depth_starts_without_it() -> None:
    from solve2048.web.app import create_app

    create_app(SearchSettings(depth=5), Limits(max_depth=5))   # its own requests then search without the look
    assert request_settings({}, SearchSettings(depth=5), Limits(max_depth=5)).quiescence is None
    with pytest.raises(ApiError, match=r"depth 5 with quiescence searches deeper than --max-depth allows \(5\)"):
        create_app(SearchSettings(depth=5, quiescence=3), Limits(max_depth=5))
    # On the command line: `serve -d 5 --max-depth 5` gets past its settings to
    # the socket, here one already taken, where one given is refused.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        serve = ("serve", "-d", "5", "--max-depth", "5", "--port", port, "--no-open", "--no-tables")
        result = invoke(*serve)
        assert result.exit_code == 2 and "searches deeper" not in result.output and port in one_error_line(result)
        result = invoke(*serve, "--quiescence", "3")
        assert result.exit_code == 2
        assert "depth 5 with quiescence searches deeper than --max-depth allows (5)" in one_error_line(result)
