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
read from the answers of the source tasks and from "the sound of the X" phrases; where the
records carry ``source_refs``, the items of one source share its class).  For each
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
the DOA map in windows of diffuseness <= ``elevation_max_psi`` (reverberation biases its
elevation); in more diffuse windows a sign flip is still caught when the analysis's own event
for the source (whitened, onset-weighted votes, which hold up in rooms) sits at the mirrored
elevation (``event_flip_conf``).  Likewise for times: where the class's direction is known
and one analysed source sounds there, its events' onsets (from in-cone onset bins, which
reverberation does not smear as it smears the energy map's presence) decide a conflict
between two time claims, and a label none of them starts at (``event_time_tol_s``) while one
starts ``min_shift_s`` or more away (a span: with its end moved alike) is suspicious
(``event_shift_conf``), unless other items agree with it (overruling them that way flagged
as many clean labels as shifted ones).  A label with neither context nor
usable signal (no DOA votes, a diffuse field, a moving source) is unverifiable, with the
reason.

Convention audit
----------------
Every direction label is scored under each hypothesis of :mod:`foakit.audit.common` (angle
maps of the labels; the other channel order by decoding the audio again on up to
``convention_clips`` clips); see :func:`foakit.audit.conventions.decide`.

Modules
-------
This module runs the audit (:func:`audit_sobench`, :func:`audit_clip`), judges counts,
relations and distances and scores the conventions; the rest lives in
:mod:`~foakit.audit.sobench_config` (thresholds), :mod:`~foakit.audit.sobench_claims` (what
the items say), :mod:`~foakit.audit.sobench_direction` (direction verdicts and the signal
helpers) and :mod:`~foakit.audit.sobench_time` (onset and span verdicts).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ...audit.conventions import CandidateScore, decide, normalisation_verdict
from ...audit.estimates import ClipEstimate, DoaEstimate
from ...audit.hypotheses import (
    ANGLE_HYPOTHESES,
    apply_hypothesis,
    best_hypothesis,
    redecode_hypothesis,
)
from ...audit.run import run_audit
from ...audit.verdicts import AuditResult, LabelVerdict, count_verdicts
from ...conventions import azimuth_difference, check_channel_order, resolve_normalisation
from ...errors import FoakitError
from ...params import AnalysisParams
from ..paths import resolved
from .audit_claims import (
    _RELATION_WORDS,
    ClipClaims,
    _num,
    anonymous_sources,
    class_vocabulary,
    clip_claims,
    resolve_by_events,
    source_names,
)
from .audit_claims import DirClaim as DirClaim
from .audit_claims import TimeClaim as TimeClaim
from .audit_config import SobenchAuditConfig
from .audit_direction import _audit_direction, _Ctx, _key, _signal_direction, _unusable
from .audit_time import _audit_time, audit_onset_by_direction
from .format import QAItem, load_qa, resolve_audio_path

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

# ----------------------------------------------------------------------------------------
# verdicts
# ----------------------------------------------------------------------------------------

