"""The CLI run as a subprocess on real files: outputs, exit codes, resume, kill -9."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from foakit.corpus import load_clips, read_frames

from .scenes import make_corpus, plane_wave_scene


def foakit(*args, **kw):
    return subprocess.run([sys.executable, "-m", "foakit", *args], capture_output=True,
                          text=True, timeout=300, **kw)


def test_analyze_outputs_and_exit_codes(tmp_path):
    truth = make_corpus(tmp_path / "audio")
    out = tmp_path / "out"
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--workers", "2",
               "--no-progress")
    assert r.returncode == 1, r.stderr  # one broken file
    assert "sub/broken.wav" in r.stderr and "Traceback" not in r.stderr
    recs = load_clips(out)
    assert set(recs) == {*truth, "sub/broken.wav"}
    assert recs["sub/broken.wav"]["status"] == "error"
    assert "not readable as audio" in recs["sub/broken.wav"]["error"]
    for path, az in truth.items():
        rec = recs[path]
        assert rec["status"] == "ok" and rec["audio_id"] == path[:-4]
        assert rec["sample_rate"] == 16000 and rec["channels"] == 4 and rec["n_sources"] == 1
        ev = rec["events"][0]
        assert abs(((ev["azimuth_deg"] - az) + 180) % 360 - 180) < 2
        assert set(ev) >= {"onset_s", "offset_s", "azimuth_deg", "elevation_deg", "distance_m",
                           "motion", "confidence"}
    frames = read_frames(out)
    assert frames.num_rows == sum(r["n_frames"] for r in recs.values())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["channel_order"] == "ambix"
    assert "ACN" in manifest["conventions"]["internal_channel_order"]
    assert "params" in manifest and manifest["foakit_version"]


def test_all_good_exits_0_and_usage_errors_exit_2(tmp_path):
    make_corpus(tmp_path / "audio", n=1, bad=False)
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(tmp_path / "o"), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert foakit("analyze", str(tmp_path / "nope"), "-o", str(tmp_path / "o2")).returncode == 2
    assert foakit("analyze", str(tmp_path / "audio")).returncode == 2  # no -o
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(tmp_path / "o3"),
               "--channel-order", "acn")
    assert r.returncode == 2 and "acn" in r.stderr
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(tmp_path / "o4"), "--workers", "0")
    assert r.returncode == 2 and "--workers" in r.stderr


def test_rerun_resumes_and_changed_settings_refuse(tmp_path):
    make_corpus(tmp_path / "audio", n=2, bad=False)
    out = tmp_path / "out"
    assert foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--no-progress"
                  ).returncode == 0
    before = (out / "clips.jsonl").read_text()
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--no-progress")
    assert r.returncode == 0 and "2 already done" in r.stderr
    assert (out / "clips.jsonl").read_text() == before
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--channel-order", "fuma",
               "--no-progress")
    assert r.returncode == 2 and "different channel_order" in r.stderr


def test_kill_9_loses_only_clips_in_flight(tmp_path):
    n = 40
    make_corpus(tmp_path / "audio", n=n, bad=False)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "foakit", "analyze", str(tmp_path / "audio"), "-o", str(out),
           "--workers", "1", "--batch-size", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    clips = out / "clips.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if clips.exists() and clips.read_text().count("\n") >= 6:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    text = clips.read_text()
    assert text.endswith("\n")  # never a half-written line
    done_before = {json.loads(line)["path"] for line in text.splitlines()}
    assert 6 <= len(done_before) < n, "the kill must land mid-run"
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = clips.read_text().splitlines()
    paths = [json.loads(line)["path"] for line in lines]
    assert len(paths) == len(set(paths)) == n  # every clip once, none redone
    recs = load_clips(out)
    assert read_frames(out).num_rows == sum(r["n_frames"] for r in recs.values())
    parts = list((out / "frames.parquet").iterdir())
    assert all(p.suffix == ".parquet" for p in parts)
    for p in parts:
        pq.read_metadata(p)  # every part is a complete file


def test_torn_last_line_is_repaired_on_resume(tmp_path):
    make_corpus(tmp_path / "audio", n=2, bad=False)
    out = tmp_path / "out"
    foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--no-progress")
    lines = (out / "clips.jsonl").read_text().splitlines(keepends=True)
    (out / "clips.jsonl").write_text(lines[0] + lines[1][:25])  # as if killed mid-write
    assert len(load_clips(out)) == 1
    r = foakit("analyze", str(tmp_path / "audio"), "-o", str(out), "--no-progress")
    assert r.returncode == 0
    assert len(load_clips(out)) == 2
    assert all(json.loads(x) for x in (out / "clips.jsonl").read_text().splitlines())


@pytest.mark.parametrize("order", ["ambix", "fuma"])
def test_fuma_corpus_gives_the_same_directions(tmp_path, order):
    from foakit.conventions import from_internal

    x = plane_wave_scene([(120, -20, 0.3, 1.2)], duration=1.5, snr_db=20)
    (tmp_path / "a").mkdir()
    sf.write(tmp_path / "a" / "c.wav", from_internal(x, order).T, 16000, subtype="FLOAT")
    r = foakit("analyze", str(tmp_path / "a"), "-o", str(tmp_path / "o"), "--channel-order",
               order, "--no-progress")
    assert r.returncode == 0, r.stderr
    ev = load_clips(tmp_path / "o")["c.wav"]["events"][0]
    assert abs(ev["azimuth_deg"] - 120) < 2 and abs(ev["elevation_deg"] + 20) < 2
    assert np.isfinite(ev["confidence"])


def _crash_on_marked_files(audio_dir, paths, channel_order, params_d, **kw):
    """Stand-in for corpus._work (module level so the pool can pickle it): a worker that
    dies the way a crashing decoder would."""
    from foakit import corpus

    if any("crash" in p for p in paths):
        os._exit(3)
    return corpus._REAL_WORK(audio_dir, paths, channel_order, params_d, **kw)


def test_a_worker_crash_costs_only_its_clip(tmp_path, monkeypatch):
    from foakit import corpus

    truth = make_corpus(tmp_path / "audio", n=5, bad=False)
    (tmp_path / "audio" / "clip002.wav").rename(tmp_path / "audio" / "crash.wav")
    monkeypatch.setattr(corpus, "_REAL_WORK", corpus._work, raising=False)
    monkeypatch.setattr(corpus, "_work", _crash_on_marked_files)
    s = corpus.analyze_corpus(tmp_path / "audio", tmp_path / "out", workers=2, batch_size=2,
                              progress=False)
    recs = load_clips(tmp_path / "out")
    assert len(recs) == len(truth) and s.n_ok == 4 and s.n_error == 1
    assert "worker process died" in recs["crash.wav"]["error"]
    assert all(r["status"] == "ok" for k, r in recs.items() if k != "crash.wav")


def _mark_worker():
    """Stand-in for corpus.keep_freed_memory, the workers' initializer."""
    open(os.path.join(os.environ["FOAKIT_TEST_MARKS"], str(os.getpid())), "w").close()


