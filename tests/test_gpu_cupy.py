"""The CuPy side of the GPU backend.

Every test body runs twice: with ``numpy`` here (the batched path on the Numba CPU kernels,
so the bodies are exercised and can fail without a GPU) and with ``cupy`` (marker ``gpu``),
which skips cleanly without CuPy or a CUDA device.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from foakit.analysis import analyze_samples
from foakit.conventions import encode_plane_wave, vector_to_direction
from foakit.gpu.check import compare_events, compare_frames
from foakit.kernels.spatial import diffuseness_from_smoothed, intensity_energy
from foakit.kernels.stft import stft
from foakit.params import AnalysisParams

from .naive import naive_stft
from .scenes import diffuse_field, plane_wave_scene

# a batch that fell back to the CPU would hide the GPU path's result
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def _cuda_ok() -> tuple[bool, str]:
    from foakit.backend import cuda_status

    return cuda_status()


CUDA_OK, WHY = _cuda_ok()
XP = ["numpy", pytest.param("cupy", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not CUDA_OK, reason=WHY)])]


def xpmod(name):
    return np if name == "numpy" else importlib.import_module("cupy")


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def backend(name):
    return "cpu" if name == "numpy" else "cuda"


@pytest.mark.parametrize("xp_name", XP)
@pytest.mark.parametrize("n,win,hop", [(1, 16, 8), (700, 15, 4), (333, 32, 32), (50, 20, 7)])
def test_stft_equals_naive_reference(xp_name, n, win, hop):
    xp = xpmod(xp_name)
    x = np.random.default_rng(n).normal(size=n)
    got = host(stft(xp.asarray(x), win_length=win, hop_length=hop, n_fft=win + 3))
    ref = naive_stft(x, win, hop, win + 3)
    assert got.shape == ref.shape
    assert np.allclose(got, ref, atol=1e-10 * win)


@pytest.mark.parametrize("xp_name", XP)
def test_stft_float32_tolerance_from_dtype(xp_name):
    xp = xpmod(xp_name)
    x = np.random.default_rng(1).normal(size=(2, 4, 4000)).astype(np.float32)
    got = host(stft(xp.asarray(x), win_length=512, hop_length=320))
    assert got.dtype == np.complex64
    tol = np.finfo(np.float32).eps * 512 * 8
    for b in range(2):
        for c in range(4):
            ref = naive_stft(x[b, c].astype(np.float64), 512, 320, 512)
            assert np.abs(got[b, c] - ref).max() < tol * np.abs(ref).max()


@pytest.mark.parametrize("xp_name", XP)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_window_sums_of_a_padded_batch_equal_the_reference(xp_name, n):
    """Clips of 1 to 12 frames zero-padded into one batch: each clip's sums are n times
    the reference mean (its length when shorter than n), shifted inward at its own ends."""
    from foakit.gpu.batch import window_sums

    from .naive import slow_smooth

    xp = xpmod(xp_name)
    lengths = [1, 2, 4, 7, 12]
    rng = np.random.default_rng(n)
    a = np.zeros((2, len(lengths), 12, 3))
    for b, m in enumerate(lengths):
        a[:, b, :m] = rng.normal(size=(2, m, 3))
    got = host(window_sums(xp.asarray(a), n, np.array(lengths)))
    for b, m in enumerate(lengths):
        for c in range(2):
            ref = slow_smooth(a[c, b, :m], n) * min(n, m)
            assert np.allclose(got[c, b, :m], ref, atol=1e-12)


@pytest.mark.parametrize("xp_name", XP)
@pytest.mark.parametrize("az,el", [(0, 0), (90, 0), (-135, 30), (170, -60)])
def test_plane_wave_features(xp_name, az, el):
    from foakit.gpu.batch import window_sums

    xp = xpmod(xp_name)
    s = np.random.default_rng(2).normal(size=8000)
    x = encode_plane_wave(s, az, el).astype(np.float32)
    spec = stft(xp.asarray(x), win_length=256, hop_length=128)
    intensity, energy = intensity_energy(spec)
    i_s = window_sums(intensity[:, None], 5)[:, 0]
    e_s = window_sums(energy[None, None], 5)[0, 0]
    psi = host(diffuseness_from_smoothed(i_s, e_s, vector_axis=0))
    v = host(intensity).sum(axis=(1, 2))
    got_az, got_el = vector_to_direction(v)
    assert abs((got_az - az + 180) % 360 - 180) < 0.1 and abs(got_el - el) < 0.1
    assert np.median(psi[:, 5:100]) < 1e-3


@pytest.mark.parametrize("xp_name", XP)
def test_diffuse_field_psi_is_about_one(xp_name):
    from foakit.gpu.batch import window_sums

    xp = xpmod(xp_name)
    x = diffuse_field(16000, np.random.default_rng(3)).astype(np.float32)
    spec = stft(xp.asarray(x), win_length=512, hop_length=320)
    intensity, energy = intensity_energy(spec)
    psi = host(diffuseness_from_smoothed(window_sums(intensity[:, None], 5)[:, 0],
                                         window_sums(energy[None, None], 5)[0, 0],
                                         vector_axis=0))
    assert np.median(psi[:, 10:200]) > 0.6


def _scenes():
    return [
        (plane_wave_scene([(60, 20, 1.0, 6.0), (-100, -10, 4.0, 9.0)], duration=10.0,
                          snr_db=10), 16000),
        (plane_wave_scene([(30, 0, 0.5, 2.5)], duration=3.0, snr_db=20, seed=1), 16000),
        (plane_wave_scene([(-150, 40, 0.3, 1.8)], duration=2.2, snr_db=20, seed=2,
                          sr=24000), 24000),
        (encode_plane_wave(np.random.default_rng(4).normal(size=16000 * 6) * 0.1,
                           np.linspace(80, -80, 16000 * 6), 0.0).astype(np.float32), 16000),
        (np.zeros((4, 16000), np.float32), 16000),
        # sound up to an end that is not on the hop grid, padded in its batch
        (plane_wave_scene([(10, 5, 0.5, 3.99)], duration=3.9937, snr_db=6, seed=6), 16000),
        (plane_wave_scene([(0, 0, 0.2, 1.0)], duration=1.2, seed=5)[:1], 16000),  # mono
    ]


@pytest.mark.parametrize("xp_name", XP)
def test_batched_analysis_equals_cpu_analysis(xp_name):
    from foakit.gpu import analyze_clips

    scenes = _scenes()
    params = AnalysisParams()
    got = analyze_clips([x for x, _ in scenes], [sr for _, sr in scenes], params=params,
                        backend=backend(xp_name), max_batch_samples=16000 * 25,
                        keep_hist=True)
    n_events = 0
    for (x, sr), g in zip(scenes, got, strict=True):
        ref = analyze_samples(x, sr, params=params)
        assert compare_events(g.events, ref.events) == []
        assert compare_frames(g.frames, ref.frames) == []
        assert g.n_sources == ref.n_sources
        if ref.hist is not None:
            assert abs(g.hist.sum() - ref.hist.sum()) <= 1e-4 * ref.hist.sum() + 1e-12
        n_events += len(ref.events)
    assert n_events >= 4


@pytest.mark.parametrize("xp_name", XP)
def test_corpus_path_equals_cpu_corpus(xp_name, tmp_path):
    import soundfile as sf

    from foakit.corpus import analyze_corpus
    from foakit.io import iter_audio_files

    audio = tmp_path / "audio"
    (audio / "sub").mkdir(parents=True)
    for i, (x, sr) in enumerate(_scenes()):
        sf.write(audio / ("sub" if i % 2 else "") / f"c{i}.wav", x.T, sr, subtype="FLOAT")
    (audio / "broken.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt ")
    runs = {}
    for name, be in (("cpu", "cpu"), ("other", backend(xp_name))):
        out = tmp_path / name
        if be == "cpu" and name == "other":  # the GPU pipeline on NumPy
            from foakit.gpu import pipeline

            batches = []
            files = iter_audio_files(audio)
            pipeline.analyze_batches_cuda(str(audio), [files[:3], files[3:]], "ambix",
                                          AnalysisParams(), batches.extend, workers=2,
                                          max_batch_samples=16000 * 4, backend="cpu")
            runs[name] = {r["path"]: r for r, _ in batches}
            continue
        analyze_corpus(audio, out, progress=False, backend=be, workers=2, batch_size=3)
        runs[name] = {json.loads(line)["path"]: json.loads(line)
                      for line in (out / "clips.jsonl").read_text().splitlines()}
    assert runs["cpu"].keys() == runs["other"].keys() and len(runs["cpu"]) == 8
    for path, ref in runs["cpu"].items():
        got = dict(runs["other"][path])
        assert compare_events(got.pop("events"), ref["events"]) == [], path
        ref = {k: v for k, v in ref.items() if k not in ("events", "frames_part")}
        got.pop("frames_part", None)
        assert got == ref, path
    assert runs["cpu"]["broken.wav"]["status"] == "error"


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA_OK, reason=WHY)
def test_kernel_wrappers_take_cupy_arrays_on_a_stream():
    import cupy

    from foakit.kernels import activity
    from foakit.kernels import cuda as kc

    rng = np.random.default_rng(0)
    level = rng.normal(0, 4, size=(300, 80)).astype(np.float32)
    on = np.full(300, 3.0, np.float32)
    off = np.full(300, 1.0, np.float32)
    nv = rng.integers(1, 81, 300).astype(np.int64)
    ref = np.zeros((300, 80), np.uint8)
    activity.hysteresis(level, on, off, nv, ref)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        out = cupy.zeros((300, 80), cupy.uint8)
        kc.hysteresis(cupy.asarray(level), cupy.asarray(on), cupy.asarray(off),
                      cupy.asarray(nv), out, stream=s)
    s.synchronize()
    assert np.array_equal(out.get(), ref)


@pytest.mark.skipif(CUDA_OK, reason="a CUDA device is present")
def test_cuda_backend_says_why_it_is_unavailable(tmp_path):
    from foakit.backend import resolve_backend
    from foakit.errors import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="CuPy|CUDA"):
        resolve_backend("cuda")
    assert resolve_backend("auto") == "cpu"


def test_host_work_in_processes_equals_in_process():
    from foakit.gpu import analyze_clips

    scenes = _scenes()[:3]
    kw = dict(params=AnalysisParams(), backend="cpu", max_batch_samples=16000 * 12)
    one = analyze_clips([x for x, _ in scenes], [sr for _, sr in scenes], **kw)
    two = analyze_clips([x for x, _ in scenes], [sr for _, sr in scenes], host_workers=2, **kw)
    for a, b in zip(one, two, strict=True):
        assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
        assert compare_frames(a.frames, b.frames) == []


def test_info_reports_versions_backends_and_why(capsys):
    from foakit.cli import main

    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["packages"]["numpy"] == np.__version__
    assert info["backends"]["cpu"]["available"] is True
    assert info["backends"]["cuda"]["available"] is CUDA_OK
    assert info["backends"]["cuda"]["reason"]  # why (or what) is always said
    assert info["backends"]["auto"]["reason"].endswith("cuda" if CUDA_OK else "cpu")
    if CUDA_OK:
        assert info["devices"] and info["devices"][0]["memory_total_gib"] > 0
    assert main(["info"]) == 0
    text = capsys.readouterr().out
    assert "backends:" in text and "cuda" in text and ("unavailable" in text) != CUDA_OK
