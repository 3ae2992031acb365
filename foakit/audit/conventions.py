"""The convention audit: which convention hypothesis do the labels support, over the corpus?

Each benchmark audit scores every hypothesis of :mod:`foakit.audit.common` (the angle maps
applied to the labels, and the other channel order applied to the signal by decoding it
again) with the same measure: the fraction of labels (or labelled windows) that some DOA
estimate confirms within a tolerance.  :func:`decide` turns those scores into the
``"convention"`` block of ``summary.json``.

Decision rule
-------------
``best`` is the candidate with the highest agreement.  It is named a mismatch only when it
is not ``declared``, beats ``declared`` by at least ``min_gain`` (absolute) and by the factor
``min_ratio``, rests on at least ``min_pairs`` labels, and is the best candidate in more clips
than ``declared`` is.  The re-decoding candidate is compared with ``declared`` on the same
clips (it is run on a subset of the corpus).  Otherwise ``best`` is ``declared``.

Normalisation
-------------
Directions do not tell SN3D, N3D and FuMa apart (a uniform dipole gain moves none); the
dipoles' power over the omni's does: 1, 3 and 2 for a plane wave.
:func:`normalisation_stats` measures it per clip on direct-path-dominated STFT bins and
:func:`normalisation_verdict` names the normalisation the corpus supports, or
``"undecided"``, with the ratio it measured.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = ["CandidateScore", "DESCRIPTIONS", "NORMALISATION_RULE", "decide",
           "normalisation_stats", "normalisation_verdict"]

#: One line per hypothesis, for reports.
DESCRIPTIONS = {
    "declared": "labels and channel order as declared",
    "mirror_azimuth": "azimuth labels mirrored (az -> -az: clockwise written as "
                      "counter-clockwise, left and right exchanged)",
    "front_back": "front and back exchanged in the labels (az -> 180 - az)",
    "yx_swap": "x and y exchanged (az -> 90 - az), e.g. ACN channels named x, y, z",
    "elevation_sign": "elevation sign flipped in the labels (el -> -el)",
    "fuma_as_ambix": "files are FuMa (W, X, Y, Z; W at -3 dB) but read as ambiX "
                     "(tested by decoding the audio as FuMa)",
    "ambix_as_fuma": "files are ambiX (W, Y, Z, X) but read as FuMa "
                     "(tested by decoding the audio as ambiX)",
}


@dataclass
class CandidateScore:
    """How well one hypothesis explains the labels.

    Attributes
    ----------
    name : str
    agreement : float
        Fraction of the scored labels that a DOA estimate confirms within tolerance.
    median_error_deg : float or None
        Median angular error between labels and their matched estimates.
    n_pairs : int
        Labels (or labelled windows) scored.
    n_clips : int
        Clips scored.
    clips_best : int
        Clips where this candidate has the highest agreement (ties go to ``declared``).
    declared_agreement_same_clips : float or None
        For the re-decoding candidate (scored on a subset): ``declared``'s agreement on the
        same clips.
    """

    name: str
    agreement: float
    median_error_deg: float | None
    n_pairs: int
    n_clips: int
    clips_best: int = 0
    declared_agreement_same_clips: float | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("name")
        for k in ("agreement", "median_error_deg", "declared_agreement_same_clips"):
            if d[k] is not None:
                d[k] = round(float(d[k]), 4)
        d["description"] = DESCRIPTIONS.get(self.name, "")
        return d


def decide(
    declared_order: str,
    scores: dict[str, CandidateScore],
    *,
    min_gain: float = 0.15,
    min_ratio: float = 1.3,
    min_pairs: int = 8,
) -> dict:
    """The ``"convention"`` block of ``summary.json`` from the candidates' scores.

    Parameters
    ----------
    declared_order : str
        The channel order the corpus was read as.
    scores : dict
        Candidate name -> :class:`CandidateScore`; must hold ``"declared"``.
    min_gain, min_ratio, min_pairs : float, float, int
        See the module docstring.

    Returns
    -------
    dict
        ``declared`` (channel order and angle convention), ``best`` (a candidate name),
        ``mismatch`` (bool), ``candidates`` (name -> scores), ``evidence`` (one sentence).
    """
    base = scores.get("declared")
    block = {
        "declared": {"channel_order": declared_order,
                     "angles": "azimuth CCW from the front (+90 = left), elevation up"},
        "best": "declared",
        "mismatch": False,
        "candidates": {k: v.to_dict() for k, v in scores.items()},
        "evidence": "",
    }
    if base is None or base.n_pairs == 0:
        block["evidence"] = "no label could be compared with a DOA estimate"
        block["best"] = None
        return block
    ranked = sorted(scores.values(), key=lambda s: (-s.agreement, s.name != "declared"))
    best = ranked[0]
    ref_agree = (best.declared_agreement_same_clips
                 if best.declared_agreement_same_clips is not None else base.agreement)
    gain = best.agreement - ref_agree
    ok = (best.name != "declared" and best.n_pairs >= min_pairs and gain >= min_gain
          and best.agreement >= min_ratio * max(ref_agree, 1e-9)
          and best.clips_best > base.clips_best)
    if ok:
        block["best"] = best.name
        block["mismatch"] = True
        block["evidence"] = (
            f"{best.name}: {best.agreement:.0%} of {best.n_pairs} labels agree with the "
            f"signal against {ref_agree:.0%} as declared; best hypothesis in "
            f"{best.clips_best} of {best.n_clips} clips ({DESCRIPTIONS.get(best.name, '')})")
    else:
        runner = next((s for s in ranked if s.name != "declared"), None)
        block["evidence"] = (
            f"declared convention: {base.agreement:.0%} of {base.n_pairs} labels agree with "
            f"the signal" + (f"; the next hypothesis ({runner.name}) {runner.agreement:.0%}"
                             if runner is not None else ""))
    return block



# ----------------------------------------------------------------------------------------
# normalisation
# ----------------------------------------------------------------------------------------

#: Thresholds of :func:`normalisation_verdict` (see ``docs/conventions.md`` for the corpora
#: they were chosen on and the figures measured on others).
NORMALISATION_RULE = {
    "band_hz": (200.0, 4000.0),
    "directness_min": 0.0,
    "smooth_frames": 5,
    "floor_db": -40.0,
    "min_bins": 200,
    "min_clips": 3,
    "log_tolerance": 0.15,
}


def normalisation_stats(samples: np.ndarray, sr: int, *,
                        band_hz: tuple[float, float] = NORMALISATION_RULE["band_hz"],
                        directness_min: float = NORMALISATION_RULE["directness_min"],
                        smooth_frames: int = NORMALISATION_RULE["smooth_frames"],
                        floor_db: float = NORMALISATION_RULE["floor_db"]) -> np.ndarray:
    """Omni and dipole power of a clip's loud, direct-path-dominated STFT bins.

    A bin counts when its omni power lies within ``floor_db`` of the clip's loudest bin,
    in ``band_hz``, and its directness
    ``||<I>|| / sqrt(<|W|^2> <|X|^2 + |Y|^2 + |Z|^2>)`` (``I = Re{conj(W) [X, Y, Z]}``,
    ``<.>`` a moving average over ``smooth_frames`` frames) is at least ``directness_min``.
    The floor keeps the bins where the sources' direct sound and first reflections dominate
    (the late tail and the noise floor lie below it; sensor noise, equal in every channel,
    would pull the ratio towards 3 in any normalisation).  Directness is 1 for one plane
    wave whatever the W and dipole gains, so it does not depend on the normalisation it
    measures; by default it selects nothing more, since a direct sound and its coherent
    early reflections in one bin are also directness 1 while their dipole sum is shorter
    than their omni sum, so raising it biases the ratio low (``docs/conventions.md``).

    Parameters
    ----------
    samples : ndarray [shape=(4, n)]
        W first, then the three dipoles in any order (ambiX or FuMa order), any
        normalisation.
    sr : int
    band_hz, directness_min, smooth_frames, floor_db
        See above (defaults: :data:`NORMALISATION_RULE`).

    Returns
    -------
    ndarray [shape=(3,)]
        ``[dipole power, omni power, bins used]`` summed over the selected bins.
    """
    from scipy.ndimage import uniform_filter1d
    from scipy.signal import stft

    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != 4:
        raise ParameterError(f"normalisation_stats needs samples of shape (4, n), got "
                             f"{x.shape}")
    nper = 1024 if sr >= 20000 else 512
    if x.shape[1] < nper:
        return np.zeros(3)
    f, _, z = stft(x, fs=sr, nperseg=nper, noverlap=nper // 2, boundary=None, padded=False)
    z = z[:, (f >= band_hz[0]) & (f <= band_hz[1]), :]
    pw = np.abs(z[0]) ** 2
    pd = (np.abs(z[1:]) ** 2).sum(axis=0)
    cross = np.real(np.conj(z[0])[None] * z[1:])
    k = max(1, int(smooth_frames))
    sw = uniform_filter1d(pw, k, axis=-1)
    sd = uniform_filter1d(pd, k, axis=-1)
    si = uniform_filter1d(cross, k, axis=-1)
    # the running means of non-negative powers can round a hair below zero
    den = np.sqrt(np.maximum(sw * sd, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        direct = np.where(den > 0, np.linalg.norm(si, axis=0) / den, 0.0)
    # the floor is on sqrt(|W|^2 |D|^2): a uniform gain on W or on the dipoles (what the
    # normalisations differ by) scales it uniformly, so it selects the same bins; and it
    # favours neither, whereas a floor on the omni alone keeps the bins where the direct
    # sound and its reflections add up on W, and biases the ratio low
    loud = np.sqrt(pw * pd)
    top = float(loud.max()) if loud.size else 0.0
    if top <= 0:
        return np.zeros(3)
    sel = (direct >= directness_min) & (loud >= top * 10.0 ** (floor_db / 10.0))
    return np.array([float(pd[sel].sum()), float(pw[sel].sum()), float(np.count_nonzero(sel))])


def normalisation_verdict(declared: str, stats: Iterable[Any], *,
                          min_bins: int = NORMALISATION_RULE["min_bins"],
                          min_clips: int = NORMALISATION_RULE["min_clips"],
                          log_tolerance: float = NORMALISATION_RULE["log_tolerance"]) -> dict:
    """The ``"normalisation"`` part of the convention block: which normalisation the signal
    supports, from the dipoles' power over the omni's on direct-path bins.

    For a plane wave that ratio is 1 in SN3D, 3 in N3D and 2 in FuMa
    (:data:`foakit.conventions.PLANE_WAVE_RATIO`).  Each clip with at least ``min_bins``
    selected bins gives its ratio as read (after the declared normalisation was converted to
    SN3D); their median times the declared normalisation's own ratio is the file's ratio.
    The verdict is the normalisation whose ratio is nearest, when the two are within
    ``log_tolerance`` in natural log (about +-13 %) and ``min_clips`` clips were measured;
    else ``"undecided"``, with the ratio.

    Parameters
    ----------
    declared : {"sn3d", "n3d", "fuma"}
        The normalisation the corpus was read as.
    stats : iterable of array-like [shape=(3,)] or None
        :func:`normalisation_stats` per clip (None for a clip not measured).

    Returns
    -------
    dict
        ``declared``, ``supported`` (a normalisation or ``"undecided"``), ``mismatch``
        (bool: a normalisation other than the declared one is supported),
        ``ratio_as_read``, ``ratio_file`` (median over clips; None when no clip was
        measured), ``ratio_file_pooled`` (all bins' powers summed), ``ratio_file_iqr``,
        ``n_clips``, ``n_bins``, ``expected`` (the plane-wave ratios), ``evidence``.
    """
    from ..conventions import PLANE_WAVE_RATIO, check_normalisation

    decl = check_normalisation(declared)
    k_decl = PLANE_WAVE_RATIO[decl]
    rows = [np.asarray(s, dtype=float) for s in stats if s is not None]
    rows = [r for r in rows if r.shape == (3,) and r[2] >= min_bins and r[1] > 0]
    block: dict[str, Any] = {"declared": decl, "supported": "undecided", "mismatch": False,
                             "ratio_as_read": None, "ratio_file": None,
                             "ratio_file_pooled": None, "ratio_file_iqr": None,
                             "n_clips": len(rows), "n_bins": int(sum(r[2] for r in rows)),
                             "expected": dict(PLANE_WAVE_RATIO),
                             "rule": {"min_bins": min_bins, "min_clips": min_clips,
                                      "log_tolerance": log_tolerance},
                             "evidence": ""}
    if not rows:
        block["evidence"] = (f"no clip had {min_bins} direct-path bins: the normalisation "
                             f"cannot be measured")
        return block
    read = np.array([r[0] / r[1] for r in rows])
    med = float(np.median(read))
    q1, q3 = np.percentile(read, [25, 75])
    pooled = float(sum(r[0] for r in rows) / sum(r[1] for r in rows))
    ratio = med * k_decl
    block.update(ratio_as_read=round(med, 4), ratio_file=round(ratio, 4),
                 ratio_file_pooled=round(pooled * k_decl, 4),
                 ratio_file_iqr=[round(float(q1) * k_decl, 4), round(float(q3) * k_decl, 4)])
    dist = {n: abs(np.log(ratio / k)) for n, k in PLANE_WAVE_RATIO.items()}
    near = min(dist, key=dist.get)
    if len(rows) < min_clips:
        why = f"only {len(rows)} clip(s) measured (at least {min_clips} needed)"
    elif dist[near] > log_tolerance:
        why = (f"{ratio:.2f} is not within {np.exp(log_tolerance) - 1:.0%} of 1 (SN3D), "
               f"2 (FuMa) or 3 (N3D)")
    else:
        why = ""
    head = (f"dipole / omni power on direct-path bins {ratio:.2f} in the files (median of "
            f"{len(rows)} clips; {med:.2f} as read with {decl})")
    if why:
        block["evidence"] = f"{head}: undecided, {why}"
        return block
    block["supported"] = near
    block["mismatch"] = near != decl
    block["evidence"] = (f"{head}: the signal supports {near}"
                         + (f", not the declared {decl}" if near != decl else
                            ", as declared"))
    return block
