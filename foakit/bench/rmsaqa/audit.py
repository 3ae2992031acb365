"""RMS-AQA audit: the signal-decidable stage-2 answers, and the corpus' conventions.

Answer checks
-------------
Stage-2 items whose options state counts, directions or times are held against foakit's
analysis of the clip, exactly as the dsp baseline reads them (:func:`.baselines.dsp_answer`
scores every option).  The reference answer is

* ``consistent`` when it is (among) the best-supported options;
* ``suspicious`` when another option is clearly better supported *and* the reference is
  itself contradicted: a count off by ``count_margin`` or more; a direction farther than
  ``direction_tol_deg`` plus the option's own width from every analysed source, with a
  better option at least ``direction_margin_deg`` closer; an interval with IoU below
  ``span_iou_bad`` with every event while another has ``span_iou_good``; an onset more
  than ``onset_bad_s`` from every event onset while another is within ``onset_good_s``;
* ``unverifiable`` otherwise (no checkable claim, no analysis, or evidence too weak).

Convention audit
----------------
Over the localization answers that state a direction (those on clips where the analysis
finds one source, when there are at least ``min_single_source_answers`` of them, else all),
the stated direction is compared with the directions of the clip's analysed sources under
each hypothesis: the channel
readings ambiX (W, Y, Z, X) and W, X, Y, Z (FuMa's order, and the public baseline's reading
of channels 0..3 as w, x, y, z) crossed with the azimuth conventions as declared, mirrored
(az -> -az) and front-back (az -> 180 - az).  Source directions under each reading come
from the pseudo-intensity of the raw channels over each source's events (the reading does
not change where the events are in time).  Which normalisation the files carry (SN3D,
N3D's sqrt(3) dipoles or FuMa's W at -3 dB) does not move a direction; it shows in the
dipoles' power over the omni's, 1 for SN3D, 3 for N3D and 2 for FuMa weights, measured on
the loud bins of the clips (:func:`foakit.audit.conventions.normalisation_verdict`, the
block's ``"normalisation"``) and named in ``"channel_reading"``.  The decision is
:func:`foakit.audit.conventions.decide` (the same ``"convention"`` block as the other
audits).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...audit.common import AuditResult, LabelVerdict, apply_hypothesis, count_verdicts
from ...audit.conventions import (
    DESCRIPTIONS,
    CandidateScore,
    decide,
    normalisation_stats,
    normalisation_verdict,
)
from ...conventions import (
    azimuth_difference,
    check_channel_order,
    resolve_normalisation,
    to_internal,
    vector_to_direction,
)
from ...errors import ParameterError
from .baselines import DspConfig, analyze_for_qa, dsp_answer
from .claims import read_claim
from .format import QASet, audio_file

__all__ = ["AuditConfig", "READINGS", "audit_rmsaqa", "source_directions",
           "write_audit"]

#: Channel readings: which raw channels are x, y, z (W is channel 0 in both).
READINGS = {"ambix": (3, 1, 2), "fuma": (1, 2, 3)}
_ANGLE_MAPS = ("declared", "mirror_azimuth", "front_back")
_READING_NAMES = {
    ("W, Y, Z, X", "SN3D"): "ambiX (ACN order, SN3D)",
    ("W, X, Y, Z", "FuMa"): "FuMa (W, X, Y, Z, W at -3 dB)",
    ("W, X, Y, Z", "SN3D"): "W, X, Y, Z at SN3D weights (the public baseline's reading of "
                            "channels 0..3 as w, x, y, z)",
    ("W, Y, Z, X", "FuMa"): "ACN order with FuMa's W at -3 dB",
    ("W, Y, Z, X", "N3D"): "ACN order, N3D (dipoles sqrt(3) x SN3D)",
    ("W, X, Y, Z", "N3D"): "W, X, Y, Z at N3D weights",
}
_WEIGHTS = {"sn3d": "SN3D", "fuma": "FuMa (W at -3 dB)", "n3d": "N3D (dipoles sqrt(3) x SN3D)"}


@dataclass(frozen=True)
class AuditConfig:
    """Thresholds of the answer checks and the convention audit (see the module docstring)."""

    count_margin: int = 1
    direction_tol_deg: float = 25.0
    direction_margin_deg: float = 30.0
    span_iou_bad: float = 0.2
    span_iou_good: float = 0.5
    onset_bad_s: float = 1.0
    onset_good_s: float = 0.3
    convention_tol_deg: float = 25.0
    min_single_source_answers: int = 12
    band_hz: tuple[float, float] = (200.0, 4000.0)

    def __post_init__(self) -> None:
        for name in ("direction_tol_deg", "direction_margin_deg", "onset_bad_s",
                     "onset_good_s", "convention_tol_deg"):
            if not getattr(self, name) > 0:
                raise ParameterError(f"{name}={getattr(self, name)!r} must be > 0")


def _intensity(x: np.ndarray, sr: int, band: tuple[float, float]):
    """Per-frame cross terms Re{conj(ch0) ch_k}, k = 1..3, summed over the band, and the
    frame times."""
    from scipy.signal import stft

    nper = 1024 if sr >= 20000 else 512
    f, t, z = stft(x, fs=sr, nperseg=nper, noverlap=nper // 2, boundary=None, padded=False)
    sel = (f >= band[0]) & (f <= band[1])
    z = z[:, sel, :]
    cross = np.real(np.conj(z[0])[None] * z[1:]).sum(axis=1)  # (3, frames)
    return cross, t


def source_directions(samples: np.ndarray, sr: int, rec: Mapping, *,
                      band: tuple[float, float] = (200.0, 4000.0)) -> dict[str, list[float]]:
    """Azimuth of each analysed source under each channel reading.

    Parameters
    ----------
    samples : ndarray [shape=(4, n)]
        The file's channels as stored (no conversion).
    sr : int
    rec : mapping
        The clip's analysis record (its events give the sources' times).

    Returns
    -------
    dict
        Reading name (:data:`READINGS`) -> azimuths (degrees), one per source with events.
    """
    cross, t = _intensity(samples, sr, band)
    by: dict[Any, list[tuple[float, float]]] = {}
    for e in rec.get("events") or []:
        by.setdefault(e.get("source"), []).append((e["onset_s"], e["offset_s"]))
    out: dict[str, list[float]] = {r: [] for r in READINGS}
    for sid, spans in by.items():
        mine = np.zeros(t.shape, bool)
        for a, b in spans:
            mine |= (t >= a) & (t < b)
        other = np.zeros(t.shape, bool)
        for oid, ospans in by.items():
            if oid != sid:
                for a, b in ospans:
                    other |= (t >= a) & (t < b)
        frames = mine & ~other if np.any(mine & ~other) else mine
        if not np.any(frames):
            continue
        c = cross[:, frames].sum(axis=1)
        for name, (ix, iy, iz) in READINGS.items():
            az, _ = vector_to_direction(np.array([c[ix - 1], c[iy - 1], c[iz - 1]]))
            out[name].append(float(az))
    return out


def _check(it, rec, cfg: AuditConfig) -> LabelVerdict:
    key = {"segment_id": it.segment_id, "item": it.index, "category": it.category,
           "audio_path": it.audio_path}
    letter, info = dsp_answer(it.stage2.question, it.stage2.options, rec, stage=2,
                              cfg=DspConfig())
    rule = info["rule"]
    field = {"count": "count", "direction": "direction", "onset": "onset",
             "span": "time_span"}.get(rule, "answer")
    ref = it.stage2.answer
    label = it.stage2.options[ref]
    if info["abstained"]:
        return LabelVerdict(key, field, "unverifiable", label=label,
                            reason=info.get("why", "nothing to check"), evidence=info)
    scores = info["scores"]
    best = min(scores.values())
    mine = scores[ref]
    est = it.stage2.options[letter]
    ev = dict(info, reference=ref, best=letter)
    if ref in info["tied"]:
        return LabelVerdict(key, field, "consistent", label=label, estimate=est, evidence=ev)
    bad = False
    conf = 0.0
    if rule == "count":
        bad = mine >= cfg.count_margin
        conf = min(1.0, 0.4 * mine)
        why = f"the analysis finds {info['n_sources']} source(s)" + (
            f", at most {info['n_overlap']} at once" if info.get("count_kind") == "overlap"
            else "")
    elif rule == "direction":
        claim = read_claim(label)
        width = claim.halfwidth_deg or 0.0
        bad = mine > cfg.direction_tol_deg + width and mine - best >= cfg.direction_margin_deg
        conf = min(1.0, (mine - best) / 90.0) * (1.0 if len(info["source_azimuths_deg"]) == 1
                                                 else 0.6)
        why = (f"no analysed source is within {mine:.0f} deg of the stated direction "
               f"(sources at {info['source_azimuths_deg']} deg)")
    elif rule == "span":
        bad = 1.0 - mine < cfg.span_iou_bad and 1.0 - best >= cfg.span_iou_good
        conf = min(1.0, mine - best)
        why = f"IoU {1 - mine:.2f} with the best-matching event (another option {1 - best:.2f})"
    else:
        bad = mine > cfg.onset_bad_s and best <= cfg.onset_good_s
        conf = min(1.0, (mine - best) / 3.0)
        why = f"{mine:.1f} s from every event onset (another option {best:.1f} s)"
    if bad:
        return LabelVerdict(key, field, "suspicious", label=label, estimate=est,
                            confidence=conf, reason=why, evidence=ev)
    return LabelVerdict(key, field, "unverifiable", label=label, estimate=est,
                        reason="the signal does not clearly prefer another option",
                        evidence=ev)


def _candidate_name(reading: str, declared: str, angle: str) -> str:
    if reading == declared:
        return angle
    base = f"{reading}_as_{declared}"
    return base if angle == "declared" else f"{base}+{angle}"


def _convention(qa: QASet, records: Mapping, declared: str, cfg: AuditConfig,
                normalisation: str | None = None) -> tuple[dict, dict]:
    """The convention block and the per-clip evidence."""
    import soundfile as sf

    norm = resolve_normalisation(declared, normalisation)
    per_item: list[tuple[str, dict[str, float]]] = []
    stats = []
    cache: dict[str, dict[str, list[float]]] = {}
    for it in qa:
        rec = records.get(it.audio_path)
        claim = read_claim(it.stage2.options[it.stage2.answer])
        if it.category_id != 2 or claim.azimuth_deg is None or rec is None:
            continue
        if it.audio_path not in cache:
            x, sr = sf.read(os.path.realpath(audio_file(qa, it)), dtype="float32",
                            always_2d=True)
            cache[it.audio_path] = source_directions(x.T, sr, rec, band=cfg.band_hz)
            if x.shape[1] == 4:
                stats.append(normalisation_stats(
                    to_internal(x.T, declared, normalisation=norm), sr))
        dirs = cache[it.audio_path]
        errs = {}
        for reading in READINGS:
            if not dirs[reading]:
                continue
            for angle in _ANGLE_MAPS:
                az, _ = apply_hypothesis(angle, claim.azimuth_deg, 0.0)
                errs[_candidate_name(reading, declared, angle)] = float(min(
                    abs(azimuth_difference(float(az), s)) for s in dirs[reading]))
        if errs:
            per_item.append((it.audio_path, errs, len(dirs[declared])))
    # one analysed source leaves no other source for a wrong hypothesis to land on by
    # chance, so those clips decide when there are enough of them
    single = [(c, e) for c, e, n in per_item if n == 1]
    use_single = len(single) >= cfg.min_single_source_answers
    per_item = single if use_single else [(c, e) for c, e, _ in per_item]
    tol = cfg.convention_tol_deg
    names = sorted({n for _, e in per_item for n in e},
                   key=lambda n: (n != "declared", n))
    scores: dict[str, CandidateScore] = {}
    by_clip: dict[str, dict[str, list[float]]] = {}
    for clip, errs in per_item:
        for n, e in errs.items():
            by_clip.setdefault(clip, {}).setdefault(n, []).append(e)
    for n in names:
        errs = [e[n] for _, e in per_item if n in e]
        agree = [x <= tol + 22.5 for x in errs]
        scores[n] = CandidateScore(n, float(np.mean(agree)) if agree else 0.0,
                                   float(np.median(errs)) if errs else None, len(errs),
                                   sum(1 for c in by_clip.values() if n in c))
    for c in by_clip.values():
        per = {n: float(np.mean([x <= tol + 22.5 for x in v])) for n, v in c.items()}
        top = max(per.values())
        winners = ["declared"] if per.get("declared", -1) >= top - 1e-9 else \
            [n for n, v in per.items() if v >= top - 1e-9]
        for n in winners:
            scores[n].clips_best += 1
    if "declared" not in scores:
        scores["declared"] = CandidateScore("declared", 0.0, None, 0, 0)
    block = decide(declared, scores)
    block["normalisation"] = nv = normalisation_verdict(norm, stats)
    ratio = nv["ratio_file"]
    weights = _WEIGHTS.get(nv["supported"])
    best = block.get("best") or "declared"
    reading = declared if not best.startswith(tuple(f"{r}_as_" for r in READINGS)) else \
        best.split("_as_")[0]
    order = "W, Y, Z, X" if reading == "ambix" else "W, X, Y, Z"
    block["channel_reading"] = {
        "order": order,
        "dipole_to_omni_power": None if ratio is None else round(ratio, 3),
        "weights": weights,
        "name": None if weights is None else _READING_NAMES[(order, weights.split()[0])],
        "note": "the files' dipole / omni power on loud bins (the normalisation block): 1 "
                "for SN3D, 2 for FuMa weights, 3 for N3D; directions do not depend on the "
                "weights, so the W, X, Y, Z reading at SN3D and at FuMa weights differ only "
                "here",
    }
    block["descriptions"] = {n: DESCRIPTIONS.get(n.split("+")[0], "") +
                             (f"; and {DESCRIPTIONS[n.split('+')[1]]}" if "+" in n else "")
                             for n in scores}
    block["tolerance_deg"] = f"{tol} + 22.5 (a stated sector's half-width)"
    block["answers_used"] = ("localization answers on clips with one analysed source"
                             if use_single else "localization answers on all clips (fewer "
                             f"than {cfg.min_single_source_answers} on one-source clips)")
    return block, {c: {n: [round(x, 1) for x in v] for n, v in d.items()}
                   for c, d in by_clip.items()}


def audit_rmsaqa(qa: QASet, *, channel_order: str = "ambix",
                 analysis_dir: str | os.PathLike | None = None, workers: int | None = None,
                 progress: bool = False, cfg: AuditConfig = AuditConfig(),
                 dask: Any = None, normalisation: str | None = None) -> AuditResult:
    """Audit an RMS-AQA QA set against its audio (see the module docstring).

    ``normalisation`` (``"sn3d"``, ``"n3d"``, ``"fuma"``; None: the order's own) is the
    declared normalisation of the audio, converted to SN3D when the clips are analysed; the
    convention block's ``"normalisation"`` says which one the signal supports.

    Returns
    -------
    AuditResult
        ``verdicts`` (one per stage-2 item), ``summary`` (counts, the ``"convention"``
        block, per-category counts), ``failures`` (audio that could not be analysed).
    """
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    records, problems = analyze_for_qa(qa, analysis_dir, channel_order=order,
                                       workers=workers, progress=progress, dask=dask,
                                       normalisation=norm)
    verdicts = [_check(it, records.get(it.audio_path), cfg) for it in qa]
    block, evidence = _convention(qa, records, order, cfg, norm)
    by_cat: dict[str, dict[str, int]] = {}
    for v in verdicts:
        c = by_cat.setdefault(v.key["category"], {"consistent": 0, "suspicious": 0,
                                                  "unverifiable": 0})
        c[v.verdict] += 1
    summary = {"benchmark": "rmsaqa", "qa_file": str(qa.path),
               "audio_root": str(qa.audio_root), "channel_order": order,
               "normalisation": norm,
               "counts": count_verdicts(verdicts), "by_category": by_cat,
               "convention": block, "convention_evidence": evidence,
               "config": asdict(cfg), "qa_problems": [str(p) for p in qa.problems]}
    if block.get("mismatch"):
        summary["note"] = ("the convention audit names a mismatch; the direction verdicts "
                           "read the corpus as declared, so their flags may be its symptom: "
                           "audit again with the convention fixed")
    failures = [(p.split(":", 1)[0], p.split(":", 1)[-1].strip()) for p in problems]
    return AuditResult(kind="rmsaqa", verdicts=verdicts, summary=summary, failures=failures)


def _flag_figure(v: LabelVerdict, path, plt) -> bool:
    """A direction flag on a polar plot, a time flag on a timeline; False for others."""
    ev = v.evidence
    ref, est = read_claim(str(v.label)), read_claim(str(v.estimate))
    if v.field == "direction" and ref.azimuth_deg is not None:
        fig = plt.figure(figsize=(4.2, 4.2))
        ax = fig.add_subplot(projection="polar")
        ax.set_theta_zero_location("N")  # front up, +90 (left) to the left
        for az in ev.get("source_azimuths_deg", []):
            ax.plot([np.deg2rad(az)] * 2, [0, 1], color="0.4", lw=3)
        for claim, color, name in ((ref, "C3", "reference"), (est, "C2", "signal's choice")):
            if claim.azimuth_deg is not None:
                ax.plot([np.deg2rad(claim.azimuth_deg)] * 2, [0, 0.8], color=color, lw=2,
                        label=f"{name}: {claim.azimuth_deg:.0f} deg")
        ax.set_yticks([])
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, -0.28), fontsize=8)
        ax.set_title("grey: analysed sources", fontsize=9)
    elif v.field in ("onset", "time_span"):
        fig, ax = plt.subplots(figsize=(7, 2.2))
        for k, (a, b) in enumerate(ev.get("events", [])):
            ax.plot([a, b], [0, 0], color="0.4", lw=6, solid_capstyle="butt",
                    label="analysed events" if k == 0 else None)
        for claim, color, y, name in ((ref, "C3", 1, "reference"),
                                      (est, "C2", -1, "signal's choice")):
            if claim.span is not None:
                ax.plot(claim.span, [y, y], color=color, lw=4, label=name)
            elif claim.onset_s is not None:
                ax.plot([claim.onset_s], [y], "v", color=color, ms=9, label=name)
        ax.set_ylim(-2, 2)
        ax.set_yticks([])
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=8, ncol=3, loc="upper right")
    else:
        return False
    fig.suptitle(f"{v.key['segment_id']} #{v.key['item']} {v.field}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def write_audit(result: AuditResult, out_dir: str | os.PathLike, *, figures: bool = True,
                max_figures: int | None = None) -> dict:
    """Write flags.jsonl, verdicts.jsonl, summary.json and index.md (the SO-Bench audit's
    files), ``figures/convention.png`` (agreement per hypothesis) and one figure per flagged
    direction or time answer (the ``max_figures`` most confident; None = all), named in
    its flags.jsonl line."""
    import json
    from pathlib import Path

    from ...audit.report import FLAGS_FILE, SUMMARY_FILE, write_report

    paths = write_report(result, out_dir, figures=False)
    if not figures:
        return paths
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    fdir = out / "figures"
    fdir.mkdir(exist_ok=True)
    cands = result.summary["convention"]["candidates"]
    names = list(cands)
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(names) + 1.2))
    ax.barh(names, [100 * cands[n]["agreement"] for n in names],
            color=["C1" if n == result.summary["convention"].get("best") else "C0"
                   for n in names])
    ax.set_xlabel("localization answers agreeing with the signal (%)")
    ax.set_xlim(0, 100)
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(fdir / "convention.png", dpi=90)
    plt.close(fig)
    made = ["figures/convention.png"]
    flagged = sorted(result.flagged, key=lambda v: -v.confidence)  # flags.jsonl's order
    lines = Path(paths["flags"]).read_text(encoding="utf-8").splitlines()
    for k, v in enumerate(flagged):
        if max_figures is not None and k >= max_figures:
            break
        rel = f"figures/{v.key['segment_id']}_{v.key['item']}_{v.field}.png"
        try:
            ok = _flag_figure(v, out / rel, plt)
        except Exception:  # a figure must never sink the report
            ok = False
        if ok:
            made.append(rel)
            rec = json.loads(lines[k])
            rec["figure"] = rel
            lines[k] = json.dumps(rec, allow_nan=False)
    Path(out, FLAGS_FILE).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    summary = json.loads(Path(paths["summary"]).read_text())
    summary["files"]["figures"] = made
    Path(out, SUMMARY_FILE).write_text(json.dumps(summary, indent=2))
    paths["figures"] = [out / m for m in made]
    return paths
