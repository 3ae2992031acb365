"""Numba CUDA twins of the CPU kernels, with the same signatures and semantics.

============================  ================================  ===========================
CPU kernel                    CUDA twin here                    launch
============================  ================================  ===========================
``histogram.doa_histograms``  :func:`doa_histograms` (atomics)  one block per frame
``peaks.pick_peaks``          :func:`pick_peaks`                one block per window
``activity.hysteresis``       :func:`hysteresis`                one thread per clip
``activity.clean_activity``   :func:`clean_activity`            one thread per clip
``cone.cone_energy``          :func:`cone_energy`               one block per (frame, axis)
============================  ================================  ===========================

Each host wrapper takes the CPU kernel's arguments plus a keyword ``stream`` (None for the
default stream, a Numba stream, or a CuPy stream).  Arrays may be NumPy arrays (copied to the
device, outputs copied back into them, the stream synchronised: convenient, slow), Numba device
arrays, or any ``__cuda_array_interface__`` object such as a CuPy array (used in place, no
synchronisation: the launch is queued on ``stream``).

Block size: :data:`THREADS`, read at every launch, so tests can patch it down and make tiny
inputs span several blocks and several strides per thread.  Sums inside a block are reduced in
float64 and in a different order than the CPU kernels', so results agree to float32 rounding,
not bit for bit; integer outputs (activity) are identical.

This module imports ``numba.cuda``; foakit imports it only when the CUDA backend is used.  It
runs under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``).  With Numba 0.68 the built-in
``numba.cuda`` target is used unless the ``numba-cuda`` package is installed, which then
provides ``numba.cuda`` (recommended for real devices: it brings NVVM and supports CUDA 12/13).
"""

from __future__ import annotations

import builtins
import math
import types
from typing import Any

import numpy as np
from numba import cuda, float64, int32
from numba.cuda.cudadrv import devicearray as _devicearray

from ..errors import ParameterError
from . import activity as _activity
from . import histogram as _histogram
from .cone import CONE_CHANNELS

__all__ = [
    "THREADS",
    "MAX_THREADS",
    "doa_histograms",
    "pick_peaks",
    "hysteresis",
    "clean_activity",
    "cone_energy",
]

#: Threads per block (1 .. MAX_THREADS); read at each launch.
THREADS = 128
#: Size of the per-block shared scratch used for reductions (compile-time constant).
MAX_THREADS = 256


# ------------------------------------------------------------------------ device helpers

# The binning is the CPU kernel's own Python source compiled for the device, so both
# backends put a vote in the same cell (same fast atan2 polynomial, same edges).
_fast_atan2 = cuda.jit(device=True)(_histogram.fast_atan2.py_func)
_cell_index = cuda.jit(device=True)(types.FunctionType(
    _histogram.cell_index.py_func.__code__,
    {"__builtins__": builtins, "math": math, "fast_atan2": _fast_atan2}, "_cell_index"))


@cuda.jit(device=True)
def _reduce_sum(sh, n_rows, tid, nt):
    """Tree sum of ``sh[r, :nt]`` into ``sh[r, 0]`` for ``r < n_rows`` (all threads call)."""
    cuda.syncthreads()
    n = nt
    while n > 1:
        half = (n + 1) // 2
        if tid < n - half:
            for r in range(n_rows):
                sh[r, tid] += sh[r, tid + half]
        cuda.syncthreads()
        n = half


@cuda.jit(device=True)
def _reduce_argmax(shv, shi, tid, nt):
    """Tree argmax of ``(shv[0, i], shi[0, i])``: larger value, then smaller ``shi[0]``."""
    cuda.syncthreads()
    n = nt
    while n > 1:
        half = (n + 1) // 2
        if tid < n - half:
            o = tid + half
            if shv[0, o] > shv[0, tid] or (shv[0, o] == shv[0, tid] and shi[0, o] < shi[0, tid]):
                shv[0, tid] = shv[0, o]
                shi[0, tid] = shi[0, o]
                shi[1, tid] = shi[1, o]
        cuda.syncthreads()
        n = half


# ------------------------------------------------------------------------------ kernels

