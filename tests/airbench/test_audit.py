"""foakit audit airbench on synthetic corpora with known defects (real files, real CLI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from foakit.bench.airbench import audit_airbench, write_corpus
from foakit.signal import mp3_support

MP3 = mp3_support()["mp3"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("airbench")
    # seed 11: the audit's thresholds were set on seed-0 corpora
    return write_corpus(root, n_items=90, seed=11, mp3=MP3)


@pytest.fixture(scope="module")
def audited(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("audit")
    return audit_airbench(corpus.root, out, workers=2), out


@pytest.mark.slow
def test_every_injected_defect_is_found_and_clean_items_stay_quiet(corpus, audited):
    res, _ = audited
    kinds: dict[str, set] = {}
    for f in res.flags:
        kinds.setdefault(f["key"], set()).add(f["kind"])
    missed = [(k, want) for k, ds in corpus.defects.items() for _, want in ds
              if want not in kinds.get(k, set())]
    assert missed == []
    flagged_clean = [k for k in corpus.clean if k in kinds]
    assert len(flagged_clean) <= 0.02 * len(corpus.clean), {k: kinds[k] for k in
                                                            flagged_clean}
    assert len(res.items) == len(corpus.items)


@pytest.mark.slow
def test_outputs_are_written_and_consistent(corpus, audited):
    res, out = audited
    for name in ("items.jsonl", "flags.jsonl", "summary.json", "index.md", "measures.jsonl"):
        assert (out / name).is_file()
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    flags = [json.loads(x) for x in (out / "flags.jsonl").read_text().splitlines()]
    assert len(items) == len(corpus.items) and len(flags) == len(res.flags)
    for f in flags:
        assert {"uniq_id", "task_name", "path", "kind", "value", "reason"} <= set(f)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["items"] == len(corpus.items)
    assert sum(summary["flags"]["by_kind"].values()) == len(flags)
    assert summary["counts"]["failed"] == 4  # truncated, not audio, empty, missing
    ok = [i for i in items if i["status"] == "ok"]
    assert all(i["measures"]["loudness_lufs"] is not None for i in ok
               if i["measures"]["silent_share"] < 0.5)
    figs = list((out / "figures").glob("item_*.png"))
    drawn = {f["key"] for f in flags if f.get("figure")}
    assert len(figs) == len(drawn) > 0
    for m in ("duration_s", "loudness_lufs", "snr_db", "speech_share"):
        assert (out / "figures" / f"dist_{m}.png").is_file()
    text = (out / "index.md").read_text()
    assert "## Flags by task_name and kind" in text and "dist_snr_db.png" in text


@pytest.mark.slow
def test_a_rerun_resumes_from_the_checkpoint(corpus, audited, tmp_path):
    res, out = audited
    again = audit_airbench(corpus.root, out, workers=1, figures=False)
    assert again.summary["checkpoint"]["analysed"] == 0
    assert again.summary["checkpoint"]["loaded"] == len(corpus.items)  # failures too
    assert [(f["key"], f["kind"]) for f in again.flags] == \
        [(f["key"], f["kind"]) for f in res.flags]


def _small(tmp_path, seed=5):
    return write_corpus(tmp_path / "root", n_items=8, seed=seed, defects=False, mp3=MP3,
                        duration_scale=0.4)


def test_cli_audit_exit_status_and_retry_errors(tmp_path):
    c = _small(tmp_path)
    meta = c.root / "Chat" / "Chat_meta.json"
    first = json.loads(meta.read_text())[0]
    target = c.root / "Chat" / f"{first['task_name']}_{first['dataset_name']}" / first["path"]
    good = target.read_bytes()
    target.write_bytes(b"garbage" * 10)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "foakit", "audit", "airbench", str(c.root), "-o", str(out),
           "--workers", "1", "--no-progress", "--no-figures"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert f"error: {target}" in r.stderr and "8 items" in r.stderr
    target.write_bytes(good)
    os.utime(target, ns=(1, 1))  # same size, other mtime: a new signature anyway
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 now, 7 from the checkpoint" in r.stderr
    r = subprocess.run(cmd[:5] + [str(tmp_path / "nowhere"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no such folder" in r.stderr
    r = subprocess.run(cmd + ["--workers", "0"], capture_output=True, text=True)
    assert r.returncode == 2


def test_retry_errors_measures_failed_items_again(tmp_path):
    c = _small(tmp_path, seed=6)
    item = json.loads((c.root / "Chat" / "Chat_meta.json").read_text())[2]
    target = c.root / "Chat" / f"{item['task_name']}_{item['dataset_name']}" / item["path"]
    target.unlink()
    out = tmp_path / "out"
    r1 = audit_airbench(c.root, out, workers=1, figures=False)
    assert [f["kind"] for f in r1.flags if f["key"] == str(item["uniq_id"])] == \
        ["missing_file"]
    r2 = audit_airbench(c.root, out, workers=1, figures=False)
    assert r2.summary["checkpoint"]["analysed"] == 0
    r3 = audit_airbench(c.root, out, workers=1, figures=False, retry_errors=True)
    assert r3.summary["checkpoint"]["analysed"] == 1


def test_symlinked_folder_and_hf_cache_layout(tmp_path):
    c = _small(tmp_path, seed=7)
    chat = c.root / "Chat"
    # one task folder lives elsewhere, reached through a symlink
    folder = next(p for p in chat.iterdir() if p.is_dir())
    elsewhere = tmp_path / "disk2" / folder.name
    elsewhere.parent.mkdir()
    shutil.move(str(folder), elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    # a Hugging Face hub cache: every snapshot file is a symlink into blobs/
    hub = tmp_path / "hub"
    snap = hub / "snapshots" / "abc123"
    blobs = hub / "blobs"
    blobs.mkdir(parents=True)
    files = sorted(Path(d) / f for d, _, fs in os.walk(c.root, followlinks=True) for f in fs)
    for i, p in enumerate(files):
        rel = p.relative_to(c.root)
        blob = blobs / f"blob{i:04d}"
        shutil.copyfile(p, blob)
        (snap / rel).parent.mkdir(parents=True, exist_ok=True)
        (snap / rel).symlink_to(blob)
    for root in (c.root, snap):
        res = audit_airbench(root, tmp_path / f"out_{root.name}", workers=1, figures=False)
        assert res.failures == [] and res.summary["counts"]["measured"] == 8
        resolved = [i["resolved"] for i in res.items]
        if root == snap:
            assert all(os.path.dirname(r) == str(blobs.resolve()) for r in resolved)
        else:
            assert any(r.startswith(str(elsewhere.resolve())) for r in resolved)


def test_stereo_and_mono_measured_at_any_rate(tmp_path):
    c = _small(tmp_path, seed=8)
    res = audit_airbench(c.root, tmp_path / "out", workers=1, figures=False)
    rates = {i["measures"]["sample_rate"] for i in res.items}
    chans = {i["measures"]["channels"] for i in res.items}
    assert len(rates) >= 2 and chans <= {1, 2}
    for i in res.items:
        info = sf.info(i["resolved"])
        assert i["measures"]["sample_rate"] == info.samplerate
        assert abs(i["measures"]["duration_s"] - info.frames / info.samplerate) < 0.15
    assert np.all([i["fingerprint"] for i in res.items])