def _audit_count(x: _Ctx, it: QAItem) -> LabelVerdict:
    cc = x.cc
    key = _key(cc, it)
    n = _num((it.answer_meta or {}).get("active_count"))
    named_sounds = source_names(cc)
    named = len(named_sounds)
    ev = {"classes_named": sorted(cc.classes), "sources_named": named_sounds}
    if x.doa is not None:
        ev["signal_sources"] = len({e.get("source") for e in x.doa.events})
    if n is None:
        return LabelVerdict(key, "count", "unverifiable", None, reason="no active_count",
                            evidence=ev)
    if n < named:
        return LabelVerdict(key, "count", "suspicious", n, named, 0.9,
                            f"the clip's source questions name {named} different sounds "
                            f"({', '.join(named_sounds)}) but the count is {n:g}", ev)
    if n == named:
        return LabelVerdict(key, "count", "consistent", n, named, evidence=ev)
    if ev.get("signal_sources") is not None and ev["signal_sources"] >= n:
        return LabelVerdict(key, "count", "consistent", n, ev["signal_sources"], evidence=ev)
    return LabelVerdict(key, "count", "unverifiable", n, ev.get("signal_sources"),
                        reason=f"only {named} sounds are named by this clip's source "
                               "questions and the DSP "
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
    if attr == "az":
        # "left of" is the more lateral position, or the counter-clockwise side: for two
        # sounds far apart (one behind) the two readings differ, and either may be meant
        ccw = float(azimuth_difference(va[0], vb[0]))
        if abs(ccw) > cfg.relation_max_sep_deg or (ccw > 0) != (d > 0):
            ev["counter_clockwise_deg"] = round(ccw, 1)
            return LabelVerdict(key, "relation", "unverifiable", rel,
                                reason=f"the {a} and the {b} are {abs(ccw):.0f} deg apart: "
                                       "'left of' as the more lateral position and as the "
                                       "counter-clockwise side disagree there", evidence=ev)
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
    unconfirmed = [val[1] for val in (va, vb) if val[2] and attr in ("az", "el")
                   and (x.verdict.get(val[1]) is None
                        or x.verdict[val[1]].verdict != "consistent")]
    if unconfirmed:
        return LabelVerdict(key, "relation", "unverifiable", rel, expect,
                            reason=f"the {a} ({va[0]:.1f}) and the {b} ({vb[0]:.1f}) make it "
                                   f"{expect}, but {', '.join(unconfirmed)} is a label the "
                                   "signal does not confirm", evidence=ev)
    return LabelVerdict(key, "relation", "suspicious", rel, expect, 0.7,
                        f"the {a} ({va[0]:.1f}, {va[1]}) and the {b} ({vb[0]:.1f}, {vb[1]}) "
                        f"make it {expect}, not {rel}", ev)


def _audit_distance(x: _Ctx, it: QAItem) -> LabelVerdict:
    key = _key(x.cc, it)
    d = _num((it.answer_meta or {}).get("distance_m"))
    return LabelVerdict(key, "distance", "unverifiable", d,
                        reason="the DSP distance is a diffuseness proxy, too coarse to judge a "
                               "distance label (relations are checked against it)")


def _without_suspicious_support(x: _Ctx, by_id: dict[str, QAItem]) -> None:
    """A time label found consistent only because other labels agree with it is heard again
    without them when the audit finds every one of them suspicious (labels shifted alike
    confirm each other; the signal may have caught the others)."""
    for t in x.cc.times:
        v = x.verdict.get(t.qa_id)
        if t.source != "label" or t.qa_id not in by_id or v is None \
                or v.verdict != "consistent" or v.field not in ("time_span", "onset"):
            continue
        agreeing = {c["qa_id"] for c in v.evidence.get("context") or [] if c.get("agrees")}
        if not agreeing or any(u.source != "label" for u in x.cc.times
                               if u.qa_id in agreeing and u.cls == t.cls):
            continue  # a question's own time is support the signal did not overrule
        if all(x.verdict.get(q) is not None and x.verdict[q].verdict == "suspicious"
               for q in agreeing):
            again = _audit_time(x, by_id[t.qa_id], t, dropped=frozenset(agreeing))
            if again.verdict != "consistent":
                again.evidence["dropped_support"] = sorted(agreeing)
                x.verdict[t.qa_id] = again


def _without_suspicious_windows(x: _Ctx) -> None:
    """An azimuth label the signal alone made suspicious, in the time window of another
    item's time label that the audit then finds suspicious, is unverifiable: the signal was
    read at the wrong time.  (An elevation sign flip shows wherever the source sounds, so a
    shifted window that still overlaps it does not undo one.)"""
    for q, v in list(x.verdict.items()):
        if v.verdict != "suspicious" or v.field != "azimuth":
            continue
        src = (v.evidence.get("signal") or {}).get("window_from")
        w = x.verdict.get(src) if isinstance(src, str) else None
        if w is None or src == q or w.verdict != "suspicious" \
                or w.field not in ("time_span", "onset") \
                or any(not c.get("agrees") for c in v.evidence.get("context") or []):
            continue
        ev = dict(v.evidence, set_aside=v.reason)
        x.verdict[q] = LabelVerdict(v.key, v.field, "unverifiable", v.label, v.estimate,
                                    reason=f"the signal was read in the time window of {src}, "
                                           "whose label the audit finds suspicious",
                                    evidence=ev)


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
    if ok and x.doa is not None:
        resolve_by_events(cc, x.doa.events, cfg)
        if cfg.anonymous_sources:
            anonymous_sources(cc)
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
            it = by_id[t.qa_id]
            # an onset asked by direction alone: the events from that direction first
            # (a source of its own), or when the class found there leaves it unverifiable
            v = None
            if it.task_name == "onset_from_location" and t.cls in cc.pseudo:
                v = audit_onset_by_direction(x, it)
            if v is None or v.verdict == "unverifiable":
                v = _audit_time(x, it, t)
                if (v.verdict == "unverifiable" and it.qa_id in cc.by_cue
                        and it.task_name == "onset_from_location"):
                    v = audit_onset_by_direction(x, it) or v
            x.verdict[t.qa_id] = v
    _without_suspicious_support(x, by_id)
    _without_suspicious_windows(x)
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
        if it.task_name == "onset_from_location" and cc.subject.get(it.qa_id) is None:
            v = audit_onset_by_direction(x, it)
            if v is not None:
                x.verdict[it.qa_id] = v
                continue
        why = f"no {fld} label in answer_meta"
        if cc.subject.get(it.qa_id) is None:
            why = "the item names no sound class the audit can follow" + (
                f" ({cc.unresolved[it.qa_id]})" if it.qa_id in cc.unresolved else "")
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
        wins[best_hypothesis(means)] += 1
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
    normalisation: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    params: AnalysisParams | None = None,
    config: SobenchAuditConfig | None = None,
    keep_maps: bool = False,
    estimates_dir: str | os.PathLike | None = None,
    retry_errors: bool = False,
    dask: Any = None,
) -> AuditResult:
    """Audit the labels of an SO-Bench root (``qa/<split>.jsonl`` and its audio).

    Parameters
    ----------
    root : str or PathLike
        The SO-Bench folder.
    split : str
    channel_order : {"ambix", "fuma"}
        Declared order of the audio.
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Declared normalisation of the audio (None: the order's own, SN3D for ambiX); the
        clips are converted to SN3D when read, and the convention block's
        ``"normalisation"`` says which normalisation the signal supports
        (:func:`foakit.audit.conventions.normalisation_verdict`).
    workers : int, optional
        Analysis processes (default: all cores).
    progress : bool
        Progress bar on stderr.
    params : AnalysisParams, optional
        Default :data:`foakit.audit.preset.AUDIT_PARAMS` (what the audits are calibrated on).
    config : SobenchAuditConfig, optional
    keep_maps : bool
        Keep each clip's :class:`~foakit.audit.doamap.DoaMap` in the result (memory grows
        with the corpus); by default maps are dropped once the clip is audited.
    estimates_dir : str or PathLike, optional
        Checkpoint folder (:mod:`foakit.audit.checkpoint`): clips analysed by an earlier run
        with the same audio, channel order and parameters are read back instead of analysed,
        the others are saved there as they finish, and the result's ``clips`` are read from
        it on access, so memory does not grow with the corpus.  None: nothing is written and
        the result holds every analysed clip.
    retry_errors : bool
        Analyse again the clips whose checkpoint records a failure.
    dask : str, DaskCluster or distributed.Client, optional
        Analyse the clips on this Dask cluster (:func:`foakit.audit.run.run_audit`).

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
    norm = resolve_normalisation(order, normalisation)
    qa = load_qa(root, split)
    root_p = Path(root)
    if root_p.is_file():
        root_p = qa.path.parent.parent
    vocab = class_vocabulary(qa.items)
    groups: dict[str, list[QAItem]] = {}
    for it in qa.items:
        groups.setdefault(it.audio_path, []).append(it)
    failures: list[tuple[str, str]] = []
    links: dict[str, str] = {}
    no_audio: dict[str, str] = {}  # audio_id -> why its labels were checked without audio
    jobs, claims = [], {}
    for i, (apath, items) in enumerate(sorted(groups.items())):
        aid = str(items[0].record.get("audio_id") or Path(apath).stem)
        cc = clip_claims(aid, items, vocab, cfg)
        claims[aid] = cc
        try:
            path = resolve_audio_path(root_p, apath)
        except FoakitError as exc:
            failures.append((apath, str(exc)))
            no_audio[aid] = str(exc)
            continue
        if not path.is_file():
            failures.append((apath, "no such audio file"))
            no_audio[aid] = f"{apath}: no such audio file"
            continue
        real = resolved(path)
        if real != os.path.abspath(path):  # reached through a symlink: say where it led
            links[apath] = real
        jobs.append((aid, str(path), i < cfg.convention_clips))
    verdicts: dict[str, list[LabelVerdict]] = {}
    draws: dict[str, dict] = {}
    conv: dict[str, dict[str, list[float]]] = {}
    conv_alt: dict[str, dict[str, list[float]]] = {}
    norm_stats: dict[str, Any] = {}

    # everything the audit needs from a clip is taken here, so the clip can be let go
    def consume(clip: ClipEstimate) -> None:
        aid = clip.audio_id
        cc = claims[aid]
        verdicts[aid], draws[aid] = audit_clip(cc, clip, cfg)
        if clip.ok:
            conv[aid] = _convention_pairs(cc, clip, cfg, clip.doa)
            norm_stats[aid] = clip.norm_stats
            if clip.alt is not None:
                conv_alt[aid] = _convention_pairs(cc, clip, cfg, clip.alt)

    run = run_audit(jobs, consume, kind="sobench", base_dir=root_p, channel_order=order,
                    normalisation=norm, workers=workers, progress=progress, params=params,
                    estimates_dir=estimates_dir, retry_errors=retry_errors, keep_maps=keep_maps,
                    dask=dask)
    paths, broken = run.paths, run.broken
    # clips finish in any order (and resumed ones first): everything below goes by job order
    # or sorted ids, so a resumed run writes what an uninterrupted one does
    failures += [broken[aid] for aid, _, _ in jobs if aid in broken]
    no_audio.update({aid: f"{p}: {err}" for aid, (p, err) in broken.items()})
    for aid, cc in claims.items():
        if aid not in verdicts:  # audio missing or refused: corpus checks only
            verdicts[aid], _ = audit_clip(cc, None, cfg)
    for aid, why in no_audio.items():  # every such verdict says it was made without audio
        for v in verdicts.get(aid, []):
            v.evidence["audio"] = f"not used: {why}"
    out: list[LabelVerdict] = []
    draw: dict[int, dict] = {}
    item_of = {it.qa_id: it for it in qa.items}
    for aid in sorted(verdicts):
        for v in verdicts[aid]:
            qid = v.key["qa_id"]
            d = dict(draws.get(aid, {}).get(qid, {}))
            d.update(audio_id=aid, path=paths.get(aid), item=item_of[qid].record)
            draw[len(out)] = d
            out.append(v)
    ok_ids = sorted(conv)
    convention = _convention({a: conv[a] for a in ok_ids},
                             {a: conv_alt[a] for a in ok_ids if a in conv_alt}, order, cfg)
    convention["normalisation"] = normalisation_verdict(norm, [norm_stats.get(a)
                                                              for a in ok_ids])
    summary = {
        "kind": "sobench",
        "root": os.path.abspath(root_p),
        "split": split,
        "channel_order": order,
        "normalisation": norm,
        "n_items": len(qa.items),
        "n_audio": len(groups),
        "n_audio_audited": len(ok_ids),
        "n_failed": len(failures),
        "duplicate_qa_ids": qa.duplicates,
        "audio_links": links,
        "without_audio": {"n_audio": len(no_audio),
                          "n_labels": sum(len(verdicts.get(a, [])) for a in no_audio),
                          "n_suspicious": sum(v.verdict == "suspicious" for a in no_audio
                                              for v in verdicts.get(a, []))},
        "counts": count_verdicts(out),
        "convention": convention,
        "class_vocabulary": vocab,
        "config": cfg.__dict__,
    }
    return run.result("sobench", out, summary, failures, draw, ok_ids)
