"""Direction verdicts of the SO-Bench audit, and the signal helpers they share.

A direction label (azimuth or elevation) is checked against the directions other items of
the clip give its class, then scored by its prominence in the class's time window of the
clip's :class:`~foakit.audit.doamap.DoaMap` (see :mod:`foakit.audit.sobench`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...audit.estimates import ClipEstimate, DoaEstimate, directional_blocks, mean_diffuseness
from ...audit.onsets import elevation_votes, new_onset_direction, onset_side
from ...audit.verdicts import LabelVerdict, flip_confidence, weak_support_confidence
from ...conventions import azimuth_difference
from ..questions import Cues
from .audit_claims import ClipClaims, DirClaim, question_start
from .audit_config import SobenchAuditConfig
from .audit_support import _another_analysed_sound, _unsupported_azimuth
from .format import QAItem

# ----------------------------------------------------------------------------------------
# signal side
# ----------------------------------------------------------------------------------------

def _active_windows(clip: ClipEstimate, dmap, win_s: float = 1.0) -> list[tuple[float, float]]:
    """Stretches of ``win_s`` (hop ``win_s / 2``) that are mostly active."""
    dur = clip.duration_s or dmap.n_blocks * dmap.block_s
    act = np.asarray(clip.frames.get("active", []), bool)
    t = np.asarray(clip.frames.get("time_s", []))
    out = []
    a = 0.0
    while a < max(dur - win_s, 0.0) + 1e-9:
        sel = (t >= a) & (t < a + win_s)
        if not len(act) or (sel.any() and act[sel].mean() >= 0.5):
            out.append((a, a + win_s))
        a += win_s / 2
    return out or [(0.0, dur)]


def _prominence(dmap, az, el, window, tol, clip, *, whole_clip: bool) -> tuple[float, tuple]:
    """Prominence of a direction in a window, or its best 1 s stretch of active audio."""
    if not whole_clip:
        return dmap.prominence(az, el, window[0], window[1], tol), window
    best, where = float("nan"), window
    for w in _active_windows(clip, dmap):
        p = dmap.prominence(az, el, w[0], w[1], tol)
        if np.isfinite(p) and not (p <= best):
            best, where = p, w
    return best, where


def _psi(clip: ClipEstimate, a: float, b: float) -> float:
    psi = mean_diffuseness(clip, a, b)
    return float("nan") if psi is None else psi


# ----------------------------------------------------------------------------------------
# verdicts
# ----------------------------------------------------------------------------------------

@dataclass
class _Ctx:
    cc: ClipClaims
    clip: ClipEstimate | None
    doa: DoaEstimate | None
    cfg: SobenchAuditConfig
    verdict: dict[str, LabelVerdict] = field(default_factory=dict)
    draw: dict[str, dict] = field(default_factory=dict)
    prom_used: dict[str, dict] = field(default_factory=dict)


def _key(cc: ClipClaims, it: QAItem) -> dict:
    return {"qa_id": it.qa_id, "audio_id": cc.audio_id, "task_name": it.task_name}


def _windows(cc: ClipClaims, cls: str, cfg: SobenchAuditConfig, exclude: str | None = None
             ) -> list[tuple[float, float, str]]:
    out = []
    for t in cc.times:
        # an item's own label is not its evidence; what its question says is
        if t.cls != cls or (t.qa_id == exclude and t.source == "label"):
            continue
        if t.kind == "onset":
            out.append((t.a, t.a + cfg.onset_window_s, t.qa_id))
        else:
            out.append((t.a, t.b, t.qa_id))
    return out


def _az_agrees(a: float, claim: DirClaim) -> bool:
    return abs(float(azimuth_difference(a, claim.az))) <= claim.az_tol


def _signal_direction(x: _Ctx, cls: str, az: float | None, el: float | None, mode: str,
                      exclude: str) -> dict:
    """Prominence of a direction for a class, in its corpus windows or the whole clip."""
    cfg, doa = x.cfg, x.doa
    dmap = doa.dmap
    tol = {"az": cfg.az_tol_deg, "el": cfg.el_tol_deg, "dir": cfg.dir_tol_deg}[mode]
    qaz = None if mode == "el" else az
    qel = None if mode == "az" else el
    wins = _windows(x.cc, cls, cfg, exclude=exclude)
    dur = x.clip.duration_s
    if wins:
        scored = []
        for a, b, qid in wins:
            a, b = max(0.0, a), min(dur, b)
            if b - a < 0.2:
                continue
            p, _ = _prominence(dmap, qaz, qel, (a, b), tol, x.clip, whole_clip=False)
            sig = {"prominence": p if np.isfinite(p) else float("nan"), "window": (a, b),
                   "window_from": qid, "votes": directional_blocks(dmap, a, b),
                   "psi": _psi(x.clip, a, b)}
            # a usable window beats an unusable one (a wrong time label may point at silence)
            scored.append((_unusable(sig, cfg) is None, p if np.isfinite(p) else -1.0, sig))
        if scored:
            return max(scored, key=lambda s: (s[0], s[1]))[2]
    p, w = _prominence(dmap, qaz, qel, (0.0, dur), tol, x.clip, whole_clip=True)
    return {"prominence": p, "window": w, "window_from": "best 1 s of the clip",
            "votes": directional_blocks(dmap, *w), "psi": _psi(x.clip, *w)}


def _unusable(sig: dict, cfg: SobenchAuditConfig) -> str | None:
    if not np.isfinite(sig.get("prominence", np.nan)) or sig["votes"] < cfg.min_votes_blocks:
        return "no directional energy in the source's time window (silence or a diffuse field)"
    if np.isfinite(sig.get("psi", np.nan)) and sig["psi"] >= cfg.diffuse_psi:
        return f"diffuse field in the source's time window (diffuseness {sig['psi']:.2f})"
    return None


def _audit_direction(x: _Ctx, it: QAItem, claim: DirClaim, fld: str) -> LabelVerdict:
    cfg, cc = x.cfg, x.cc
    cls = claim.cls
    label = claim.az if fld == "azimuth" else claim.el
    key = _key(cc, it)
    ev: dict[str, Any] = {}
    # the analysis's reading of which sound this very item's order word names is context too
    others = [d for d in cc.dirs if d.cls == cls and (d.qa_id != it.qa_id or d.by_rank)]
    # an elevation item's own question may say where its sound is ("how high is the sound at
    # -174 degrees?"): that azimuth is where to read the elevation, though not context
    own_az = [d for d in cc.dirs if d.cls == cls and d.qa_id == it.qa_id and not d.by_rank
              and d.az is not None and d.source != "label"] if fld == "elevation" else []
    placed = own_az + others  # where the item's sound may be read (not all of it context)
    if fld == "azimuth":
        ctx = [d for d in others if d.az is not None]
        agree = [d for d in ctx if _az_agrees(label, d)]
    else:
        ctx = [d for d in others if d.el is not None and d.source != "label"]
        agree = [d for d in ctx if abs(label - d.el) <= cfg.elevation_ctx_tol_deg]
    conflict = [d for d in ctx if d not in agree]
    ev["context"] = [{"qa_id": d.qa_id, "from": d.source, "azimuth_deg": d.az,
                      "elevation_deg": d.el, "agrees": d in agree} for d in ctx]
    if cls in cc.moving:
        return LabelVerdict(key, fld, "unverifiable", label,
                            reason="a motion answer says this source moves", evidence=ev)
    sig = None
    if x.doa is not None and x.doa.dmap is not None:
        if fld == "azimuth":
            sig = _signal_direction(x, cls, label, None, "az", it.qa_id)
        else:
            az_src = own_az + [d for d in others if d.az is not None and d.source != "label"]
            az_lab = [d for d in others if d.az is not None and d.source == "label"
                      and x.verdict.get(d.qa_id) is not None
                      and x.verdict[d.qa_id].verdict == "consistent"]
            az_known = (az_src or az_lab or [None])[0]
            if az_known is not None:
                sig = _signal_direction(x, cls, az_known.az, label, "dir", it.qa_id)
                sig["azimuth_from"] = az_known.qa_id
            else:
                sig = _signal_direction(x, cls, None, label, "el", it.qa_id)
        ev["signal"] = dict(sig)
        x.draw[it.qa_id] = {"window": sig["window"]}
    cues = x.cc.cues_of(it)
    start_dir = _start_onsets(x, cls, it, cues) if fld == "azimuth" and sig is not None \
        else None
    # new onsets at the question's start time from the analysed event's direction, far from
    # the label, back the analysis's reading
    backed = start_dir is not None and abs(float(azimuth_difference(
        label, start_dir["azimuth_deg"]))) >= cfg.onset_azimuth_gap_deg and any(
        _az_agrees(start_dir["azimuth_deg"], d) for d in conflict)
    other_sound = _another_analysed_sound(x.doa, cfg, label, conflict) \
        if fld == "azimuth" and conflict and not agree else None
    if other_sound is not None:
        ev["other_sound"] = other_sound
    if conflict and not agree and all(d.source.startswith("the analysed") for d in conflict) \
            and not backed and other_sound is None \
            and (sig is None or _unusable(sig, cfg) is not None
                 or sig["prominence"] > cfg.doubt_prom):
        # the analysis's own reading of which sound is meant contradicts only where the
        # signal shows little of the label's direction too
        ev["note"] = "the analysed events place the source elsewhere, but the signal does " \
                     "not rule the label out"
        conflict = []
    if conflict and not agree:
        d = conflict[0]
        other = d.az if fld == "azimuth" else d.el
        conf = 0.7
        note = ""
        if sig is not None and _unusable(sig, cfg) is None:
            if fld == "azimuth":
                alt = _signal_direction(x, cls, other, None, "az", it.qa_id)
            elif sig.get("azimuth_from"):
                az0 = next(o.az for o in others if o.qa_id == sig["azimuth_from"])
                alt = _signal_direction(x, cls, az0, other, "dir", it.qa_id)
            else:
                alt = _signal_direction(x, cls, None, other, "el", it.qa_id)
            diff = alt["prominence"] - sig["prominence"]
            conf = float(np.clip(0.7 + 0.5 * diff, 0.35, 0.97))
            note = (f"; the signal shows {other:.0f} with prominence {alt['prominence']:.2f} "
                    f"and the label {sig['prominence']:.2f}")
        if other_sound is not None:
            note += (f"; the label is nearer the analysed sound from "
                     f"{other_sound['azimuth_deg']:.0f} deg, which starts at "
                     f"{other_sound['onset_s']:.1f} s, not {other_sound['claimed_onset_s']:.1f} s")
        gap = abs(float(azimuth_difference(label, other))) if fld == "azimuth" else \
            abs(label - other)
        return LabelVerdict(key, fld, "suspicious", label, other, conf,
                            f"{d.origin} ({d.qa_id}) places the {cls} at {other:.0f} deg, "
                            f"{gap:.0f} deg from the label{note}", ev)
    if agree:
        return LabelVerdict(key, fld, "consistent", label, evidence=ev)
    if sig is None:
        return LabelVerdict(key, fld, "unverifiable", label, reason="audio not analysed",
                            evidence=ev)
    why = _unusable(sig, cfg)
    if why:
        if start_dir is not None:
            fb = _onset_azimuth_verdict(key, label, start_dir, cfg, ev, why)
            if fb is not None:
                return fb
        if fld == "elevation":
            fb = _elevation_from_onsets(x, key, cls, label,
                                        _known_azimuth(placed, sig), sig, ev, why)
            if fb is not None:
                return fb
        if fld == "azimuth" and sig["window_from"] == "best 1 s of the clip":
            # the map's best second is diffuse, but the events and onsets still say where
            # the clip's sounds come from
            fb = _unsupported_azimuth(x.doa, cfg, key, label, None, cues, ev)
            if fb is not None:
                return fb
        return LabelVerdict(key, fld, "unverifiable", label, reason=why, evidence=ev)
    p = sig["prominence"]
    w = sig["window"]
    mode = "az" if fld == "azimuth" else ("dir" if sig.get("azimuth_from") else "el")
    tol = {"az": cfg.az_tol_deg, "el": cfg.el_tol_deg, "dir": cfg.dir_tol_deg}[mode]
    s_az, s_el, s_share = x.doa.dmap.strongest(w[0], w[1], tol, mode=mode)
    estimate = s_az if fld == "azimuth" else s_el
    reverberant = fld == "elevation" and np.isfinite(sig.get("psi", np.nan)) and \
        sig["psi"] > cfg.elevation_max_psi
    onset_side, vote = None, None
    az_q = _known_azimuth(placed, sig)
    if fld == "elevation" and az_q is None and sig["window_from"] == "best 1 s of the clip":
        fb = _elevation_nowhere(x, key, label, ev)
        if fb is not None:
            return fb
    if fld == "elevation" and abs(label) >= cfg.flip_min_abs_deg:
        vote = _onset_vote(x, cls, label, az_q, it.qa_id)
        if vote is not None:
            ev["onset_vote"] = vote
            onset_side = _onset_side(vote, cfg)
        if onset_side == "flipped":
            return _onset_flip_verdict(key, label, vote, cfg, ev)
    if reverberant:
        ev["note"] = (f"reverberant window (diffuseness {sig['psi']:.2f}): the DOA map's "
                      "elevation is not trusted to contradict a label")
        if fld == "elevation" and abs(label) >= cfg.flip_min_abs_deg and onset_side is None:
            # without a known azimuth, the event that starts with the class's windows
            # (the onset vote's) is the one to read
            az_e = az_q
            if az_e is None and vote is not None and vote.get("azimuth_from") == "event":
                az_e = vote["azimuth_deg"]
            flip = _event_elevation_flip(x, label, w, az_e)
            if flip is not None:
                return _event_flip_verdict(key, label, flip, cfg, ev)
    if (fld == "elevation" and abs(label) >= cfg.flip_min_abs_deg and not reverberant
            and onset_side is None):
        # the usual elevation error is its sign: compare with the mirrored elevation
        p_flip = x.doa.dmap.prominence(az_q, -label, w[0], w[1], tol)
        ev["signal"]["prominence_flipped"] = p_flip
        if np.isfinite(p_flip) and p_flip - p >= cfg.flip_gain:
            conf = flip_confidence(p_flip - p)
            return LabelVerdict(key, fld, "suspicious", label, -label, conf,
                                f"the signal shows the source at the opposite elevation in "
                                f"{w[0]:.1f}-{w[1]:.1f} s: prominence {p_flip:.2f} at "
                                f"{-label:.0f} deg against {p:.2f} at the label", ev)
    if reverberant and vote is not None and vote["flipped"] > vote["label"]:
        # the map's elevation is no more trusted to confirm than to contradict here
        return LabelVerdict(key, fld, "unverifiable", label, estimate,
                            reason=f"reverberant window (diffuseness {sig['psi']:.2f}) and "
                                   f"the onsets lean to the mirrored elevation "
                                   f"({vote['flipped']} against {vote['label']})", evidence=ev)
    if fld == "azimuth" and sig["window_from"] == "best 1 s of the clip":
        fb = _unsupported_azimuth(x.doa, cfg, key, label, (estimate, p), cues, ev)
        if fb is not None:
            return fb
    if start_dir is not None and _names_an_earlier_sound(label, start_dir, cfg):
        # the map holds the label's direction because another sound plays there already
        fb = _onset_azimuth_verdict(key, label, start_dir, cfg, ev,
                                    "the label's direction has onsets before that: a sound "
                                    "already playing")
        if fb is not None:
            return fb
    if p >= cfg.agree_prom:
        return LabelVerdict(key, fld, "consistent", label, estimate, evidence=ev)
    if start_dir is not None:
        fb = _onset_azimuth_verdict(key, label, start_dir, cfg, ev, f"prominence {p:.2f}")
        if fb is not None:
            return fb
    doubt = cfg.doubt_prom if fld == "azimuth" else cfg.doubt_prom_elevation
    if p <= doubt and not reverberant and not (fld == "elevation" and onset_side == "label"):
        timed = sig["window_from"] != "best 1 s of the clip"
        conf = weak_support_confidence(p, doubt, base=0.35, floor=0.0, corroborated=timed)
        where = (f"in {w[0]:.1f}-{w[1]:.1f} s (from {sig['window_from']})" if timed
                 else "anywhere in the clip")
        return LabelVerdict(key, fld, "suspicious", label, estimate, conf,
                            f"the signal shows little energy from the labelled {fld} {where}: "
                            f"prominence {p:.2f}; the strongest direction there is {estimate:.0f}"
                            " deg", ev)
    why = f"weak evidence: prominence {p:.2f} (overlapping sources or reverberation)"
    if fld == "elevation" and vote is None:
        fb = _elevation_from_onsets(x, key, cls, label, az_q, sig, ev, why)
        if fb is not None:
            return fb
    return LabelVerdict(key, fld, "unverifiable", label, estimate, reason=why, evidence=ev)


def _known_azimuth(others: list[DirClaim], sig: dict | None) -> float | None:
    """The azimuth an elevation check followed (``sig["azimuth_from"]``), if any."""
    src = (sig or {}).get("azimuth_from")
    return next((o.az for o in others if o.qa_id == src), None) if src else None


def _onset_flip_verdict(key: dict, label: float, vote: dict, cfg: SobenchAuditConfig,
                        ev: dict, why: str = "") -> LabelVerdict:
    """Suspicious: the source's onsets come from the mirrored elevation."""
    lead = f"{why}; but " if why else ""
    return LabelVerdict(
        key, "elevation", "suspicious", label, -label, cfg.onset_flip_conf,
        f"{lead}{vote['flipped']} onset(s) of the source's sound come from {-label:.0f} deg "
        f"elevation and {vote['label']} from the label's {label:.0f} deg: the first "
        "milliseconds of an onset precede its floor and ceiling reflections, so the "
        "label's sign looks flipped", ev)


