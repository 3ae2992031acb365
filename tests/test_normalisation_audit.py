"""The normalisation verdict of the convention audit, the manifest field and the CLI flag.

The bar: an SO-Bench corpus written by foakit's synth and its N3D and FuMa copies (the same
audio, channels scaled; FuMa also re-ordered W, X, Y, Z) are named as such by the audit read
as SN3D, and read with the right ``--normalisation`` they get the SN3D corpus's verdicts.
"""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from foakit.audit.conventions import normalisation_stats, normalisation_verdict
from foakit.conventions import encode_plane_wave, from_internal, to_internal
from foakit.corpus import read_frames
from foakit.errors import ParameterError
from foakit.io import read_audio

from .scenes import make_corpus, plane_wave_scene


def foakit(*args, **kw):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, timeout=600, **kw)


def _scene(seed):
    rng = np.random.default_rng(seed)
    srcs = [(float(rng.uniform(-180, 180)), float(rng.uniform(-40, 40)), 0.2 + k, 0.9 + k)
            for k in range(3)]
    return plane_wave_scene(srcs, duration=4.0, snr_db=25, seed=seed)


# --------------------------------------------------------------------- known answers

@pytest.mark.parametrize("norm,ratio", [("sn3d", 1.0), ("n3d", 3.0), ("fuma", 2.0)])
def test_plane_waves_give_the_normalisations_ratio(norm, ratio):
    stats = []
    for seed in range(4):
        raw = from_internal(_scene(seed), "ambix", normalisation=norm)
        stats.append(normalisation_stats(raw, 16000))
    v = normalisation_verdict("sn3d", stats)  # read as SN3D: the file's own ratio
    assert v["supported"] == norm and v["mismatch"] == (norm != "sn3d"), v["evidence"]
    assert v["ratio_file"] == pytest.approx(ratio, rel=0.08)
    assert v["n_clips"] == 4 and v["n_bins"] > 4 * 200
    # read with the right normalisation: SN3D as read, the file's ratio, no mismatch
    conv = [normalisation_stats(to_internal(from_internal(_scene(s), "ambix",
                                                          normalisation=norm),
                                            "ambix", normalisation=norm), 16000)
            for s in range(4)]
    right = normalisation_verdict(norm, conv)
    assert right["supported"] == norm and not right["mismatch"], right["evidence"]
    assert right["ratio_as_read"] == pytest.approx(1.0, rel=0.08)
    assert right["ratio_file"] == pytest.approx(v["ratio_file"], rel=1e-9)


@settings(derandomize=True, max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["ambix", "fuma"]),
       st.floats(0.2, 5.0), st.floats(0.2, 5.0))
def test_stats_scale_with_the_gains_and_select_the_same_bins(seed, order, g_w, g_d):
    x = _scene(seed)
    raw = from_internal(x, order)
    base = normalisation_stats(raw, 16000)
    scaled = raw.copy()
    scaled[0] *= g_w
    scaled[1:] *= g_d
    got = normalisation_stats(scaled, 16000)
    assert got[2] == base[2] and base[2] > 200  # the same bins
    assert got[0] / got[1] == pytest.approx(base[0] / base[1] * g_d ** 2 / g_w ** 2, rel=1e-6)


def test_undecided_between_normalisations_and_with_too_little():
    # ratio 1.5 as read: halfway between SN3D (1) and FuMa (2) in log terms
    v = normalisation_verdict("sn3d", [np.array([1.5, 1.0, 500.0])] * 5)
    assert v["supported"] == "undecided" and not v["mismatch"]
    assert v["ratio_file"] == 1.5 and "undecided" in v["evidence"] and "1.50" in v["evidence"]
    v = normalisation_verdict("sn3d", [np.array([3.0, 1.0, 500.0])] * 2)  # two clips
    assert v["supported"] == "undecided" and v["ratio_file"] == 3.0
    assert "only 2 clip(s)" in v["evidence"]
    v = normalisation_verdict("fuma", [None, np.array([1.0, 1.0, 10.0])])  # too few bins
    assert v["supported"] == "undecided" and v["ratio_file"] is None and v["n_clips"] == 0
    # a decided FuMa corpus read as FuMa: 1 as read, 2 in the files
    v = normalisation_verdict("fuma", [np.array([1.02, 1.0, 900.0])] * 3)
    assert v["supported"] == "fuma" and not v["mismatch"] and v["ratio_file"] == 2.04
    # silence and short clips measure nothing
    assert normalisation_stats(np.zeros((4, 16000)), 16000).tolist() == [0.0, 0.0, 0.0]
    assert normalisation_stats(np.ones((4, 100)), 16000).tolist() == [0.0, 0.0, 0.0]


def test_verdict_and_stats_errors_name_the_value():
    with pytest.raises(ParameterError, match="normalisation='maxn'"):
        normalisation_verdict("maxn", [])
    with pytest.raises(ParameterError, match=r"\(3, 100\)"):
        normalisation_stats(np.zeros((3, 100)), 16000)


