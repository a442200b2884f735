"""The exit codes of every command, in one place (documented in cli/main.py)."""

EXIT_NO_MOVE = 1          # hint: the position has no legal move
EXIT_ILLEGAL_RECORD = 1   # replay: the record is not a legal game
EXIT_BATCH_FAILED = 1     # batch: a worker or the cluster failed; finished games are kept
EXIT_WRITE_FAILED = 1     # an output could not be written as the work went on; what was written is kept
EXIT_BAD_INPUT = 2        # bad input or option: one line on stderr, no traceback
EXIT_INTERRUPTED = 130    # Ctrl-C, after writing what was already computed