def _event_flip_verdict(key: dict, label: float, flip: dict, cfg: SobenchAuditConfig,
                        ev: dict, why: str = "") -> LabelVerdict:
    """Suspicious: the analysis's own event for the source sits at the mirrored elevation."""
    ev.setdefault("signal", {})["event"] = flip
    lead = f"{why}; " if why else ""
    return LabelVerdict(
        key, "elevation", "suspicious", label, flip["elevation_deg"], cfg.event_flip_conf,
        f"{lead}the analysis finds the source's event ({flip['onset_s']:.1f}-"
        f"{flip['offset_s']:.1f} s, from onset-weighted votes, which hold up in "
        f"reverberation) at {flip['elevation_deg']:.0f} deg elevation: the "
        f"label's sign flipped ({label:.0f} deg)", ev)


def _elevation_from_onsets(x: _Ctx, key: dict, cls: str, label: float, az_q: float | None,
                           sig: dict, ev: dict, why: str) -> LabelVerdict | None:
    """An elevation label whose direction window is weak or unusable, judged by the
    evidence that holds up there: the elevation the source's onsets come from (the first
    milliseconds precede the floor and ceiling reflections) and the analysis's own event
    (at the azimuth ``az_q`` the check followed, when known).

    Suspicious when the onsets or the event sit at the mirrored elevation, consistent when
    the onsets side with the label's sign; None when neither decides.
    """
    cfg = x.cfg
    if abs(label) < cfg.flip_min_abs_deg:
        return None
    vote = _onset_vote(x, cls, label, az_q, key["qa_id"])
    side = None
    if vote is not None:
        ev["onset_vote"] = vote
        side = _onset_side(vote, cfg)
    if side == "flipped":
        return _onset_flip_verdict(key, label, vote, cfg, ev, why)
    if side == "label":
        ev["note"] = f"{why}; the onsets side with the label's sign"
        return LabelVerdict(key, "elevation", "consistent", label, evidence=ev)
    w = sig.get("window") or (0.0, float(x.clip.duration_s or 0.0))
    flip = _event_elevation_flip(x, label, w, az_q)
    if flip is not None:
        return _event_flip_verdict(key, label, flip, cfg, ev, why)
    return None


