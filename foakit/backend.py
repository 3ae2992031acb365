"""Choosing NumPy or CuPy at call time.

Importing foakit never imports CuPy or touches a GPU: :func:`resolve_backend` does, and only
when a caller asks for ``"auto"`` or ``"cuda"``.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

import numpy as np

from .errors import BackendUnavailable, ParameterError

__all__ = ["BACKENDS", "resolve_backend", "get_xp", "cuda_status", "array_module"]

BACKENDS = ("auto", "cpu", "cuda")


@functools.lru_cache(maxsize=1)
def cuda_status() -> tuple[bool, str]:
    """Return ``(available, reason)`` for the CuPy backend; imports CuPy on first call."""
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CuPy found no usable CUDA device ({type(exc).__name__}: {exc})"
    if n < 1:
        return False, "CuPy found no CUDA device"
    return True, f"{n} CUDA device(s)"


def resolve_backend(backend: str = "auto") -> str:
    """Turn ``"auto" | "cpu" | "cuda"`` into ``"cpu"`` or ``"cuda"``.

    Raises
    ------
    ParameterError
        For an unknown name.
    BackendUnavailable
        For ``"cuda"`` when CuPy or a device is missing (the message says which).
    """
    name = str(backend).lower()
    if name not in BACKENDS:
        raise ParameterError(f"{backend=!r} must be one of {BACKENDS}")
    if name == "cpu":
        return "cpu"
    ok, why = cuda_status()
    if name == "cuda" and not ok:
        raise BackendUnavailable(f"backend='cuda' is unavailable: {why}")
    return "cuda" if ok else "cpu"


def get_xp(backend: str) -> ModuleType:
    """The array module for a resolved backend name."""
    if backend == "cuda":
        return importlib.import_module("cupy")
    return np


def array_module(x: object) -> ModuleType:
    """NumPy or CuPy, whichever ``x`` belongs to (without importing CuPy for NumPy input)."""
    if type(x).__module__.split(".")[0] == "cupy":
        return importlib.import_module("cupy")
    return np
