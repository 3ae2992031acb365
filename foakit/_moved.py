"""Names that load from another module: those that moved (importable from their former
module for a release), and a package's public names loaded on first use.

A former module sets ``__getattr__ = moved_names(__name__, {name: "new.module", ...})``;
a name may also have been renamed there (``renamed={"old": "new"}``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def moved_names(module: str, moved: Mapping[str, str], *,
                renamed: Mapping[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` that fetches each moved name from its new module."""
    renamed = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        if name in moved:
            return getattr(importlib.import_module(moved[name]), renamed.get(name, name))
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def lazy_names(package: str, where: Mapping[str, str]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose public names load on first use
    (PEP 562): ``where`` maps each name to the submodule (relative to ``package``) that
    holds it.  A benchmark package's ``cli`` module is imported by every ``foakit``
    command; its package must not pull the benchmark's heavy modules in with it."""
    pkg = importlib.import_module(package)

    def __getattr__(name: str) -> Any:
        mod = where.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{mod}", package), name)
        setattr(pkg, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(pkg)) | set(where))

    return __getattr__, __dir__