def _onset_vote(x: _Ctx, cls: str, label: float, azimuth: float | None, exclude: str
                ) -> dict | None:
    """:func:`~foakit.audit.onsets.elevation_votes` of the class's onsets in its corpus
    time windows (or over the whole clip when none), at its azimuth.

    Without a known azimuth, the azimuth of the analysed event that starts with the
    class's windows (within ``onset_event_s``) is used when all such events agree; else
    None: another source's onsets would vote too.
    """
    cfg = x.cfg
    if x.doa is None or x.doa.onsets is None or x.clip is None:
        return None
    wins = [(a, b) for a, b, _ in _windows(x.cc, cls, cfg, exclude=exclude)]
    how = "label"
    if azimuth is None:
        starts = [e for e in x.doa.events if e.get("azimuth_deg") is not None
                  and any(abs(e["onset_s"] - a) <= cfg.onset_event_s for a, _ in wins)]
        if not starts:
            return None
        az0 = float(starts[0]["azimuth_deg"])
        if any(abs(float(azimuth_difference(e["azimuth_deg"], az0))) > cfg.onset_az_tol_deg
               for e in starts):
            return None
        azimuth, how = az0, "event"
    if not wins:
        wins = [(0.0, float(x.clip.duration_s or 1e9))]
    vote = elevation_votes(x.doa.onsets, label, wins, azimuth,
                           az_tol_deg=cfg.onset_az_tol_deg, el_tol_deg=cfg.onset_el_tol_deg)
    if vote is not None:
        vote["azimuth_from"] = how
        # another class said to be at the flipped elevation (and, when known, at this
        # azimuth) would explain the flipped onsets: its onsets vote too
        # (a class with only an azimuth near this one, or only an elevation near the
        # flipped one, may be there too: two sources 10 deg apart in azimuth at opposite
        # elevations made a false flag on the anechoic seed-0 corpus)
        for other in sorted({d.cls for d in x.cc.dirs} - {cls}):
            az_of = [o.az for o in x.cc.dirs if o.cls == other and o.az is not None]
            el_of = [o.el for o in x.cc.dirs if o.cls == other and o.el is not None]
            if not az_of and not el_of:
                continue
            near_az = not az_of or any(
                abs(float(azimuth_difference(a, azimuth))) <= cfg.onset_az_tol_deg
                for a in az_of)
            near_el = not el_of or any(abs(e + label) <= cfg.onset_el_tol_deg for e in el_of)
            if near_az and near_el:
                vote["other_class_there"] = other
                break
    return vote


