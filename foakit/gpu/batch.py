"""Batched analysis of many FOA clips at once, on CuPy + Numba CUDA or on NumPy + Numba CPU.

The same code runs with ``xp = cupy`` and the CUDA kernels (:mod:`foakit.kernels.cuda`) or
with ``xp = numpy`` and the CPU kernels, so the batching logic is tested on machines without
a GPU against :func:`foakit.analysis.analyze_samples`.

Layout
------
A batch holds ``B`` clips of one sample rate, zero-padded to a common length ``N`` and stored
channel-major, ``x[4, B, N]``.  Their STFT ``(4, B, T, F)`` is viewed as ``(4, B*T, F)``: the
clips' frames are concatenated, so the kernels run on the whole batch with the CPU kernels'
signatures (frame axis = ``B*T``; DOA windows numbered ``b * n_win + w``).  Clip ``b`` owns
frames ``b*T .. b*T + T_b - 1`` with ``T_b = 1 + n_b // hop``; the rest are padding, kept out
of activity, percentiles, time smoothing, DOA windows and cones.

Two stages, one host round trip per batch (never one per clip):

1. :func:`submit` (asynchronous on ``stream``): STFT (cuFFT), intensity and energy
   (:mod:`foakit.kernels.spatial`, shared with the CPU path's reference code), frame levels,
   noise-floor percentiles, hysteresis activity, time sums and diffuseness, onset votes,
   DOA histograms (onset-weighted per window and plain-energy per clip, one pass) and window
   peaks (CUDA kernels), clip histograms; the per-frame table,
   peaks and clip histograms are copied to pinned host memory.
2. :func:`launch_cones` (waits for stage 1): per clip on the host, ``analysis.clip_axes`` (clip
   peaks of the blurred clip histogram, window tracks, cone axes: the CPU code), then cone
   energies on the device; :func:`collect` (waits for the cones) builds frames and events
   per clip with :func:`clip_result` (the CPU path's NumPy event code).

The host steps themselves (``analysis.clip_axes``, ``analysis.set_doa_columns``,
``analysis.finish_clip``) are the CPU path's own functions; ``tests/test_gpu_cupy.py`` runs
this module on NumPy against ``analyze_samples``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

from ..analysis import (
    ClipAnalysis,
    clip_axes,
    clip_diffuseness,
    finish_clip,
    set_doa_columns,
)
from ..backend import array_module
from ..errors import ParameterError
from ..kernels.cone import CONE_CHANNELS
from ..kernels.histogram import cell_centers
from ..kernels.spatial import (
    clip_histogram,
    diffuseness_from_smoothed,
    frame_power,
    intensity_energy,
    onset_votes,
    whiten_votes,
)
from ..kernels.stft import hann, stft
from ..params import AnalysisParams, StftGrid

__all__ = [
    "cpu_kernels",
    "cuda_kernels",
    "pack_clips",
    "submit",
    "launch_cones",
    "collect",
    "clip_result",
    "analyze_batch",
    "window_sums",
    "row_percentile",
    "device_bytes_per_sample",
]

# per-frame columns moved to the host in one copy
_COLS = ("level", "active", "diffuse", "fx", "fy", "fz", "fw", "ix", "iy", "iz", "band_e",
         "band_votes")


def cpu_kernels() -> SimpleNamespace:
    """The Numba CPU kernels behind the CUDA twins' interface (``stream`` ignored)."""
    from ..kernels import activity, cone, histogram, peaks

    def wrap(fn):
        def call(*args, stream=None):
            return fn(*args)

        call.__name__ = fn.__name__
        return call

    return SimpleNamespace(
        doa_histograms=wrap(histogram.doa_histograms), pick_peaks=wrap(peaks.pick_peaks),
        hysteresis=wrap(activity.hysteresis), clean_activity=wrap(activity.clean_activity),
        cone_energy=wrap(cone.cone_energy))


def cuda_kernels() -> ModuleType:
    """The Numba CUDA kernels (imports ``numba.cuda``)."""
    from ..kernels import cuda

    return cuda


