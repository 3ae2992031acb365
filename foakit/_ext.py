"""Compiled modules of SciPy loaded without their packages' ``__init__`` (start-up time).

The CPU analysis needs two compiled SciPy modules, and importing either the usual way runs
SciPy's package initialisers, which load much more than they need:

* pocketfft's real-input transform (``scipy.fft._pocketfft.pypocketfft``, what
  ``scipy.fft.rfft`` calls): ``import scipy.fft`` also imports ``scipy.special`` and SciPy's
  array-API layer;
* ``scipy.linalg.cython_blas``, which Numba imports when it sets up its compiler (only to
  see that BLAS is there): ``import scipy.linalg`` imports all of ``scipy.linalg``.

Together some 0.2-0.3 s of every ``foakit analyze`` start-up on a 2-core machine, spent
before the workers can start.  Loading the two extension modules from their files gives the
same code (the same transform bits) without the rest.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterator
from types import ModuleType

__all__ = ["load_extension", "numba_blas_check_light"]


def load_extension(fullname: str) -> ModuleType | None:
    """The compiled module ``fullname`` loaded from its file, its parent packages left
    unimported; not entered in ``sys.modules`` (a later ordinary import of it works as
    usual).  None when it cannot be found or loaded."""
    pkg, _, _ = fullname.rpartition(".")
    parts = pkg.split(".")
    try:
        top = importlib.util.find_spec(parts[0])
        if top is None or not top.submodule_search_locations:
            return None
        base = os.path.join(list(top.submodule_search_locations)[0], *parts[1:])
        spec = importlib.machinery.PathFinder.find_spec(fullname, [base])
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except Exception:
        return None
    return mod


@contextlib.contextmanager
def numba_blas_check_light() -> Iterator[None]:
    """While Numba sets up its compiler (the first kernel call of a process), let its BLAS
    check find ``scipy.linalg.cython_blas`` without importing ``scipy.linalg``.

    The module is entered in ``sys.modules`` for the duration only, and only when
    ``scipy.linalg`` is not imported yet; afterwards an ordinary import of it runs as usual
    (and gives the same module).
    """
    name = "scipy.linalg.cython_blas"
    mod = None
    if name not in sys.modules and "scipy.linalg" not in sys.modules:
        mod = load_extension(name)
        if mod is not None:
            sys.modules[name] = mod
    try:
        yield
    finally:
        if mod is not None and sys.modules.get(name) is mod:
            del sys.modules[name]