def _new_onsets_at(x: _Ctx, t0: float) -> dict | None:
    """:func:`~foakit.audit.onsets.new_onset_direction` of the clip at ``t0`` with the
    audit's onset settings (None without onsets)."""
    cfg = x.cfg
    if x.doa is None or x.doa.onsets is None:
        return None
    return new_onset_direction(x.doa.onsets, t0, lead_s=cfg.onset_start_lead_s,
                               look_s=cfg.onset_start_look_s, history_s=cfg.onset_history_s,
                               az_tol_deg=cfg.onset_az_tol_deg)


def _start_onsets(x: _Ctx, cls: str, it: QAItem, cues: Cues) -> dict | None:
    """:func:`~foakit.audit.onsets.new_onset_direction` at the start times questions give
    the class and the item's own question gives its sound (never a label's: a shifted onset
    label would point at another sound), when every such start gives one and they agree;
    else None."""
    cfg = x.cfg
    if x.doa is None or x.doa.onsets is None:
        return None
    starts = {round(t.a, 3) for t in x.cc.times
              if t.cls == cls and t.kind == "onset" and t.source != "label"}
    own = question_start(it.question, cues)
    if own is not None:
        starts.add(round(own, 3))
    starts = sorted(starts)
    found = [_new_onsets_at(x, t0) for t0 in starts]
    if not found or any(f is None for f in found):
        return None
    if any(abs(float(azimuth_difference(f["azimuth_deg"], found[0]["azimuth_deg"])))
           > cfg.onset_az_tol_deg for f in found):
        return None
    return dict(found[0], start_s=starts[0])


