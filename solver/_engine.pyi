# Stub for the compiled cffi module (solver/_ffi_build.py builds it from the
# cdef in csrc/api.h). Its objects are typed Any on purpose: cffi ships no
# types, and a hand-written copy of the C signatures here could drift from the
# cdef without mypy noticing. engine.py is the typed boundary instead: it
# converts every C result to int, float or bool. A stub rather than
# ignore_missing_imports, so that a misspelt name or a renamed module is
# still an error.
from typing import Any

ffi: Any
lib: Any
