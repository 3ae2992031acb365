"""SO-Bench roots as users have them: a Hugging Face hub cache snapshot (every file a
symlink into blobs/) and a corpus whose audio folder is a symlink elsewhere."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from foakit.bench.sobench.audit import audit_sobench
from foakit.bench.sobench.baselines import run_baseline
from foakit.bench.sobench.synth import write_sobench_corpus


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    base = tmp_path_factory.mktemp("layouts")
    src = base / "src"
    write_sobench_corpus(src, n_clips=2, seed=7, rt60_s=None, engine="ism",
                         tasks=("estimate_azimuth", "onset_from_location", "count_sources"))
    # Hugging Face hub cache: snapshots/<rev>/<file> -> ../../blobs/<sha256> (relative links)
    hub = base / "hub" / "datasets--x--sobench"
    snap = hub / "snapshots" / "0123abc"
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        data = f.read_bytes()
        blob = hub / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = snap / f.relative_to(src)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    # a corpus folder holding qa/ and a symlink audio -> ../elsewhere/audio
    linked = base / "linked" / "corpus"
    (linked / "qa").mkdir(parents=True)
    shutil.copy(src / "qa" / "test.jsonl", linked / "qa" / "test.jsonl")
    shutil.copytree(src / "audio", base / "linked" / "elsewhere" / "audio")
    os.symlink("../elsewhere/audio", linked / "audio")
    return {"hub": snap, "linked": linked}


@pytest.mark.parametrize("kind", ["hub", "linked"])
def test_dsp_baseline_reads_symlinked_layouts(layouts, kind, tmp_path):
    run = run_baseline(layouts[kind], "dsp", analysis_dir=tmp_path / "an", workers=1)
    assert not run.problems
    assert run.predictions and not any(r["foakit"]["abstained"] for r in run.predictions)


@pytest.mark.parametrize("kind", ["hub", "linked"])
def test_audit_reads_symlinked_layouts_and_names_the_resolved_files(layouts, kind):
    result = audit_sobench(layouts[kind], workers=1)
    s = result.summary
    assert s["n_failed"] == 0 and s["n_audio_audited"] == s["n_audio"] == 2
    links = s["audio_links"]
    assert len(links) == 2
    for apath, real in links.items():
        assert os.path.isfile(real) and os.path.realpath(layouts[kind] / apath) == real
        assert ("blobs" in real) if kind == "hub" else ("elsewhere" in real)
