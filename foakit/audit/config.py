"""Checks shared by the audits' configuration dataclasses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ParameterError

__all__ = ["require_positive", "require_prominence_order"]


def require_positive(cfg: Any, names: Iterable[str]) -> None:
    """Raise :class:`~foakit.errors.ParameterError` unless every named threshold is > 0."""
    for name in names:
        if not getattr(cfg, name) > 0:
            raise ParameterError(f"{name}={getattr(cfg, name)!r} must be > 0")


def require_prominence_order(cfg: Any) -> None:
    """Raise :class:`~foakit.errors.ParameterError` unless
    ``0 <= doubt_prom < agree_prom <= 1``."""
    if not 0 <= cfg.doubt_prom < cfg.agree_prom <= 1:
        raise ParameterError("need 0 <= doubt_prom < agree_prom <= 1")
