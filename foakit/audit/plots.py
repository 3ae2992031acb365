"""Figures of a label audit (matplotlib, Agg backend; nothing is shown, files are written).

* :func:`plot_item`: one audited label: the spectrogram of W with the broadband activity,
  and the per-frame DOA (azimuth and elevation) with the label drawn in (its value over its
  time span, or its span / onset as shaded areas and lines) and the audit's estimate.
* :func:`plot_error_rose`: polar histogram of azimuth label minus estimate over the corpus.
* :func:`plot_error_vs_diffuseness`: angular error against the diffuseness of the source's
  time window.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..conventions import azimuth_difference
from .estimates import ClipEstimate
from .verdicts import AuditResult, LabelVerdict

__all__ = ["plot_item", "plot_error_rose", "plot_error_vs_diffuseness", "direction_errors"]


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _label_parts(v: LabelVerdict, draw: dict) -> dict[str, Any]:
    """What to draw for a verdict: value lines, spans, onsets (seconds and degrees)."""
    out: dict[str, Any] = {"az": [], "el": [], "spans": [], "onsets": [], "track": None,
                           "est_az": None, "est_el": None, "est_spans": [], "est_onsets": []}
    lab, est = v.label, v.estimate
    win = draw.get("window")
    if v.field == "azimuth" and isinstance(lab, int | float):
        out["az"].append((lab, win))
        if isinstance(est, int | float):
            out["est_az"] = (est, win)
    elif v.field == "elevation" and isinstance(lab, int | float):
        out["el"].append((lab, win))
        if isinstance(est, int | float):
            out["est_el"] = (est, win)
    elif v.field == "time_span" and isinstance(lab, list | tuple):
        out["spans"].append(tuple(lab))
        if isinstance(est, list | tuple):
            out["est_spans"].append(tuple(est))
    elif v.field == "onset" and isinstance(lab, int | float):
        out["onsets"].append(lab)
        if isinstance(est, int | float):
            out["est_onsets"].append(est)
    elif v.field == "time" and isinstance(lab, list | tuple):
        out["spans"].append(tuple(lab))
        if isinstance(est, list | tuple):
            out["est_spans"].append(tuple(est))
    if draw.get("label_track"):
        out["track"] = draw["label_track"]
    if isinstance(est, dict):
        out["est_az"] = (est.get("azimuth_deg"), None)
        out["est_el"] = (est.get("elevation_deg"), None)
    for d in draw.get("directions") or []:
        out["az"].append((d, None))
    return out


def plot_item(
    v: LabelVerdict, draw: dict, clip: ClipEstimate | None, out: str | os.PathLike, *,
    channel_order: str = "ambix", title: str | None = None, normalisation: str | None = None,
) -> Path:
    """Figure of one audited label.

    Parameters
    ----------
    v : LabelVerdict
    draw : dict
        What the audit recorded for plotting (``AuditResult.draw`` entry): ``path`` of the
        audio, ``window`` / ``directions`` / ``label_track``.
    clip : ClipEstimate or None
        The clip's analysis (per-frame DOA); None draws the spectrogram and labels only.
    out : str or PathLike
        PNG file written.
    channel_order : str
        Order to read the audio as.
    title : str, optional
    normalisation : str, optional
        Normalisation to read the audio as (None: the order's own).

    Returns
    -------
    Path
    """
    plt = _pyplot()
    from scipy.signal import spectrogram

    from ..io import read_audio

    fig, axes = plt.subplots(3, 1, figsize=(10, 7.5), sharex=True,
                             gridspec_kw={"height_ratios": [1.2, 1, 1]})
    dur = None
    path = draw.get("path")
    if path and os.path.isfile(path):
        try:
            c = read_audio(path, channel_order=channel_order, normalisation=normalisation)
            w = c.samples[0]
            nper = 512 if c.sample_rate <= 24000 else 1024
            f, t, sxx = spectrogram(w, fs=c.sample_rate, nperseg=nper, noverlap=nper // 2)
            axes[0].pcolormesh(t, f / 1000.0, 10 * np.log10(sxx + 1e-12), shading="auto",
                               cmap="magma")
            dur = c.duration_s
        except Exception as exc:  # a figure must not stop a report
            axes[0].text(0.5, 0.5, f"audio not readable: {exc}", transform=axes[0].transAxes,
                         ha="center")
    axes[0].set_ylabel("W, kHz")
    parts = _label_parts(v, draw)
    if clip is not None and clip.frames:
        fr = clip.frames
        t = np.asarray(fr["time_s"])
        act = np.asarray(fr["active"], bool)
        top = axes[0].get_ylim()[1]
        axes[0].fill_between(t, 0, top * 0.04, where=act, color="cyan", step="mid",
                             label="active")
        az, el = np.asarray(fr["azimuth_deg"]), np.asarray(fr["elevation_deg"])
        wgt = np.asarray(fr.get("doa_weight", np.ones_like(t)))
        size = 2 + 10 * np.clip(wgt, 0, 1)
        axes[1].scatter(t[act], az[act], s=size[act], c="0.3", label="DOA per frame")
        axes[2].scatter(t[act], el[act], s=size[act], c="0.3")
        dur = dur or float(t[-1]) if len(t) else dur
    dur = dur or 10.0
    for val, win in parts["az"]:
        a, b = (win if win else (0.0, dur))
        axes[1].hlines(val, a, b, colors="red", linewidth=2.5, label="label")
    for val, win in parts["el"]:
        a, b = (win if win else (0.0, dur))
        axes[2].hlines(val, a, b, colors="red", linewidth=2.5, label="label")
    if parts["est_az"] and parts["est_az"][0] is not None:
        axes[1].axhline(parts["est_az"][0], color="tab:blue", ls="--", label="audit estimate")
    if parts["est_el"] and parts["est_el"][0] is not None:
        axes[2].axhline(parts["est_el"][0], color="tab:blue", ls="--")
    if parts["track"]:
        tr = parts["track"]
        axes[1].plot(tr["time_s"], tr["azimuth_deg"], "r.", ms=4, label="label")
        axes[2].plot(tr["time_s"], tr["elevation_deg"], "r.", ms=4)
    for ax in axes:
        for a, b in parts["spans"]:
            ax.axvspan(a, b, color="red", alpha=0.15)
        for a, b in parts["est_spans"]:
            ax.axvspan(a, b, color="tab:blue", alpha=0.10)
        for x in parts["onsets"]:
            ax.axvline(x, color="red", lw=2)
        for x in parts["est_onsets"]:
            ax.axvline(x, color="tab:blue", lw=1.5, ls="--")
    axes[1].set_ylim(-180, 180)
    axes[1].set_yticks([-180, -90, 0, 90, 180])
    axes[1].set_ylabel("azimuth, deg (+90 left)")
    axes[2].set_ylim(-90, 90)
    axes[2].set_ylabel("elevation, deg")
    axes[2].set_xlabel("time, s")
    axes[2].set_xlim(0, dur)
    handles, labels = axes[1].get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=False))
    if uniq:
        axes[1].legend(uniq.values(), uniq.keys(), loc="upper right", fontsize=8)
    head = title or (f"{v.key.get('qa_id') or v.key.get('audio_id')}: {v.field} {v.verdict}"
                     f" ({v.confidence:.2f})")
    fig.suptitle(head + ("\n" + v.reason[:150] if v.reason else ""), fontsize=9)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def direction_errors(result: AuditResult) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Azimuth errors (label - estimate, deg), diffuseness and verdict of the direction labels
    that have an estimate."""
    errs, psis, verdicts = [], [], []
    for v in result.verdicts:
        lab, est = v.label, v.estimate
        if isinstance(lab, dict) and isinstance(est, dict):
            la, ea = lab.get("azimuth_deg"), est.get("azimuth_deg")
        elif v.field == "azimuth" and isinstance(lab, int | float) and \
                isinstance(est, int | float):
            la, ea = lab, est
        else:
            continue
        if la is None or ea is None or not np.isfinite(la) or not np.isfinite(ea):
            continue
        errs.append(float(azimuth_difference(la, ea)))
        sig = v.evidence.get("signal") if isinstance(v.evidence.get("signal"), dict) else {}
        psi = v.evidence.get("diffuseness", sig.get("psi") if sig else None)
        psis.append(float(psi) if psi is not None else np.nan)
        verdicts.append(v.verdict)
    return np.asarray(errs), np.asarray(psis), verdicts


def plot_error_rose(result: AuditResult, out: str | os.PathLike) -> Path:
    """Polar histogram of azimuth label minus estimate (deg), all and flagged labels."""
    plt = _pyplot()
    errs, _, verdicts = direction_errors(result)
    fig = plt.figure(figsize=(5.5, 5.5))
    ax = fig.add_subplot(111, projection="polar")
    bins = np.deg2rad(np.linspace(-180, 180, 37))
    if len(errs):
        ax.hist(np.deg2rad(errs), bins=bins, color="0.6", label="all")
        flagged = np.array([v == "suspicious" for v in verdicts])
        if flagged.any():
            ax.hist(np.deg2rad(errs[flagged]), bins=bins, color="red", alpha=0.8,
                    label="suspicious")
        ax.legend(loc="lower right", fontsize=8)
    else:
        ax.text(0, 0, "no direction label with an estimate", ha="center")
    ax.set_theta_zero_location("N")
    ax.set_title("azimuth label - estimate (deg, CCW)", fontsize=10)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def plot_error_vs_diffuseness(result: AuditResult, out: str | os.PathLike) -> Path:
    """|azimuth error| against the diffuseness of the source's window."""
    plt = _pyplot()
    errs, psis, verdicts = direction_errors(result)
    fig, ax = plt.subplots(figsize=(6, 4))
    ok = np.isfinite(psis)
    if ok.any():
        col = np.array(["red" if v == "suspicious" else "0.4" for v in verdicts])
        ax.scatter(psis[ok], np.abs(errs[ok]), c=col[ok], s=12)
    ax.set_xlabel("diffuseness of the source's time window")
    ax.set_ylabel("|azimuth label - estimate|, deg")
    ax.set_ylim(0, 180)
    ax.set_xlim(0, 1)
    ax.set_title("error against diffuseness (red: suspicious)", fontsize=10)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
