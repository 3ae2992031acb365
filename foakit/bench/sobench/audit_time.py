"""Onset and time-span verdicts of the SO-Bench audit.

A time label is checked against the spans, onsets and windows other items give its class;
the signal (where the class's direction sounds: its presence in the clip's
:class:`~foakit.audit.doamap.DoaMap`) arbitrates conflicts and judges a label alone (see
:mod:`foakit.audit.sobench`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...audit.evidence import best_onset, onset_score, span_shift
from ...audit.verdicts import LabelVerdict, shift_confidence
from ...conventions import azimuth_difference
from ..questions import AZIMUTH_HALFWIDTH_DEG
from .audit_claims import TimeClaim
from .audit_direction import _class_directions, _Ctx, _key, _new_onsets_at
from .format import QAItem


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


def _arbitrate(x: _Ctx, pres: list, known: bool, lab: TimeClaim, other: TimeClaim,
               events: list[dict] | None = None) -> tuple[int, list[tuple[int, str]]]:
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
    if events and other.kind != "window" and abs(lab.a - other.a) >= cfg.min_shift_s - 1e-9:
        # the class's analysed event starts at one claim's onset and not the other's: it
        # decides (the presence votes stay as evidence)
        sl = _event_starts(events, lab.a, cfg.event_time_tol_s)
        so = _event_starts(events, other.a, cfg.event_time_tol_s)
        if sl != so:
            t = lab.a if sl else other.a
            votes.append((1 if sl else -1, f"the analysed event at its direction starts at "
                                           f"{t:.1f} s"))
            return votes[-1][0], votes
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


def _class_events(x: _Ctx, pres: list) -> list[dict]:
    """Analysed events at the class's known directions (``pres``): stationary, within
    ``az_tol_deg`` of one of them, all of one source (else none: ambiguous).  Their onsets
    come from in-cone onset bins and stay right in rooms where the block energy map's
    presence is smeared by reverberation."""
    cfg = x.cfg
    if x.doa is None or cfg.event_shift_conf <= 0 or not pres:
        return []
    dirs = [az for _, az, _ in pres]
    found = []
    for e in x.doa.events:
        if e.get("azimuth_deg") is None or e.get("motion") not in (None, "stationary"):
            continue
        if min(abs(float(azimuth_difference(e["azimuth_deg"], az))) for az in dirs) \
                <= cfg.az_tol_deg:
            found.append(e)
    return found if len({e.get("source") for e in found}) == 1 else []


def _event_starts(events: list[dict], a: float, tol: float) -> bool:
    return any(abs(float(e["onset_s"]) - a) <= tol for e in events)


def _event_time_shift(x: _Ctx, events: list[dict], kind: str, a: float, b: float, *,
                      unique: bool = False) -> dict | None:
    """The event of ``events`` (the class's, :func:`_class_events`) that shows a time label
    shifted: none of them starts within ``event_time_tol_s`` of the label's onset and one
    starts ``min_shift_s`` to ``max_shift_s`` from it (for a span, with its end shifted
    alike within ``event_time_tol_s``: the whole span moved), the nearest such, or with
    ``unique`` the only one; else None."""
    cfg = x.cfg
    if not events or _event_starts(events, a, cfg.event_time_tol_s):
        return None
    found = []
    for e in events:
        d = float(e["onset_s"]) - a
        if abs(d) < cfg.min_shift_s - 1e-9 or abs(d) > cfg.max_shift_s:
            continue
        if kind == "span" and abs(float(e["offset_s"]) - b - d) > cfg.event_time_tol_s:
            continue
        found.append(e)
    if not found or (unique and len(found) > 1):
        return None
    best = min(found, key=lambda e: abs(float(e["onset_s"]) - a))
    return {k: best.get(k) for k in ("onset_s", "offset_s", "azimuth_deg")}


def _onsets_start_at(x: _Ctx, t0: float, azimuths: list[float]) -> dict | None:
    """The onsets new at ``t0`` (:func:`~foakit.audit.onsets.new_onset_direction`) when they
    come from within ``az_tol_deg`` of one of ``azimuths``: the sound starts there, whatever
    event the analysis made of it; else None."""
    got = _new_onsets_at(x, t0) if azimuths else None
    if got is None or min(abs(float(azimuth_difference(got["azimuth_deg"], a)))
                          for a in azimuths) > x.cfg.az_tol_deg:
        return None
    return got


def _event_verdict(key: dict, fld: str, label, claim: TimeClaim, shifted: dict,
                   ev: dict, conf: float) -> LabelVerdict:
    d = float(shifted["onset_s"]) - claim.a
    est = [claim.a + d, claim.b + d] if fld == "time_span" else claim.a + d
    ev["event"] = shifted
    return LabelVerdict(key, fld, "suspicious", label, est, conf,
                        f"the analysed event at the source's direction "
                        f"({float(shifted['azimuth_deg']):.0f} deg) starts {d:+.1f} s from the "
                        f"labelled {'span' if fld == 'time_span' else 'onset'} (in-cone "
                        "onsets; the energy map is smeared by reverberation)", ev)


def _question_place(x: _Ctx, it: QAItem | None) -> tuple[float, float] | None:
    """(azimuth, half-width) its question places an item's sound at, or None."""
    if it is None:
        return None
    cues = x.cc.cues_of(it)
    if cues.azimuth_deg is None:
        return None
    return float(cues.azimuth_deg), AZIMUTH_HALFWIDTH_DEG[cues.azimuth_kind or "word"]


def _two_places(x: _Ctx, a: str, b: str) -> bool:
    """The questions of items ``a`` and ``b`` place their sounds farther apart than their
    precisions allow one sound to be ("the front" and "36 deg to the left"): the two items
    may be about two sounds that the direction cues made one class."""
    by_id = {i.qa_id: i for i in x.cc.items}
    pa, pb = _question_place(x, by_id.get(a)), _question_place(x, by_id.get(b))
    if pa is None or pb is None:
        return False
    return abs(float(azimuth_difference(pa[0], pb[0]))) > pa[1] + pb[1] + x.cfg.place_slack_deg


def _audit_time(x: _Ctx, it: QAItem, claim: TimeClaim,
                dropped: frozenset[str] = frozenset()) -> LabelVerdict:
    """The verdict on a time label; the labels of the items in ``dropped`` are not heard as
    context."""
    cfg, cc = x.cfg, x.cc
    cls = claim.cls
    fld = "time_span" if claim.kind == "span" else "onset"
    label = [claim.a, claim.b] if fld == "time_span" else claim.a
    key = _key(cc, it)
    ev: dict[str, Any] = {}
    # the item's own question may say when its sound starts; its own label is not evidence
    ctx = [t for t in cc.times if t.cls == cls and t.kind != "window"
           and (t.qa_id != it.qa_id or t.source != "label")
           and not (t.source == "label" and t.qa_id in dropped)]
    wins = [t for t in cc.times if t.cls == cls and t.kind == "window"]
    agree, conflict = [], []
    apart = []
    for t in ctx:
        if abs(t.a - claim.a) <= cfg.time_ctx_tol_s:
            agree.append(t)
        elif t.qa_id != it.qa_id and _two_places(x, it.qa_id, t.qa_id):
            apart.append(t.qa_id)  # perhaps another sound: neither evidence for nor against
        else:
            conflict.append(t)
    for t in wins:  # a window only says "somewhere inside": it can contradict, not confirm
        if fld == "time_span":
            # "the only sound playing between 0 and 3.3 s" holds for a sound that starts at
            # 2.1 s in silence: only a span the window misses contradicts it
            inside = t.b > claim.a - cfg.time_ctx_tol_s and t.a < claim.b + cfg.time_ctx_tol_s
        else:
            inside = t.b >= claim.a - cfg.time_ctx_tol_s
        if not inside:
            conflict.append(t)
    ev["context"] = [{"qa_id": t.qa_id, "kind": t.kind, "span": [t.a, t.b],
                      "agrees": t in agree} for t in ctx + wins]
    if apart:
        ev["other_places"] = apart
    # a conflicting claim that the other claims outvote does not count against this one
    others = [t for t in cc.times if t.cls == cls and t.kind != "window"]

    def outvoted(c: TimeClaim) -> bool:
        rest = [u for u in others if u.qa_id not in (c.qa_id, claim.qa_id)]
        n_agree = sum(1 for u in rest if abs(u.a - c.a) <= cfg.time_ctx_tol_s)
        return len(rest) - n_agree > n_agree

    own = [t for t in ctx if t.qa_id == it.qa_id and t.kind == "onset"
           and abs(t.a - claim.a) > cfg.own_start_tol_s]
    if own and cfg.own_start_conf > 0:
        # the item contradicts itself ("the sound that starts around 2.5 s ... heard from
        # 5.4 s"): no signal reading, which can miss a sound, makes both halves right
        t = own[0]
        est = t.a if fld == "onset" else [t.a, round(t.a + claim.b - claim.a, 3)]
        return LabelVerdict(key, fld, "suspicious", label, est, cfg.own_start_conf,
                            f"the item's own question says its sound starts around {t.a:g} s, "
                            f"{abs(t.a - claim.a):.1f} s from the label", ev)
    if agree:
        conflict = [t for t in conflict if t.kind == "window" or not outvoted(t)]
    pres, known = ([], False)
    if x.doa is not None and x.doa.dmap is not None:
        pres, known = _presences(x, cls)
        ev["direction_known"] = known
        x.draw[it.qa_id] = {"directions": [az for _, az, _ in pres] if known else []}
    events = _class_events(x, pres) if known else []

    def what(t: TimeClaim) -> str:
        return {"window": f"is audible in {t.a:.1f}-{t.b:.1f} s",
                "span": f"spans {t.a:.1f}-{t.b:.1f} s", "onset": f"starts at {t.a:.1f} s"}[t.kind]

    def estimate_from(t: TimeClaim):
        if fld == "onset":
            return t.a
        if t.kind == "onset":
            return [t.a, t.a + claim.b - claim.a]
        return None if t.kind == "window" else [t.a, t.b]

    asked = [t for t in conflict if t.source != "label" and t.kind != "window"]
    # ...unless a question agrees with the label too (two sounds under one name), or the
    # item was tied to its sound by the analysis's ranking, which may be wrong
    by_analysis = any(d.qa_id == it.qa_id and d.source.startswith("the analysed")
                      for d in cc.dirs)
    if asked and not known and pres and not by_analysis \
            and not any(t.source != "label" for t in agree):
        # a question ("the sound that starts around 2.5 s") contradicts the label, and the
        # signal, not knowing where the sound is, would only pick the direction that best
        # explains either claim: what the benchmark's scene says stands
        t = asked[0]
        return LabelVerdict(key, fld, "suspicious", label, estimate_from(t), 0.65,
                            f"{t.origin} ({t.qa_id}) says the {cls} {what(t)}; the sound's "
                            "direction is not known for the signal to overrule it", ev)
    if conflict and len(agree) <= len(conflict):
        # the signal arbitrates against each conflicting claim
        results = []
        for t in conflict:
            vote, votes = (_arbitrate(x, pres, known, claim, t, events) if pres else (0, []))
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
        # what a question says (a detect_source window, "the sound that starts around
        # 3.4 s") comes from the benchmark's own scene, not from a label that may be wrong
        asked = [c for c in conflict if c.source != "label"]
        if asked:
            t = asked[0]
            return LabelVerdict(key, fld, "suspicious", label, estimate_from(t), 0.65,
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
                    f["gain"] >= cfg.agree_override_gain and \
                    not _event_starts(events, claim.a, cfg.event_time_tol_s):
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
    shifted = _event_time_shift(x, events, claim.kind, claim.a, claim.b)
    if shifted is not None and fit["status"] != "shifted":
        # (a class event exists only where the direction is known)
        started = _onsets_start_at(x, claim.a, [az for _, az, _ in pres])
        if started is None:
            return _event_verdict(key, fld, label, claim, shifted, ev, cfg.event_shift_conf)
        ev["start_onsets"] = started
        return LabelVerdict(key, fld, "unverifiable", label,
                            reason="the source's analysed event starts elsewhere, but onsets "
                                   f"new at {claim.a:g} s come from its direction", evidence=ev)
    if fit["status"] == "here":
        return LabelVerdict(key, fld, "consistent", label, evidence=ev)
    if fit["status"] == "shifted" and _event_starts(events, claim.a, cfg.event_time_tol_s):
        # the presence is smeared by reverberation and by sounds nearby; the in-cone onsets
        # of the source's own event are not
        return LabelVerdict(key, fld, "unverifiable", label,
                            reason="the direction's presence fits a shifted time, but an "
                                   "analysed event from the source's direction starts at the "
                                   "label", evidence=ev)
    if fit["status"] == "shifted":
        f = fit["fit"]
        d = f["best_shift_s"]
        est = [claim.a + d, claim.b + d] if fld == "time_span" else claim.a + d
        conf = shift_confidence(f["gain"]) * (1.0 if known else 0.8)
        origin = f"from {f['from']}" if known else "the direction that best explains the label"
        return LabelVerdict(key, fld, "suspicious", label, est, conf,
                            f"the source's direction ({f['direction']:.0f} deg, {origin}) sounds "
                            f"{d:+.1f} s from the labelled "
                            f"{'span' if fld == 'time_span' else 'onset'}", ev)
    moved = _event_time_shift(x, x.doa.events, "span", claim.a, claim.b, unique=True) \
        if claim.kind == "span" and cfg.span_move_conf > 0 else None
    if moved is not None:
        # no sound of the clip starts at the label, and the one sound as long as the label
        # starts elsewhere: the span was moved as a whole
        d = float(moved["onset_s"]) - claim.a
        ev["event"] = moved
        return LabelVerdict(key, fld, "suspicious", label, [claim.a + d, claim.b + d],
                            cfg.span_move_conf,
                            f"the direction does not decide, and no analysed event starts at "
                            f"the labelled span; the only one as long as it starts {d:+.1f} s "
                            "from it", ev)
    return LabelVerdict(key, fld, "unverifiable", label,
                        reason="weak evidence: the source's direction does not clearly sound "
                               "at the labelled time nor at a shifted one (overlap, "
                               "reverberation" + (", direction unknown)" if not known else ")"),
                        evidence=ev)


def audit_onset_by_direction(x: _Ctx, it: QAItem) -> LabelVerdict | None:
    """An ``onset_from_location`` label checked against the analysed events from the
    direction its question names, when the question names no sound class the corpus
    follows ("A sound comes from the back-right (about -144 degrees). When does it
    start?").

    None when the question gives no azimuth or the item no onset label (the caller then
    says why it is unverifiable).
    """
    cfg = x.cfg
    label = (it.answer_meta or {}).get("onset_time")
    cues = x.cc.cues_of(it)
    if (cues.azimuth_deg is None or not isinstance(label, int | float)
            or cfg.direction_onset_conf <= 0):
        return None
    key = _key(x.cc, it)
    tol = AZIMUTH_HALFWIDTH_DEG[cues.azimuth_kind] + cfg.direction_onset_tol_deg
    ev: dict[str, Any] = {"direction_from_question": cues.azimuth_deg, "tolerance_deg": tol,
                          "matched": cues.matched}
    if x.doa is None:
        return LabelVerdict(key, "onset", "unverifiable", label,
                            reason="audio not analysed", evidence=ev)
    near = [e for e in x.doa.events
            if abs(float(azimuth_difference(e["azimuth_deg"], cues.azimuth_deg))) <= tol
            and not (cues.elevation_sign and e["elevation_deg"] * cues.elevation_sign < -10.0)]
    ev["events_from_direction"] = [[round(e["onset_s"], 2), round(e["azimuth_deg"], 1)]
                                   for e in near]
    if near:
        # a sound much nearer the question's direction than the others is the one it means
        off = [abs(float(azimuth_difference(e["azimuth_deg"], cues.azimuth_deg))) for e in near]
        cut = min(off) + cfg.direction_onset_margin_deg
        near = [e for e, d in zip(near, off, strict=True) if d <= cut]
    if not near:
        return LabelVerdict(key, "onset", "unverifiable", label,
                            reason=f"no analysed event comes from about "
                                   f"{cues.azimuth_deg:.0f} deg (the question's direction)",
                            evidence=ev)
    best = min(near, key=lambda e: abs(e["onset_s"] - label))
    gap = float(best["onset_s"] - label)
    if abs(gap) <= cfg.event_time_tol_s:
        return LabelVerdict(key, "onset", "consistent", label, round(best["onset_s"], 2),
                            evidence=ev)
    if abs(gap) >= cfg.direction_onset_shift_s:
        started = _onsets_start_at(x, float(label), [cues.azimuth_deg])
        if started is not None:
            ev["start_onsets"] = started
            return LabelVerdict(key, "onset", "unverifiable", label, round(best["onset_s"], 2),
                                reason=f"no analysed event from about "
                                       f"{cues.azimuth_deg:.0f} deg starts near {label:.1f} s, "
                                       "but onsets new then come from there", evidence=ev)
        return LabelVerdict(
            key, "onset", "suspicious", label, round(best["onset_s"], 2),
            cfg.direction_onset_conf,
            f"no analysed event from about {cues.azimuth_deg:.0f} deg starts near "
            f"{label:.1f} s; the nearest starts at {best['onset_s']:.1f} s ({gap:+.1f} s)",
            ev)
    return LabelVerdict(key, "onset", "unverifiable", label, round(best["onset_s"], 2),
                        reason=f"the nearest event from about {cues.azimuth_deg:.0f} deg "
                               f"starts {gap:+.1f} s from the label: too close to call",
                        evidence=ev)