@cuda.jit
def _doa_histograms_k(intensity, votes, energy, psi, frame_window, steady_window, lo, hi,
                      psi_max, hist, vsum, frame_vec, steady_hist, steady_vsum):
    sh = cuda.shared.array((4, MAX_THREADS), float64)
    t = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n_az = hist.shape[1]
    n_el = hist.shape[2]
    w_idx = frame_window[t]
    s_idx = steady_window[t]
    ax = 0.0
    ay = 0.0
    az = 0.0
    aw = 0.0
    for f in range(lo + tid, hi, nt):
        if psi[t, f] > psi_max:
            continue
        ix = intensity[0, t, f]
        iy = intensity[1, t, f]
        iz = intensity[2, t, f]
        norm = math.sqrt(ix * ix + iy * iy + iz * iz)
        if norm <= 0.0:
            continue
        wgt = votes[t, f]
        ux = ix / norm
        uy = iy / norm
        uz = iz / norm
        ax += wgt * ux
        ay += wgt * uy
        az += wgt * uz
        aw += wgt
        if w_idx < 0 and s_idx < 0:
            continue
        ia, ie = _cell_index(ux, uy, uz, n_az, n_el)
        if w_idx >= 0:
            cuda.atomic.add(hist, (w_idx, ia, ie), wgt)
            cuda.atomic.add(vsum, (w_idx, ia, ie, 0), wgt * ux)
            cuda.atomic.add(vsum, (w_idx, ia, ie, 1), wgt * uy)
            cuda.atomic.add(vsum, (w_idx, ia, ie, 2), wgt * uz)
        if s_idx >= 0:
            e = energy[t, f]
            cuda.atomic.add(steady_hist, (s_idx, ia, ie), e)
            cuda.atomic.add(steady_vsum, (s_idx, ia, ie, 0), e * ux)
            cuda.atomic.add(steady_vsum, (s_idx, ia, ie, 1), e * uy)
            cuda.atomic.add(steady_vsum, (s_idx, ia, ie, 2), e * uz)
    sh[0, tid] = ax
    sh[1, tid] = ay
    sh[2, tid] = az
    sh[3, tid] = aw
    _reduce_sum(sh, 4, tid, nt)
    if tid == 0:  # one block per frame: no other writer of frame_vec[t]
        for c in range(4):
            frame_vec[t, c] += sh[c, 0]