def _names_an_earlier_sound(label: float, got: dict, cfg: SobenchAuditConfig) -> bool:
    """The label is far from the onsets new at the start time and ``onset_min_votes`` or more
    onsets of the moments before come from it."""
    if abs(float(azimuth_difference(label, got["azimuth_deg"]))) < cfg.onset_azimuth_gap_deg:
        return False
    before = np.asarray(got.get("before") or [], dtype=float)
    return int(np.sum(np.abs(azimuth_difference(before, label))
                      <= cfg.onset_az_tol_deg)) >= cfg.onset_min_votes


def _onset_azimuth_verdict(key: dict, label: float, got: dict, cfg: SobenchAuditConfig,
                           ev: dict, why: str) -> LabelVerdict | None:
    """The azimuth verdict the new onsets at a question's start time give where the
    direction map does not decide (``why``); None when they are neither near the label nor
    far from it."""
    gap = abs(float(azimuth_difference(label, got["azimuth_deg"])))
    ev["start_onsets"] = got
    if gap <= cfg.az_tol_deg:
        ev["note"] = f"{why}; the onsets new at {got['start_s']:g} s come from the label's " \
                     "direction"
        return LabelVerdict(key, "azimuth", "consistent", label, got["azimuth_deg"],
                            evidence=ev)
    if gap >= cfg.onset_azimuth_gap_deg and cfg.onset_azimuth_conf > 0:
        return LabelVerdict(key, "azimuth", "suspicious", label, got["azimuth_deg"],
                            cfg.onset_azimuth_conf,
                            f"the sound the question says starts at {got['start_s']:g} s: "
                            f"{got['onsets']} onsets new then come from "
                            f"{got['azimuth_deg']:.0f} deg, {gap:.0f} deg from the label "
                            f"({why})", ev)
    return None


