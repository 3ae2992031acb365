"""Figures of the signal audits (matplotlib, Agg backend; files are written, nothing shown).

* :func:`plot_distributions`: one figure per measure, its values per group as box plots
  with the points drawn over them.
* :func:`plot_activity`: one item: the spectrogram of the mono signal with the speech score,
  the detected speech segments and the frame level below it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .speech import SpeechActivity, speech_activity

__all__ = ["plot_distributions", "plot_activity"]


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_distributions(values: Mapping[str, Mapping[str, Sequence[float]]],
                       out_dir: str | os.PathLike, *, prefix: str = "dist") -> list[Path]:
    """Box plots of measures per group.

    Parameters
    ----------
    values : mapping
        ``{measure: {group: [values...]}}``; None values are skipped.
    out_dir : str or PathLike
    prefix : str
        File names are ``{prefix}_{measure}.png``.

    Returns
    -------
    list of Path
        The figures written (measures without any value are skipped).
    """
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for measure, groups in values.items():
        names = [g for g in groups if any(v is not None for v in groups[g])]
        if not names:
            continue
        data = [np.array([v for v in groups[g] if v is not None], float) for g in names]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(names) + 2), 4))
        ax.boxplot(data, showfliers=False)
        rng = np.random.default_rng(0)
        for i, d in enumerate(data, 1):
            ax.plot(i + rng.uniform(-0.15, 0.15, len(d)), d, ".", ms=3, alpha=0.5)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(measure)
        ax.set_title(f"{measure} per group")
        fig.tight_layout()
        p = out / f"{prefix}_{measure}.png"
        fig.savefig(p, dpi=80)
        plt.close(fig)
        paths.append(p)
    return paths


def plot_activity(samples: np.ndarray, sr: int, path: str | os.PathLike, *,
                  title: str = "", activity: SpeechActivity | None = None,
                  note: str = "") -> Path:
    """Spectrogram with the speech-activity track of one item.

    Parameters
    ----------
    samples : ndarray [shape=(channels, n)] or [shape=(n,)]
    sr : int
    path : str or PathLike
        The PNG to write.
    title : str
    activity : SpeechActivity, optional
        Computed from the channel mean when not given.
    note : str
        A line under the title (the flags' reasons).

    Returns
    -------
    Path
    """
    from scipy import signal as sps

    plt = _pyplot()
    x = np.asarray(samples, dtype=np.float64)
    mono = x.mean(axis=0) if x.ndim == 2 else x
    if activity is None:
        activity = speech_activity(mono, sr)
    nper = min(1024, max(64, len(mono)))
    f, t, z = sps.spectrogram(mono, fs=sr, nperseg=nper, noverlap=nper * 3 // 4)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 5), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 1]})
    if z.size:
        a1.pcolormesh(t, f / 1000, 10 * np.log10(z + 1e-12), shading="auto", cmap="magma")
    a1.set_ylabel("kHz")
    a1.set_ylim(0, min(8.0, sr / 2000))
    a1.set_title(title + (f"\n{note}" if note else ""), fontsize=9)
    a2.plot(activity.times, activity.prob, lw=1, label="speech score")
    for on, off in activity.segments:
        a2.axvspan(on, off, color="tab:green", alpha=0.25)
    a2.set_ylim(-0.05, 1.05)
    a2.set_ylabel("speech")
    a2.set_xlabel("s")
    a2.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=80)
    plt.close(fig)
    return p