@pytest.mark.skipif(os.name != "posix", reason="workers are forked on POSIX only")
def test_forked_workers_get_the_loaded_kernels_and_the_malloc_settings(tmp_path, monkeypatch):
    """analyze_corpus loads the kernels once in the parent before forking, and every worker
    runs keep_freed_memory."""
    from foakit import corpus
    from foakit.params import AnalysisParams

    make_corpus(tmp_path / "audio", n=4, bad=False)
    loaded = []
    monkeypatch.setattr(corpus, "load_kernels", lambda params=None: loaded.append(params))
    (tmp_path / "marks").mkdir()
    monkeypatch.setenv("FOAKIT_TEST_MARKS", str(tmp_path / "marks"))
    monkeypatch.setattr(corpus, "keep_freed_memory", _mark_worker)
    params = AnalysisParams(hop_s=0.025)
    s = corpus.analyze_corpus(tmp_path / "audio", tmp_path / "out", workers=2, batch_size=1,
                              progress=False, params=params)
    assert s.n_ok == 4 and loaded == [params]
    pids = {int(p.name) for p in (tmp_path / "marks").iterdir()}
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids


def test_parent_loads_every_kernel_the_workers_need(tmp_path):
    """corpus.load_kernels (run before forking) leaves no kernel for a decoded 4-channel
    clip to load in a worker: analysing one afterwards adds no compiled signature."""
    make_corpus(tmp_path / "audio", n=1, bad=False)
    code = (
        "import sys\n"
        "from foakit.corpus import analyze_file, load_kernels\n"
        "from foakit.kernels import activity, cone, dirac, histogram, peaks, stft\n"
        "ks = [activity.hysteresis, activity.clean_activity, activity.percentile_pair,\n"
        "      activity.median_f32, activity.cone_levels, cone.cone_energy,\n"
        "      dirac.dirac_features, dirac.vote_totals, dirac.scale_bins, dirac.frame_sums,\n"
        "      histogram.doa_histograms, peaks.pick_peaks, peaks.blur_hist,\n"
        "      stft._frame_into, stft.pcm16_rows]\n"
        "load_kernels()\n"
        "before = [list(k.signatures) for k in ks]\n"
        "rec, _ = analyze_file(sys.argv[1], 'clip000.wav')\n"
        "assert rec['status'] == 'ok' and rec['events'], rec\n"
        "assert all(before), before\n"
        "assert [list(k.signatures) for k in ks] == before\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "audio")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def test_demo_redoes_only_its_own_analysis_made_with_other_settings(tmp_path):
    import json

    from foakit.cli.demo import _stale_analysis
    from foakit.params import AnalysisParams

    a = tmp_path / "analysis"
    a.mkdir()
    (a / "clips.jsonl").write_text("")
    (a / "manifest.json").write_text(json.dumps({"params": AnalysisParams().to_dict()}))
    assert not _stale_analysis(str(a))  # same settings: resume
    (a / "manifest.json").write_text(json.dumps({"params": {"hop_s": 0.01}}))
    assert _stale_analysis(str(a))
    (a / "notes.txt").write_text("mine")  # something foakit did not write: leave it alone
    assert not _stale_analysis(str(a))
    assert not _stale_analysis(str(tmp_path / "missing"))
