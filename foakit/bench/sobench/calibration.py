"""Calibrated blind answers of the SO-Bench ``dsp`` baseline where the signal's evidence is
weak: the source distance and the motion label.

Both are scored by a threshold (distance: correct iff ``|error| <= 1 m``; motion: the label
must match), so the answer that scores best is not the raw measurement but the value most
likely to land within the threshold given the evidence, and a weak cue is worth less than a
good constant.

Distance
    The cue is the event's direct-sound share: the analysis' event ``confidence``,
    ``sqrt(in-cone share x (1 - diffuseness))``, which falls as the direct-to-reverberant
    ratio does (a far source's cone holds more reverberation and less of the clip's energy).
    ``log r_hat = intercept + slope * log(confidence)`` (least squares on tuning corpora),
    then the answer is ``c + weight * (r_hat - c)`` about a blind constant ``c``, clipped to
    ``range_m``; ``c`` and ``weight`` maximise the share of tuning answers within 1 m.  A
    weight below 1 shrinks the estimate toward ``c``; the fitted one is above 1: the
    least-squares estimate of ``log r`` from a weak cue is the conditional mean, pulled to
    the middle, while the answer that lands within 1 m most often lies farther out.  An
    event without the cue (a clip without reverberation, whose ``distance_m`` is None, or no
    confidence) is answered ``c``: the confidence gate.  The answer's confidence is the
    share of tuning answers within 1 m in the cue's bin.
Motion
    An event is answered as moving only when the analysis calls it moving, its azimuth
    changes by at least ``min_change_deg`` over the event and its ``confidence`` reaches
    ``min_confidence`` (reverberation drags a weak, diffuse event's direction about);
    otherwise "stationary".  The analysis' own motion tests already weigh that drag, so
    the gate withholds only what is weaker than anything they call motion on the tuning
    corpora; a stricter gate withholds more right answers than wrong ones there.

The distance constants are fitted by ``python benchmarks/distance_calibration.py --dsp`` and
the motion gate is chosen by ``--motion-gate`` of the same script, both on the tuning corpora
named in :data:`TUNING_CORPORA`, never on the corpus being answered; the QA labels of an
answered corpus are never read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...conventions import azimuth_difference
from ...errors import ParameterError

__all__ = [
    "TUNING_CORPORA",
    "DistanceCalibration",
    "MotionGate",
    "DISTANCE_CALIBRATION",
    "MOTION_GATE",
    "calibrated_distance",
    "fit_distance_calibration",
    "gated_motion",
]


#: the synthetic families the constants below are fitted on (the measurement families of
#: benchmarks/sobench_dsp_vs_prior.py use other seeds)
TUNING_CORPORA = ("foakit.bench.sobench.synth seeds 100-103 and 105-108, engines ism and "
                  "pyroomacoustics, 60 clips each, RT60 0.2-0.8 s, SNR 15-30 dB, 1-3 sources, "
                  "16 kHz / 20 s (even seeds) and 24 kHz / 10 s (odd seeds); seed 104 "
                  "anechoic (ism, 16 kHz / 20 s)")


@dataclass(frozen=True)
class DistanceCalibration:
    """A blind distance answer fitted for the ``|error| <= 1 m`` metric.

    Attributes
    ----------
    intercept, slope : float
        ``log r_hat = intercept + slope * log(max(confidence, min_confidence))``.
    constant_m : float
        The blind constant the estimate is scaled about (the tuning corpora's best
        single answer), and the answer where the cue is missing.
    weight : float
        ``answer = constant_m + weight * (r_hat - constant_m)``: below 1 a shrinkage toward
        the constant, above 1 a spread away from it.
    range_m : (float, float)
        Answers are clipped to this range.
    min_confidence : float
        Floor of the cue (a zero confidence has no logarithm).
    bin_edges : tuple of float
        Inner edges of the cue bins (ascending confidence).
    bin_hit_rates : tuple of float
        Share of tuning answers within 1 m per bin (``len(bin_edges) + 1`` values).
    constant_hit_rate : float
        Share of tuning answers within 1 m when the constant is answered without a cue.
    """

    intercept: float
    slope: float
    constant_m: float
    weight: float
    range_m: tuple[float, float]
    min_confidence: float
    bin_edges: tuple[float, ...]
    bin_hit_rates: tuple[float, ...]
    constant_hit_rate: float

    def __post_init__(self) -> None:
        lo, hi = self.range_m
        if not 0 < lo < hi:
            raise ParameterError(f"range_m={self.range_m!r} needs 0 < lo < hi")
        if not lo <= self.constant_m <= hi:
            raise ParameterError(f"constant_m={self.constant_m!r} must lie in {self.range_m}")
        if not 0.0 <= self.weight <= 2.0:
            raise ParameterError(f"weight={self.weight!r} must be in [0, 2]")
        if self.min_confidence <= 0:
            raise ParameterError(f"min_confidence={self.min_confidence!r} must be > 0")
        if len(self.bin_hit_rates) != len(self.bin_edges) + 1:
            raise ParameterError(f"{len(self.bin_hit_rates)} bin_hit_rates for "
                                 f"{len(self.bin_edges)} bin_edges (needs one more)")

    def estimate(self, confidence: float) -> float:
        """The least-squares estimate ``r_hat`` (m) of a cue value."""
        x = math.log(max(float(confidence), self.min_confidence))
        return math.exp(self.intercept + self.slope * x)

    def answer(self, confidence: float) -> float:
        """The weighted, clipped answer (m) of a cue value."""
        r = self.constant_m + self.weight * (self.estimate(confidence) - self.constant_m)
        lo, hi = self.range_m
        return min(max(r, lo), hi)

    def hit_rate(self, confidence: float) -> float:
        """The tuning share of answers within 1 m for this cue value's bin."""
        return self.bin_hit_rates[int(np.searchsorted(self.bin_edges, float(confidence),
                                                      side="right"))]