# --------------------------------------------------------------------- the bar

def _copy(src, dst, order, norm):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.wav"))
    for wav in sorted(src.rglob("*.wav")):
        clip = read_audio(wav)
        raw = from_internal(np.asarray(clip.samples, np.float64), order, normalisation=norm)
        out = dst / wav.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        sf.write(out, np.ascontiguousarray(raw.T, np.float32), clip.sample_rate,
                 subtype="FLOAT")


@pytest.fixture(scope="module")
def sobench(tmp_path_factory):
    from foakit.bench.sobench.synth import write_sobench_corpus

    base = tmp_path_factory.mktemp("norm")
    write_sobench_corpus(base / "sn3d", n_clips=4, seed=5, engine="ism", duration_s=6.0)
    _copy(base / "sn3d", base / "n3d", "ambix", "n3d")
    _copy(base / "sn3d", base / "fuma", "fuma", "fuma")
    return base


def _verdicts(res):
    return {(v.key["qa_id"], v.field): v.verdict for v in res.verdicts}


@pytest.mark.slow
def test_audit_names_n3d_and_fuma_copies_and_reads_them_right(sobench):
    from foakit.bench.sobench.audit import audit_sobench

    ref = audit_sobench(sobench / "sn3d", workers=1)
    nv = ref.summary["convention"]["normalisation"]
    assert nv["supported"] == "sn3d" and not nv["mismatch"], nv["evidence"]
    assert ref.summary["normalisation"] == "sn3d"
    ref_v = _verdicts(ref)
    assert len(ref_v) >= 10
    for name, order in (("n3d", "ambix"), ("fuma", "fuma")):
        plain = audit_sobench(sobench / name, workers=1)
        pn = plain.summary["convention"]["normalisation"]
        assert pn["supported"] == name and pn["mismatch"], pn["evidence"]
        right = audit_sobench(sobench / name, workers=1, channel_order=order,
                              normalisation=name)
        rn = right.summary["convention"]["normalisation"]
        assert rn["supported"] == name and not rn["mismatch"], rn["evidence"]
        assert right.summary["normalisation"] == name
        assert right.summary["convention"]["best"] == ref.summary["convention"]["best"]
        assert _verdicts(right) == ref_v


@pytest.mark.slow
def test_cli_audit_takes_the_flag_and_writes_the_verdict(sobench, tmp_path):
    r = foakit("audit", "sobench", sobench / "n3d", "-o", tmp_path / "a", "--workers", "1",
               "--no-progress", "--no-figures", "--normalisation", "n3d")
    assert r.returncode == 0, r.stderr
    assert "normalisation: n3d:" in r.stderr and "as declared" in r.stderr
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert s["normalisation"] == "n3d"
    assert s["convention"]["normalisation"]["supported"] == "n3d"
    assert "normalisation `n3d`" in (tmp_path / "a" / "index.md").read_text()
    r = foakit("audit", "sobench", sobench / "n3d", "-o", tmp_path / "b", "--workers", "1",
               "--no-progress", "--no-figures")
    assert r.returncode == 0, r.stderr
    assert "normalisation: n3d (MISMATCH)" in r.stderr and "not the declared sn3d" in r.stderr


# --------------------------------------------------------------------- manifest and CLI

def test_cli_analyze_records_the_normalisation_and_refuses_another(tmp_path):
    make_corpus(tmp_path / "audio", n=2, bad=False)
    n3d = tmp_path / "n3d"
    n3d.mkdir()
    for wav in sorted((tmp_path / "audio").glob("*.wav")):
        x, sr = sf.read(wav, dtype="float32")
        raw = from_internal(x.T, "ambix", normalisation="n3d")
        sf.write(n3d / wav.name, np.ascontiguousarray(raw.T), sr, subtype="FLOAT")
    out = tmp_path / "out"
    r = foakit("analyze", n3d, "-o", out, "--normalisation", "n3d", "--workers", "1",
               "--no-progress")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["normalisation"] == "n3d" and manifest["channel_order"] == "ambix"
    # the same clips as the SN3D originals: converted when read
    ref = tmp_path / "ref"
    assert foakit("analyze", tmp_path / "audio", "-o", ref, "--workers", "1",
                  "--no-progress").returncode == 0
    assert json.loads((ref / "manifest.json").read_text())["normalisation"] == "sn3d"
    a = {json.loads(line)["path"]: json.loads(line)
         for line in (out / "clips.jsonl").read_text().splitlines()}
    b = {json.loads(line)["path"]: json.loads(line)
         for line in (ref / "clips.jsonl").read_text().splitlines()}
    for p in b:
        ea, eb = a[p]["events"][0], b[p]["events"][0]
        assert abs(ea["azimuth_deg"] - eb["azimuth_deg"]) < 1.0
    # energy and diffuseness see SN3D: the frames equal the originals' (N3D read as SN3D
    # would raise the energy and lower the diffuseness)
    fa, fb = read_frames(out).to_pydict(), read_frames(ref).to_pydict()
    for col in ("energy_db", "diffuseness"):
        va, vb = np.asarray(fa[col], float), np.asarray(fb[col], float)
        ok = np.isfinite(vb)
        assert np.array_equal(np.isfinite(va), ok)
        assert np.allclose(va[ok], vb[ok], atol=0.02), col
    # resuming the run with another normalisation is refused, naming it
    r = foakit("analyze", n3d, "-o", out, "--normalisation", "fuma", "--no-progress")
    assert r.returncode != 0 and "normalisation" in r.stderr and "'n3d'" in r.stderr
    # a bad value is a usage error naming it
    r = foakit("analyze", n3d, "-o", tmp_path / "x", "--normalisation", "maxn")
    assert r.returncode == 2 and "maxn" in r.stderr


