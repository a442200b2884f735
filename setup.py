# Only here to hand the cffi build script to setuptools; everything else is in pyproject.toml.
from setuptools import setup

setup(cffi_modules=["solver/_ffi_build.py:ffibuilder"])