@dataclass(frozen=True)
class MotionGate:
    """When an event's motion evidence is strong enough to answer "moving".

    Attributes
    ----------
    min_change_deg : float
        Smallest azimuth change over the event (start to end of its straight-line fit).
    min_confidence : float
        Smallest event ``confidence`` (direct-sound share).
    """

    min_change_deg: float = 15.0
    min_confidence: float = 0.02

    def __post_init__(self) -> None:
        if self.min_change_deg < 0 or not 0.0 <= self.min_confidence <= 1.0:
            raise ParameterError(f"min_change_deg={self.min_change_deg!r} must be >= 0 and "
                                 f"min_confidence={self.min_confidence!r} in [0, 1]")


#: fitted by ``python benchmarks/distance_calibration.py --dsp`` on :data:`TUNING_CORPORA`
DISTANCE_CALIBRATION = DistanceCalibration(
    intercept=0.571, slope=-0.159, constant_m=2.85, weight=1.3, range_m=(0.5, 6.0),
    min_confidence=0.01, bin_edges=(0.09, 0.168, 0.306), bin_hit_rates=(0.69, 0.57, 0.55, 0.61),
    constant_hit_rate=0.64)

#: chosen by ``python benchmarks/distance_calibration.py --motion-gate`` on
#: :data:`TUNING_CORPORA`: the share of right answers is flat for a least change up to
#: 15 deg (no event the analysis calls moving there changes less) and a least confidence up
#: to 0.03, and falls past either
MOTION_GATE = MotionGate()


