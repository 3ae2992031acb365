"""Where the analysis loses each true event it misses (the reverberant sets of accuracy.py).

For every true event that no estimate detects (onset within 0.2 s), the stage at which it
was lost, judged by the cone axes that pass each step (an axis *holds* a source when it
comes within ``cone_deg`` of its direction while it plays):

* ``no axis: clip peak beyond the peak cap``: the clip histogram has a peak there, at
  least ``clip_peak_rel`` high, but ``max_sources`` stronger ones were taken first;
* ``no axis: clip peak below clip_peak_rel``;
* ``no axis: window peaks only``: no clip-histogram peak, but window peaks there while it
  plays; ``no axis: no peak``: not even those;
* ``dropped by moving_or_stationary``; ``dropped by echo_axes``;
* ``axis kept, no onset bins in its cone at its onset``: its cone's activity (without the
  onset tests) makes no event starting within 0.2 s of it from there, and in its first
  0.3 s no onset-bin energy within ``event_onset_db`` of the cone's loud level reaches the
  cone (the bins it takes over were already loud: a masked onset); with such onset bins,
  ``a segment from there already active`` (one began earlier and still runs) or ``the
  cone stays quiet``;
* ``axis kept, cut by the onset tests``: such an event exists before the onset support
  and the reflection collapse, not after;
* ``event removed as background``, ``event removed by weak_sources_dropped``;
* ``event present, matched elsewhere``: the one-to-one matching gave it to another source.

``--motion`` asks instead where the motion label of each *detected* moving source is lost
(its path *spanned* by a track or axis that comes within ``cone_deg`` of its start and of
its end azimuth while it plays, 0.5 s either side): right (from a moving axis, or from the
onset-bin or the per-frame DOA test of an event its cone called stationary), the wrong way,
or called stationary with ``no window-peak track spans its path`` (``link_tracks``), ``a
track spans its path, not a steady move`` (``moving_tracks``), ``its moving axis lost to a
constant axis`` (``moving_or_stationary``), ``its moving axis dropped by echo_axes``, or
``its moving axis kept, the event from another axis``; and which test called detected
stationary sources moving.

    python benchmarks/miss_stages.py [--clips 60] [--engine ism|pyroomacoustics] [--seed 0]
                                     [--rate 16000] [--duration 10] [--sources 1 3]
                                     [--rt60 0.2 0.8] [--fan 0.0] [--yaw] [--moving 0.0] [--list]
                                     [--oracle none|axes|keep|both]
                                     [--motion | --evidence] [--real-sources]

``--evidence`` adds, for the sources of clips with two or more, the onset evidence in the
mixture at each true onset (frames -1..+4): whether any bin of the band passes the
analysis' onset test, whether at least 5 non-diffuse ones do within ``cone_deg`` of the
source, and whether at least 5 bins within ``cone_deg`` rose 6 dB over their previous
``onset_frames`` frames; then whether the onset holds a top 5 % spectral-flux frame of the
4 s around it in three first-order beams: toward the source with nulls toward the other
true sources playing, the cardioid toward it, and W (:func:`beam_evidence`); each against
the same frames 0.5 s earlier, per group (detected, or the stage that lost it).

The steps are recorded by wrapping the functions ``foakit.analysis`` calls by name for the
duration of the run; the analysis itself is unchanged.  ``--oracle`` measures the ceiling of
fixes to the axes: with ``axes`` a constant axis at each true direction that no axis holds
joins the clip's axes (after them: the echo test sees it as the weakest), with ``keep``
``echo_axes`` keeps every axis that holds a true source, ``both`` does both; the misses
left are those the event stage loses even then.  ``--real-sources`` plays recorded source
signals in the same scenes (``accuracy.py``'s :class:`RealSources`).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import RealSources, render_clip  # noqa: E402

#: Onset tolerance of a detection (s), as foakit.evaluate.match_clip
ONSET_TOL_S = 0.2


@contextlib.contextmanager
def recording(trace: dict):
    """Wrap the steps ``foakit.analysis`` calls by name so that each clip's axes, kept
    axes and events land in ``trace`` (cleared by the caller per clip)."""
    import dataclasses

    import foakit.analysis as A
    from foakit.conventions import direction_to_vector
    from foakit.evaluate import _mid_azimuth
    from foakit.kernels.histogram import cell_centers
    from foakit.kernels.peaks import pick_peaks

    orig = {k: getattr(A, k) for k in ("clip_axes", "moving_or_stationary", "echo_axes",
                                       "events_from_cones", "assign_sources", "link_tracks",
                                       "label_frame_motion", "dirac_features")}

    def dirac_features(spec, n_smooth, lo, hi, onset_ratio, n_prev, onset_floor, intensity,
                       energy, psi, frame_psi, votes):
        orig["dirac_features"](spec, n_smooth, lo, hi, onset_ratio, n_prev, onset_floor,
                               intensity, energy, psi, frame_psi, votes)
        # views of the per-bin arrays the analysis votes with (fresh arrays per clip)
        trace["bins"] = {"intensity": intensity[:, :, lo:hi], "energy": energy[:, lo:hi],
                         "psi": psi[:, lo:hi], "votes": votes[:, lo:hi],
                         "spec": spec[:, :, lo:hi], "n_prev": int(n_prev)}

    def link_tracks(peaks, params):
        trace["tracks"] = orig["link_tracks"](peaks, params)
        return trace["tracks"]

    def label_frame_motion(events, frame_doa, **kw):
        before = [e.motion for e in events]
        # the onset-bin test alone on copies: the events it labels (it runs first)
        probe = [dataclasses.replace(e) for e in events]
        alone = dataclasses.replace(kw["params"], motion_frame_min_deg=0.0)
        orig["label_frame_motion"](probe, frame_doa, **{**kw, "params": alone})
        orig["label_frame_motion"](events, frame_doa, **kw)
        trace["onset_moved"] = {_key(e.onset_s, e.offset_s)
                                for e, m in zip(probe, before, strict=True) if e.motion != m}
        trace["frame_moved"] = {_key(e.onset_s, e.offset_s)
                                for e, m in zip(events, before, strict=True)
                                if e.motion != m} - trace["onset_moved"]

    def clip_axes(peaks, ch, cv, n_frames, wf, params, sh=None, sv=None, clip_psi=1.0):
        axes = orig["clip_axes"](peaks, ch, cv, n_frames, wf, params, sh, sv, clip_psi)
        if trace.get("oracle") in ("axes", "both"):
            extra = [np.broadcast_to(direction_to_vector(
                _mid_azimuth(t), t["elevation_deg"]).astype(np.float32), (n_frames, 3))
                for t in trace["truth"]
                if not _holds(axes, t, trace["frame_rate"], params.cone_deg)]
            if extra:
                axes = np.ascontiguousarray(np.concatenate([axes, np.stack(extra)]))
        deep = np.zeros((1, 16, 4), np.float32)  # more and lower peaks, for the split
        pick_peaks(A._blur(ch, params.clip_blur_cells)[None], cv[None],
                   cell_centers(params.az_bins, params.el_bins), 1e-3,
                   np.cos(np.deg2rad(params.peak_min_sep_deg)),
                   np.cos(np.deg2rad(params.peak_refine_deg)), deep)
        trace.update(axes=axes.copy(), window_peaks=peaks, window_frames=wf, deep=deep[0],
                     params=params)
        return axes

    def moving_or_stationary(cones, axes, params):
        keep = orig["moving_or_stationary"](cones, axes, params)
        trace["after_motion"] = axes[keep].copy()
        trace["motion_keep"] = keep.copy()
        return keep

    def echo_axes(onsets, share, **kw):
        keep = orig["echo_axes"](onsets, share, **kw)
        if trace.get("oracle") in ("keep", "both"):
            axes = trace.get("after_motion", trace["axes"])
            for k in range(len(keep)):
                keep[k] |= any(_holds(axes[k:k + 1], t, trace["frame_rate"],
                                      trace["params"].cone_deg) for t in trace["truth"])
        return keep

    def events_from_cones(cones, axes, active, frame_iv, **kw):
        trace["kept"] = axes.copy()
        trace["cones"], trace["active"], trace["power_scale"] = cones, active, kw["power_scale"]
        events = orig["events_from_cones"](cones, axes, active, frame_iv, **kw)
        trace["events"] = [dataclasses.replace(e) for e in events]
        trace["segments"] = orig["events_from_cones"](cones, axes, active, frame_iv,
                                                      **{**kw, "onset_support": False})
        return events

    def assign_sources(events, params):
        # first called on the events the background left, then again after weak sources
        # are dropped
        trace.setdefault("after_background", [dataclasses.replace(e) for e in events])
        return orig["assign_sources"](events, params)

    for k, f in (("clip_axes", clip_axes), ("moving_or_stationary", moving_or_stationary),
                 ("echo_axes", echo_axes), ("events_from_cones", events_from_cones),
                 ("assign_sources", assign_sources), ("link_tracks", link_tracks),
                 ("label_frame_motion", label_frame_motion), ("dirac_features", dirac_features)):
        setattr(A, k, f)
    try:
        yield
    finally:
        for k, f in orig.items():
            setattr(A, k, f)


def _distance(truth: dict, az: float, el: float) -> float:
    """Degrees from a true source (the nearest point of a moving one's path) to (az, el)."""
    from foakit.conventions import angular_distance, azimuth_difference

    end = truth.get("azimuth_end_deg")
    change = 0.0 if end is None else float(azimuth_difference(end, truth["azimuth_deg"]))
    fracs = [0.0] if end is None else np.linspace(0.0, 1.0, 11)
    return min(float(angular_distance(truth["azimuth_deg"] + change * f,
                                      truth["elevation_deg"], az, el)) for f in fracs)


def _holds(axes: np.ndarray, truth: dict, frame_rate: float, deg: float) -> bool:
    """Whether any axis comes within ``deg`` of the source while it plays."""
    from foakit.conventions import vector_to_direction

    a = int(truth["onset_s"] * frame_rate)
    b = max(a + 1, int(truth["offset_s"] * frame_rate))
    for k in range(axes.shape[0]):
        seg = axes[k, a:b]
        seg = seg[np.any(seg != 0, axis=-1)]
        if len(seg):
            az, el = vector_to_direction(seg[:: max(1, len(seg) // 20)].astype(np.float64))
            if any(_distance(truth, x, y) <= deg for x, y in zip(az, el, strict=True)):
                return True
    return False


def cone_onsets(trace: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept cones' smoothed level, loud level and onset-bin level (dB) as
    ``foakit.events.events_from_cones`` computes them."""
    from foakit.events import cone_level_db

    cones, ps = trace["cones"], trace["power_scale"]
    level, _, ref, _ = cone_level_db(cones, trace["kept"], trace["active"], power_scale=ps)
    onset = 10.0 * np.log10(np.maximum(cones[..., 4] * ps, 1e-20))
    return level, ref, onset


def _onset_bins(truth: dict, trace: dict, frame_rate: float) -> bool:
    """Whether a kept cone holding the source has onset-bin energy within ``event_onset_db``
    of its loud level in the first 0.3 s of the source (what the onset support asks)."""
    params = trace["params"]
    axes = trace["kept"]
    _, ref, onset = cone_onsets(trace)
    a = int(truth["onset_s"] * frame_rate)
    b = a + max(1, int(round(0.3 * frame_rate)))
    return any(_holds(axes[k:k + 1], truth, frame_rate, params.cone_deg)
               and onset[k, a:b].size and onset[k, a:b].max() >= ref[k] - params.event_onset_db
               for k in range(axes.shape[0]))


#: Frames around a true onset whose bins count as its onset evidence (from the frame before
#: it to four after: the onset test compares a frame with the ``onset_frames`` before it)
EVIDENCE_FRAMES = (-1, 5)
#: How far before the onset the same bins are counted again, as what chance gives
EVIDENCE_BEFORE_S = 0.5
#: A bin that gains this factor of energy over its previous frames' mean (6 dB; the onset
#: test asks ``onset_ratio``) rises
EVIDENCE_RISE = 4.0
#: Bins a source needs in its cone for its onset to count as evident
EVIDENCE_BINS = 5


def onset_evidence(truth: dict, bins: dict, frame_rate: float, params,
                   shift_s: float = 0.0) -> tuple[int, int, int] | None:
    """Per-bin evidence of a true onset (``shift_s`` later; None off the clip).

    Returns the onset bins (the analysis' own onset test) anywhere in the band, those
    within ``cone_deg`` of the source and no more diffuse than ``psi_max`` (what its cone
    is built from), and the bins within ``cone_deg`` whose energy rose by
    :data:`EVIDENCE_RISE` over their ``onset_frames`` previous frames, diffuse or not,
    summed over the frames :data:`EVIDENCE_FRAMES` around the onset.
    """
    from foakit.conventions import direction_to_vector

    energy = bins["energy"]
    n_frames = energy.shape[0]
    n_prev = bins["n_prev"]
    t0 = int(round((truth["onset_s"] + shift_s) * frame_rate))
    a, b = t0 + EVIDENCE_FRAMES[0], t0 + EVIDENCE_FRAMES[1]
    if a < n_prev or b > n_frames:
        return None
    v = np.asarray(direction_to_vector(truth["azimuth_deg"], truth["elevation_deg"]))
    iv = bins["intensity"][:, a:b].astype(np.float64)
    norm = np.linalg.norm(iv, axis=0)
    inside = np.einsum("i,itf->tf", v, iv) >= np.cos(np.deg2rad(params.cone_deg)) * norm
    inside &= norm > 0
    # the analysis' onset bins: a rising bin votes with its whole energy
    onset = (bins["votes"][a:b] >= energy[a:b]) & (energy[a:b] > 0)
    prev = np.mean([energy[a - j:b - j] for j in range(1, n_prev + 1)], axis=0)
    rising = energy[a:b] >= EVIDENCE_RISE * prev
    return (int(onset.sum()), int((onset & inside & (bins["psi"][a:b] <= params.psi_max)).sum()),
            int((rising & inside).sum()))


#: Half-length (s) of the stretch around a true onset whose beam-flux frames it is ranked in
BEAM_WINDOW_S = 2.0
#: An onset is marked by a beam when its frames hold one of this top share of the
#: stretch's beam-flux frames
BEAM_TOP = 0.05
#: Other sources playing this close (s) to a true onset get a null of the nulled beam
BEAM_NULL_S = 1.0
#: A null closer than this (degrees) to the look direction is left out (the constraints
#: would fight each other)
BEAM_NULL_MIN_DEG = 40.0


def _steering(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """A plane wave's gains on W, Y, Z, X (ACN / SN3D)."""
    from foakit.conventions import encode_plane_wave

    return encode_plane_wave(np.ones(1), azimuth_deg, elevation_deg)[:, 0]


def beam_weights(look: tuple[float, float], nulls: list[tuple[float, float]], *,
                 reg: float = 1e-3) -> np.ndarray:
    """Real weights over W, Y, Z, X of the least-norm first-order beam with gain 1 toward
    ``look`` and 0 toward each of ``nulls`` (azimuth, elevation in degrees; those within
    :data:`BEAM_NULL_MIN_DEG` of ``look`` left out, then the first three), ``reg`` loading the
    constraints' Gram matrix.  Without nulls it is the cardioid toward ``look``."""
    d = [_steering(*look)]
    for v in nulls:
        dv = _steering(*v)
        if len(d) < 4 and np.dot(d[0][1:], dv[1:]) < np.cos(np.deg2rad(BEAM_NULL_MIN_DEG)):
            d.append(dv)
    c = np.stack(d, axis=1)
    gains = np.zeros(c.shape[1])
    gains[0] = 1.0
    return c @ np.linalg.solve(c.T @ c + reg * np.eye(c.shape[1]), gains)


def _direction_at(truth: dict, t: float) -> tuple[float, float]:
    """A true source's direction at time ``t`` (a moving one along its path)."""
    from foakit.evaluate import azimuth_difference

    az = float(truth["azimuth_deg"])
    end = truth.get("azimuth_end_deg")
    if end is not None:
        dur = max(truth["offset_s"] - truth["onset_s"], 1e-6)
        share = min(max((t - truth["onset_s"]) / dur, 0.0), 1.0)
        az += float(azimuth_difference(end, az)) * share
    return az, float(truth["elevation_deg"])


def beam_flux(spec: np.ndarray, weights: np.ndarray, n_prev: int) -> np.ndarray:
    """Per frame, the share of the band's bins whose beam power rose by
    :data:`EVIDENCE_RISE` over its ``n_prev`` previous frames' mean (0 for the first
    ``n_prev`` frames); ``spec`` [shape=(4, n_frames, n_bins)]."""
    out = np.einsum("i,itf->tf", weights.astype(np.complex64), spec)
    power = out.real ** 2 + out.imag ** 2
    flux = np.zeros(power.shape[0])
    if power.shape[0] > n_prev:
        prev = np.mean([power[n_prev - j:power.shape[0] - j] for j in range(1, n_prev + 1)],
                       axis=0)
        rising = (power[n_prev:] >= EVIDENCE_RISE * prev) & (power[n_prev:] > 0)
        flux[n_prev:] = rising.mean(axis=1)
    return flux


def beam_evidence(truth: dict, others: list[dict], bins: dict, frame_rate: float,
                  shift_s: float = 0.0) -> tuple[int, int, int] | None:
    """Whether beams mark a true onset (``shift_s`` later; None off the clip): 1 where the
    frames :data:`EVIDENCE_FRAMES` around it hold one of the top :data:`BEAM_TOP` of the
    beam-flux frames within :data:`BEAM_WINDOW_S` of it.

    Three beams: toward the source with nulls toward the ``others`` playing within
    :data:`BEAM_NULL_S` of its true onset (their true directions ``shift_s`` later: an
    oracle of where the other sources are; the baseline keeps the same sources), the
    cardioid toward it, and W alone."""
    spec = bins["spec"]
    n_frames, n_prev = spec.shape[1], bins["n_prev"]
    t_on = truth["onset_s"] + shift_s
    t0 = int(round(t_on * frame_rate))
    a, b = t0 + EVIDENCE_FRAMES[0], t0 + EVIDENCE_FRAMES[1]
    if a < n_prev or b > n_frames:
        return None
    half = int(round(BEAM_WINDOW_S * frame_rate))
    lo, hi = max(n_prev, t0 - half), min(n_frames, t0 + half)
    look = _direction_at(truth, t_on)
    near = [_direction_at(o, t_on) for o in others
            if o["onset_s"] < truth["onset_s"] + BEAM_NULL_S
            and o["offset_s"] > truth["onset_s"] - BEAM_NULL_S]
    marks = []
    for w in (beam_weights(look, near), beam_weights(look, []), np.eye(4)[0]):
        flux = beam_flux(spec[:, lo - n_prev:hi], w, n_prev)[n_prev:]
        peak = flux[a - lo:b - lo].max()
        marks.append(int(np.mean(flux >= peak) <= BEAM_TOP))
    return tuple(marks)


def evidence_table(rows: dict[str, list]) -> list[str]:
    """Lines of the ``--evidence`` table from ``{group: [(at_onset, before), ...]}``, each
    an :func:`onset_evidence` tuple followed by a :func:`beam_evidence` one (or None)."""
    out = [f"  onset evidence at the true onsets in clips of two or more sources, frames "
           f"{EVIDENCE_FRAMES[0]:+d}..{EVIDENCE_FRAMES[1] - 1:+d} [the same bins "
           f"{EVIDENCE_BEFORE_S:g} s earlier]; share of sources with",
           f"  a: any onset bin in the band, b: >= {EVIDENCE_BINS} non-diffuse onset bins in "
           "their cone, "
           f"c: >= {EVIDENCE_BINS} bins in their cone rising "
           f"{10 * np.log10(EVIDENCE_RISE):.0f} dB;",
           f"  a top {BEAM_TOP:.0%} frame of bins rising {10 * np.log10(EVIDENCE_RISE):.0f} dB "
           f"within {BEAM_WINDOW_S:g} s, in a first-order beam toward them, d: with nulls "
           "toward the other true sources, e: without, f: in W",
           "     n  " + (" " * 12).join("abcdef")]

    def share(vals, i, least):
        vals = [v for v in vals if v is not None]
        return f"{np.mean([v[i] >= least for v in vals]):4.0%}" if vals else "   -"

    least = (1, EVIDENCE_BINS, EVIDENCE_BINS, 1, 1, 1)
    for group, pairs in sorted(rows.items(), key=lambda kv: (kv[0] != "detected", -len(kv[1]))):
        # sources whose onset frames leave the clip give no evidence and are not counted
        pairs = [p for p in pairs if p[0] is not None]
        now = [p[0] for p in pairs]
        before = [p[1] for p in pairs]
        cells = "  ".join(f"{share(now, i, m)} [{share(before, i, m)}]"
                          for i, m in enumerate(least))
        out.append(f"  {len(pairs):4d}  {cells}  {group}")
    return out


def _evidence_row(source: dict, truth: list[dict], bins: dict, frame_rate: float, params,
                  shift_s: float) -> tuple | None:
    """One source's :func:`onset_evidence` and :func:`beam_evidence` (None off the clip)."""
    bins_ = onset_evidence(source, bins, frame_rate, params, shift_s=shift_s)
    beams = beam_evidence(source, [t for t in truth if t is not source], bins, frame_rate,
                          shift_s=shift_s)
    return None if bins_ is None or beams is None else bins_ + beams


def _peaks_near(peaks: np.ndarray, truth: dict, deg: float) -> list[tuple[int, float]]:
    """(rank, height relative to the first) of the peaks within ``deg`` of the source."""
    from foakit.conventions import vector_to_direction

    out = []
    for r, p in enumerate(peaks):
        if p[3] <= 0:
            break
        az, el = vector_to_direction(p[None, :3].astype(np.float64))
        if _distance(truth, float(az[0]), float(el[0])) <= deg:
            out.append((r, float(p[3] / peaks[0, 3])))
    return out


def _starts(events, truth: dict, deg: float) -> bool:
    return any(abs(e.onset_s - truth["onset_s"]) <= ONSET_TOL_S
               and _distance(truth, e.azimuth_deg, e.elevation_deg) <= deg for e in events)


def stage(truth: dict, trace: dict, final_events, frame_rate: float) -> str:
    """The stage at which a missed true event was lost (see the module docstring)."""
    params = trace["params"]
    deg = params.cone_deg
    if not _holds(trace["axes"], truth, frame_rate, deg):
        near = _peaks_near(trace["deep"], truth, deg)
        if near:
            rank, rel = min(near)
            if rel >= params.clip_peak_rel and rank >= params.max_sources:
                return "no axis: clip peak beyond the peak cap"
            return "no axis: clip peak below clip_peak_rel"
        wp, wf = trace["window_peaks"], trace["window_frames"]
        w0 = int(truth["onset_s"] * frame_rate) // wf
        w1 = min(len(wp), int(truth["offset_s"] * frame_rate) // wf + 1)
        if any(_peaks_near(wp[w], truth, deg) for w in range(w0, w1)):
            return "no axis: window peaks only"
        return "no axis: no peak"
    if "after_motion" in trace and not _holds(trace["after_motion"], truth, frame_rate, deg):
        return "dropped by moving_or_stationary"
    if not _holds(trace["kept"], truth, frame_rate, deg):
        return "dropped by echo_axes"
    if not _starts(trace["segments"], truth, deg):
        t_on = truth["onset_s"]
        if not _onset_bins(truth, trace, frame_rate):
            return "axis kept, no onset bins in its cone at its onset"
        if any(e.onset_s < t_on - ONSET_TOL_S < t_on < e.offset_s
               and _distance(truth, e.azimuth_deg, e.elevation_deg) <= deg
               for e in trace["segments"]):
            return "axis kept, onset bins, but a segment from there already active"
        return "axis kept, onset bins, but the cone stays quiet"
    if not _starts(trace["events"], truth, deg):
        return "axis kept, cut by the onset tests"
    if not _starts(trace["after_background"], truth, deg):
        return "event removed as background"
    if not _starts(final_events, truth, deg):
        return "event removed by weak_sources_dropped"
    return "event present, matched elsewhere"


def _key(onset_s: float, offset_s: float) -> tuple[float, float]:
    """An event's span as its ``to_dict`` rounds it (the matching sees those values)."""
    return round(float(onset_s), 4), round(float(offset_s), 4)


def _spans(az, times, truth: dict, deg: float) -> bool:
    """Whether azimuths at ``times`` (s) come within ``deg`` of the source's start and of its
    end azimuth while it plays (0.5 s either side); the labels are azimuth motion."""
    from foakit.conventions import azimuth_difference

    end = truth.get("azimuth_end_deg")
    end = truth["azimuth_deg"] if end is None else end
    on = (times >= truth["onset_s"] - 0.5) & (times <= truth["offset_s"] + 0.5)
    az = np.asarray(az)[on]
    return bool(len(az) and np.min(np.abs(azimuth_difference(az, truth["azimuth_deg"]))) <= deg
                and np.min(np.abs(azimuth_difference(az, end))) <= deg)


def _moving_axes_spanning(axes: np.ndarray, truth: dict, frame_rate: float,
                          deg: float) -> list[int]:
    """Indices of the axes that change direction (moving tracks) and span the source."""
    from foakit.conventions import vector_to_direction

    out = []
    for k in range(axes.shape[0]):
        frames = np.flatnonzero(np.any(axes[k] != 0, axis=-1))
        if not len(frames) or np.all(axes[k, frames] == axes[k, frames[0]]):
            continue
        frames = frames[:: max(1, len(frames) // 40)]
        az, _ = vector_to_direction(axes[k, frames].astype(np.float64))
        if _spans(az, frames / frame_rate, truth, deg):
            out.append(k)
    return out


def motion_stage(truth: dict, estimate: dict, trace: dict, frame_rate: float) -> str:
    """Where the motion label of a detected moving source is lost, or which test got it
    right (see the module docstring)."""
    from foakit.conventions import vector_to_direction

    if estimate["motion"] == truth["motion"]:
        key = _key(estimate["onset_s"], estimate["offset_s"])
        if key in trace.get("onset_moved", ()):
            return "right, from the onset-bin test"
        if key in trace.get("frame_moved", ()):
            return "right, from the per-frame DOA test"
        return "right, from a moving axis"
    if estimate["motion"] != "stationary":
        return "the wrong way"
    deg = trace["params"].cone_deg
    wsec = trace["window_frames"] / frame_rate
    if not any(_spans(vector_to_direction(np.asarray(tr.vecs, dtype=np.float64))[0],
                      (np.asarray(tr.windows) + 0.5) * wsec, truth, deg)
               for tr in trace.get("tracks", [])):
        return "called stationary: no window-peak track spans its path"
    moving = _moving_axes_spanning(trace["axes"], truth, frame_rate, deg)
    if not moving:
        return "called stationary: a track spans its path, not a steady move"
    keep = trace.get("motion_keep")
    if keep is not None and not keep[moving].any():
        return "called stationary: its moving axis lost to a constant axis"
    if not _moving_axes_spanning(trace["kept"], truth, frame_rate, deg):
        return "called stationary: its moving axis dropped by echo_axes"
    return "called stationary: its moving axis kept, the event from another axis"


def moved_by(estimate: dict, trace: dict) -> str:
    """Which test called a (stationary) source's event moving."""
    key = _key(estimate["onset_s"], estimate["offset_s"])
    if key in trace.get("onset_moved", ()):
        return "stationary called moving by the onset-bin test"
    if key in trace.get("frame_moved", ()):
        return "stationary called moving by the per-frame DOA test"
    return "stationary called moving by a moving axis"


def _motion_row(m, trace: dict, frame_rate: float) -> str | None:
    """``--motion``'s stage of a matched true event, or None when it has none (missed, or
    a stationary source labelled stationary)."""
    if not m.detected:
        return None
    if m.truth["motion"] != "stationary":
        return motion_stage(m.truth, m.estimate, trace, frame_rate)
    return None if m.estimate["motion"] == "stationary" else moved_by(m.estimate, trace)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=60)
    ap.add_argument("--engine", default="ism")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rate", type=int, default=16000, help="sample rate (Hz)")
    ap.add_argument("--duration", type=float, default=10.0, help="clip length (s)")
    ap.add_argument("--sources", type=int, nargs=2, default=(1, 3), metavar=("LO", "HI"))
    ap.add_argument("--rt60", type=float, nargs=2, default=(0.2, 0.8), metavar=("LO", "HI"))
    ap.add_argument("--fan", type=float, default=0.0,
                    help="share of clips with a steady directional interferer (a fan)")
    ap.add_argument("--yaw", action="store_true", help="the microphone at a random yaw")
    ap.add_argument("--moving", type=float, default=0.0,
                    help="share of the sources that move (as accuracy.py --moving)")
    ap.add_argument("--skip-anechoic", action="store_true",
                    help="accepted so accuracy.py's command lines run as they are (this "
                         "script has no anechoic part)")
    ap.add_argument("--list", action="store_true",
                    help="one line per missed event (with --motion: per stage counted)")
    ap.add_argument("--oracle", choices=("none", "axes", "keep", "both"), default="none",
                    help="the ceiling of axis fixes: a constant axis at each true direction "
                         "no axis holds (axes), echo_axes keeping every axis that holds a "
                         "true source (keep), or both")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--motion", action="store_true",
                    help="where the motion labels of detected moving sources are lost "
                         "(use with --moving), instead of the missed events")
    mode.add_argument("--evidence", action="store_true",
                    help="also the per-bin onset evidence at the true onsets of detected and "
                         "missed sources of clips with two or more sources, against the same "
                         "bins 0.5 s earlier")
    ap.add_argument("--real-sources", action="store_true",
                    help="recorded source signals, as accuracy.py --real-sources")
    ap.add_argument("--cache", default=None,
                    help="where the recordings are kept (default: real_recordings.py's)")
    args = ap.parse_args(argv)
    from foakit.analysis import analyze_samples
    from foakit.evaluate import match_clip
    from foakit.params import AnalysisParams
    from foakit.synth import direct_snr_db
    from foakit.synth.render import yawed_truth

    t0 = time.perf_counter()
    stages: collections.Counter = collections.Counter()
    evidence: dict[str, list] = collections.defaultdict(list)
    n_true = n_detected = n_moving = 0
    counts = []
    params = AnalysisParams()
    trace: dict = {}
    real = RealSources(args.cache) if args.real_sources else None
    with recording(trace):
        for i in range(args.clips):
            scene, _, mic_yaw, x, signals = render_clip(
                i, args.seed, args.engine, tuple(args.rt60), rate=args.rate,
                duration=args.duration, sources=tuple(args.sources), fan=args.fan,
                yaw=args.yaw, moving=args.moving, real=real)
            truth = [yawed_truth(s.to_dict(), mic_yaw) for s in scene.sources]
            trace.clear()
            trace.update(truth=truth, oracle=args.oracle,
                         frame_rate=params.grid(scene.sample_rate).frame_rate)
            res = analyze_samples(x, scene.sample_rate, params=params)
            snr = direct_snr_db(scene, signals=signals)
            n_true += len(truth)
            matches = match_clip(str(i), truth, [e.to_dict() for e in res.events])
            counts.append((len(truth), res.n_sources))
            for k, m in enumerate(matches):
                n_detected += m.detected
                if args.motion:
                    st = _motion_row(m, trace, res.grid.frame_rate)
                    if st is None:
                        continue
                    n_moving += m.truth["motion"] != "stationary"
                else:
                    st = None if m.detected else stage(m.truth, trace, res.events,
                                                       res.grid.frame_rate)
                    if args.evidence and len(truth) > 1:
                        evidence[f"missed: {st}" if st else "detected"].append(tuple(
                            _evidence_row(m.truth, truth, trace["bins"],
                                          res.grid.frame_rate, params, sh)
                            for sh in (0.0, -EVIDENCE_BEFORE_S)))
                    if st is None:
                        continue
                stages[st] += 1
                if args.list:
                    t = m.truth
                    print(f"  clip {i:3d} source {k}: onset {t['onset_s']:.2f} s, "
                          f"az {t['azimuth_deg']:7.1f}, el {t['elevation_deg']:6.1f}, "
                          f"direct SNR {snr[k]:5.1f} dB, {len(truth)} sources: {st}")
    exact = sum(1 for t, e in counts if e == t)
    oracle = "" if args.oracle == "none" else f" (oracle: {args.oracle})"
    oracle += ", recorded source signals" if real else ""
    print(f"{args.engine} seed {args.seed}, {args.clips} clips{oracle}: detected "
          f"{n_detected} of {n_true} true events ({n_detected / n_true:.1%}), exact count "
          f"{exact / len(counts):.1%}; {time.perf_counter() - t0:.0f} s")
    if args.motion:
        print(f"  {n_moving} detected moving sources' labels; detected stationary sources "
              "called moving:")
    else:
        print(f"  {sum(stages.values())} missed:")
    for st, n in stages.most_common():
        print(f"  {n:4d}  {st}")
    if args.evidence:
        print("\n".join(evidence_table(evidence)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
