"""The compiled module imports and answers one call."""

from solve2048._engine import ffi, lib


def test_compiled_engine_moves_a_row() -> None:
    lib.s2048_init()
    # Row 0 = [2, 2, ., .] as exponents [1, 1, 0, 0]; left gives [4, ., ., .].
    assert lib.s2048_move(0x0011, 2) == 0x0002
    assert lib.s2048_move_gain(0x0011, 2) == 4
    assert ffi.sizeof("s2048_result") > 0


def test_rng_matches_the_python_twin() -> None:
    from solve2048.rng import Rng

    for seed in (0, 1, 2048, 2**64 - 1):
        c = ffi.new("s2048_rng *")
        lib.s2048_rng_seed(c, seed)
        py = Rng(seed)
        for n in (1, 2, 3, 10, 16, 7, 1 << 31, 5):
            assert lib.s2048_rng_below(c, n) == py.below(n)
        assert [lib.s2048_rng_next(c) for _ in range(100)] == [py.next() for _ in range(100)]


def test_a_generator_from_a_recorded_state_draws_on_as_the_original() -> None:
    from solve2048.rng import Rng

    original = Rng(2048)
    for _ in range(37):
        original.next()
    resumed = Rng.from_state(tuple(original.state))
    assert [resumed.next() for _ in range(100)] == [original.next() for _ in range(100)]
    assert resumed.state is not original.state
