"""The ``solve2048`` command line (click)."""
