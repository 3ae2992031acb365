"""RMS-AQA audit (answer checks, convention audit) and the CLI, run as real subprocesses
on rendered synthetic corpora."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import soundfile as sf

from foakit.bench.rmsaqa import (
    audit_rmsaqa,
    demo_table,
    load_qa,
    read_answers,
    write_rmsaqa_corpus,
)

pytestmark = pytest.mark.slow

# localization-heavy clips with one or two sources: enough direction answers per corpus
KW = dict(n_clips=12, seed=7, n_sources=(1, 2), category_weights=(1, 4, 1, 0, 0, 0))


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    base = tmp_path_factory.mktemp("rmsaqa")
    clean = write_rmsaqa_corpus(base / "clean", **KW)
    # the same audio, localization answers written with the azimuth sign flipped
    mirror = write_rmsaqa_corpus(base / "mirror", render=False, mirror_labels=True, **KW)
    fuma = write_rmsaqa_corpus(base / "fuma", channel_order="fuma", **KW)
    return {"base": base, "clean": clean, "mirror": mirror, "fuma": fuma,
            "an": base / "analysis", "an_fuma": base / "analysis_fuma"}


def foakit(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "foakit", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_convention_audit_names_fuma_and_mirrored_copies_and_clears_the_clean_one(corpora):
    c = corpora
    clean = audit_rmsaqa(load_qa(c["clean"]), analysis_dir=c["an"], workers=1)
    conv = clean.summary["convention"]
    assert conv["best"] == "declared" and not conv["mismatch"], conv["evidence"]
    assert conv["candidates"]["declared"]["n_pairs"] >= 8
    assert 0.7 < conv["channel_reading"]["dipole_to_omni_power"] < 1.4  # SN3D weights
    mirror = audit_rmsaqa(load_qa(c["mirror"], audio_root=c["clean"].parent),
                          analysis_dir=c["an"], workers=1)
    conv = mirror.summary["convention"]
    assert conv["best"] == "mirror_azimuth" and conv["mismatch"], conv["evidence"]
    fuma = audit_rmsaqa(load_qa(c["fuma"]), analysis_dir=c["an_fuma"], workers=1)
    conv = fuma.summary["convention"]
    assert conv["best"] == "fuma_as_ambix" and conv["mismatch"], conv["evidence"]
    assert conv["channel_reading"]["weights"].startswith("FuMa")
    assert conv["channel_reading"]["name"].startswith("FuMa")
    assert clean.summary["convention"]["channel_reading"]["name"].startswith("ambiX")
    # the mirrored answers are flagged by the answer checks, the clean ones are not
    flagged = [v for v in mirror.verdicts if v.verdict == "suspicious"]
    assert sum(v.field == "direction" for v in flagged) >= 5
    assert not [v for v in clean.verdicts if v.verdict == "suspicious"
                and v.field == "direction"]
    assert all(v.verdict == "unverifiable" for v in clean.verdicts
               if v.key["category"] == "Action Prediction")


def test_wxyz_at_sn3d_is_told_from_fuma_by_the_w_weight(corpora, tmp_path):
    """The clean audio re-stored as W, X, Y, Z without FuMa's W gain: the order the public
    baseline reads, at SN3D weights."""
    c = corpora
    copy = tmp_path / "wxyz"
    for it in load_qa(c["clean"]):
        dst = copy / it.audio_path
        if dst.exists():
            continue
        x, sr = sf.read(c["clean"].parent / it.audio_path)
        dst.parent.mkdir(parents=True, exist_ok=True)
        sf.write(dst, x[:, [0, 3, 1, 2]], sr, subtype="PCM_16")
    res = audit_rmsaqa(load_qa(c["clean"], audio_root=copy), analysis_dir=tmp_path / "an",
                       workers=1)
    conv = res.summary["convention"]
    assert conv["best"] == "fuma_as_ambix" and conv["mismatch"], conv["evidence"]
    assert conv["channel_reading"]["order"] == "W, X, Y, Z"
    assert conv["channel_reading"]["weights"] == "SN3D"
    assert "public baseline" in conv["channel_reading"]["name"]


def test_cli_baseline_score_audit(corpora, tmp_path):
    c = corpora
    out = {}
    for kind in ("oracle", "chance", "prior", "dsp"):
        out[kind] = tmp_path / f"{kind}.jsonl"
        r = foakit("baseline", "rmsaqa", c["clean"], "--kind", kind, "-o", out[kind],
                   "--analysis", c["an"], "--no-progress", "--workers", 1)
        assert r.returncode == 0, r.stderr
        if kind == "dsp":
            # the run summary says how many options the reader reads in full
            from foakit.bench.rmsaqa.claims import coverage
            qa = load_qa(c["clean"])
            cov = coverage(t for it in qa for p in (it.stage1, it.stage2)
                           for t in p.options.values())
            assert f"options with every cue read {cov['fully_read']}/{cov['n']} " in r.stderr
            assert cov["n"] == 8 * len(qa)
    rows = read_answers(out["dsp"])
    assert len(rows) == len(load_qa(c["clean"]))
    dsp = [json.loads(x) for x in out["dsp"].read_text().splitlines()]
    assert {"stage1", "stage2", "abstained"} <= set(dsp[0]["foakit"])
    r = foakit("score", "rmsaqa", c["clean"], *out.values(), "-o", tmp_path / "rep.json")
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0].split()
    assert head[-4:] == ["oracle", "chance", "prior", "dsp"]
    rep = json.loads((tmp_path / "rep.json").read_text())
    assert rep["oracle"]["overall"]["A_GS2"] == 1.0
    assert rep["dsp"]["by_category"]["Source Localization"]["A_S2"] > \
        rep["chance"]["by_category"]["Source Localization"]["A_S2"]
    r = foakit("score", "rmsaqa", c["clean"], out["oracle"], "--json")
    assert json.loads(r.stdout)["overall"]["A_S1"] == 1.0
    r = foakit("audit", "rmsaqa", c["fuma"], "-o", tmp_path / "aud", "--analysis",
               c["an_fuma"], "--no-progress", "--workers", 1)
    assert r.returncode == 0, r.stderr
    assert "MISMATCH" in r.stderr
    summary = json.loads((tmp_path / "aud" / "summary.json").read_text())
    assert summary["convention"]["best"] == "fuma_as_ambix"
    assert (tmp_path / "aud" / "figures" / "convention.png").stat().st_size > 1000
    flags = [json.loads(x) for x in (tmp_path / "aud" / "flags.jsonl").read_text().splitlines()]
    assert flags and [f["confidence"] for f in flags] == sorted(
        (f["confidence"] for f in flags), reverse=True)
    with_fig = [f for f in flags if "figure" in f]
    assert with_fig and all((tmp_path / "aud" / f["figure"]).is_file() for f in with_fig)
    assert set(summary["files"]["figures"]) == {"figures/convention.png"} | {
        f["figure"] for f in with_fig}
    r = foakit("audit", "rmsaqa", c["fuma"], "-o", tmp_path / "aud2", "--max-figures", "-1")
    assert r.returncode == 2 and "--max-figures -1" in r.stderr


def test_cli_missing_answers_broken_audio_and_errors(corpora, tmp_path):
    c = corpora
    qa_file = c["clean"]
    oracle = tmp_path / "o.jsonl"
    foakit("baseline", "rmsaqa", qa_file, "--kind", "oracle", "-o", oracle)
    text = oracle.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(text[1:]) + "\n")
    r = foakit("score", "rmsaqa", qa_file, part)
    assert r.returncode == 1 and "1 item(s) without an answer" in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text[0] + "\n" + json.dumps({"segment_id": "nope", "item": 0,
                                                "stage1": "A", "stage2": "B"}) + "\n")
    r = foakit("score", "rmsaqa", qa_file, bad)
    assert r.returncode == 2 and "unknown item segment_id='nope'" in r.stderr
    assert f"{bad}:2" in r.stderr
    # a copy of the corpus with one clip missing and one broken: items still answered
    recs = json.loads(qa_file.read_text())["records"]
    broken = tmp_path / "copy"
    broken.mkdir()
    (broken / "val.json").write_text(json.dumps({"records": recs + [
        {"segment_id": "ghost", "audio_path": "audio/ghost.wav", "qa_pairs":
         recs[0]["qa_pairs"][:2]},
        {"segment_id": "junk", "audio_path": "audio/junk.wav", "qa_pairs":
         recs[0]["qa_pairs"][:2]}]}))
    (broken / "audio").mkdir()
    (broken / "audio" / "junk.wav").write_bytes(b"RIFF....WAVEjunk")
    os.symlink(qa_file.parent / "audio" / "val", broken / "audio" / "val")
    ans = tmp_path / "dsp.jsonl"
    r = foakit("baseline", "rmsaqa", broken / "val.json", "--kind", "dsp", "-o", ans,
               "--analysis", tmp_path / "an", "--no-progress", "--workers", 1)
    assert r.returncode == 1
    assert "ghost.wav: no such audio file" in r.stderr and "junk.wav" in r.stderr
    got = {row["segment_id"]: row for row in read_answers(ans)}
    # no audio, nothing for the signal to decide: dsp abstains (a null answer)
    assert len(got) == len(recs) + 2 and got["ghost"]["stage2"] is None
    assert "abstained (null answer)" in r.stderr
    r = foakit("baseline", "rmsaqa", tmp_path / "none.json", "--kind", "oracle", "-o", ans)
    assert r.returncode == 2 and "no such QA file" in r.stderr


def test_demo_table_lists_every_baseline_and_category(tmp_path):
    text = demo_table(tmp_path / "demo", n_clips=6, seed=5, workers=1)
    head = text.splitlines()[1].split()
    assert head[-4:] == ["oracle", "chance", "prior", "dsp"]
    assert "Temporal Relations" in text and "A_GS2" in text
    assert (tmp_path / "demo" / "val.json").is_file()
