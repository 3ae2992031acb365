"""What the analysed events and the onsets of a whole clip say about a direction label:
the support a label's azimuth has among them, and the analysed source a label points at
when the question names another one (:mod:`foakit.bench.sobench.audit_direction` asks)."""

from __future__ import annotations

import numpy as np

from ...audit.estimates import DoaEstimate
from ...audit.verdicts import LabelVerdict
from ...conventions import azimuth_difference
from ..questions import Cues
from .audit_claims import DirClaim, first_onsets
from .audit_config import SobenchAuditConfig


def _stationary_events(doa: DoaEstimate) -> list[dict] | None:
    """The analysed events that have an azimuth, or None when one of them moves (a moving
    event makes the clip's directions unreliable)."""
    evs = [e for e in doa.events if e.get("azimuth_deg") is not None]
    if any(e.get("motion") not in (None, "stationary") for e in evs):
        return None
    return evs


def _unsupported_azimuth(doa: DoaEstimate | None, cfg: SobenchAuditConfig, key: dict,
                         label: float, best: tuple[float, float] | None, cues: Cues,
                         ev: dict) -> LabelVerdict | None:
    """Somewhere in a reverberant clip almost any direction holds its second of energy: an
    azimuth label held against the whole clip is suspicious (``unsupported_conf``) when no
    analysed event and fewer than ``onset_min_votes`` onsets come from it, the clip has at
    least twice that many onsets, and the map's best second (``best``: its azimuth and the
    label's prominence) or, where that second is diffuse (None), every analysed event
    points ``onset_azimuth_gap_deg`` or more elsewhere.  Not for the farthest or quietest
    sound, the one the analysis is likeliest to miss."""
    if cfg.unsupported_conf <= 0 or cues.superlative in ("farthest", "quietest"):
        return None
    sup = _clip_support(doa, cfg, label)
    if sup is None:
        return None
    ev["clip_support"] = sup
    if sup["events"] or sup["onsets"] >= cfg.onset_min_votes \
            or sup["onsets_all"] < 2 * cfg.onset_min_votes:
        return None
    if best is not None:
        estimate, p = best
        where = f"the map shows it only in its best second (prominence {p:.2f})"
    else:
        evs = _stationary_events(doa)
        if not evs:
            return None
        estimate = float(min(evs, key=lambda e: abs(float(azimuth_difference(
            e["azimuth_deg"], label))))["azimuth_deg"])
        where = "the map's best second is diffuse"
    if abs(float(azimuth_difference(estimate, label))) < cfg.onset_azimuth_gap_deg:
        return None
    return LabelVerdict(key, "azimuth", "suspicious", label, estimate, cfg.unsupported_conf,
                        f"no analysed event and {sup['onsets']} of {sup['onsets_all']} "
                        f"onsets come from the labelled azimuth; {where}", ev)


def _another_analysed_sound(doa: DoaEstimate | None, cfg: SobenchAuditConfig, label: float,
                            conflict: list[DirClaim]) -> dict | None:
    """The analysed source the label points at when the analysis's reading of the item
    (``conflict``: its claims) names another one: the label is within ``az_tol_deg +
    sector_slack_deg`` of that source, the claim is ``onset_azimuth_gap_deg`` or more from
    the label, and the two sources' first onsets are ``time_ctx_tol_s`` or more apart (so
    the order or start time the question gives tells them apart).  None otherwise, or when
    a moving event makes directions unreliable."""
    if doa is None or not conflict or not all(
            d.source.startswith("the analysed") and d.az is not None for d in conflict):
        return None
    evs = _stationary_events(doa)
    if evs is None:
        return None
    first = first_onsets(evs)

    def gap(a: float, b: float) -> float:
        return abs(float(azimuth_difference(a, b)))

    claimed = conflict[0].az
    if gap(label, claimed) < cfg.onset_azimuth_gap_deg or not first:
        return None
    mine = min(first.values(), key=lambda e: gap(e["azimuth_deg"], claimed))
    near = min(first.values(), key=lambda e: gap(e["azimuth_deg"], label))
    if near is mine or gap(near["azimuth_deg"], label) > cfg.az_tol_deg + cfg.sector_slack_deg \
            or abs(near["onset_s"] - mine["onset_s"]) < cfg.time_ctx_tol_s:
        return None
    return {"azimuth_deg": round(float(near["azimuth_deg"]), 1),
            "onset_s": round(float(near["onset_s"]), 2),
            "claimed_onset_s": round(float(mine["onset_s"]), 2)}


def _clip_support(doa: DoaEstimate | None, cfg: SobenchAuditConfig, az: float) -> dict | None:
    """What of the whole clip comes from azimuth ``az``: the analysed events (stationary,
    within ``az_tol_deg + sector_slack_deg``) and the onsets (within ``onset_az_tol_deg``),
    with how many there are in all; None when a moving event makes directions unreliable or
    the analysis found nothing to count."""
    if doa is None:
        return None
    evs = _stationary_events(doa)
    if not evs:
        return None
    near_ev = [e for e in evs if abs(float(azimuth_difference(e["azimuth_deg"], az)))
               <= cfg.az_tol_deg + cfg.sector_slack_deg]
    o = doa.onsets
    n_on, near_on = 0, 0
    if o is not None and len(o):
        o = np.asarray(o, dtype=float)
        n_on = len(o)
        near_on = int(np.sum(np.abs(azimuth_difference(o[:, 1], az))
                             <= cfg.onset_az_tol_deg))
    return {"events": len(near_ev), "events_all": len(evs), "onsets": near_on,
            "onsets_all": n_on}
