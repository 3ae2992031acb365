"""Numba CUDA kernels against their CPU twins and slow pure-Python references.

Runs wherever ``numba.cuda`` can launch kernels: on a GPU, or in the CUDA simulator.  The
simulator must be switched on before Numba is first imported, so a plain ``pytest`` (whose
other tests import Numba first) runs this file again in a subprocess with
``NUMBA_ENABLE_CUDASIM=1``; ``NUMBA_ENABLE_CUDASIM=1 pytest -m gpu`` runs it in process.
Inputs are tiny and the block size is patched down so they span several blocks and several
strides per thread.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .naive import ref_clean, ref_cones, ref_histogram, ref_hysteresis, ref_peaks

pytestmark = pytest.mark.gpu

EPS32 = float(np.finfo(np.float32).eps)
ROOT = Path(__file__).resolve().parents[1]


def _cuda_runs_here() -> tuple[bool, str]:
    try:
        from numba import cuda
        from numba.core import config
    except Exception as exc:  # pragma: no cover - numba is a hard dependency
        return False, f"numba.cuda not importable: {exc}"
    if config.ENABLE_CUDASIM:
        return True, "CUDA simulator"
    try:
        return bool(cuda.is_available()), "no CUDA device in this process"
    except Exception as exc:
        return False, f"no CUDA device ({type(exc).__name__})"


CUDA_OK, WHY = _cuda_runs_here()
needs_cuda = pytest.mark.skipif(
    not CUDA_OK, reason=f"{WHY}: run in the simulator by test_kernels_in_cuda_simulator")


@pytest.mark.slow
@pytest.mark.skipif(CUDA_OK, reason="the kernels run in this process")
def test_kernels_in_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        "-m", "gpu", str(Path(__file__))],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert " passed" in r.stdout and " failed" not in r.stdout, r.stdout[-3000:]


@pytest.fixture
def kc(monkeypatch):
    from foakit.kernels import cuda as kc

    monkeypatch.setattr(kc, "THREADS", 8)
    return kc


# ------------------------------------------------------------ slow, obviously correct references


def close(got, ref, n_terms):
    """float32 results against float64 references: ``n_terms * eps32`` of the scale."""
    scale = max(float(np.abs(ref).max()), 1e-30)
    np.testing.assert_allclose(got, ref, rtol=0, atol=4 * n_terms * EPS32 * scale)


# ------------------------------------------------------------------------------------ inputs

def features(seed, n_frames=11, n_bins=23):
    rng = np.random.default_rng(seed)
    intensity = rng.normal(size=(3, n_frames, n_bins)).astype(np.float32)
    intensity[:, 2, 5] = 0.0  # a bin without direction
    energy = (rng.random((n_frames, n_bins)) + 0.1).astype(np.float32)
    psi = rng.random((n_frames, n_bins)).astype(np.float32)
    return intensity, energy, psi


# ------------------------------------------------------------------------------------- tests

@needs_cuda
@pytest.mark.parametrize("seed", [0, 1])
def test_doa_histograms_match_cpu_and_reference(kc, seed):
    """Both histogram sets of the fused pass against two separate slow passes."""
    from foakit.kernels import histogram

    intensity, energy, psi = features(seed)
    votes = (energy * np.random.default_rng(seed + 10).random(energy.shape)).astype(np.float32)
    fw = np.array([0, 0, 0, 1, 1, -1, 2, 2, 2, 3, -1], np.int32)
    sw = np.array([0, 0, -1, 0, 1, -1, 1, 1, 1, 1, 1], np.int32)  # frames 2 / 10: one set only
    lo, hi, psi_max, n_az, n_el = 2, 21, np.float32(0.7), 12, 6
    ref = ref_histogram(intensity, votes, psi, fw, lo, hi, psi_max, 4, n_az, n_el)
    ref += ref_histogram(intensity, energy, psi, sw, lo, hi, psi_max, 2, n_az, n_el)[:2]
    outs = []
    for mod in (histogram, kc):
        h = np.zeros((4, n_az, n_el), np.float32)
        v = np.zeros((4, n_az, n_el, 3), np.float32)
        fv = np.full((11, 4), 0.5, np.float32)  # accumulated into
        sh = np.zeros((2, n_az, n_el), np.float32)
        sv = np.full((2, n_az, n_el, 3), 0.25, np.float32)  # accumulated into
        mod.doa_histograms(intensity, votes, energy, psi, fw, sw, lo, hi, psi_max, h, v, fv,
                           sh, sv)
        outs.append((h, v, fv - 0.5, sh, sv - 0.25))
    for (gpu, cpu, r) in zip(outs[1], outs[0], ref, strict=True):
        close(gpu, r, 30)
        close(cpu, r, 30)
    assert outs[1][0].sum() > 0 and np.count_nonzero(outs[1][0]) > 10
    assert outs[1][3].sum() > 0 and np.count_nonzero(outs[1][3]) > 10


@needs_cuda
def test_pick_peaks_matches_cpu_and_reference(kc):
    from foakit.kernels import histogram, peaks

    n_az, n_el = 16, 8
    centers = histogram.cell_centers(n_az, n_el)
    rng = np.random.default_rng(3)
    h = np.zeros((6, n_az, n_el), np.float32)
    h[0, 3, 4], h[0, 11, 2], h[0, 12, 2] = 5.0, 3.0, 2.5        # two sources
    h[1] = rng.random((n_az, n_el)) ** 8                        # many small maxima
    h[2, 0, 4] = h[2, 15, 4] = 1.0                              # peak across the seam
    h[3, 5, 3] = h[3, 5, 4] = 2.0                               # plateau: one peak
    h[3, 9, 1] = h[3, 9, 6] = 2.0                               # equal separate peaks
    # window 4 stays empty
    h[5, 0:15:3, 1] = h[5, 0:15:3, 5] = 1.0                   # 10 equal peaks: ties decide
    vs = (h[..., None] * centers[None]).astype(np.float32)
    vs[0, 11, 2] = [0.1, -0.2, 0.3]
    args = (0.15, math.cos(math.radians(25)), math.cos(math.radians(15)))
    got = []
    for mod in (peaks, kc):
        p = np.full((6, 3, 4), 9.0, np.float32)  # overwritten
        mod.pick_peaks(h, vs, centers, *args, p)
        got.append(p)
    for w in range(6):
        ref = ref_peaks(h[w].astype(float), vs[w].astype(float), centers, *args, 3)
        close(got[0][w], ref, 16)
        close(got[1][w], ref, 16)
    assert np.all(got[1][4] == 0)
    assert np.count_nonzero(got[1][1, :, 3]) == 3  # max_peaks reached
    assert np.count_nonzero(got[1][3, :, 3]) == 3


@needs_cuda
def test_hysteresis_and_clean_activity_match_cpu_and_reference(kc):
    from foakit.kernels import activity

    rng = np.random.default_rng(5)
    n_clips, n_frames = 19, 40  # several blocks of 8 threads
    level = rng.normal(0, 4, size=(n_clips, n_frames)).astype(np.float32)
    level[0, :] = 10.0  # all above: one run touching both ends
    level[1, :] = -10.0  # nothing
    on = rng.uniform(2, 5, n_clips).astype(np.float32)
    off = (on - rng.uniform(0, 3, n_clips)).astype(np.float32)
    n_valid = rng.integers(1, n_frames + 1, n_clips).astype(np.int64)
    n_valid[0] = n_frames
    outs = []
    for mod in (activity, kc):
        out = np.full((n_clips, n_frames), 7, np.uint8)
        mod.hysteresis(level, on, off, n_valid, out)
        h = out.copy()
        mod.clean_activity(out, n_valid, 2, 3)
        outs.append((h, out))
    for b in range(n_clips):
        rh = ref_hysteresis(level[b], on[b], off[b], n_valid[b])
        rc = ref_clean(rh, n_valid[b], 2, 3)
        for h, c in outs:
            assert np.array_equal(h[b], rh), b
            assert np.array_equal(c[b], rc), b
    assert outs[1][0][0].all() and not outs[1][0][1].any()
    assert 0 < outs[1][1].sum() < outs[1][0].sum()  # merging and dropping both happened


@needs_cuda
def test_cone_energy_matches_cpu_and_reference(kc):
    from foakit.kernels import cone

    intensity, energy, psi = features(7)
    rng = np.random.default_rng(8)
    dirs = rng.normal(size=(3, 11, 3))
    dirs /= np.linalg.norm(dirs, axis=-1, keepdims=True)
    dirs = dirs.astype(np.float32)
    dirs[1, 4:7] = 0.0  # outside a track's span
    # onset bins carry their full energy as their vote, the others a fraction of it
    votes = np.where(rng.random(energy.shape) < 0.3, energy, 0.05 * energy).astype(np.float32)
    cos_cone = math.cos(math.radians(70))
    # two stacked clips of 5 frames and one of 1: the rise test looks back within each
    ref = ref_cones(intensity, energy, votes, psi, 1, 22, np.float32(0.8), dirs, cos_cone,
                    1.5, 2, 5)
    for mod in (cone, kc):
        out = np.full((3, 11, 10), 5.0, np.float32)
        mod.cone_energy(intensity, energy, votes, psi, 1, 22, np.float32(0.8), dirs, cos_cone,
                        1.5, 2, 5, out)
        close(out, ref, 30)
    assert np.all(out[1, 4:7] == 0) and out[0, :, 3].sum() > 0
    assert 0 < out[0, :, 4].sum() < out[0, :, 3].sum()  # some in-cone bins are onsets
    assert 0 < out[0, :, 8].sum() < 21 * 11  # and they are counted once each
    assert 0 < out[0, :, 9].sum() < out[0, :, 3].sum()  # some rise
    # a clip's first frame looks back at silence: every in-cone bin rises
    assert np.array_equal(out[:, [0, 5, 10], 9], out[:, [0, 5, 10], 3])
    from foakit.errors import ParameterError

    with pytest.raises(ParameterError, match="CONE_CHANNELS"):
        kc.cone_energy(intensity, energy, votes, psi, 1, 22, np.float32(0.8), dirs, cos_cone,
                       1.5, 2, 5, np.zeros((3, 11, 5), np.float32))


@needs_cuda
def test_block_size_is_read_at_launch(kc, monkeypatch):
    from foakit.kernels import histogram

    intensity, energy, psi = features(2)
    fw = np.zeros(11, np.int32)
    def run(mod):
        out = (np.zeros((1, 8, 4), np.float32), np.zeros((1, 8, 4, 3), np.float32),
               np.zeros((11, 4), np.float32), np.zeros((1, 8, 4), np.float32),
               np.zeros((1, 8, 4, 3), np.float32))
        mod.doa_histograms(intensity, energy, energy, psi, fw, fw, 0, 23, np.float32(1.0),
                           *out)
        return out

    res = []
    for threads in (1, 3, 32):
        monkeypatch.setattr(kc, "THREADS", threads)
        res.append(run(kc))
    cpu = run(histogram)
    for out in res:
        for got, ref in zip(out, cpu, strict=True):
            close(got, ref.astype(float), 30)
    monkeypatch.setattr(kc, "THREADS", kc.MAX_THREADS + 1)
    with pytest.raises(ValueError, match="THREADS"):
        run(kc)


@needs_cuda
def test_batched_analysis_with_cuda_kernels_equals_cpu_analysis(kc):
    """The batch path (NumPy arrays, CUDA kernels) against analysis.analyze_samples."""
    from foakit.analysis import analyze_samples
    from foakit.gpu.batch import analyze_batch, cuda_kernels
    from foakit.gpu.check import compare_events, compare_frames
    from foakit.params import AnalysisParams

    from .scenes import plane_wave_scene

    kc.THREADS = 32
    params = AnalysisParams(az_bins=24, el_bins=12)  # fewer cells: the simulator is slow
    clips = [plane_wave_scene([(50, 10, 0.2, 1.0)], sr=8000, duration=1.3, snr_db=25),
             plane_wave_scene([(-120, -20, 0.1, 0.7)], sr=8000, duration=0.9, snr_db=25,
                              seed=1)]
    got = analyze_batch(clips, 8000, params=params, xp=np, kernels=cuda_kernels())
    for x, g in zip(clips, got, strict=True):
        ref = analyze_samples(x, 8000, params=params)
        assert ref.events, "the scene must produce events for the check to mean anything"
        assert compare_events(g.events, ref.events) == []
        assert compare_frames(g.frames, ref.frames) == []
        # votes at a cell edge may land in the neighbour cell (float32 vs float64 atan2)
        close(g.window_hist.sum(axis=(1, 2)), ref.window_hist.sum(axis=(1, 2)), 300)
        moved = np.abs(g.window_hist - ref.window_hist).sum() / ref.window_hist.sum()
        assert moved < 0.01


def test_cuda_kernels_compile_to_ptx(monkeypatch):
    """Type-check and compile every kernel for sm_90 where NVVM is installed (numba-cuda)."""
    if CUDA_OK and "simulator" in WHY:
        pytest.skip("the simulator cannot compile")
    try:
        from numba import cuda, types
        from numba.core import config
    except Exception as exc:  # pragma: no cover
        pytest.skip(f"numba.cuda: {exc}")
    if config.ENABLE_CUDASIM:
        pytest.skip("the simulator cannot compile")
    from foakit.kernels import cuda as kc

    if not CUDA_OK:  # no driver: device functions are compiled for the current device
        import numba.cuda.dispatcher as disp

        if hasattr(disp, "get_current_device"):
            cc = type("Dev", (), {"compute_capability": (9, 0)})()
            monkeypatch.setattr(disp, "get_current_device", lambda: cc)
    f3, f2, f4 = types.float32[:, :, ::1], types.float32[:, ::1], types.float32[:, :, :, ::1]
    sigs = {
        kc._doa_histograms_k: (f3, f2, f2, f2, types.int32[::1], types.int32[::1], types.int64,
                               types.int64, types.float32, f3, f4, f2, f3, f4),
        kc._pick_peaks_k: (f3, f4, types.float64[:, :, ::1], types.float64, types.float64,
                           types.float64, f3, types.float64[:, :, ::1], types.int32[:, ::1]),
        kc._hysteresis_k: (f2, types.float32[::1], types.float32[::1], types.int64[::1],
                           types.uint8[:, ::1]),
        kc._clean_activity_k: (types.uint8[:, ::1], types.int64[::1], types.int64,
                               types.int64),
        kc._cone_energy_k: (f3, f2, f2, f2, types.int64, types.int64, types.float32, f3,
                            types.float64, types.float64, types.int64, types.int64, f3),
    }
    for k, sig in sigs.items():
        try:
            ptx, _ = cuda.compile_ptx(k.py_func, sig, cc=(9, 0))
        except Exception as exc:
            if "NVVM" in str(exc) or "libnvvm" in str(exc) or "driver" in str(exc).lower():
                pytest.skip(f"no NVVM to compile with: {type(exc).__name__}")
            raise
        assert ".entry" in ptx