def _elevation_nowhere(x: _Ctx, key: dict, label: float, ev: dict) -> LabelVerdict | None:
    """An elevation label of a sound known by neither time nor azimuth is suspicious when
    no onset of the whole clip, from any azimuth, comes from its elevation and at least
    ``2 * onset_min_votes`` come from the mirrored one: no sound of the clip starts there."""
    cfg = x.cfg
    if abs(label) < cfg.flip_min_abs_deg or cfg.nowhere_conf <= 0 or x.doa is None \
            or x.doa.onsets is None or x.clip is None:
        return None
    vote = elevation_votes(x.doa.onsets, label, [(0.0, float(x.clip.duration_s or 1e9))],
                           None, el_tol_deg=cfg.onset_el_tol_deg)
    if vote is None or vote["label"] > 0 or vote["flipped"] < 2 * cfg.onset_min_votes:
        return None
    ev["onset_vote"] = dict(vote, azimuth_from="any azimuth (whole clip)")
    return LabelVerdict(key, "elevation", "suspicious", label, -label, cfg.nowhere_conf,
                        f"no onset of the clip comes from the labelled elevation ({label:.0f} "
                        f"deg) and {vote['flipped']} come from {-label:.0f} deg: no sound of "
                        "the clip starts at the label's", ev)


