"""Audit SO-Bench labels against the rest of the corpus and against the signal.

What is audited
---------------
One verdict per label-bearing item: ``azimuth`` (``estimate_azimuth``), ``elevation``,
``distance``, ``time_span`` (``detect_time``, ``spatial_temporal``, single-event
``detect_source``), ``onset`` (``onset_from_location``), ``count`` (``count_sources``) and
``relation`` (``relative_left_right``, ``compare_elevation``, ``compare_distance``).

What the corpus says (no audio needed)
--------------------------------------
Items about one audio file are grouped by the sound class they name (the class vocabulary is
read from the answers of the source tasks and from "the sound of the X" phrases).  For each
class the other items give *context*: directions named in questions (``identify_source_by_doa``
angles, ``identify_source_by_location`` / ``spatial_temporal`` / ``onset_from_location``
sectors such as "the front-left" = 45 +- 22.5 deg), time spans and onsets of other items, the
windows of ``detect_source`` questions ("between 2.3s and 4.5s"), motion answers, relation
answers.  A label that contradicts context is suspicious; a label that agrees with it is
consistent (two independent statements agree).  Relations are checked against the labels
(and context directions) of both sources; ``count_sources`` against the classes the clip's
items name.

What the signal says
--------------------
The clip's :class:`~foakit.audit.doamap.DoaMap` (directional energy per 0.1 s and direction):

* a direction label is scored by its **prominence** in the source's time window (from the
  corpus: its spans, onset or ``detect_source`` window; else the best 1 s stretch of the
  active audio): the share of directional energy within ``az_tol_deg`` of the label divided
  by that of the strongest direction of the window (1 = the window's main direction);
* a time label is scored by where the source's direction sounds (from context or a
  consistent azimuth label; when none is known, the azimuth every 10 deg that best explains
  the label, with stricter thresholds): the span's IoU with that presence, and whether
  shifting the span (up to ``max_shift_s``) fits much better; an onset by whether the
  presence starts there or clearly elsewhere.

When context and a label disagree, the signal arbitrates: for two time claims it looks at
the stretch between their onsets (and ends): the source sounding there supports the earlier
claim, silence the later one; a claim that fits the signal where it is beats one that does
not.  Without a decision, a label outvoted by two other items is suspicious, a tie is
unverifiable.  Items that agree can still share one time offset, so a span whose known
direction sounds clearly elsewhere is flagged even then.  Elevations are only contradicted by
the signal in windows of diffuseness <= ``elevation_max_psi`` (reverberation biases the DOA
elevation).  A label with neither context nor usable signal (no DOA votes, a diffuse field, a
moving source) is unverifiable, with the reason.

Convention audit
----------------
Every direction label is scored under each hypothesis of :mod:`foakit.audit.common` (angle
maps of the labels; the other channel order by decoding the audio again on up to
``convention_clips`` clips); see :func:`foakit.audit.conventions.decide`.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bench.sobench import SOURCE_TASKS, QAItem, load_qa, parse_question, resolve_audio_path
from ..conventions import azimuth_difference, check_channel_order
from ..errors import FoakitError, ParameterError
from ..params import AnalysisParams
from .common import (
    ANGLE_HYPOTHESES,
    AuditResult,
    ClipEstimate,
    DoaEstimate,
    LabelVerdict,
    apply_hypothesis,
    count_verdicts,
    estimate_clips,
    redecode_hypothesis,
)
from .conventions import CandidateScore, decide
from .evidence import best_onset, onset_score, span_shift

__all__ = [
    "SobenchAuditConfig",
    "LABEL_FIELDS",
    "class_vocabulary",
    "clip_claims",
    "ClipClaims",
    "audit_clip",
    "audit_sobench",
]

#: Task -> the field its label is audited as.
LABEL_FIELDS = {
    "estimate_azimuth": "azimuth",
    "estimate_elevation": "elevation",
    "estimate_distance": "distance",
    "detect_time": "time_span",
    "spatial_temporal": "time_span",
    "detect_source": "time_span",
    "onset_from_location": "onset",
    "count_sources": "count",
    "relative_left_right": "relation",
    "compare_elevation": "relation",
    "compare_distance": "relation",
}
_DIRECTION_TASKS = ("identify_source_by_doa", "identify_source_by_location", "spatial_temporal",
                    "onset_from_location")
_STOP = {"is", "are", "be", "can", "start", "starts", "begin", "begins", "arrive", "arrives",
         "come", "comes", "coming", "located", "positioned", "heard", "audible", "and", "or",
         "to", "from", "at", "in", "on", "that", "which", "when", "during", "relative",
         "compared", "higher", "lower", "closer", "farther", "left", "right", "stay", "stays",
         "move", "moves", "does", "do", "with", "than", "the", "a", "an", "of", "it"}
_RELATION_WORDS = {
    "relative_left_right": ("left", "right"),
    "compare_elevation": ("higher", "lower", "same"),
    "compare_distance": ("closer", "farther", "same"),
}


@dataclass(frozen=True)
class SobenchAuditConfig:
    """Thresholds of the SO-Bench audit (degrees, seconds, 0-1 scores)."""

    az_tol_deg: float = 25.0
    dir_tol_deg: float = 30.0
    el_tol_deg: float = 15.0
    sector_half_deg: float = 22.5
    sector_slack_deg: float = 10.0
    explicit_tol_deg: float = 15.0
    elevation_ctx_tol_deg: float = 12.0
    agree_prom: float = 0.5
    doubt_prom: float = 0.2
    doubt_prom_elevation: float = 0.1
    elevation_max_psi: float = 0.6
    flip_min_abs_deg: float = 8.0
    flip_gain: float = 0.4
    min_votes_blocks: int = 4
    diffuse_psi: float = 0.9
    onset_window_s: float = 1.5
    min_shift_s: float = 1.0
    max_shift_s: float = 4.0
    span_gain: float = 0.2
    onset_gain: float = 0.6
    onset_max_at_label: float = 0.1
    unknown_min_best: float = 0.7
    unknown_gain: float = 0.3
    unknown_margin: float = 0.3
    presence_rise_db: float = 4.0
    presence_min_share: float = 0.15
    presence_smooth: int = 5
    arbitration_margin: float = 0.15
    agree_override_gain: float = 0.4
    arbitration_on: float = 0.5
    arbitration_off: float = 0.1
    time_ctx_tol_s: float = 0.5
    relation_min_sin: float = 0.1
    relation_min_el_deg: float = 5.0
    relation_min_dist_m: float = 0.3
    convention_clips: int = 40

    def __post_init__(self) -> None:
        if not 0 <= self.doubt_prom < self.agree_prom <= 1:
            raise ParameterError("need 0 <= doubt_prom < agree_prom <= 1")
        for name in ("az_tol_deg", "dir_tol_deg", "el_tol_deg", "max_shift_s"):
            if not getattr(self, name) > 0:
                raise ParameterError(f"{name}={getattr(self, name)!r} must be > 0")


# ----------------------------------------------------------------------------------------
# corpus side: classes and claims
# ----------------------------------------------------------------------------------------

def _norm_class(text: str) -> str:
    t = " ".join(re.sub(r"[^a-z0-9' -]", " ", str(text).lower()).split())
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    return re.sub(r"^sound of (?:the |a |an )?", "", t).strip()


def class_vocabulary(items: list[QAItem]) -> list[str]:
    """Sound-class names a corpus uses, longest first.

    From the canonical answers of the source tasks and from "the sound of the X" phrases
    in questions (X = up to two words, cut at verbs and prepositions, kept when some answer
    of the corpus names it too).
    """
    vocab: set[str] = set()
    answers = " ".join(it.answer.lower() + " " + it.canonical_answer.lower() for it in items)
    for it in items:
        if it.task_name in SOURCE_TASKS and it.canonical_answer:
            name = _norm_class(it.canonical_answer)
            if name and len(name.split()) <= 4:
                vocab.add(name)
        for m in re.finditer(r"\bsound of (?:the |an? )?([a-z][a-z'-]*(?: [a-z][a-z'-]*)?)",
                             it.question.lower()):
            words = []
            for w in m.group(1).split():
                if w in _STOP:
                    break
                words.append(w)
            while words:
                name = " ".join(words)
                if re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", answers):
                    vocab.add(name)
                    break
                words.pop()
    return sorted(vocab, key=lambda v: (-len(v), v))


def _mentions(text: str, vocab: list[str]) -> list[str]:
    """Vocabulary terms in ``text`` in order of appearance (longest match wins)."""
    low = " " + re.sub(r"[^a-z0-9' -]", " ", text.lower()) + " "
    taken = np.zeros(len(low), bool)
    found = []
    for v in vocab:
        for m in re.finditer(rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])", low):
            if not taken[m.start():m.end()].any():
                taken[m.start():m.end()] = True
                found.append((m.start(), v))
    return [v for _, v in sorted(found)]


@dataclass
class DirClaim:
    """A statement about where a class is."""

    cls: str
    az: float | None
    el: float | None
    az_tol: float
    qa_id: str
    source: str  # "label" or what context gave it
    el_sign: int = 0
    task: str = ""

    @property
    def origin(self) -> str:
        return f"the {self.task} label" if self.source == "label" else self.source


@dataclass
class TimeClaim:
    """A statement about when a class sounds: ``span`` [a, b], ``onset`` a, ``window`` [a, b]
    (the class is audible somewhere inside)."""

    cls: str
    kind: str
    a: float
    b: float
    qa_id: str
    source: str
    task: str = ""

    @property
    def origin(self) -> str:
        return f"the {self.task} label" if self.source == "label" else self.source


@dataclass
class ClipClaims:
    """Everything the corpus says about one audio file.

    Attributes
    ----------
    audio_id, audio_path : str
    items : list of QAItem
    subject : dict
        ``qa_id`` -> class the item is about (None when unknown).
    objects : dict
        ``qa_id`` -> second class of a relation item.
    classes : set of str
        Classes the clip's items name.
    dirs : list of DirClaim
    times : list of TimeClaim
    moving : set of str
        Classes a motion answer calls moving.
    """

    audio_id: str
    audio_path: str
    items: list[QAItem] = field(default_factory=list)
    subject: dict[str, str | None] = field(default_factory=dict)
    objects: dict[str, str | None] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    dirs: list[DirClaim] = field(default_factory=list)
    times: list[TimeClaim] = field(default_factory=list)
    moving: set[str] = field(default_factory=set)


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _span(x: Any) -> tuple[float, float] | None:
    if isinstance(x, list | tuple) and len(x) == 2:
        a, b = _num(x[0]), _num(x[1])
        if a is not None and b is not None:
            return (min(a, b), max(a, b))
    return None


def clip_claims(audio_id: str, items: list[QAItem], vocab: list[str],
                cfg: SobenchAuditConfig | None = None) -> ClipClaims:
    """Read the claims the items of one audio file make (see the module docstring)."""
    cfg = cfg or SobenchAuditConfig()
    cc = ClipClaims(audio_id=audio_id, audio_path=items[0].audio_path, items=list(items))
    for it in items:
        meta = it.answer_meta or {}
        ans = _mentions(it.answer, vocab)
        q = _mentions(it.question, vocab)
        if it.task_name in SOURCE_TASKS:
            subj = _norm_class(it.canonical_answer) or (ans[0] if ans else None)
        elif it.task_name in _RELATION_WORDS:
            subj = ans[0] if ans else (q[0] if q else None)
            obj = ans[1] if len(ans) > 1 else (q[1] if len(q) > 1 else None)
            if obj == subj:
                obj = None
            cc.objects[it.qa_id] = obj
        else:
            subj = ans[0] if ans else (q[0] if q else None)
        cc.subject[it.qa_id] = subj
        cc.classes.update(ans)
        cc.classes.update(q)
        if subj:
            cc.classes.add(subj)
        if subj is None:
            continue
        # direction context named in the question
        if it.task_name in _DIRECTION_TASKS:
            cues = parse_question(it.question)
            if cues.azimuth_deg is not None:
                tol = cfg.explicit_tol_deg if cues.azimuth_explicit else \
                    cfg.sector_half_deg + cfg.sector_slack_deg
                cc.dirs.append(DirClaim(subj, float(cues.azimuth_deg), cues.elevation_deg, tol,
                                        it.qa_id, f"question of {it.task_name}",
                                        el_sign=cues.elevation_sign))
            elif cues.elevation_deg is not None:
                cc.dirs.append(DirClaim(subj, None, cues.elevation_deg, 0.0, it.qa_id,
                                        f"question of {it.task_name}"))
        if it.task_name == "detect_source":
            cues = parse_question(it.question)
            if cues.window is not None and math.isfinite(cues.window[1]):
                cc.times.append(TimeClaim(subj, "window", cues.window[0], cues.window[1],
                                          it.qa_id, "question of detect_source"))
        if it.task_name == "classify_motion":
            text = (it.canonical_answer + " " + it.answer).lower()
            if "moving" in text or "moves" in text:
                cc.moving.add(subj)
        # labels
        if it.task_name == "estimate_azimuth" and _num(meta.get("azimuth_deg")) is not None:
            cc.dirs.append(DirClaim(subj, _num(meta["azimuth_deg"]), None, cfg.az_tol_deg,
                                    it.qa_id, "label", task=it.task_name))
        if it.task_name == "estimate_elevation" and _num(meta.get("elevation_deg")) is not None:
            cc.dirs.append(DirClaim(subj, None, _num(meta["elevation_deg"]), 0.0, it.qa_id,
                                    "label", task=it.task_name))
        sp = _span(meta.get("time_span"))
        if sp is not None:
            cc.times.append(TimeClaim(subj, "span", sp[0], sp[1], it.qa_id, "label",
                                      task=it.task_name))
        on = _num(meta.get("onset_time"))
        if on is not None:
            cc.times.append(TimeClaim(subj, "onset", on, on, it.qa_id, "label",
                                      task=it.task_name))
    return cc


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


def _votes(dmap, a: float, b: float) -> int:
    sl = dmap.blocks(a, b)
    return int(np.sum(dmap.energy[sl].reshape(sl.stop - sl.start, -1).sum(axis=1) > 0))


def _psi(clip: ClipEstimate, a: float, b: float) -> float:
    psi = clip.frames.get("diffuseness")
    if psi is None or not len(psi):
        return float("nan")
    v = np.asarray(psi)[clip.frame_slice(a, b)]
    v = v[np.isfinite(v)]
    return float(np.mean(v)) if len(v) else float("nan")


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
        if t.cls != cls or t.qa_id == exclude:
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
                   "window_from": qid, "votes": _votes(dmap, a, b), "psi": _psi(x.clip, a, b)}
            # a usable window beats an unusable one (a wrong time label may point at silence)
            scored.append((_unusable(sig, cfg) is None, p if np.isfinite(p) else -1.0, sig))
        if scored:
            return max(scored, key=lambda s: (s[0], s[1]))[2]
    p, w = _prominence(dmap, qaz, qel, (0.0, dur), tol, x.clip, whole_clip=True)
    return {"prominence": p, "window": w, "window_from": "best 1 s of the clip",
            "votes": _votes(dmap, *w), "psi": _psi(x.clip, *w)}


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
    others = [d for d in cc.dirs if d.cls == cls and d.qa_id != it.qa_id]
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
            az_src = [d for d in others if d.az is not None and d.source != "label"]
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
        return LabelVerdict(key, fld, "unverifiable", label, reason=why, evidence=ev)
    p = sig["prominence"]
    w = sig["window"]
    mode = "az" if fld == "azimuth" else ("dir" if sig.get("azimuth_from") else "el")
    tol = {"az": cfg.az_tol_deg, "el": cfg.el_tol_deg, "dir": cfg.dir_tol_deg}[mode]
    s_az, s_el, s_share = x.doa.dmap.strongest(w[0], w[1], tol, mode=mode)
    estimate = s_az if fld == "azimuth" else s_el
    reverberant = fld == "elevation" and np.isfinite(sig.get("psi", np.nan)) and \
        sig["psi"] > cfg.elevation_max_psi
    if reverberant:
        ev["note"] = (f"reverberant window (diffuseness {sig['psi']:.2f}): the DOA elevation is "
                      "not trusted to contradict a label")
    if fld == "elevation" and abs(label) >= cfg.flip_min_abs_deg and not reverberant:
        # the usual elevation error is its sign: compare with the mirrored elevation
        az_q = None
        if mode == "dir":
            az_q = next(o.az for o in others if o.qa_id == sig["azimuth_from"])
        p_flip = x.doa.dmap.prominence(az_q, -label, w[0], w[1], tol)
        ev["signal"]["prominence_flipped"] = p_flip
        if np.isfinite(p_flip) and p_flip - p >= cfg.flip_gain:
            conf = float(np.clip(0.5 + (p_flip - p), 0.5, 0.95))
            return LabelVerdict(key, fld, "suspicious", label, -label, conf,
                                f"the signal shows the source at the opposite elevation in "
                                f"{w[0]:.1f}-{w[1]:.1f} s: prominence {p_flip:.2f} at "
                                f"{-label:.0f} deg against {p:.2f} at the label", ev)
    if p >= cfg.agree_prom:
        return LabelVerdict(key, fld, "consistent", label, estimate, evidence=ev)
    doubt = cfg.doubt_prom if fld == "azimuth" else cfg.doubt_prom_elevation
    if p <= doubt and not reverberant:
        timed = sig["window_from"] != "best 1 s of the clip"
        conf = (doubt - p) / max(doubt, 1e-9)
        conf = float(np.clip(0.35 + 0.45 * conf + (0.1 if timed else 0.0), 0.0, 0.95))
        where = (f"in {w[0]:.1f}-{w[1]:.1f} s (from {sig['window_from']})" if timed
                 else "anywhere in the clip")
        return LabelVerdict(key, fld, "suspicious", label, estimate, conf,
                            f"the signal shows little energy from the labelled {fld} {where}: "
                            f"prominence {p:.2f}; the strongest direction there is {estimate:.0f}"
                            " deg", ev)
    return LabelVerdict(key, fld, "unverifiable", label, estimate,
                        reason=f"weak evidence: prominence {p:.2f} (overlapping sources or "
                               "reverberation)", evidence=ev)


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


def _presences(x: _Ctx, cls: str) -> tuple[list[tuple[np.ndarray, float, str]], bool]:
    """Presence sequences to follow a class by, and whether its direction is known.

    Known: one per direction of :func:`_class_directions`.  Unknown: one per azimuth
    wedge every 10 deg (the audit then asks which direction explains the label best).
    """
    cfg = x.cfg
    dmap = x.doa.dmap
    kw = {"rise_db": cfg.presence_rise_db, "min_share": cfg.presence_min_share,
          "smooth": cfg.presence_smooth}
    if cls in x.cc.moving:
        dirs = []
    else:
        dirs = _class_directions(x, cls)
    if dirs:
        return [(dmap.presence(az, None, tol, **kw).astype(float), az, origin)
                for az, tol, origin in dirs], True
    cache = x.draw.setdefault("_wedges", {})
    if not cache:
        for az in np.arange(-180.0, 180.0, 10.0):
            cache[float(az)] = dmap.presence(float(az), None, cfg.az_tol_deg, **kw).astype(float)
    return [(p, az, "best-fitting direction") for az, p in cache.items()], False


def _mean_presence(pres: list, t0: float, t1: float, block_s: float) -> float:
    """Largest mean presence over ``[t0, t1)`` among the sequences of ``pres``."""
    best = 0.0
    for p, _, _ in pres:
        n = len(p)
        a, b = max(0, int(round(t0 / block_s))), min(n, int(round(t1 / block_s)))
        if b > a:
            best = max(best, float(np.nanmean(np.nan_to_num(p[a:b], nan=0.0))))
    return best


def _arbitrate(x: _Ctx, pres: list, known: bool, lab: TimeClaim, other: TimeClaim
               ) -> tuple[int, list[tuple[int, str]]]:
    """Which of two conflicting time claims of one class the signal supports.

    Looks at the stretch between the two onsets (and between the two ends of two spans):
    the source sounding there supports the claim that starts earlier (ends later); silence
    there supports the other.  A ``window`` claim is supported when the source sounds in it.

    Returns
    -------
    vote : int
        +1 the label, -1 the other claim, 0 undecided.
    votes : list of (int, str)
        Each stretch's vote and what was seen.
    """
    cfg = x.cfg
    bs = x.doa.dmap.block_s
    on, off = cfg.arbitration_on, cfg.arbitration_off

    def end(c: TimeClaim) -> float:
        return c.b if c.kind != "onset" else c.a + cfg.onset_window_s

    if not known:  # the direction that best explains either claim
        scored = []
        for item in pres:
            p = item[0]
            s1 = span_shift(p, bs, lab.a, end(lab), max_shift_s=0.0).iou
            s2 = span_shift(p, bs, other.a, end(other), max_shift_s=0.0).iou
            scored.append((max(s1, s2), item))
        pres = [max(scored, key=lambda s: s[0])[1]] if scored else []
    votes: list[tuple[int, str]] = []
    if other.kind == "window":
        p = _mean_presence(pres, other.a, other.b, bs)
        if p >= on:
            votes.append((-1, f"the source sounds in {other.a:.1f}-{other.b:.1f} s ({p:.0%})"))
        elif p <= off:
            votes.append((+1, f"the source is silent in {other.a:.1f}-{other.b:.1f} s"))
    else:
        if abs(lab.a - other.a) >= cfg.min_shift_s - 1e-9:
            t0, t1 = sorted((lab.a, other.a))
            p = _mean_presence(pres, t0, t1, bs)
            earlier = 1 if lab.a < other.a else -1
            if p >= on:
                votes.append((earlier, f"it sounds in {t0:.1f}-{t1:.1f} s ({p:.0%})"))
            elif p <= off:
                votes.append((-earlier, f"it is silent in {t0:.1f}-{t1:.1f} s ({p:.0%})"))
        if lab.kind == "span" and other.kind == "span" and \
                abs(lab.b - other.b) >= cfg.min_shift_s - 1e-9:
            t0, t1 = sorted((lab.b, other.b))
            p = _mean_presence(pres, t0, t1, bs)
            later = 1 if lab.b > other.b else -1
            if p >= on:
                votes.append((later, f"it sounds in {t0:.1f}-{t1:.1f} s ({p:.0%})"))
            elif p <= off:
                votes.append((-later, f"it is silent in {t0:.1f}-{t1:.1f} s ({p:.0%})"))
    if other.kind != "window" and pres:
        # each claim judged alone: a claim that fits where it is, against one that does not
        fl = _time_fit(x, pres, known, lab.kind, lab.a, end(lab))["status"]
        fo = _time_fit(x, pres, known, other.kind, other.a, end(other))["status"]
        if fl == "here" and fo != "here":
            votes.append((1, "the label fits the signal where it is, the other claim does not"))
        elif fo == "here" and fl != "here":
            votes.append((-1, "the other claim fits the signal where it is, the label does not"))
    total = sum(v for v, _ in votes)
    signs = {v for v, _ in votes}
    if len(signs) == 1:
        return signs.pop(), votes
    return (int(np.sign(total)) if abs(total) >= 2 else 0), votes


def _time_fit(x: _Ctx, pres: list, known: bool, kind: str, a: float, b: float) -> dict:
    """Signal-only judgement of a time label: here, shifted (and by how much) or weak."""
    cfg = x.cfg
    bs = x.doa.dmap.block_s
    fits = []
    for p, az, origin in pres:
        if kind == "onset":
            s0 = onset_score(p, bs, a)
            bt, bsc = best_onset(p, bs, a, max_shift_s=cfg.max_shift_s)
            fits.append({"direction": az, "from": origin, "at_label": s0,
                         "best_shift_s": bt - a, "best": bsc, "gain": bsc - s0})
        else:
            f = span_shift(p, bs, a, b, max_shift_s=cfg.max_shift_s)
            fits.append({"direction": az, "from": origin, "at_label": f.iou,
                         "best_shift_s": f.best_shift_s, "best": f.best_iou,
                         "gain": f.best_iou - f.iou})
    here_min = 0.4
    gain = cfg.span_gain if kind != "onset" else cfg.onset_gain
    if known:
        def shifted(f: dict) -> bool:
            return (abs(f["best_shift_s"]) >= cfg.min_shift_s - 1e-9 and f["gain"] >= gain
                    and (kind != "onset" or f["at_label"] <= cfg.onset_max_at_label))
        here = [f for f in fits if f["at_label"] >= here_min and not shifted(f)]
        sh = [f for f in fits if shifted(f)]
        status = "here" if here else ("shifted" if sh and len(sh) == len(fits) else "weak")
        top = max(sh, key=lambda f: f["gain"]) if sh else None
        return {"status": status, "fit": top, "fits": fits, "known": True}
    best = max(fits, key=lambda f: (f["best"], -abs(f["best_shift_s"]))) if fits else None
    at0 = max((f["at_label"] for f in fits), default=0.0)
    if best is None:
        return {"status": "weak", "fit": None, "fits": [], "known": False}
    strict = (abs(best["best_shift_s"]) >= cfg.min_shift_s - 1e-9
              and best["best"] >= cfg.unknown_min_best and best["gain"] >= cfg.unknown_gain
              and at0 <= best["best"] - cfg.unknown_margin)
    if at0 >= 0.5 and at0 >= best["best"] - cfg.arbitration_margin:
        status = "here"
    else:
        status = "shifted" if strict else "weak"
    return {"status": status, "fit": best, "fits": [best], "known": False, "at_label_max": at0}


def _audit_time(x: _Ctx, it: QAItem, claim: TimeClaim) -> LabelVerdict:
    cfg, cc = x.cfg, x.cc
    cls = claim.cls
    fld = "time_span" if claim.kind == "span" else "onset"
    label = [claim.a, claim.b] if fld == "time_span" else claim.a
    key = _key(cc, it)
    ev: dict[str, Any] = {}
    ctx = [t for t in cc.times if t.cls == cls and t.qa_id != it.qa_id and t.kind != "window"]
    wins = [t for t in cc.times if t.cls == cls and t.kind == "window"]
    agree, conflict = [], []
    for t in ctx:
        (agree if abs(t.a - claim.a) <= cfg.time_ctx_tol_s else conflict).append(t)
    for t in wins:  # a window only says "somewhere inside": it can contradict, not confirm
        if fld == "time_span":
            inside = t.a >= claim.a - cfg.time_ctx_tol_s and t.b <= claim.b + cfg.time_ctx_tol_s
        else:
            inside = t.b >= claim.a - cfg.time_ctx_tol_s
        if not inside:
            conflict.append(t)
    ev["context"] = [{"qa_id": t.qa_id, "kind": t.kind, "span": [t.a, t.b],
                      "agrees": t in agree} for t in ctx + wins]
    # a conflicting claim that the other claims outvote does not count against this one
    others = [t for t in cc.times if t.cls == cls and t.kind != "window"]

    def outvoted(c: TimeClaim) -> bool:
        rest = [u for u in others if u.qa_id not in (c.qa_id, claim.qa_id)]
        n_agree = sum(1 for u in rest if abs(u.a - c.a) <= cfg.time_ctx_tol_s)
        return len(rest) - n_agree > n_agree

    if agree:
        conflict = [t for t in conflict if t.kind == "window" or not outvoted(t)]
    pres, known = ([], False)
    if x.doa is not None and x.doa.dmap is not None:
        pres, known = _presences(x, cls)
        ev["direction_known"] = known
        x.draw[it.qa_id] = {"directions": [az for _, az, _ in pres] if known else []}

    def what(t: TimeClaim) -> str:
        return {"window": f"is audible in {t.a:.1f}-{t.b:.1f} s",
                "span": f"spans {t.a:.1f}-{t.b:.1f} s", "onset": f"starts at {t.a:.1f} s"}[t.kind]

    def estimate_from(t: TimeClaim):
        if fld == "onset":
            return t.a
        if t.kind == "onset":
            return [t.a, t.a + claim.b - claim.a]
        return None if t.kind == "window" else [t.a, t.b]

    if conflict and len(agree) <= len(conflict):
        # the signal arbitrates against each conflicting claim
        results = []
        for t in conflict:
            vote, votes = (_arbitrate(x, pres, known, claim, t) if pres else (0, []))
            results.append((t, vote, votes))
        ev["arbitration"] = [{"with": t.qa_id, "vote": vote, "votes": votes}
                             for t, vote, votes in results]
        lost = [(t, votes) for t, vote, votes in results if vote < 0]
        t = (lost[0][0] if lost else conflict[0])
        est = estimate_from(t)
        if lost:
            return LabelVerdict(key, fld, "suspicious", label, est, 0.85,
                                f"{t.origin} ({t.qa_id}) says the {cls} {what(t)}, and the "
                                f"signal agrees with it ({'; '.join(v[1] for v in lost[0][1])})",
                                ev)
        if all(vote > 0 for _, vote, _ in results):
            return LabelVerdict(key, fld, "consistent", label, evidence=dict(
                ev, note=f"conflicts with {', '.join(t.qa_id for t in conflict)}, but the "
                         "signal supports this label"))
        if len(conflict) >= 2 and not agree:
            return LabelVerdict(key, fld, "suspicious", label, est, 0.75,
                                f"{len(conflict)} other items disagree: {t.origin} ({t.qa_id}) "
                                f"says the {cls} {what(t)}", ev)
        if agree:
            return LabelVerdict(key, fld, "unverifiable", label, est,
                                reason=f"as many items agree as disagree ({t.qa_id}: the {cls} "
                                       f"{what(t)}) and the signal cannot tell", evidence=ev)
        if t.kind == "window":
            return LabelVerdict(key, fld, "suspicious", label, est, 0.65,
                                f"{t.origin} ({t.qa_id}) says the {cls} {what(t)}", ev)
        return LabelVerdict(key, fld, "unverifiable", label, est,
                            reason=f"conflicts with {t.qa_id} ({what(t)}) and the signal cannot "
                                   "tell which is wrong", evidence=ev)
    if agree:
        # items that agree may share one time offset: the signal can still overrule them
        if pres and known and claim.kind == "span":  # onsets alone are too weak for this
            fit = _time_fit(x, pres, known, claim.kind, claim.a, claim.b)
            f = fit.get("fit")
            if fit["status"] == "shifted" and f is not None and \
                    f["gain"] >= cfg.agree_override_gain:
                d = f["best_shift_s"]
                est = [claim.a + d, claim.b + d] if fld == "time_span" else claim.a + d
                ev["signal"] = {k: v for k, v in fit.items() if k != "fit"}
                return LabelVerdict(
                    key, fld, "suspicious", label, est, float(np.clip(0.3 + f["gain"], 0.5, 0.8)),
                    f"{len(agree)} other item(s) agree, but the source's direction "
                    f"({f['direction']:.0f} deg) sounds {d:+.1f} s from the labelled "
                    f"{'span' if fld == 'time_span' else 'onset'}: a time offset shared by "
                    "these labels?", ev)
        return LabelVerdict(key, fld, "consistent", label, evidence=ev)
    if not pres:
        return LabelVerdict(key, fld, "unverifiable", label,
                            reason="audio not analysed" if x.doa is None else
                            "no direction to follow the source by", evidence=ev)
    fit = _time_fit(x, pres, known, claim.kind, claim.a, claim.b)
    ev["signal"] = {k: v for k, v in fit.items() if k != "fit"}
    if fit["status"] == "here":
        return LabelVerdict(key, fld, "consistent", label, evidence=ev)
    if fit["status"] == "shifted":
        f = fit["fit"]
        d = f["best_shift_s"]
        est = [claim.a + d, claim.b + d] if fld == "time_span" else claim.a + d
        conf = float(np.clip(0.45 + f["gain"], 0.3, 0.95)) * (1.0 if known else 0.8)
        origin = f"from {f['from']}" if known else "the direction that best explains the label"
        return LabelVerdict(key, fld, "suspicious", label, est, conf,
                            f"the source's direction ({f['direction']:.0f} deg, {origin}) sounds "
                            f"{d:+.1f} s from the labelled "
                            f"{'span' if fld == 'time_span' else 'onset'}", ev)
    return LabelVerdict(key, fld, "unverifiable", label,
                        reason="weak evidence: the source's direction does not clearly sound "
                               "at the labelled time nor at a shifted one (overlap, "
                               "reverberation" + (", direction unknown)" if not known else ")"),
                        evidence=ev)


def _audit_count(x: _Ctx, it: QAItem) -> LabelVerdict:
    cc = x.cc
    key = _key(cc, it)
    n = _num((it.answer_meta or {}).get("active_count"))
    named = len(cc.classes)
    ev = {"classes_named": sorted(cc.classes)}
    if x.doa is not None:
        ev["signal_sources"] = len({e.get("source") for e in x.doa.events})
    if n is None:
        return LabelVerdict(key, "count", "unverifiable", None, reason="no active_count",
                            evidence=ev)
    if n < named:
        return LabelVerdict(key, "count", "suspicious", n, named, 0.9,
                            f"the clip's items name {named} different sounds "
                            f"({', '.join(sorted(cc.classes))}) but the count is {n:g}", ev)
    if n == named:
        return LabelVerdict(key, "count", "consistent", n, named, evidence=ev)
    if ev.get("signal_sources") is not None and ev["signal_sources"] >= n:
        return LabelVerdict(key, "count", "consistent", n, ev["signal_sources"], evidence=ev)
    return LabelVerdict(key, "count", "unverifiable", n, ev.get("signal_sources"),
                        reason=f"only {named} sounds are named in this clip's items and the DSP "
                               "count is not reliable enough to confirm more", evidence=ev)


def _trusted(x: _Ctx, cls: str, attr: str) -> tuple[float, str, bool] | None:
    """A value of a class's attribute the audit trusts, its ``qa_id`` and whether it is a
    label: context first, then labels not found suspicious."""
    cc = x.cc
    if attr in ("az", "el"):
        ctx = [d for d in cc.dirs if d.cls == cls and getattr(d, attr) is not None]
        for d in sorted(ctx, key=lambda d: d.source == "label"):
            if d.source == "label":
                v = x.verdict.get(d.qa_id)
                if v is not None and v.verdict == "suspicious":
                    continue
            return float(getattr(d, attr)), d.qa_id, d.source == "label"
        return None
    for it in cc.items:
        if it.task_name == "estimate_distance" and cc.subject.get(it.qa_id) == cls:
            d = _num((it.answer_meta or {}).get("distance_m"))
            v = x.verdict.get(it.qa_id)
            if d is not None and (v is None or v.verdict != "suspicious"):
                return d, it.qa_id, True
    return None


def _audit_relation(x: _Ctx, it: QAItem) -> LabelVerdict:
    cfg, cc = x.cfg, x.cc
    key = _key(cc, it)
    words = _RELATION_WORDS[it.task_name]
    text = (it.canonical_answer or it.answer).lower()
    rel = next((w for w in words if re.search(rf"\b{w}\b", text)), None)
    if rel is None and "further" in text:
        rel = "farther"
    a, b = cc.subject.get(it.qa_id), cc.objects.get(it.qa_id)
    ev = {"subject": a, "object": b}
    if rel is None or a is None or b is None:
        return LabelVerdict(key, "relation", "unverifiable", rel,
                            reason="cannot read the relation or its two sounds", evidence=ev)
    attr = {"relative_left_right": "az", "compare_elevation": "el",
            "compare_distance": "dist"}[it.task_name]
    va, vb = _trusted(x, a, attr), _trusted(x, b, attr)
    ev.update(subject_value=va, object_value=vb)
    if va is None or vb is None:
        return LabelVerdict(key, "relation", "unverifiable", rel,
                            reason=f"no trusted {attr} for both the {a} and the {b}", evidence=ev)
    if attr == "az":
        d = math.sin(math.radians(va[0])) - math.sin(math.radians(vb[0]))
        margin, expect = cfg.relation_min_sin, ("left" if d > 0 else "right")
    elif attr == "el":
        d = va[0] - vb[0]
        margin, expect = cfg.relation_min_el_deg, ("higher" if d > 0 else "lower")
    else:
        d = va[0] - vb[0]
        margin, expect = cfg.relation_min_dist_m, ("farther" if d > 0 else "closer")
    if abs(d) < margin:
        if rel == "same":
            return LabelVerdict(key, "relation", "consistent", rel, "same", evidence=ev)
        return LabelVerdict(key, "relation", "unverifiable", rel,
                            reason=f"the two sounds are too close to call ({attr} difference "
                                   f"{d:.2f})", evidence=ev)
    if rel == expect:
        return LabelVerdict(key, "relation", "consistent", rel, expect, evidence=ev)
    # a relation against labels: blame a label the signal does not support, if one
    for val in (va, vb):
        v = x.verdict.get(val[1]) if val[2] else None
        if v is not None and v.field in ("azimuth", "elevation"):
            sig = (v.evidence.get("signal") or {}).get("prominence", 1.0)
            if np.isfinite(sig) and sig < cfg.agree_prom:
                v.verdict = "suspicious"
                v.confidence = max(v.confidence, 0.55)
                v.reason = (f"contradicts {it.task_name} ({it.qa_id}: the {a} is {rel} of the "
                            f"{b}) and the signal does not confirm it (prominence {sig:.2f})")
                return LabelVerdict(key, "relation", "consistent", rel, expect,
                                    evidence=dict(ev, blamed=val[1]))
    return LabelVerdict(key, "relation", "suspicious", rel, expect, 0.7,
                        f"the {a} ({va[0]:.1f}, {va[1]}) and the {b} ({vb[0]:.1f}, {vb[1]}) "
                        f"make it {expect}, not {rel}", ev)


def _audit_distance(x: _Ctx, it: QAItem) -> LabelVerdict:
    key = _key(x.cc, it)
    d = _num((it.answer_meta or {}).get("distance_m"))
    return LabelVerdict(key, "distance", "unverifiable", d,
                        reason="the DSP distance is a diffuseness proxy, too coarse to judge a "
                               "distance label (relations are checked against it)")


def audit_clip(cc: ClipClaims, clip: ClipEstimate | None,
               cfg: SobenchAuditConfig | None = None) -> tuple[list[LabelVerdict], dict]:
    """Verdicts on the labels of one audio file.

    Parameters
    ----------
    cc : ClipClaims
        From :func:`clip_claims`.
    clip : ClipEstimate or None
        The clip's analysis (None or not ok: only corpus checks run).
    cfg : SobenchAuditConfig, optional

    Returns
    -------
    verdicts : list of LabelVerdict
        In the items' order.
    draw : dict
        ``qa_id`` -> what plots draw (windows, directions followed).
    """
    cfg = cfg or SobenchAuditConfig()
    ok = clip is not None and clip.ok
    x = _Ctx(cc, clip if ok else None, clip.doa if ok else None, cfg)
    by_id = {it.qa_id: it for it in cc.items}
    # directions first (times follow consistent azimuths), then times, then the rest
    for d in cc.dirs:
        if d.source != "label" or d.qa_id not in by_id:
            continue
        fld = "azimuth" if d.az is not None else "elevation"
        if fld == "elevation":
            continue
        x.verdict[d.qa_id] = _audit_direction(x, by_id[d.qa_id], d, fld)
    for d in cc.dirs:
        if d.source == "label" and d.az is None and d.qa_id in by_id:
            x.verdict[d.qa_id] = _audit_direction(x, by_id[d.qa_id], d, "elevation")
    for t in cc.times:
        if t.source == "label" and t.qa_id in by_id and t.qa_id not in x.verdict:
            x.verdict[t.qa_id] = _audit_time(x, by_id[t.qa_id], t)
    for it in cc.items:
        if it.qa_id in x.verdict:
            continue
        if it.task_name == "count_sources":
            x.verdict[it.qa_id] = _audit_count(x, it)
        elif it.task_name == "estimate_distance":
            x.verdict[it.qa_id] = _audit_distance(x, it)
    for it in cc.items:
        if it.task_name in _RELATION_WORDS:
            x.verdict[it.qa_id] = _audit_relation(x, it)
    for it in cc.items:
        if it.qa_id in x.verdict or it.task_name not in LABEL_FIELDS:
            continue
        fld = LABEL_FIELDS[it.task_name]
        if it.task_name == "detect_source":
            continue  # multi-event detect_source carries no time label
        why = "the item names no sound class the audit can follow" \
            if cc.subject.get(it.qa_id) is None else f"no {fld} label in answer_meta"
        x.verdict[it.qa_id] = LabelVerdict(_key(cc, it), fld, "unverifiable", None, reason=why)
    if not ok:
        why = f"audio not analysed: {clip.error}" if clip is not None else "audio not analysed"
        for v in x.verdict.values():
            if v.verdict == "unverifiable" and v.reason in ("audio not analysed", ""):
                v.reason = why
    order = [it.qa_id for it in cc.items if it.qa_id in x.verdict]
    x.draw.pop("_wedges", None)
    return [x.verdict[q] for q in order], x.draw


# ----------------------------------------------------------------------------------------
# convention audit
# ----------------------------------------------------------------------------------------

def _convention_pairs(cc: ClipClaims, clip: ClipEstimate, cfg: SobenchAuditConfig,
                      doa: DoaEstimate) -> dict[str, list[float]]:
    """Per hypothesis, the prominence of each direction label of the clip."""
    out: dict[str, list[float]] = {h: [] for h in ANGLE_HYPOTHESES}
    x = _Ctx(cc, clip, doa, cfg)
    for d in cc.dirs:
        if d.source != "label" or d.cls in cc.moving:
            continue
        for h in ANGLE_HYPOTHESES:
            if d.az is not None:
                az, _ = apply_hypothesis(h, d.az, 0.0)
                sig = _signal_direction(x, d.cls, float(az), None, "az", d.qa_id)
            else:
                _, el = apply_hypothesis(h, 0.0, d.el)
                sig = _signal_direction(x, d.cls, None, float(el), "el", d.qa_id)
            if _unusable(sig, cfg) is None:
                out[h].append(float(sig["prominence"]))
    return out


def _convention(per_clip: dict[str, dict[str, list[float]]],
                alt_clip: dict[str, dict[str, list[float]]], order: str,
                cfg: SobenchAuditConfig) -> dict:
    scores: dict[str, CandidateScore] = {}
    wins: Counter = Counter()
    for h in ANGLE_HYPOTHESES:
        vals = [p for c in per_clip.values() for p in c.get(h, [])]
        n_clips = sum(1 for c in per_clip.values() if c.get(h))
        scores[h] = CandidateScore(h, float(np.mean(np.asarray(vals) >= cfg.agree_prom))
                                   if vals else 0.0, None, len(vals), n_clips)
    redecode = redecode_hypothesis(order)
    for aid, c in per_clip.items():
        means = {h: float(np.mean(v)) for h, v in c.items() if v}
        if aid in alt_clip and alt_clip[aid].get("declared"):
            means[redecode] = float(np.mean(alt_clip[aid]["declared"]))
        if not means:
            continue
        top = max(means.values())
        wins["declared" if means.get("declared", -1) >= top - 1e-9 else
             max(means, key=means.get)] += 1
    if alt_clip:
        vals = [p for c in alt_clip.values() for p in c.get("declared", [])]
        base = [p for aid in alt_clip for p in per_clip.get(aid, {}).get("declared", [])]
        scores[redecode] = CandidateScore(
            redecode, float(np.mean(np.asarray(vals) >= cfg.agree_prom)) if vals else 0.0, None,
            len(vals), len(alt_clip),
            declared_agreement_same_clips=float(np.mean(np.asarray(base) >= cfg.agree_prom))
            if base else None)
    for name, n in wins.items():
        scores[name].clips_best = n
    block = decide(order, scores)
    block["measure"] = (f"fraction of direction labels whose prominence in their window is >= "
                        f"{cfg.agree_prom} under each hypothesis")
    return block


# ----------------------------------------------------------------------------------------
# corpus
# ----------------------------------------------------------------------------------------

def audit_sobench(
    root: str | os.PathLike,
    *,
    split: str = "test",
    channel_order: str = "ambix",
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    config: SobenchAuditConfig | None = None,
    keep_maps: bool = False,
) -> AuditResult:
    """Audit the labels of an SO-Bench root (``qa/<split>.jsonl`` and its audio).

    Parameters
    ----------
    root : str or PathLike
        The SO-Bench folder.
    split : str
    channel_order : {"ambix", "fuma"}
        Declared order of the audio.
    workers : int, optional
        Analysis processes (default: all cores).
    progress : bool
        Progress bar on stderr.
    params : AnalysisParams, optional
    config : SobenchAuditConfig, optional
    keep_maps : bool
        Keep each clip's :class:`~foakit.audit.doamap.DoaMap` in the result (memory grows
        with the corpus); by default maps are dropped once the clip is audited.

    Returns
    -------
    AuditResult
        One verdict per label-bearing item; ``summary`` with counts by verdict and field,
        the convention block and the numbers of files.

    Raises
    ------
    FormatError
        The QA file is missing or malformed.
    """
    cfg = config or SobenchAuditConfig()
    order = check_channel_order(channel_order)
    qa = load_qa(root, split)
    root_p = Path(root)
    if root_p.is_file():
        root_p = qa.path.parent.parent
    vocab = class_vocabulary(qa.items)
    groups: dict[str, list[QAItem]] = {}
    for it in qa.items:
        groups.setdefault(it.audio_path, []).append(it)
    failures: list[tuple[str, str]] = []
    jobs, claims = [], {}
    for i, (apath, items) in enumerate(sorted(groups.items())):
        aid = str(items[0].record.get("audio_id") or Path(apath).stem)
        cc = clip_claims(aid, items, vocab, cfg)
        claims[aid] = cc
        try:
            path = resolve_audio_path(root_p, apath)
        except FoakitError as exc:
            failures.append((apath, str(exc)))
            continue
        if not path.is_file():
            failures.append((apath, "no such audio file"))
            continue
        jobs.append((aid, str(path), i < cfg.convention_clips))
    verdicts: dict[str, list[LabelVerdict]] = {}
    draws: dict[str, dict] = {}
    conv: dict[str, dict[str, list[float]]] = {}
    conv_alt: dict[str, dict[str, list[float]]] = {}

    def consume(clip: ClipEstimate) -> None:
        cc = claims[clip.audio_id]
        vs, dr = audit_clip(cc, clip, cfg)
        verdicts[clip.audio_id] = vs
        draws.update(dr)
        if clip.ok:
            conv[clip.audio_id] = _convention_pairs(cc, clip, cfg, clip.doa)
            if clip.alt is not None:
                conv_alt[clip.audio_id] = _convention_pairs(cc, clip, cfg, clip.alt)
        else:
            failures.append((clip.path, clip.error or "analysis failed"))
        if not keep_maps:
            for d in (clip.doa, clip.alt):
                if d is not None:
                    d.dmap = None

    clips = estimate_clips(jobs, channel_order=order, workers=workers, progress=progress,
                           params=params, desc="foakit audit sobench", on_result=consume)
    for aid, cc in claims.items():
        if aid not in verdicts:  # audio missing or refused: corpus checks only
            verdicts[aid], _ = audit_clip(cc, None, cfg)
    out: list[LabelVerdict] = []
    draw: dict[int, dict] = {}
    item_of = {it.qa_id: it for it in qa.items}
    for aid in sorted(verdicts):
        for v in verdicts[aid]:
            qid = v.key["qa_id"]
            d = dict(draws.get(qid, {}))
            d.update(audio_id=aid, path=clips[aid].path if aid in clips else None,
                     item=item_of[qid].record)
            draw[len(out)] = d
            out.append(v)
    summary = {
        "kind": "sobench",
        "root": os.path.abspath(root_p),
        "split": split,
        "channel_order": order,
        "n_items": len(qa.items),
        "n_audio": len(groups),
        "n_audio_audited": sum(1 for c in clips.values() if c.ok),
        "n_failed": len(failures),
        "duplicate_qa_ids": qa.duplicates,
        "counts": count_verdicts(out),
        "convention": _convention(conv, conv_alt, order, cfg),
        "class_vocabulary": vocab,
        "config": cfg.__dict__,
    }
    return AuditResult("sobench", out, summary, failures,
                       {a: c for a, c in clips.items() if c.ok}, draw)
