"""The error family: every error solve2048 raises derives from Solve2048Error.

Each also derives from the built-in error a caller would expect, so code that
catches ValueError or MemoryError keeps working. The errors of one concern live
beside it and derive from these: InvalidBoardError (board), RecordError
(record), ResultsFileError (results), TableError (tables), BatchError (batch).
"""

from __future__ import annotations


class Solve2048Error(Exception):
    """Anything solve2048 refuses or cannot do; the message says what and where."""


class InvalidArgumentError(Solve2048Error, ValueError):
    """A value the library does not take: a setting out of range, a bad seed or size."""


class UsageError(Solve2048Error, TypeError):
    """A call the library does not take: arguments that contradict each other."""


class OutOfMemoryError(Solve2048Error, MemoryError):
    """The engine could not allocate what it was asked for."""
