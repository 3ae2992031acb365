"""Estimated events against known truth (synthetic scenes, oracle labels).

Truth and estimates are matched one to one per clip (Hungarian algorithm) on a cost mixing
onset difference and angular distance, with every pair whose onsets differ by more than
``onset_tol_s`` gated out first: the matching pairs as many true events with an estimate
starting within the tolerance as any one-to-one matching can, and among those matchings
takes the cheapest.  A true event is *detected* when its match starts within
``onset_tol_s``.  Used by ``foakit demo`` and ``benchmarks/accuracy.py``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .conventions import angular_distance, azimuth_difference

__all__ = ["TruthMatch", "load_truth", "match_clip", "summarise"]


@dataclass
class TruthMatch:
    """One true source and the estimated event matched to it (if any)."""

    audio_path: str
    truth: dict
    estimate: dict | None
    onset_error_s: float | None = None
    azimuth_error_deg: float | None = None
    elevation_error_deg: float | None = None
    detected: bool = False
    extra: dict = field(default_factory=dict)


def load_truth(root: str | os.PathLike) -> list[dict]:
    """``truth/scenes.jsonl`` of a foakit.synth corpus (one dict per clip)."""
    path = Path(root) / "truth" / "scenes.jsonl"
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def match_clip(audio_path: str, sources: list[dict], events: list[dict], *,
               onset_tol_s: float = 0.2) -> list[TruthMatch]:
    """Match true sources (``foakit.synth.Source.to_dict()``) to estimated events.

    A pair costs its onset difference over ``onset_tol_s`` plus its angular distance over
    20 degrees, and a pair outside the onset tolerance :data:`_GATE` more: the assignment
    of least total cost then has the most detections any one-to-one matching has (an
    estimate whose onset fits one true event and whose direction fits another goes to the
    one it detects), and the closest directions among those.
    """
    from scipy.optimize import linear_sum_assignment

    out = [TruthMatch(audio_path, s, None) for s in sources]
    spatial = [e for e in events if e.get("azimuth_deg") is not None]
    if not sources or not spatial:
        return out
    cost = np.zeros((len(sources), len(spatial)))
    for i, s in enumerate(sources):
        for j, e in enumerate(spatial):
            ang = float(angular_distance(_mid_azimuth(s), s["elevation_deg"],
                                         e["azimuth_deg"], e["elevation_deg"]))
            late = abs(e["onset_s"] - s["onset_s"])
            cost[i, j] = late / onset_tol_s + ang / 20.0 + (_GATE if late > onset_tol_s else 0.0)
    rows, cols = linear_sum_assignment(cost)
    for i, j in zip(rows, cols, strict=True):
        s, e = sources[i], spatial[j]
        m = out[i]
        m.estimate = e
        m.onset_error_s = float(e["onset_s"] - s["onset_s"])
        m.azimuth_error_deg = float(azimuth_difference(e["azimuth_deg"], _mid_azimuth(s)))
        m.elevation_error_deg = float(e["elevation_deg"] - s["elevation_deg"])
        m.detected = abs(m.onset_error_s) <= onset_tol_s
    return out


#: Cost added to a pair outside the onset tolerance: far more than the onset and direction
#: costs of all of a clip's pairs together, so that one more detection always wins.
_GATE = 1.0e6


def _mid_azimuth(s: dict) -> float:
    """Azimuth of a true source; for a moving one, the middle of its path."""
    end = s.get("azimuth_end_deg")
    if end is None:
        return float(s["azimuth_deg"])
    return float(s["azimuth_deg"] + azimuth_difference(end, s["azimuth_deg"]) / 2.0)


def summarise(matches: list[TruthMatch], counts: list[tuple[int, int | None]], *,
              az_tol_deg: float = 20.0, el_tol_deg: float = 10.0) -> dict:
    """Detection rate, direction accuracy of detected events, exact-count rate."""
    n = len(matches)
    det = [m for m in matches if m.detected]
    stationary = [m for m in det if m.truth.get("azimuth_end_deg") is None]
    az_ok = sum(abs(m.azimuth_error_deg) <= az_tol_deg for m in stationary)
    el_ok = sum(abs(m.elevation_error_deg) <= el_tol_deg for m in stationary)
    exact = sum(1 for t, e in counts if e == t)
    return {
        "true_events": n,
        "detected": len(det),
        "detection_rate": len(det) / n if n else float("nan"),
        "azimuth_within_tol": az_ok / len(stationary) if stationary else float("nan"),
        "elevation_within_tol": el_ok / len(stationary) if stationary else float("nan"),
        "median_abs_azimuth_error_deg": float(np.median([abs(m.azimuth_error_deg)
                                                         for m in stationary]))
        if stationary else float("nan"),
        "median_abs_elevation_error_deg": float(np.median([abs(m.elevation_error_deg)
                                                           for m in stationary]))
        if stationary else float("nan"),
        "median_abs_onset_error_s": float(np.median([abs(m.onset_error_s) for m in det]))
        if det else float("nan"),
        "clips": len(counts),
        "exact_count_rate": exact / len(counts) if counts else float("nan"),
    }