def pack_clips(clips: list[np.ndarray], *, out: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Zero-pad 4-channel clips to a common length, channel-major.

    Parameters
    ----------
    clips : list of ndarray [shape=(4, n_b)]
    out : ndarray [shape=(>= 4 * B * N,), dtype=float32], optional
        Flat buffer to fill (a pinned host buffer); a view of it is returned.

    Returns
    -------
    x : ndarray [shape=(4, B, N), dtype=float32]
    n_samples : ndarray [shape=(B,), dtype=int64]
    """
    if not clips:
        raise ParameterError("a batch needs at least one clip")
    for c in clips:
        if c.ndim != 2 or c.shape[0] != 4 or c.shape[1] < 1:
            raise ParameterError(f"batched clips must have shape (4, n >= 1), got {c.shape}")
    n_samples = np.array([c.shape[1] for c in clips], dtype=np.int64)
    shape = (4, len(clips), int(n_samples.max()))
    if out is None:
        x = np.empty(shape, np.float32)
    else:
        size = shape[0] * shape[1] * shape[2]
        if out.ndim != 1 or out.size < size or out.dtype != np.float32:
            raise ParameterError(f"buffer {out.shape} {out.dtype} cannot hold a batch of {shape}")
        x = out[:size].reshape(shape)
    for b, c in enumerate(clips):
        n = c.shape[1]
        x[:, b, :n] = c
        x[:, b, n:] = 0.0
    return x, n_samples


def device_bytes_per_sample(grid: StftGrid, params: AnalysisParams | None = None) -> float:
    """Rough peak device bytes of :func:`submit` per sample of one 4-channel clip.

    Covers the input and its padded copy, the windowed frames and the complex STFT, cuFFT's
    work area, intensity / energy, their time sums and temporaries, diffuseness and votes,
    and the DOA histograms with the peak picker's scratch; calibrate with the peak that
    ``benchmarks/gpu_check.py`` reports.
    """
    params = params or AnalysisParams()
    f = grid.n_fft // 2 + 1
    cells = params.az_bins * params.el_bins
    per_frame = (4 * grid.win_length * 4   # windowed frames
                 + 2 * 4 * f * 8            # STFT and cuFFT work area
                 + 3 * 3 * f * 4            # intensity, its time sums, a temporary
                 + 7 * f * 4                # energy, its sums, psi (+ copy), votes, temporaries
                 + 28 * cells / params.window_frames(grid))  # hist, vsum, peak scratch
    return 3 * 16 + per_frame / grid.hop_length


def _on(stream: Any):
    return stream if stream is not None else contextlib.nullcontext()


def window_sums(a: Any, n: int, n_valid: Any = None) -> Any:
    """Centred sums over ``n`` frames along axis 2, windows shifted inward at each clip's ends.

    The time average of :mod:`foakit.kernels.dirac` (``n_smooth``; see
    :func:`foakit.kernels.spatial.smooth_frames`), as sums: diffuseness only needs their
    ratio.  Shifted slices are added (no cumulative sums, so quiet bins keep their precision
    next to loud ones); frames past a clip's end must be zero beforehand.  A clip's first
    and last frames then take the sums of its nearest frame whose window fits (all its
    frames when it is shorter than ``n``).

    Parameters
    ----------
    a : ndarray [shape=(L, B, T, F)]
    n : int
    n_valid : ndarray [shape=(B,), dtype=int], optional
        Frames of each clip (default ``T``); the frames after them are left as they are.

    Returns
    -------
    ndarray [shape=(L, B, T, F)]
    """
    xp = array_module(a)
    out = a.copy()
    half = n // 2
    after = n - half
    for d in range(1, after):  # frames after t
        out[:, :, :-d] += a[:, :, d:]
    for d in range(1, half + 1):  # frames before t
        out[:, :, d:] += a[:, :, :-d]
    if n <= 1:
        return out
    n_b, t = a.shape[1], a.shape[2]
    nv = xp.full(n_b, t, dtype=xp.int64) if n_valid is None else xp.asarray(n_valid)
    b = xp.arange(n_b)
    last = xp.maximum(nv - after, 0)  # the last frame whose window fits (or the whole clip)
    first = xp.minimum(half, last)
    for d in range(half):  # leading frames take the first full window's sums
        take = (d < first)[None, :, None]
        out[:, :, d] = xp.where(take, out[:, b, first], out[:, :, d])
    end = out[:, b, last]
    for d in range(1, after):  # trailing frames take the last one's
        idx = last + d
        take = (idx < nv)[None, :, None]
        idx = xp.minimum(idx, t - 1)
        out[:, b, idx] = xp.where(take, end, out[:, b, idx])
    return out


def row_percentile(sorted_rows: Any, n_valid: np.ndarray, q: float) -> Any:
    """``np.percentile(row[:n], q)`` (linear method) of each sorted float32 row.

    Reproduces NumPy's float32 arithmetic for a Python-number ``q`` (weak promotion): the
    interpolation weight is rounded to float32 and NumPy's two-sided lerp is used.

    Parameters
    ----------
    sorted_rows : ndarray [shape=(B, T), dtype=float32]
        Each row sorted ascending over its first ``n_valid[b]`` entries.
    n_valid : ndarray [shape=(B,), dtype=int64]
        Host array, every entry >= 1.
    q : float
        Percentile in [0, 100].
    """
    xp = array_module(sorted_rows)
    n = np.asarray(n_valid, dtype=np.int64)
    vi = (n - 1) * np.true_divide(q, 100)
    prev = np.floor(vi).astype(np.int64)
    nxt = prev + 1
    top = vi >= n - 1
    prev[top] = n[top] - 1
    nxt[top] = n[top] - 1
    low = vi < 0
    prev[low] = 0
    nxt[low] = 0
    gamma = vi - np.where(top, -1, prev)  # as NumPy's _get_gamma with its -1 index
    rows = xp.arange(n.shape[0])
    a = sorted_rows[rows, xp.asarray(prev)]
    b = sorted_rows[rows, xp.asarray(nxt)]
    d = b - a
    t32 = xp.asarray(gamma.astype(np.float32))
    omt32 = xp.asarray((1.0 - gamma).astype(np.float32))
    return xp.where(xp.asarray(gamma >= 0.5), b - d * omt32, a + d * t32)


def _row_median(sorted_rows: Any, n_valid: np.ndarray) -> Any:
    """``np.median`` of each sorted float32 row's first ``n_valid`` entries (float32)."""
    xp = array_module(sorted_rows)
    n = np.asarray(n_valid, dtype=np.int64)
    rows = xp.arange(n.shape[0])
    lo = xp.asarray((n - 1) // 2)
    hi = xp.asarray(n // 2)
    a = sorted_rows[rows, lo]
    b = sorted_rows[rows, hi]
    return xp.where(xp.asarray(n % 2 == 1), a, (a + b) / np.float32(2.0))


@dataclass
class Stage:
    """A batch in flight between :func:`submit`, :func:`launch_cones` and :func:`collect`."""

    xp: Any
    kernels: Any
    stream: Any
    params: AnalysisParams
    grid: StftGrid
    n_samples: np.ndarray
    n_frames: np.ndarray
    t: int
    n_win: int
    wf: int
    lo: int
    hi: int
    power_scale: float
    device: dict[str, Any]
    host: dict[str, Any]
    done: Any = None
    axes: list = field(default_factory=list)
    keep_hist: bool = False
    tag: Any = None


def _votes(energy: Any, params: AnalysisParams) -> Any:
    """DOA vote weights, as the CPU path's fused kernel (:func:`onset_votes` per clip)."""
    return onset_votes(energy, ratio=params.onset_ratio, n_prev=params.onset_frames,
                       floor=params.onset_floor)


def _to_host(a: Any, xp: Any, stream: Any) -> Any:
    """Queue a device-to-host copy into pinned memory (NumPy arrays pass through)."""
    if xp is np:
        return a
    import cupyx

    a = xp.ascontiguousarray(a)
    out = cupyx.empty_pinned(a.shape, a.dtype)
    # blocking=False (CuPy >= 13): queued on the stream, waited for through the batch's event
    xp.asnumpy(a, stream=stream, out=out, blocking=False)
    return out


def _record(xp: Any, stream: Any) -> Any:
    if xp is np:
        return None
    ev = xp.cuda.Event(block=False, disable_timing=True)
    ev.record(stream)
    return ev


def submit(x: Any, n_samples: np.ndarray, sample_rate: int, *, params: AnalysisParams,
           xp: Any = np, kernels: Any = None, stream: Any = None, keep_hist: bool = False,
           tag: Any = None) -> Stage:
    """Queue stage 1 of a batch (see the module docstring); returns without waiting.

    Parameters
    ----------
    x : ndarray [shape=(4, B, N), dtype=float32]
        Zero-padded ambiX clips (:func:`pack_clips`), host (pinned for an asynchronous copy)
        or device.
    n_samples : ndarray [shape=(B,), dtype=int64]
        Samples of each clip.
    sample_rate : int
    params : AnalysisParams
    xp : module
        ``numpy`` or ``cupy``.
    kernels : namespace, optional
        :func:`cpu_kernels` (default for NumPy) or :func:`cuda_kernels` (default for CuPy).
    stream : cupy.cuda.Stream, optional
        Stream for all device work of this batch.
    keep_hist : bool
        Also copy the window histograms back (``ClipAnalysis.hist`` / ``window_hist``).
    tag : object
        Carried along for the caller.
    """
    if kernels is None:
        kernels = cpu_kernels() if xp is np else cuda_kernels()
    n_samples = np.asarray(n_samples, dtype=np.int64)
    if x.ndim != 3 or x.shape[0] != 4 or x.shape[1] != n_samples.shape[0]:
        raise ParameterError(f"x must have shape (4, B, N) with B = len(n_samples), got {x.shape}")
    g = params.grid(sample_rate)
    lo, hi = g.band(params.fmin_hz, params.fmax_hz)
    n_b, n = x.shape[1], x.shape[2]
    if n_samples.min() < 1 or n_samples.max() > n:
        raise ParameterError("n_samples must lie in 1 .. x.shape[2]")
    n_frames = 1 + n_samples // g.hop_length
    t = 1 + n // g.hop_length
    wf = params.window_frames(g)
    n_win = (t + wf - 1) // wf
    wss = float(np.sum(hann(g.win_length).astype(np.float64) ** 2))
    with _on(stream):
        if xp is not np and isinstance(x, np.ndarray):
            xd = xp.empty(x.shape, dtype=xp.float32)
            xd.set(x, stream=stream)
            x = xd
        spec = stft(x, win_length=g.win_length, hop_length=g.hop_length, n_fft=g.n_fft)
        n_f = spec.shape[-1]
        intensity, energy = intensity_energy(spec.reshape(4, n_b * t, n_f))
        del spec
        level = 10.0 * xp.log10(xp.maximum(frame_power(energy, g.n_fft, wss), 1e-12))
        level = level.astype(xp.float32).reshape(n_b, t)
        valid = xp.arange(t)[None, :] < xp.asarray(n_frames)[:, None]
        # activity, as analysis.detect_activity for each clip
        srt = xp.sort(xp.where(valid, level, xp.float32(np.inf)), axis=1)
        floor = row_percentile(srt, n_frames, params.floor_percentile).astype(xp.float64)
        top = row_percentile(srt, n_frames, 95).astype(xp.float64)
        med = _row_median(srt, n_frames)
        on = (floor + params.act_on_db).astype(xp.float32)
        off = (floor + params.act_off_db).astype(xp.float32)
        act = xp.zeros((n_b, t), dtype=xp.uint8)
        nv = xp.asarray(n_frames)
        kernels.hysteresis(level, on, off, nv, act, stream=stream)
        kernels.clean_activity(act, nv, int(round(params.merge_gap_s * g.frame_rate)),
                               int(round(params.min_event_s * g.frame_rate)), stream=stream)
        flat = (top - floor < params.act_on_db)[:, None]
        active = xp.where(flat, med[:, None] > params.abs_active_dbfs, act > 0) & valid
        # time-summed features and diffuseness (per bin, and per frame over the band), as
        # kernels.dirac; padding frames are zeroed first so the sums stop at each clip's end
        vmask = valid.reshape(-1)
        intensity *= vmask[None, :, None]
        energy *= vmask[:, None]
        i_s = window_sums(intensity.reshape(3, n_b, t, n_f), params.smooth_frames, nv)
        e_s = window_sums(energy.reshape(1, n_b, t, n_f), params.smooth_frames, nv)[0]
        psi = diffuseness_from_smoothed(i_s, e_s, vector_axis=0)
        fi = i_s[..., lo:hi].sum(axis=-1)
        fe = e_s[..., lo:hi].sum(axis=-1)
        diffuse = diffuseness_from_smoothed(fi, fe, vector_axis=0).astype(xp.float32)
        del i_s, e_s, fi, fe
        psi = xp.ascontiguousarray(psi).reshape(n_b * t, n_f)
        # DOA histograms and peaks
        frame_idx = xp.arange(t)[None, :]
        win_idx = xp.arange(n_b)[:, None] * n_win + frame_idx // wf
        frame_window = xp.where(active, win_idx, -1).astype(xp.int32).reshape(-1)
        hist = xp.zeros((n_b * n_win, params.az_bins, params.el_bins), xp.float32)
        vsum = xp.zeros((n_b * n_win, params.az_bins, params.el_bins, 3), xp.float32)
        frame_vec = xp.zeros((n_b * t, 4), xp.float32)
        votes = _votes(energy.reshape(n_b, t, n_f), params).reshape(n_b * t, n_f)
        pm = np.float32(params.psi_max)
        psi_b = psi.reshape(n_b, t, n_f)
        white = whiten_votes(votes.reshape(n_b, t, n_f), psi_b, active, psi_max=pm, lo=lo,
                             hi=hi, power=params.vote_whitening).reshape(n_b * t, n_f)
        steady = whiten_votes(energy.reshape(n_b, t, n_f), psi_b, active, psi_max=pm, lo=lo,
                              hi=hi, power=params.vote_whitening).reshape(n_b * t, n_f)
        # and in the same pass the plain-energy clip histograms (steady sources), one
        # "window" per clip
        steady_window = xp.where(active, xp.arange(n_b)[:, None], -1).astype(xp.int32)
        steady_hist = xp.zeros((n_b, params.az_bins, params.el_bins), xp.float32)
        steady_vsum = xp.zeros((n_b, params.az_bins, params.el_bins, 3), xp.float32)
        kernels.doa_histograms(intensity, white, steady, psi, frame_window,
                               steady_window.reshape(-1), lo, hi, pm, hist, vsum, frame_vec,
                               steady_hist, steady_vsum, stream=stream)
        del steady
        centers = xp.asarray(cell_centers(params.az_bins, params.el_bins))
        peaks = xp.zeros((n_b * n_win, params.max_sources, 4), xp.float32)
        kernels.pick_peaks(hist, vsum, centers, params.peak_rel,
                           np.cos(np.deg2rad(params.peak_min_sep_deg)),
                           np.cos(np.deg2rad(params.peak_refine_deg)), peaks, stream=stream)
        band_votes = white[:, lo:hi].sum(axis=-1)
        del white
        # clip histograms (summed windows); their blur and peaks are small host work
        clip_hist, clip_vsum = clip_histogram(
            hist.reshape(n_b, n_win, params.az_bins, params.el_bins),
            vsum.reshape(n_b, n_win, params.az_bins, params.el_bins, 3),
            params.window_weighting)
        band_e = energy[:, lo:hi].sum(axis=-1)
        band_i = intensity[:, :, lo:hi].sum(axis=-1)
        table = xp.stack([level.reshape(-1), active.reshape(-1).astype(xp.float32),
                          diffuse.reshape(-1), frame_vec[:, 0], frame_vec[:, 1],
                          frame_vec[:, 2], frame_vec[:, 3], band_i[0], band_i[1], band_i[2],
                          band_e, band_votes], axis=-1)
        host = {"table": _to_host(table, xp, stream), "peaks": _to_host(peaks, xp, stream),
                "clip_hist": _to_host(clip_hist, xp, stream),
                "clip_vsum": _to_host(clip_vsum, xp, stream),
                "steady_hist": _to_host(steady_hist, xp, stream),
                "steady_vsum": _to_host(steady_vsum, xp, stream)}
        if keep_hist:
            host["hist"] = _to_host(hist, xp, stream)
        done = _record(xp, stream)
    return Stage(xp=xp, kernels=kernels, stream=stream, params=params, grid=g,
                 n_samples=n_samples, n_frames=n_frames, t=t, n_win=n_win, wf=wf, lo=lo, hi=hi,
                 power_scale=2.0 / (g.n_fft * wss),
                 device={"intensity": intensity, "energy": energy, "votes": votes, "psi": psi},
                 host=host, done=done, keep_hist=keep_hist, tag=tag)


def clip_result(table: np.ndarray, cones: np.ndarray, axes: np.ndarray, peaks: np.ndarray,
                window_hist: np.ndarray | None, n_samples: int, grid: StftGrid,
                window_frames: int, power_scale: float, params: AnalysisParams
                ) -> ClipAnalysis:
    """Frames and events of one clip from the device results, as ``analysis._spatial``.

    Parameters
    ----------
    table : ndarray [shape=(n_frames, 12), dtype=float32]
        The clip's rows of the per-frame table (columns as ``_COLS``).
    cones : ndarray [shape=(n_axes, n_frames, CONE_CHANNELS)]
    axes : ndarray [shape=(n_axes, n_frames, 3)]
    peaks : ndarray [shape=(n_windows, max_sources, 4)]
    window_hist : ndarray [shape=(n_windows, n_az, n_el)] or None
    n_samples : int
    grid : StftGrid
    window_frames : int
    power_scale : float
    params : AnalysisParams
    """
    nf = table.shape[0]
    fr = grid.frame_rate
    active = table[:, 1] > 0.5
    frames = {
        "frame": np.arange(nf, dtype=np.int32),
        "time_s": (np.arange(nf) / fr).astype(np.float64),
        "energy_db": np.ascontiguousarray(table[:, 0]),
        "active": active,
        "diffuseness": np.ascontiguousarray(table[:, 2]),
        "source": np.full(nf, -1, np.int16),
    }
    set_doa_columns(frames, np.ascontiguousarray(table[:, 3:7]),
                    np.ascontiguousarray(table[:, 11]))
    frame_iv = np.ascontiguousarray(table[:, 7:11])
    return finish_clip(frames, cones, axes, frame_iv, grid=grid, n_samples=n_samples,
                       power_scale=power_scale, params=params, peaks=peaks,
                       window_hist=window_hist, window_frames=window_frames)


def _clip_windows(st: Stage, b: int) -> slice:
    n_win_b = (int(st.n_frames[b]) + st.wf - 1) // st.wf
    return slice(b * st.n_win, b * st.n_win + n_win_b)


def launch_cones(st: Stage, *, host_map: Callable = map) -> Stage:
    """Wait for stage 1, find each clip's cone axes on the host, queue the cone energies.

    ``host_map`` maps :func:`clip_axes` over the clips (``map``, or an executor's ``map``
    to spread the host work over processes).
    """
    if st.done is not None:
        st.done.synchronize()
    xp, params = st.xp, st.params
    peaks = np.asarray(st.host["peaks"])
    clip_hist = np.asarray(st.host["clip_hist"])
    clip_vsum = np.asarray(st.host["clip_vsum"])
    n_b = st.n_frames.shape[0]
    table = np.asarray(st.host["table"]).reshape(n_b, st.t, len(_COLS))
    st.axes = list(host_map(
        clip_axes, [peaks[_clip_windows(st, b)] for b in range(n_b)], list(clip_hist),
        list(clip_vsum), [int(n) for n in st.n_frames], [st.wf] * n_b, [params] * n_b,
        list(np.asarray(st.host["steady_hist"])), list(np.asarray(st.host["steady_vsum"])),
        [clip_diffuseness(tb[: int(n), 2], tb[: int(n), 1] > 0.5)
         for tb, n in zip(table, st.n_frames, strict=True)]))
    k = max((ax.shape[0] for ax in st.axes), default=0)
    if k == 0:
        st.host["cones"] = None
        st.done = None
        st.device = {}
        return st
    axes = np.zeros((k, n_b, st.t, 3), np.float32)
    for b, ax in enumerate(st.axes):
        axes[: ax.shape[0], b, : ax.shape[1]] = ax
    with _on(st.stream):
        d = st.device
        axes_d = xp.asarray(axes).reshape(k, n_b * st.t, 3)
        cones = xp.zeros((k, n_b * st.t, CONE_CHANNELS), xp.float32)
        st.kernels.cone_energy(d["intensity"], d["energy"], d["votes"], d["psi"], st.lo, st.hi,
                               np.float32(params.psi_max), axes_d,
                               np.cos(np.deg2rad(params.cone_deg)),
                               float(params.rise_onset_ratio), params.onset_frames, st.t, cones,
                               stream=st.stream)
        st.host["cones"] = _to_host(cones, xp, st.stream)
        st.done = _record(xp, st.stream)
    st.device = {}  # the device buffers go back to the pool once the stream is past them
    return st


def collect(st: Stage, *, host_map: Callable = map) -> list[ClipAnalysis]:
    """Wait for the cones and build each clip's :class:`~foakit.analysis.ClipAnalysis`
    (:func:`clip_result` mapped with ``host_map``)."""
    if st.done is not None:
        st.done.synchronize()
    n_b = st.n_frames.shape[0]
    table = np.asarray(st.host["table"]).reshape(n_b, st.t, len(_COLS))
    peaks = np.asarray(st.host["peaks"])
    cones = st.host.get("cones")
    if cones is not None:
        cones = np.asarray(cones).reshape(-1, n_b, st.t, CONE_CHANNELS)
    hist = st.host.get("hist")
    args = []
    for b in range(n_b):
        nf = int(st.n_frames[b])
        k_b = st.axes[b].shape[0]
        win = _clip_windows(st, b)
        args.append((
            np.ascontiguousarray(table[b, :nf]),
            np.ascontiguousarray(cones[:k_b, b, :nf]) if k_b
            else np.zeros((0, nf, CONE_CHANNELS), np.float32),
            st.axes[b], np.array(peaks[win]),
            None if hist is None else np.array(hist[win]), int(st.n_samples[b]), st.grid,
            st.wf, st.power_scale, st.params))
    return list(host_map(clip_result, *zip(*args, strict=True)))


def analyze_batch(clips: list[np.ndarray], sample_rate: int, *,
                  params: AnalysisParams | None = None, xp: Any = np, kernels: Any = None,
                  stream: Any = None, keep_hist: bool = True) -> list[ClipAnalysis]:
    """Analyse several 4-channel clips of one sample rate in one batch (synchronously).

    Parameters
    ----------
    clips : list of ndarray [shape=(4, n_b)]
        ambiX (ACN W, Y, Z, X; SN3D), any lengths.
    sample_rate : int
    params : AnalysisParams, optional
    xp : module
        ``numpy`` (Numba CPU kernels) or ``cupy`` (Numba CUDA kernels).
    kernels, stream, keep_hist
        See :func:`submit`.

    Returns
    -------
    list of ClipAnalysis
        One per clip, as :func:`foakit.analysis.analyze_samples` gives.
    """
    params = params or AnalysisParams()
    x, n = pack_clips([np.asarray(c, dtype=np.float32) for c in clips])
    st = submit(x, n, sample_rate, params=params, xp=xp, kernels=kernels, stream=stream,
                keep_hist=keep_hist)
    return collect(launch_cones(st))
