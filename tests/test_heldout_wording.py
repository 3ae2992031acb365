"""The held-out wording family (benchmarks/heldout_wording.py): labels kept, words changed."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile as sf

from foakit.bench.paths import resolve_under
from foakit.bench.sobench.format import load_qa
from foakit.bench.sobench.inject import inject_sobench_errors
from foakit.bench.sobench.synth import write_sobench_corpus

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "heldout_wording.py"


def _module():
    spec = importlib.util.spec_from_file_location("heldout_wording", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hw = _module()
WORDED = ("question", "answer")


def _rows(root: Path) -> list[dict]:
    text = (root / "qa" / "test.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _labels(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in WORDED}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("heldout") / "src"
    write_sobench_corpus(root, n_clips=2, seed=7, engine="ism", duration_s=4.0,
                         n_sources=(2, 3), rt60_s=None)
    return root


@pytest.mark.parametrize("audio", ["symlink", "hardlink", "hf"])
def test_labels_and_ids_identical_questions_new_every_task_kept(corpus, tmp_path, audio):
    out = hw.rewrite_corpus(corpus, tmp_path / "dst", seed=3, audio=audio)
    src, dst = _rows(corpus), _rows(out)
    assert [_labels(r) for r in dst] == [_labels(r) for r in src]
    assert {r["task_name"] for r in dst} == {r["task_name"] for r in src}
    assert all(a["question"] != b["question"] for a, b in zip(src, dst, strict=True))
    assert all(b["answer"] for b in dst)
    assert (out / "truth" / "scenes.jsonl").read_bytes() == \
        (corpus / "truth" / "scenes.jsonl").read_bytes()
    for item in load_qa(out, "test").items:
        p = resolve_under(out, item.record["audio_path"])
        assert sf.info(str(p)).channels == 4


def test_symlink_layout_reaches_audio_through_a_linked_folder(corpus, tmp_path):
    out = hw.rewrite_corpus(corpus, tmp_path / "dst", seed=3)
    assert (out / "audio").is_symlink()
    assert not Path(str((out / "audio").readlink())).is_absolute()
    assert (out / "audio").resolve() == (corpus / "audio").resolve()


def test_records_can_be_written_without_their_source_refs(corpus, tmp_path):
    kept = _rows(hw.rewrite_corpus(corpus, tmp_path / "a", seed=5))
    dropped = _rows(hw.rewrite_corpus(corpus, tmp_path / "b", seed=5, refs=False))
    assert all("source_refs" in r for r in kept)
    assert not any("source_refs" in r for r in dropped)
    # the same questions, answers and labels otherwise
    assert [{k: v for k, v in r.items() if k != "source_refs"} for r in kept] == dropped


def test_hf_layout_is_a_snapshot_of_blob_links(corpus, tmp_path):
    snap = hw.rewrite_corpus(corpus, tmp_path / "cache", seed=3, audio="hf")
    assert snap.parent.name == "snapshots"
    files = [p for p in snap.rglob("*") if not p.is_dir()]
    assert files and all(p.is_symlink() for p in files)
    assert all(p.resolve().parent == (tmp_path / "cache" / "blobs").resolve() for p in files)
    assert len(load_qa(snap, "test").items) == len(_rows(corpus))


def test_same_seed_same_questions_and_answers_follow_injected_labels(corpus, tmp_path):
    bad = tmp_path / "bad"
    changes = inject_sobench_errors(corpus, bad, rate=1.0, seed=1)
    assert changes
    a = _rows(hw.rewrite_corpus(corpus, tmp_path / "a", seed=9))
    b = _rows(hw.rewrite_corpus(bad, tmp_path / "b", seed=9))
    assert [r["question"] for r in a] == [r["question"] for r in b]
    assert [_labels(r) for r in b] == [_labels(r) for r in _rows(bad)]
    by_id = {r["qa_id"]: r for r in b}
    for c in changes:
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", by_id[c["qa_id"]]["answer"])]
        new = c["new"] if isinstance(c["new"], list) else [c["new"]]
        for v in new:
            tol = 0.6 if c["field"] in ("azimuth", "elevation") else 0.01
            assert any(abs(abs(n) - abs(v)) <= tol for n in nums), (c, by_id[c["qa_id"]])


def test_different_seeds_give_different_wording(corpus, tmp_path):
    a = _rows(hw.rewrite_corpus(corpus, tmp_path / "a", seed=1))
    b = _rows(hw.rewrite_corpus(corpus, tmp_path / "b", seed=2))
    assert sum(x["question"] != y["question"] for x, y in zip(a, b, strict=True)) > len(a) // 2


def test_location_references_follow_the_truth_of_the_referenced_source(tmp_path):
    root = tmp_path / "src"
    write_sobench_corpus(root, n_clips=12, seed=21, engine="ism", duration_s=3.0,
                         rt60_s=None, allow_motion=False, tasks=["onset_from_location"])
    out = hw.rewrite_corpus(root, tmp_path / "dst", seed=4)
    truth = {json.loads(x)["audio_id"]: json.loads(x)
             for x in (root / "truth" / "scenes.jsonl").read_text().splitlines()}
    checked = 0
    for r in _rows(out):
        s = truth[r["audio_id"]]["sources"][r["source_refs"][0]]
        m = re.search(r"(\d+) o'clock", r["question"])
        if m:
            assert int(m.group(1)) == hw.clock(s["azimuth_deg"]), r["question"]
            checked += 1
        m = re.search(r"(\d+) degrees (?:to your|off to the) (left|right)", r["question"])
        if m:
            signed = float(m.group(1)) * (1 if m.group(2) == "left" else -1)
            assert abs(signed - s["azimuth_deg"]) <= 0.5, r["question"]
            checked += 1
    assert checked > 0


def test_sector_and_clock_on_hand_made_angles():
    assert [hw.clock(a) for a in (0.0, -90.0, 90.0, -144.0, 180.0, -60.0)] == \
        [12, 3, 9, 5, 6, 2]
    assert [hw.sector(a) for a in (0.0, 30.0, 90.0, 135.0, 180.0, -144.0, -90.0, -30.0)] == \
        ["front", "front-left", "left", "back-left", "back", "back-right", "right",
         "front-right"]


def test_refused_layout_and_existing_destination(corpus, tmp_path):
    with pytest.raises(ValueError, match="audio='zip'"):
        hw.rewrite_corpus(corpus, tmp_path / "x", seed=0, audio="zip")
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError, match="taken"):
        hw.rewrite_corpus(corpus, tmp_path / "taken", seed=0)


def test_command_line(corpus, tmp_path):
    ok = subprocess.run([sys.executable, str(SCRIPT), str(corpus), str(tmp_path / "d"),
                         "--seed", "2"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert Path(ok.stdout.strip()) == tmp_path / "d"
    again = subprocess.run([sys.executable, str(SCRIPT), str(corpus), str(tmp_path / "d")],
                           capture_output=True, text=True)
    assert again.returncode == 2 and "already exists" in again.stderr
