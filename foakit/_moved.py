"""Names that moved to another module stay importable from their former one for a release.

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
