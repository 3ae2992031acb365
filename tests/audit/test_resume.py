"""Audit checkpoints: kill -9 and resume, stale and corrupt checkpoints, crashing workers."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from foakit.audit import runner as audit_runner
from foakit.audit.checkpoint import INDEX_FILE, EstimateStore, StoredClips
from foakit.bench.sobench.audit import audit_sobench
from foakit.bench.starss.audit import audit_starss
from foakit.params import AnalysisParams
from foakit.pool import WORKER_DIED

N_CLIPS = 10
TINY = dict(n_clips=N_CLIPS, seed=3, duration_s=4.0, engine="ism", rt60_s=None,
            allow_motion=False)
OUTPUTS = ("flags.jsonl", "verdicts.jsonl", "summary.json", "index.md")


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """Tiny SO-Bench and STARSS corpora with injected label errors (so there are flags and
    figures to compare)."""
    from foakit.bench.sobench.inject import inject_sobench_errors
    from foakit.bench.sobench.synth import write_sobench_corpus
    from foakit.bench.starss.inject import inject_starss_errors, label_frames
    from foakit.bench.starss.synth import write_starss_corpus

    base = tmp_path_factory.mktemp("resume")
    write_sobench_corpus(base / "so_clean", **TINY)
    inject_sobench_errors(base / "so_clean", base / "so", rate=0.3, seed=1)
    write_starss_corpus(base / "st", **TINY)
    audio = base / "st" / "foa_dev"
    inject_starss_errors(base / "st" / "metadata_dev", base / "st_meta", rate=0.4, seed=3,
                         n_frames=label_frames(audio))
    return {"sobench": ["sobench", str(base / "so")],
            "starss": ["starss", "--audio", str(audio), "--metadata", str(base / "st_meta")],
            "so_root": base / "so", "st_audio": audio, "st_meta": base / "st_meta"}


def audit_cmd(corpora, kind, out, *extra, workers=1):
    return [sys.executable, "-m", "foakit", "audit", *corpora[kind], "-o", str(out),
            "--workers", str(workers), "--no-progress", "--max-figures", "2", *extra]


def index_paths(out):
    """The audio path of every index line, in order (a clip analysed twice appears twice)."""
    text = (out / "estimates" / INDEX_FILE).read_text()
    return [json.loads(line)["path"] for line in text.splitlines()]


def assert_same_outputs(a, b, figures=True):
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    if not figures:
        return
    figs_a = sorted(p.name for p in (a / "figures").iterdir())
    assert figs_a == sorted(p.name for p in (b / "figures").iterdir())
    assert len(figs_a) >= 3  # at least one flag figure besides the corpus figures
    for name in figs_a:
        assert (a / "figures" / name).read_bytes() == (b / "figures" / name).read_bytes(), name


@pytest.mark.parametrize("kind", ["sobench", "starss"])
def test_kill_9_then_resume_matches_an_uninterrupted_run(corpora, tmp_path, kind):
    ref = tmp_path / "uninterrupted"
    r = subprocess.run(audit_cmd(corpora, kind, ref), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{N_CLIPS} analysed, 0 already done" in r.stderr
    out = tmp_path / "killed"
    index = out / "estimates" / INDEX_FILE
    proc = subprocess.Popen(audit_cmd(corpora, kind, out), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if index.exists() and index.read_bytes().count(b"\n") >= 4:  # one batch is safe
            break
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = index_paths(out)
    assert 4 <= len(done) < N_CLIPS, "the kill must land mid-run"
    assert not (out / "summary.json").exists()
    # two workers: clips now finish in another order, which the outputs must not show
    r = subprocess.run(audit_cmd(corpora, kind, out, workers=2), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{N_CLIPS - len(done)} analysed, {len(done)} already done" in r.stderr
    paths = index_paths(out)
    assert len(paths) == len(set(paths)) == N_CLIPS  # every clip once: none analysed twice
    assert_same_outputs(ref, out)


def test_torn_corrupt_and_orphan_checkpoints_are_repaired(corpora, tmp_path):
    ref, out = tmp_path / "ref", tmp_path / "out"
    r = subprocess.run(audit_cmd(corpora, "sobench", out, "--no-figures"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    ref.mkdir()
    for name in OUTPUTS:
        (ref / name).write_bytes((out / name).read_bytes())
    est = out / "estimates"
    lines = (est / INDEX_FILE).read_text().splitlines(keepends=True)
    recs = [json.loads(line) for line in lines]
    # a torn last line (killed mid-append), garbage in the middle, an unreadable checkpoint,
    # and what a kill between rename and append (or mid-write) leaves behind
    (est / INDEX_FILE).write_text("".join(lines[:3]) + "{not json\n" + "".join(lines[3:-1])
                                  + lines[-1][:30])
    (est / recs[1]["file"]).write_bytes(b"PK\x03\x04 torn")
    (est / "0123abcd.npz").write_bytes(b"orphan")
    (est / ".4567.npz.tmp").write_bytes(b"half")
    (est / "notes.txt").write_text("not the store's")
    r = subprocess.run(audit_cmd(corpora, "sobench", out, "--no-figures"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"2 analysed, {N_CLIPS - 2} already done" in r.stderr
    assert_same_outputs(ref, out, figures=False)
    latest = {}
    for line in (est / INDEX_FILE).read_text().splitlines():
        if line != "{not json":
            rec = json.loads(line)
            latest[rec["path"]] = rec
    assert len(latest) == N_CLIPS
    assert latest[recs[1]["path"]]["file"] != recs[1]["file"]  # analysed again
    files = {p.name for p in est.iterdir()} - {INDEX_FILE}
    assert files == {r["file"] for r in latest.values()} | {"notes.txt"}


def test_changed_audio_or_settings_are_analysed_again(corpora, tmp_path):
    audio, meta = tmp_path / "audio", corpora["st_meta"]
    audio.mkdir()
    for p in corpora["st_audio"].iterdir():
        (audio / p.name).write_bytes(p.read_bytes())
    est = tmp_path / "estimates"
    first = audit_starss(audio, meta, workers=1, estimates_dir=est)
    assert first.checkpoints["analysed"] == N_CLIPS and first.checkpoints["loaded"] == 0
    again = audit_starss(audio, meta, workers=1, estimates_dir=est)
    assert again.checkpoints == {**first.checkpoints, "analysed": 0, "loaded": N_CLIPS}
    assert [v.to_dict() for v in again.verdicts] == [v.to_dict() for v in first.verdicts]
    # the result's clips are read from the store, maps dropped, as kept in memory
    mem = audit_starss(audio, meta, workers=1)
    assert isinstance(first.clips, StoredClips) and set(first.clips) == set(mem.clips)
    aid = sorted(mem.clips)[0]
    stored = again.clips[aid]
    assert stored.doa.dmap is None and stored.path == mem.clips[aid].path
    for name, col in mem.clips[aid].frames.items():
        np.testing.assert_array_equal(stored.frames[name], col)
        assert stored.frames[name].dtype == col.dtype
    np.testing.assert_array_equal(stored.doa.peaks, mem.clips[aid].doa.peaks)
    assert stored.doa.events == mem.clips[aid].doa.events
    # a file rewritten (new mtime): only that clip is analysed again
    victim = sorted(audio.iterdir())[2]
    st = victim.stat()
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    r = audit_starss(audio, meta, workers=1, estimates_dir=est)
    assert (r.checkpoints["analysed"], r.checkpoints["loaded"]) == (1, N_CLIPS - 1)
    # other analysis parameters: every clip; superseded checkpoints are deleted
    r = audit_starss(audio, meta, workers=1, estimates_dir=est,
                     params=AnalysisParams(psi_max=0.45))
    assert (r.checkpoints["analysed"], r.checkpoints["loaded"]) == (N_CLIPS, 0)
    assert len(list(est.glob("*.npz"))) == N_CLIPS
    with pytest.raises(KeyError):  # a view of checkpoints since replaced
        again.clips[aid]


def test_checkpoint_key_follows_file_and_settings(tmp_path):
    audio = tmp_path / "a.wav"
    audio.write_bytes(b"x" * 100)
    store = EstimateStore(tmp_path / "est", base_dir=tmp_path)
    rel, key = store.ref(audio)
    assert rel == "a.wav"
    assert store.ref(audio) == (rel, key)  # stable
    other = {
        "fuma": EstimateStore(tmp_path / "e1", base_dir=tmp_path, channel_order="fuma"),
        "params": EstimateStore(tmp_path / "e2", base_dir=tmp_path,
                                params=AnalysisParams(window_s=0.5)),
        "n3d": EstimateStore(tmp_path / "e3", base_dir=tmp_path, normalisation="n3d"),
    }
    # the order's own normalisation, said or implied, is the same run
    assert EstimateStore(tmp_path / "e4", base_dir=tmp_path,
                         normalisation="sn3d").ref(audio)[1] == key
    for s in other.values():
        assert s.ref(audio)[1] != key
    st = audio.stat()
    os.utime(audio, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert store.ref(audio)[1] != key
    os.utime(audio, ns=(st.st_atime_ns, st.st_mtime_ns))
    audio.write_bytes(b"x" * 101)
    os.utime(audio, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.ref(audio)[1] != key  # same mtime, other size
    (tmp_path / "sub").mkdir()
    os.replace(audio, tmp_path / "sub" / "a.wav")
    assert store.ref(tmp_path / "sub" / "a.wav")[0] == "sub/a.wav"
    assert store.ref(tmp_path / "gone.wav") is None


def _crash_on_marked_clips(jobs, channel_order, params_d, folder, **kw):
    """Stand-in for common._work (module level so the pool can pickle it): a worker that
    dies the way a crashing decoder would."""
    if any(j.audio_id == _crash_on_marked_clips.victim for j in jobs):
        os._exit(3)
    return audit_runner._REAL_WORK(jobs, channel_order, params_d, folder, **kw)


def test_a_worker_crash_costs_only_its_clip_and_is_recorded(corpora, tmp_path, monkeypatch):
    root = corpora["so_root"]
    clean = audit_sobench(root, workers=1)
    victim = sorted(clean.clips)[5]
    _crash_on_marked_clips.victim = victim
    monkeypatch.setattr(audit_runner, "_REAL_WORK", audit_runner._work, raising=False)
    monkeypatch.setattr(audit_runner, "_work", _crash_on_marked_clips)
    est = tmp_path / "est"
    r = audit_sobench(root, workers=2, estimates_dir=est)
    assert [e for _, e in r.failures] == [WORKER_DIED]
    assert victim in r.failures[0][0]
    assert set(r.clips) == set(clean.clips) - {victim}
    want = {v.key["qa_id"]: v.to_dict() for v in clean.verdicts if v.key["audio_id"] != victim}
    got = {v.key["qa_id"]: v.to_dict() for v in r.verdicts if v.key["audio_id"] != victim}
    assert got == want
    # the failure is checkpointed: a re-run does not touch the clip, --retry-errors does
    monkeypatch.setattr(audit_runner, "_work", audit_runner._REAL_WORK)
    again = audit_sobench(root, workers=1, estimates_dir=est)
    assert again.checkpoints["analysed"] == 0 and again.failures == r.failures
    fixed = audit_sobench(root, workers=1, estimates_dir=est, retry_errors=True)
    assert fixed.checkpoints["analysed"] == 1 and not fixed.failures
    assert [v.to_dict() for v in fixed.verdicts] == [v.to_dict() for v in clean.verdicts]
