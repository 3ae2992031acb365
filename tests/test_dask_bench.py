"""The benchmark commands' --dask: the audits and the dsp baselines on a real
distributed.LocalCluster write what the local pool writes."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("distributed")

from foakit.bench.sobench.synth import write_sobench_corpus  # noqa: E402
from foakit.bench.starss.synth import write_starss_corpus  # noqa: E402


def foakit(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *args], capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    base = tmp_path_factory.mktemp("dask_bench")
    write_sobench_corpus(base / "sob", n_clips=3, seed=21, engine="ism",
                         tasks=("estimate_azimuth", "detect_time", "count_sources"))
    write_starss_corpus(base / "st", n_clips=2, seed=22, engine="ism")
    return base


@pytest.mark.slow
def test_sobench_audit_and_dsp_baseline_on_dask_equal_the_local_pool(corpora, tmp_path):
    root = str(corpora / "sob")
    for name, extra in (("local", ["--workers", "2"]), ("dask", ["--dask", "local:2"])):
        r = foakit("audit", "sobench", root, "-o", str(tmp_path / f"audit_{name}"),
                   "--no-progress", "--no-figures", *extra)
        assert r.returncode == 0, r.stderr
        if name == "dask":
            assert "Dask scheduler tcp://127.0.0.1:" in r.stderr
        r = foakit("baseline", "sobench", root, "--kind", "dsp", "-o",
                   str(tmp_path / f"pred_{name}.jsonl"), "--analysis",
                   str(tmp_path / f"an_{name}"), "--no-progress", *extra)
        assert r.returncode == 0, r.stderr
    for f in ("verdicts.jsonl", "flags.jsonl"):
        assert (tmp_path / "audit_dask" / f).read_text() == \
            (tmp_path / "audit_local" / f).read_text()
    assert (tmp_path / "pred_dask.jsonl").read_text() == \
        (tmp_path / "pred_local.jsonl").read_text()


@pytest.mark.slow
def test_starss_audit_on_dask_equals_the_local_pool(corpora, tmp_path):
    st = corpora / "st"
    outs = {}
    for name, extra in (("local", ["--workers", "2"]), ("dask", ["--dask", "local:2"])):
        out = tmp_path / name
        r = foakit("audit", "starss", "--audio", str(st / "foa_dev"), "--metadata",
                   str(st / "metadata_dev"), "-o", str(out), "--no-progress", "--no-figures",
                   *extra)
        assert r.returncode == 0, r.stderr
        outs[name] = (out / "verdicts.jsonl").read_text()
    assert outs["dask"] == outs["local"] and outs["local"]


def test_dask_needs_a_valid_cluster_spec(corpora, tmp_path):
    r = foakit("audit", "sobench", str(corpora / "sob"), "-o", str(tmp_path / "a"),
               "--no-progress", "--dask", "local:0")
    assert r.returncode == 2 and "local:0" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_mono_audits_on_dask_equal_the_local_pool(tmp_path):
    from foakit.bench.airbench.synth import write_corpus as write_airbench
    from foakit.bench.halluaudio.synth import write_corpus as write_halluaudio

    write_airbench(tmp_path / "air", n_items=40, seed=3, duration_scale=0.3, mp3=False)
    write_halluaudio(tmp_path / "hal", n_audio=12, seed=4, family="tune")
    for kind, root, out_file in (("airbench", tmp_path / "air", "items.jsonl"),
                                 ("halluaudio", tmp_path / "hal", "verdicts.jsonl")):
        outs = {}
        for name, extra in (("local", ["--workers", "2"]), ("dask", ["--dask", "local:2"])):
            out = tmp_path / f"{kind}_{name}"
            r = foakit("audit", kind, str(root), "-o", str(out), "--no-progress",
                       "--no-figures", *extra)
            assert r.returncode in (0, 1), r.stderr  # 1: the corpora hold broken files
            outs[name] = ((out / out_file).read_text(), (out / "flags.jsonl").read_text(),
                          r.returncode)
        assert outs["dask"] == outs["local"], kind