def _finite(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def calibrated_distance(event: Mapping[str, Any],
                        cal: DistanceCalibration = DISTANCE_CALIBRATION
                        ) -> tuple[float, dict]:
    """The calibrated blind distance answer for one analysed event.

    Parameters
    ----------
    event : mapping
        An analysis event (``confidence``, ``distance_m``, ``distance_proxy``).
    cal : DistanceCalibration

    Returns
    -------
    answer_m : float
        Rounded to 2 decimals, as the answer sentence states it.
    info : dict
        ``method`` ("calibrated" or "constant"), ``cue`` (the confidence used, or None),
        ``estimate_m`` (before weighting), ``constant_m``, ``weight``, ``confidence`` (the tuning
        share of answers within 1 m in this case) and ``text`` (one sentence for the
        evidence).
    """
    conf = _finite(event.get("confidence"))
    base = {"constant_m": cal.constant_m, "weight": cal.weight}
    if event.get("distance_m") is None or conf is None:
        why = str(event.get("distance_proxy") or "no distance cue") \
            if event.get("distance_m") is None else "the event has no confidence"
        info = {"method": "constant", "cue": None, "estimate_m": None, **base,
                "confidence": cal.constant_hit_rate,
                "text": f"no distance cue ({why}): answered the blind constant "
                        f"{cal.constant_m:g} m (tuning corpora, not this QA file's labels); "
                        f"confidence {cal.constant_hit_rate:.2f} (tuning share within 1 m)"}
        return round(cal.constant_m, 2), info
    est, ans = cal.estimate(conf), cal.answer(conf)
    rate = cal.hit_rate(conf)
    info = {"method": "calibrated", "cue": conf, "estimate_m": round(est, 3), **base,
            "confidence": rate,
            "text": f"calibrated: direct-sound share {conf:.3f} gives {est:.2f} m, weighted "
                    f"about the blind constant {cal.constant_m:g} m by "
                    f"{cal.weight:g} -> {ans:.2f} m; confidence {rate:.2f} (tuning share "
                    "within 1 m for this cue)"}
    return round(ans, 2), info


def gated_motion(event: Mapping[str, Any], gate: MotionGate = MOTION_GATE
                 ) -> tuple[str, dict]:
    """The event's motion as an analysis label, "stationary" unless the evidence is strong.

    Returns
    -------
    motion : str
        ``"stationary"``, ``"left_to_right"`` or ``"right_to_left"`` (analysis labels).
    info : dict
        ``raw`` (the analysis label), ``change_deg``, ``event_confidence``, ``strong`` (bool)
        and ``text`` (one sentence for the evidence).
    """
    raw = str(event.get("motion") or "stationary")
    a0, a1 = _finite(event.get("azimuth_start_deg")), _finite(event.get("azimuth_end_deg"))
    change = abs(float(azimuth_difference(a1, a0))) if a0 is not None and a1 is not None \
        else 0.0
    conf = _finite(event.get("confidence")) or 0.0
    gate_text = (f"(gate: change >= {gate.min_change_deg:g} deg and confidence >= "
                 f"{gate.min_confidence:g})")
    if raw == "stationary":
        strong, text = False, "the analysis found no azimuth change: stationary"
    else:
        strong = change >= gate.min_change_deg and conf >= gate.min_confidence
        text = (f"analysis motion {raw}, azimuth change {change:.0f} deg, confidence "
                f"{conf:.2f} {gate_text}: " +
                ("strong evidence, answered moving" if strong else
                 "weak evidence (reverberation moves a diffuse event's direction), answered "
                 "stationary"))
    info = {"raw": raw, "change_deg": round(change, 1), "event_confidence": round(conf, 4),
            "strong": strong, "text": text}
    return (raw if strong else "stationary"), info


def fit_distance_calibration(confidence: Sequence[float], truth_m: Sequence[float], *,
                             no_cue_truth_m: Sequence[float] = (),
                             range_m: tuple[float, float] = (0.5, 6.0),
                             min_confidence: float = 0.01, n_bins: int = 4
                             ) -> DistanceCalibration:
    """Fit a :class:`DistanceCalibration` on tuning events.

    Parameters
    ----------
    confidence : sequence of float [shape=(n,)]
        The cue of each tuning event that has one.
    truth_m : sequence of float [shape=(n,)]
        Their true distances (m).
    no_cue_truth_m : sequence of float
        True distances of tuning events without a cue (anechoic clips): they count toward
        the constant.
    range_m, min_confidence : see :class:`DistanceCalibration`
    n_bins : int
        Cue bins (equal counts) of the reported confidence.

    Returns
    -------
    DistanceCalibration
    """
    conf = np.asarray(confidence, dtype=np.float64)
    truth = np.asarray(truth_m, dtype=np.float64)
    if conf.shape != truth.shape or conf.ndim != 1 or len(conf) < 2 * n_bins:
        raise ParameterError(f"confidence {conf.shape} and truth_m {truth.shape} must be "
                             f"equal 1-d shapes with at least {2 * n_bins} events")
    if n_bins < 1:
        raise ParameterError(f"{n_bins=} must be >= 1")
    x = np.log(np.maximum(conf, min_confidence))
    slope, intercept = np.polyfit(x, np.log(truth), 1)
    est = np.exp(intercept + slope * x)
    everyone = np.concatenate([truth, np.asarray(no_cue_truth_m, dtype=np.float64)])
    lo, hi = range_m

    def hits(ans: np.ndarray, t: np.ndarray) -> float:
        return float(np.mean(np.abs(ans - t) <= 1.0))

    consts = np.round(np.arange(lo, hi + 1e-9, 0.05), 2)
    constant = float(consts[int(np.argmax([hits(np.full(len(everyone), c), everyone)
                                           for c in consts]))])
    weights = np.round(np.arange(0.0, 2.0 + 1e-9, 0.1), 1)
    scores = [hits(np.clip(constant + w * (est - constant), lo, hi), truth) for w in weights]
    weight = float(weights[int(np.argmax(scores))])  # the smallest weight on ties
    ans = np.clip(constant + weight * (est - constant), lo, hi)
    edges = tuple(float(e) for e in np.round(np.quantile(conf, np.arange(1, n_bins) / n_bins), 3))
    which = np.searchsorted(edges, conf, side="right")
    rates = tuple(round(hits(ans[which == b], truth[which == b]), 2) if np.any(which == b)
                  else 0.0 for b in range(n_bins))
    no_cue = np.asarray(no_cue_truth_m, dtype=np.float64)
    const_rate = round(hits(np.full(len(no_cue), constant), no_cue), 2) if len(no_cue) else \
        round(hits(np.full(len(everyone), constant), everyone), 2)
    return DistanceCalibration(
        intercept=round(float(intercept), 3), slope=round(float(slope), 3),
        constant_m=constant, weight=weight, range_m=(float(lo), float(hi)),
        min_confidence=float(min_confidence), bin_edges=edges, bin_hit_rates=rates,
        constant_hit_rate=const_rate)