@cuda.jit
def _pick_peaks_k(hist, vsum, centers, rel, cos_min_sep, cos_refine, peaks, sm, cand):
    shv = cuda.shared.array((4, MAX_THREADS), float64)
    shi = cuda.shared.array((2, MAX_THREADS), int32)
    n_found = cuda.shared.array(1, int32)
    w = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n_az = hist.shape[1]
    n_el = hist.shape[2]
    n_cells = n_az * n_el
    max_peaks = peaks.shape[1]
    for i in range(tid, max_peaks * 4, nt):
        peaks[w, i // 4, i % 4] = 0.0
    if tid == 0:
        n_found[0] = 0
    # 3 x 3 [1 2 1] smoothing (circular in azimuth) and the highest smoothed cell
    top = 0.0
    for c in range(tid, n_cells, nt):
        a = c // n_el
        e = c - a * n_el
        acc = 0.0
        for da in range(-1, 2):
            aa = (a + da) % n_az
            wa = 2.0 if da == 0 else 1.0
            for de in range(-1, 2):
                ee = e + de
                if ee < 0 or ee >= n_el:
                    continue
                we = 2.0 if de == 0 else 1.0
                acc += wa * we * hist[w, aa, ee]
        sm[w, a, e] = acc
        if acc > top:
            top = acc
    shv[0, tid] = top
    cuda.syncthreads()
    n = nt
    while n > 1:  # tree max
        half = (n + 1) // 2
        if tid < n - half and shv[0, tid + half] > shv[0, tid]:
            shv[0, tid] = shv[0, tid + half]
        cuda.syncthreads()
        n = half
    top = shv[0, 0]
    cuda.syncthreads()
    if top <= 0.0:
        return  # uniform across the block
    # local maxima at least rel * top (ties broken towards the lower cell index)
    for c in range(tid, n_cells, nt):
        a = c // n_el
        e = c - a * n_el
        v = sm[w, a, e]
        if v < rel * top:
            continue
        is_max = True
        for da in range(-1, 2):
            aa = (a + da) % n_az
            for de in range(-1, 2):
                ee = e + de
                if (da == 0 and de == 0) or ee < 0 or ee >= n_el:
                    continue
                nv = sm[w, aa, ee]
                if nv > v or (nv == v and (aa * n_el + ee) < c):
                    is_max = False
        if is_max:
            k = cuda.atomic.add(n_found, 0, 1)
            cand[w, k] = c
    cuda.syncthreads()
    n_cand = n_found[0]
    # candidates by decreasing height (ties: lower cell first), as the CPU kernel's sort
    n_taken = 0
    while n_taken < max_peaks:
        bv = -1.0
        bc = n_cells
        bi = -1
        for i in range(tid, n_cand, nt):
            c = cand[w, i]
            if c < 0:
                continue
            a = c // n_el
            v = sm[w, a, c - a * n_el]
            if v > bv or (v == bv and c < bc):
                bv = v
                bc = c
                bi = i
        shv[0, tid] = bv
        shi[0, tid] = bc
        shi[1, tid] = bi
        _reduce_argmax(shv, shi, tid, nt)
        best_v = shv[0, 0]
        best_c = shi[0, 0]
        best_i = shi[1, 0]
        if tid == 0 and best_v >= 0.0:
            cand[w, best_i] = -1  # used
        cuda.syncthreads()
        if best_v < 0.0:
            break  # no candidate left (uniform)
        a = best_c // n_el
        e = best_c - a * n_el
        cx = centers[a, e, 0]
        cy = centers[a, e, 1]
        cz = centers[a, e, 2]
        close = False
        for k in range(n_taken):
            d = cx * peaks[w, k, 0] + cy * peaks[w, k, 1] + cz * peaks[w, k, 2]
            if d > cos_min_sep:
                close = True
        if close:
            continue
        sx = 0.0
        sy = 0.0
        sz = 0.0
        sw = 0.0
        for c2 in range(tid, n_cells, nt):
            a2 = c2 // n_el
            e2 = c2 - a2 * n_el
            h = hist[w, a2, e2]
            if h <= 0.0:
                continue
            d = cx * centers[a2, e2, 0] + cy * centers[a2, e2, 1] + cz * centers[a2, e2, 2]
            if d >= cos_refine:
                sx += vsum[w, a2, e2, 0]
                sy += vsum[w, a2, e2, 1]
                sz += vsum[w, a2, e2, 2]
                sw += h
        shv[0, tid] = sx
        shv[1, tid] = sy
        shv[2, tid] = sz
        shv[3, tid] = sw
        _reduce_sum(shv, 4, tid, nt)
        sx = shv[0, 0]
        sy = shv[1, 0]
        sz = shv[2, 0]
        sw = shv[3, 0]
        nrm = math.sqrt(sx * sx + sy * sy + sz * sz)
        if nrm > 0.0:
            if tid == 0:
                peaks[w, n_taken, 0] = sx / nrm
                peaks[w, n_taken, 1] = sy / nrm
                peaks[w, n_taken, 2] = sz / nrm
                peaks[w, n_taken, 3] = sw
            n_taken += 1
        cuda.syncthreads()  # peaks visible, shared sums read, before the next round


# Per-clip scans: the CPU kernels' own row functions, compiled for the device.
_hysteresis_row = cuda.jit(device=True)(_activity.hysteresis_row.py_func)
_clean_activity_row = cuda.jit(device=True)(_activity.clean_activity_row.py_func)


@cuda.jit
def _hysteresis_k(level, on, off, n_valid, out):
    b = cuda.grid(1)
    if b < level.shape[0]:
        _hysteresis_row(level[b], on[b], off[b], n_valid[b], out[b])


@cuda.jit
def _clean_activity_k(active, n_valid, max_gap, min_len):
    b = cuda.grid(1)
    if b < active.shape[0]:
        _clean_activity_row(active[b], n_valid[b], max_gap, min_len)


@cuda.jit
def _cone_energy_k(intensity, energy, votes, psi, lo, hi, psi_max, dirs, cos_cone, rise_ratio,
                   n_prev, clip_frames, out):
    sh = cuda.shared.array((CONE_CHANNELS, MAX_THREADS), float64)
    t = cuda.blockIdx.x
    k = cuda.blockIdx.y
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    dx = dirs[k, t, 0]
    dy = dirs[k, t, 1]
    dz = dirs[k, t, 2]
    if dx == 0.0 and dy == 0.0 and dz == 0.0:
        for c in range(tid, CONE_CHANNELS, nt):  # blocks may hold fewer threads than channels
            out[k, t, c] = 0.0
        return  # uniform across the block
    ax = 0.0
    ay = 0.0
    az = 0.0
    aw = 0.0
    ao = 0.0
    ox = 0.0
    oy = 0.0
    oz = 0.0
    on = 0.0
    ar = 0.0
    back = t % clip_frames  # frames of its clip before t, at most n_prev
    if back > n_prev:
        back = n_prev
    for f in range(lo + tid, hi, nt):
        if psi[t, f] > psi_max:
            continue
        ix = intensity[0, t, f]
        iy = intensity[1, t, f]
        iz = intensity[2, t, f]
        norm = math.sqrt(ix * ix + iy * iy + iz * iz)
        if norm <= 0.0:
            continue
        ux = ix / norm
        uy = iy / norm
        uz = iz / norm
        if ux * dx + uy * dy + uz * dz >= cos_cone:
            wgt = energy[t, f]
            ax += wgt * ux
            ay += wgt * uy
            az += wgt * uz
            aw += wgt
            if votes[t, f] >= wgt:
                ao += wgt
                ox += ux
                oy += uy
                oz += uz
                on += 1.0
            if rise_ratio > 0.0:
                prev = 0.0
                for b in range(1, back + 1):
                    prev += energy[t - b, f]
                if wgt >= rise_ratio * (prev / n_prev):
                    ar += wgt
    sh[0, tid] = ax
    sh[1, tid] = ay
    sh[2, tid] = az
    sh[3, tid] = aw
    sh[4, tid] = ao
    sh[5, tid] = ox
    sh[6, tid] = oy
    sh[7, tid] = oz
    sh[8, tid] = on
    sh[9, tid] = ar
    _reduce_sum(sh, CONE_CHANNELS, tid, nt)
    if tid == 0:
        for c in range(CONE_CHANNELS):
            out[k, t, c] = sh[c, 0]


# ------------------------------------------------------------------------ host wrappers

def _threads() -> int:
    n = int(THREADS)
    if not 1 <= n <= MAX_THREADS:
        raise ValueError(f"THREADS={n} must be in 1..{MAX_THREADS}")
    return n


def _is_device(x: Any) -> bool:
    return cuda.is_cuda_array(x) if hasattr(cuda, "is_cuda_array") else False


class _Launch:
    """Moves host arrays to the device and back around one kernel launch."""

    def __init__(self, stream: Any) -> None:
        if stream is None:
            # the simulator has no default_stream(); its streams are all synchronous
            self.stream = getattr(cuda, "default_stream", cuda.stream)()
        elif hasattr(stream, "ptr") and not hasattr(stream, "handle"):
            self.stream = cuda.external_stream(stream.ptr)  # a CuPy stream
        else:
            self.stream = stream
        self._back: list[tuple[Any, np.ndarray]] = []
        self._host = False

    def arg(self, x: Any, *, out: bool = False) -> Any:
        if _devicearray.is_cuda_ndarray(x):
            return x
        if _is_device(x):  # CuPy and friends: queue on our stream, no sync
            return cuda.as_cuda_array(x, sync=False)
        self._host = True
        if out and not (isinstance(x, np.ndarray) and x.flags.c_contiguous):
            raise ValueError("host output arrays must be C-contiguous NumPy arrays")
        d = cuda.to_device(np.ascontiguousarray(x), stream=self.stream)
        if out:
            self._back.append((d, x))
        return d

    def empty(self, like: Any, shape: tuple, dtype: Any) -> Any:
        """Device scratch from the same allocator as ``like`` (CuPy pool for CuPy arrays)."""
        mod = type(like).__module__.split(".")[0]
        if mod == "cupy":
            import cupy

            return cuda.as_cuda_array(cupy.empty(shape, dtype=dtype), sync=False)
        return cuda.device_array(shape, dtype=dtype, stream=self.stream)

    def finish(self) -> None:
        for d, x in self._back:
            x[...] = d.copy_to_host(stream=self.stream)
        if self._host:
            self.stream.synchronize()


def doa_histograms(intensity, votes, energy, psi, frame_window, steady_window, lo, hi,
                   psi_max, hist, vsum, frame_vec, steady_hist, steady_vsum, *,
                   stream: Any = None) -> None:
    """CUDA twin of :func:`foakit.kernels.histogram.doa_histograms` (same arguments).

    The outputs are accumulated into.  Launch: one block per frame, :data:`THREADS` threads
    striding over the bins; cell votes by atomics, frame sums by a block reduction.
    """
    n_frames = votes.shape[0]
    if n_frames == 0 or hi <= lo:
        return
    ln = _Launch(stream)
    args = (ln.arg(intensity), ln.arg(votes), ln.arg(energy), ln.arg(psi),
            ln.arg(frame_window), ln.arg(steady_window), int(lo), int(hi), psi_max,
            ln.arg(hist, out=True), ln.arg(vsum, out=True), ln.arg(frame_vec, out=True),
            ln.arg(steady_hist, out=True), ln.arg(steady_vsum, out=True))
    _doa_histograms_k[n_frames, _threads(), ln.stream](*args)
    ln.finish()


def pick_peaks(hist, vsum, centers, rel, cos_min_sep, cos_refine, peaks, *,
               stream: Any = None) -> None:
    """CUDA twin of :func:`foakit.kernels.peaks.pick_peaks` (same arguments).

    Launch: one block per window.  Scratch (smoothed histograms, float64, and candidate
    lists) is allocated per call: about ``12 * n_az * n_el`` bytes per window.
    """
    n_win, n_az, n_el = hist.shape
    if n_win == 0:
        return
    ln = _Launch(stream)
    d_hist = ln.arg(hist)
    args = (d_hist, ln.arg(vsum), ln.arg(centers), float(rel), float(cos_min_sep),
            float(cos_refine), ln.arg(peaks, out=True))
    sm = ln.empty(hist, (n_win, n_az, n_el), np.float64)
    cand = ln.empty(hist, (n_win, n_az * n_el), np.int32)
    _pick_peaks_k[n_win, _threads(), ln.stream](*args, sm, cand)
    ln.finish()


def hysteresis(level, on, off, n_valid, out, *, stream: Any = None) -> None:
    """CUDA twin of :func:`foakit.kernels.activity.hysteresis`: one thread per clip."""
    n_clips = level.shape[0]
    if n_clips == 0:
        return
    ln = _Launch(stream)
    args = (ln.arg(level), ln.arg(on), ln.arg(off), ln.arg(n_valid), ln.arg(out, out=True))
    nt = _threads()
    _hysteresis_k[(n_clips + nt - 1) // nt, nt, ln.stream](*args)
    ln.finish()


def clean_activity(active, n_valid, max_gap, min_len, *, stream: Any = None) -> None:
    """CUDA twin of :func:`foakit.kernels.activity.clean_activity`: one thread per clip."""
    n_clips = active.shape[0]
    if n_clips == 0:
        return
    ln = _Launch(stream)
    args = (ln.arg(active, out=True), ln.arg(n_valid), int(max_gap), int(min_len))
    nt = _threads()
    _clean_activity_k[(n_clips + nt - 1) // nt, nt, ln.stream](*args)
    ln.finish()


def cone_energy(intensity, energy, votes, psi, lo, hi, psi_max, dirs, cos_cone, rise_ratio,
                n_prev, clip_frames, out, *, stream: Any = None) -> None:
    """CUDA twin of :func:`foakit.kernels.cone.cone_energy` (same arguments).

    Launch: one block per (frame, axis); blocks of an all-zero axis only clear their output.
    """
    if out.shape[-1] != CONE_CHANNELS:
        raise ParameterError(f"out.shape={tuple(out.shape)} must end in {CONE_CHANNELS=}")
    n_dirs, n_frames = dirs.shape[0], dirs.shape[1]
    if n_dirs == 0 or n_frames == 0:
        return
    ln = _Launch(stream)
    args = (ln.arg(intensity), ln.arg(energy), ln.arg(votes), ln.arg(psi), int(lo), int(hi),
            psi_max, ln.arg(dirs), float(cos_cone), float(rise_ratio), int(n_prev),
            int(clip_frames), ln.arg(out, out=True))
    _cone_energy_k[(n_frames, n_dirs), _threads(), ln.stream](*args)
    ln.finish()