def _onset_side(vote: dict, cfg) -> str | None:
    """"flipped" / "label" when the onsets side clearly with one sign, else None."""
    return onset_side(vote, cfg, explained=bool(vote.get("other_class_there")))


def _event_elevation_flip(x: _Ctx, label: float, window: tuple[float, float],
                          azimuth: float | None) -> dict | None:
    """The analysed event that sounds in ``window`` (at ``azimuth`` within the azimuth
    tolerance, when known) if its elevation matches ``-label`` within ``el_tol_deg`` and is
    at least twice that from the label; else None.  The events' directions come from the
    whitened, onset-weighted clip histograms, which stay accurate in rooms where the
    per-block energy map does not."""
    cfg = x.cfg
    if x.doa is None:
        return None
    found = []
    for e in x.doa.events:
        if e.get("elevation_deg") is None or e.get("motion") not in (None, "stationary"):
            continue
        overlap = min(e["offset_s"], window[1]) - max(e["onset_s"], window[0])
        if overlap <= 0:
            continue
        if azimuth is not None and abs(float(azimuth_difference(e["azimuth_deg"], azimuth))) \
                > cfg.az_tol_deg:
            continue
        found.append((overlap, e))
    # without a known azimuth only an unambiguous event (the only one sounding) will do
    if not found or (azimuth is None and len({e.get("source") for _, e in found}) > 1):
        return None
    best = max(found, key=lambda oe: oe[0])[1]
    el = float(best["elevation_deg"])
    if abs(el + label) <= cfg.el_tol_deg and abs(el - label) >= 2 * cfg.el_tol_deg:
        return {k: best[k] for k in ("onset_s", "offset_s", "azimuth_deg", "elevation_deg")}
    return None


def _class_directions(x: _Ctx, cls: str) -> list[tuple[float, float, str]]:
    """(az, tol, origin) of a class from context and from azimuth labels found consistent."""
    cfg, cc = x.cfg, x.cc
    out = []
    for d in cc.dirs:
        if d.cls != cls or d.az is None:
            continue
        if d.source == "label":
            v = x.verdict.get(d.qa_id)
            if v is None or v.verdict != "consistent":
                continue
        out.append((d.az, max(cfg.az_tol_deg, min(d.az_tol, 30.0)), d.qa_id))
    return out
