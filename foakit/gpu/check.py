"""Comparing GPU results with the CPU backend's, with tolerances derived from float32.

The GPU computes in float32 (cuFFT, atomics and tree reductions sum in other orders than
the CPU kernels) where the CPU path partly sums in float64.  Frame-level quantities then
agree to a few float32 ulps times the number of terms summed; events, being frame-quantised,
must agree exactly in number, timing, motion and source, and in their angles and levels
within :data:`EVENT_TOL`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["EVENT_TOL", "FRAME_TOL", "compare_events", "compare_frames"]

_EPS32 = float(np.finfo(np.float32).eps)
#: Terms in the largest float32 sum behind an event field (band bins x frames of a long event).
_TERMS = 2.0**14
#: Headroom for error growth through normalisations, atan2 and log10.
_SLACK = 100.0
#: Relative error of such a sum with random-walk rounding, times the headroom (1.5e-3).
_REL = math.sqrt(_TERMS) * _EPS32 * _SLACK
_DEG = math.degrees(_REL)  # on unit vectors: ~0.09 degree

#: Absolute tolerance per event field, derived from float32 as above (dB fields:
#: ``10 / ln 10`` times the relative error; ``distance_m`` relative).
EVENT_TOL = {
    "azimuth_deg": _DEG,
    "azimuth_start_deg": _DEG,
    "azimuth_end_deg": _DEG,
    "elevation_deg": _DEG,
    "diffuseness": _REL,
    "confidence": _REL,
    "energy_db": 10 / math.log(10) * _REL,
    "distance_m": _REL,
}
#: Event fields that must be equal.
_EXACT = ("onset_s", "offset_s", "motion", "source", "distance_proxy")

#: ``(rtol, atol)`` for per-frame columns against the CPU path.
FRAME_TOL = {
    "energy_db": (0.0, 1e-3),
    "diffuseness": (0.0, 1e-3),
    # whitened votes weigh every band bin about alike, so one bin whose diffuseness sits on
    # the gate and falls on the other side (float32 sums in another order) moves the share
    # by about 1 / (bins in the band)
    "doa_weight": (0.0, 1e-2),
}


def _get(e: Any, k: str) -> Any:
    return e[k] if isinstance(e, dict) else getattr(e, k)


def compare_events(a: Sequence[Any], b: Sequence[Any]) -> list[str]:
    """Differences between two event lists (``Event`` objects or their dicts); [] if equal.

    Exact fields must match, float fields within :data:`EVENT_TOL` (azimuths wrapped).
    """
    if len(a) != len(b):
        return [f"{len(a)} events against {len(b)}"]
    out = []
    for i, (ea, eb) in enumerate(zip(a, b, strict=True)):
        for k in _EXACT:
            va, vb = _get(ea, k), _get(eb, k)
            if isinstance(va, float) and isinstance(vb, float):
                same = abs(va - vb) <= 1e-9
            else:
                same = va == vb
            if not same:
                out.append(f"event {i}: {k} {va!r} != {vb!r}")
        for k, tol in EVENT_TOL.items():
            va, vb = _get(ea, k), _get(eb, k)
            if va is None or vb is None:
                if (va is None) != (vb is None):
                    out.append(f"event {i}: {k} {va!r} != {vb!r}")
                continue
            d = abs(va - vb)
            if k.startswith("azimuth"):
                d = abs((va - vb + 180.0) % 360.0 - 180.0)
            if k == "distance_m":
                d /= max(abs(vb), 1e-9)
            if d > tol:
                out.append(f"event {i}: {k} {va!r} vs {vb!r} (tolerance {tol:.3g})")
    return out


def compare_frames(a: dict, b: dict) -> list[str]:
    """Differences between two per-frame tables (:data:`foakit.analysis.FRAME_COLUMNS`).

    Integer and boolean columns must be equal; directions are compared where both voted and
    must agree on which frames voted, except frames whose vote weight is at float32 noise.
    """
    out = []
    for k in ("frame", "active", "source"):
        if not np.array_equal(a[k], b[k]):
            n = int(np.sum(np.asarray(a[k]) != np.asarray(b[k]))) if a[k].shape == b[k].shape \
                else -1
            out.append(f"column {k}: {n} frames differ")
    for k, (rtol, atol) in FRAME_TOL.items():
        if not np.allclose(a[k], b[k], rtol=rtol, atol=atol, equal_nan=True):
            d = np.nanmax(np.abs(np.asarray(a[k], float) - np.asarray(b[k], float)))
            out.append(f"column {k}: max difference {d:.3g}")
    both = np.isfinite(a["azimuth_deg"]) & np.isfinite(b["azimuth_deg"])
    solid = np.maximum(a["doa_weight"], b["doa_weight"]) > 1e-4
    if np.any((np.isfinite(a["azimuth_deg"]) != np.isfinite(b["azimuth_deg"])) & solid):
        out.append("column azimuth_deg: different frames voted")
    sel = both & solid
    daz = np.abs((a["azimuth_deg"][sel] - b["azimuth_deg"][sel] + 180) % 360 - 180)
    if daz.size and daz.max() > 0.5:
        out.append(f"column azimuth_deg: max difference {daz.max():.3g} deg")
    return out
