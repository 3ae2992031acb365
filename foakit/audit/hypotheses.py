"""Convention hypotheses: the ways a wrong pipeline turns true directions into labels
(``docs/conventions.md``).  Each angle map is its own inverse, so it maps labels back to the
directions they would mean:

================== ==================== ===============================================
name               label -> direction   what went wrong
================== ==================== ===============================================
``declared``       az, el               nothing
``mirror_azimuth`` -az, el              azimuth sign (clockwise written as CCW)
``front_back``     180 - az, el         front and back exchanged
``yx_swap``        90 - az, el          x and y exchanged (e.g. ACN 1..3 named x, y, z)
``elevation_sign`` az, -el              elevation sign
================== ==================== ===============================================

and one hypothesis about the **signal**, tested by decoding the audio again: the files are
in the other channel order than declared (``fuma_as_ambix``: FuMa W, X, Y, Z files read as
ambiX W, Y, Z, X; ``ambix_as_fuma`` the converse).  A wrong channel order is a rotation
plus a wrong W gain, so it cannot be told apart from label errors by an angle map alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..conventions import CHANNEL_ORDERS, check_channel_order, wrap_azimuth
from ..errors import ParameterError

__all__ = [
    "ANGLE_HYPOTHESES",
    "apply_hypothesis",
    "best_hypothesis",
    "other_order",
    "redecode_hypothesis",
]

#: Angle-map hypotheses, in the order they are reported (see the module docstring).
ANGLE_HYPOTHESES = ("declared", "mirror_azimuth", "front_back", "yx_swap", "elevation_sign")


def other_order(channel_order: str) -> str:
    """The channel order that is not ``channel_order`` (ambix <-> fuma)."""
    order = check_channel_order(channel_order)
    return next(o for o in CHANNEL_ORDERS if o != order)


def redecode_hypothesis(declared_order: str) -> str:
    """Name of the re-decoding hypothesis for a corpus declared ``declared_order``."""
    order = check_channel_order(declared_order)
    return f"{other_order(order)}_as_{order}"


def apply_hypothesis(name: str, az_deg: Any, el_deg: Any) -> tuple[np.ndarray, np.ndarray]:
    """Map label directions through an angle hypothesis (its own inverse).

    Parameters
    ----------
    name : str
        One of :data:`ANGLE_HYPOTHESES`.
    az_deg, el_deg : float or ndarray
        Degrees.

    Returns
    -------
    az, el : ndarray
        Azimuth wrapped to [-180, 180).
    """
    az = np.asarray(az_deg, dtype=float)
    el = np.asarray(el_deg, dtype=float)
    if name == "declared":
        return wrap_azimuth(az), el.copy()
    if name == "mirror_azimuth":
        return wrap_azimuth(-az), el.copy()
    if name == "front_back":
        return wrap_azimuth(180.0 - az), el.copy()
    if name == "yx_swap":
        return wrap_azimuth(90.0 - az), el.copy()
    if name == "elevation_sign":
        return wrap_azimuth(az), -el
    raise ParameterError(f"unknown hypothesis {name!r}; expected one of {ANGLE_HYPOTHESES}")


def best_hypothesis(scores: dict[str, float]) -> str:
    """The hypothesis that scores highest on a clip; ``declared`` wins a tie with the top."""
    top = max(scores.values())
    return "declared" if scores.get("declared", -1) >= top - 1e-9 else \
        max(scores, key=scores.get)
