"""The compiled module imports and answers one call."""

from solve2048._engine import ffi, lib


def test_compiled_engine_moves_a_row() -> None:
    lib.s2048_init()
    # Row 0 = [2, 2, ., .] as exponents [1, 1, 0, 0]; left gives [4, ., ., .].
    assert lib.s2048_move(0x0011, 2) == 0x0002
    assert lib.s2048_move_gain(0x0011, 2) == 4
    assert ffi.sizeof("s2048_result") > 0