def test_manifest_without_the_field_resumes_as_the_orders_own(tmp_path):
    from foakit.corpus import analyze_corpus

    make_corpus(tmp_path / "audio", n=1, bad=False)
    out = tmp_path / "out"
    analyze_corpus(tmp_path / "audio", out, workers=1, progress=False)
    m = json.loads((out / "manifest.json").read_text())
    del m["normalisation"]  # as written before normalisations were read
    (out / "manifest.json").write_text(json.dumps(m))
    analyze_corpus(tmp_path / "audio", out, workers=1, progress=False)
    assert json.loads((out / "manifest.json").read_text())["normalisation"] == "sn3d"
    with pytest.raises(ParameterError, match="normalisation"):
        analyze_corpus(tmp_path / "audio", out, workers=1, progress=False,
                       normalisation="n3d")
    with pytest.raises(ParameterError, match="normalisation='x'"):
        analyze_corpus(tmp_path / "audio", tmp_path / "o2", normalisation="x")


def test_plane_wave_encoding_is_sn3d_for_the_test_scenes():
    x = encode_plane_wave(np.ones(4), 10.0, 20.0)
    assert np.allclose(np.sum(x[1:] ** 2, axis=0), x[0] ** 2)


def test_gpu_pipeline_converts_too(tmp_path):
    """The GPU corpus path (here on its NumPy backend) reads N3D files as SN3D: the same
    frames as the CPU path on the SN3D originals."""
    from foakit.corpus import _work_cuda, analyze_file

    make_corpus(tmp_path / "audio", n=2, bad=False)
    (tmp_path / "n3d").mkdir()
    for wav in sorted((tmp_path / "audio").glob("*.wav")):
        x, sr = sf.read(wav, dtype="float32")
        raw = from_internal(x.T, "ambix", normalisation="n3d")
        sf.write(tmp_path / "n3d" / wav.name, np.ascontiguousarray(raw.T), sr, subtype="FLOAT")
    paths = sorted(p.name for p in (tmp_path / "n3d").glob("*.wav"))
    got = dict(zip(paths, _work_cuda(str(tmp_path / "n3d"), paths, "ambix", {},
                                     pipeline="cpu", normalisation="n3d"), strict=True))
    plain = dict(zip(paths, _work_cuda(str(tmp_path / "n3d"), paths, "ambix", {},
                                       pipeline="cpu"), strict=True))
    for p in paths:
        _, want = analyze_file(str(tmp_path / "audio"), p)
        (_, frames), (_, unconverted) = got[p], plain[p]
        for col in ("energy_db", "diffuseness"):
            a, b = np.asarray(frames[col], float), np.asarray(want[col], float)
            ok = np.isfinite(b) & np.isfinite(a)
            assert ok.sum() > 10 and np.allclose(a[ok], b[ok], atol=0.02), col
        # read as SN3D the energy is not the original's: the conversion is what matches
        e, w = np.asarray(unconverted["energy_db"], float), np.asarray(want["energy_db"], float)
        ok = np.isfinite(e) & np.isfinite(w) & (w > w.max() - 20)
        assert np.median(e[ok] - w[ok]) > 1.0


@pytest.mark.slow
def test_cli_dsp_baseline_reads_the_n3d_copy_as_the_original(sobench, tmp_path):
    runs = {}
    for name, extra in (("sn3d", []), ("n3d", ["--normalisation", "n3d"])):
        out = tmp_path / f"{name}.jsonl"
        r = foakit("baseline", "sobench", sobench / name, "--kind", "dsp", "-o", out,
                   "--analysis", tmp_path / f"an_{name}", "--workers", "1", "--no-progress",
                   *extra)
        assert r.returncode == 0, r.stderr
        m = json.loads((tmp_path / f"an_{name}" / "manifest.json").read_text())
        assert m["normalisation"] == name
        runs[name] = [json.loads(line)["prediction"] for line in out.read_text().splitlines()]
    assert runs["n3d"] == runs["sn3d"] and len(runs["sn3d"]) >= 10
