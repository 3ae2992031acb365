"""SO-Bench label audit: verdict logic on hand-made items, the signal evidence on known
scenes, synthetic corpora with injected errors, the convention audit and the CLI."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from foakit.audit.conventions import CandidateScore, decide
from foakit.audit.doamap import doa_map
from foakit.audit.estimates import ClipEstimate, estimate_clip
from foakit.audit.evidence import best_onset, onset_score, span_shift
from foakit.audit.hypotheses import apply_hypothesis
from foakit.bench.sobench.audit import (
    SobenchAuditConfig,
    audit_clip,
    audit_sobench,
    class_vocabulary,
    clip_claims,
)

from ..scenes import plane_wave_scene
from .items import audit_item

PRE = "Listen to the audio clip and answer based only on what you hear. "


def item(qa_id, task, question, answer="", canonical="", meta=None):
    return audit_item(qa_id, task, PRE + question, answer, canonical, meta)


def audit_items(items, clip=None):
    vocab = class_vocabulary(items)
    cc = clip_claims("a", items, vocab)
    verdicts, _ = audit_clip(cc, clip)
    return {v.key["qa_id"]: v for v in verdicts}, cc


def test_vocabulary_and_subjects():
    items = [
        item("q1", "estimate_azimuth", "What is the azimuth of the sound of the dog?",
             "The dog is at about 40 degrees azimuth.", "40 degrees", {"azimuth_deg": 40.0}),
        item("q2", "classify_motion", "Is the sound of the church bell stationary or moving?",
             "The church bell is stationary.", "stationary"),
        item("q3", "identify_source_by_location", "What sound is coming from your left?",
             "The sound coming from your left is the gong.", "gong"),
    ]
    vocab = class_vocabulary(items)
    assert set(vocab) == {"dog", "church bell", "gong"}  # not "church bell stationary"
    cc = clip_claims("a", items, vocab)
    assert cc.subject == {"q1": "dog", "q2": "church bell", "q3": "gong"}
    assert any(d.cls == "gong" and d.az == 90.0 and d.source != "label" for d in cc.dirs)


def test_azimuth_label_against_question_directions():
    base = [
        item("doa", "identify_source_by_doa", "Which sound comes from about 60 degrees azimuth?",
             "The sound from that direction is the dog.", "dog"),
        item("loc", "identify_source_by_location", "What sound is coming from the back-right?",
             "The sound coming from the back-right is the bird.", "bird"),
    ]
    good = item("az1", "estimate_azimuth", "What is the azimuth of the sound of the dog?",
                "The dog is at about 58 degrees azimuth.", "58 degrees", {"azimuth_deg": 58.0})
    mirrored = item("az2", "estimate_azimuth", "What is the azimuth of the sound of the bird?",
                    "The bird is at about 135 degrees azimuth.", "135 degrees",
                    {"azimuth_deg": 135.0})
    v, _ = audit_items(base + [good, mirrored])
    assert v["az1"].verdict == "consistent"
    assert v["az2"].verdict == "suspicious"
    assert "loc" in v["az2"].reason and v["az2"].estimate == -135.0
    assert 0 < v["az2"].confidence <= 1


def test_count_and_relations_without_audio():
    items = [
        item("c", "count_sources", "How many distinct sound sources can be heard in the clip?",
             "There are 2 distinct sound sources.", "2", {"active_count": 2}),
        item("d1", "identify_source_by_doa", "Which sound comes from about 80 degrees azimuth?",
             "The sound from that direction is the dog.", "dog"),
        item("d2", "identify_source_by_doa", "Which sound comes from about -70 degrees azimuth?",
             "The sound from that direction is the gong.", "gong"),
        item("d3", "identify_source_by_location", "What sound is coming from behind?",
             "The sound coming from behind is the bird.", "bird"),
        item("r1", "relative_left_right", "Is the sound of the dog to the left or to the right of "
             "the sound of the gong?", "The dog is to the left of the gong.", "left"),
        item("r2", "relative_left_right", "Relative to the sound of the dog, is the sound of the "
             "gong on the left or on the right?", "The gong is to the left of the dog.", "left"),
        item("r3", "compare_distance", "Is the sound of the dog closer or farther than the sound "
             "of the gong?", "The dog is closer than the gong.", "closer"),
    ]
    v, cc = audit_items(items)
    assert v["c"].verdict == "suspicious" and v["c"].estimate == 3  # dog, gong, bird named
    assert v["r1"].verdict == "consistent"
    assert v["r2"].verdict == "suspicious" and v["r2"].estimate == "right"
    assert v["r3"].verdict == "unverifiable"  # no distance labels
    items[0] = item("c", "count_sources", "How many?", "There are 3.", "3", {"active_count": 3})
    v, _ = audit_items(items)
    assert v["c"].verdict == "consistent"


def test_time_labels_conflicts_need_a_majority_or_the_signal():
    items = [
        item("t1", "detect_time", "During which time interval can the sound of the dog be heard?",
             "The dog is audible from 2.0s to 5.0s.", "2.0s to 5.0s", {"time_span": [2.0, 5.0]}),
        item("t2", "spatial_temporal", "Where does the sound of the dog come from, and during "
             "which time interval is it heard?", "The dog comes from the front and is heard "
             "from 2.1s to 5.0s.", "dog, front, 2.1s to 5.0s", {"time_span": [2.1, 5.0]}),
        item("o1", "onset_from_location", "When does the sound coming from the front begin?",
             "The dog starts at 4.0s.", "4.0s", {"onset_time": 4.0}),
    ]
    v, _ = audit_items(items)
    assert v["t1"].verdict == "consistent" and v["t2"].verdict == "consistent"
    assert v["o1"].verdict == "suspicious" and "2 other items disagree" in v["o1"].reason
    v, _ = audit_items(items[::2])  # one against one, no audio: cannot tell which
    assert v["o1"].verdict == "unverifiable" and "cannot tell" in v["o1"].reason
    assert v["t1"].verdict == "unverifiable"


def test_evidence_functions_on_presence_sequences():
    pres = np.zeros(100)
    pres[30:60] = 1.0  # present 3.0-6.0 s on a 0.1 s grid
    f = span_shift(pres, 0.1, 3.0, 6.0)
    assert f.iou == pytest.approx(1.0) and f.best_shift_s == 0.0
    f = span_shift(pres, 0.1, 4.5, 7.5)
    assert f.best_shift_s == pytest.approx(-1.5) and f.best_iou == pytest.approx(1.0)
    assert f.iou < 0.5
    assert onset_score(pres, 0.1, 3.0) == pytest.approx(1.0)
    assert onset_score(pres, 0.1, 4.5) == pytest.approx(0.0)
    t, s = best_onset(pres, 0.1, 5.0)
    assert t == pytest.approx(3.0) and s == pytest.approx(1.0)


def test_doa_map_prominence_and_presence_on_plane_waves():
    x = plane_wave_scene([(60, 20, 0.5, 2.0), (-90, -10, 2.0, 3.5)], duration=4.0, snr_db=25)
    m = doa_map(x, 16000)
    assert m.prominence(60, None, 0.5, 2.0, 25) == pytest.approx(1.0, abs=0.05)
    assert m.prominence(-60, None, 0.5, 2.0, 25) < 0.1
    assert m.prominence(60, 20, 0.5, 2.0, 30) > 0.9
    assert m.prominence(60, -20, 0.5, 2.0, 30) < 0.3  # elevation sign matters
    az, el, share = m.strongest(2.0, 3.5, 25)
    assert abs(az + 90) <= 10 and abs(el + 10) <= 10 and share > 0.5
    pres = m.presence(60, None, 25)
    on = np.flatnonzero(pres) * m.block_s
    assert on.min() == pytest.approx(0.5, abs=0.3) and on.max() == pytest.approx(2.0, abs=0.3)
    # another source explains the strongest direction: excluding it raises the label
    assert m.prominence(-90, None, 0.5, 3.5, 25, exclude=[(60, None, 25)]) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(8))
def test_presence_stays_off_in_noise_only_blocks(seed):
    """Few bins pass the diffuseness gate in noise-only blocks, so a cone's share of them
    is often above min_share by chance, and while the -90 deg source plays the 60 deg cone
    is masked below the noise (its 15th percentile floor is then too low): the noise-only
    stretches of the clip set the floor (with the 15th percentile alone, 28 of 60 draws of
    this scene had 1-5 such blocks)."""
    x = plane_wave_scene([(60, 20, 0.5, 2.0), (-90, -10, 2.0, 3.5)], duration=4.0, snr_db=25,
                         seed=seed)
    m = doa_map(x, 16000)
    on = np.flatnonzero(m.presence(60, None, 25)) * m.block_s
    assert len(on) and on.min() >= 0.2 and on.max() <= 2.3


def test_presence_of_a_source_during_a_louder_steady_one():
    """A source as loud as a steady one elsewhere: no quiet stretch to measure noise in, so
    the cone's own floor (masked by the steady source) stays the reference."""
    from foakit.conventions import encode_plane_wave

    from ..scenes import diffuse_field

    rng = np.random.default_rng(0)
    sr, n = 16000, 4 * 16000
    other = np.zeros(n)
    other[sr:2 * sr] = rng.normal(size=sr) * 0.1
    x = (encode_plane_wave(rng.normal(size=n) * 0.1, -90, 0) + encode_plane_wave(other, 60, 10)
         + diffuse_field(n, rng) * 0.1 * 10 ** (-25 / 20))
    m = doa_map(x.astype(np.float32), sr)
    on = np.flatnonzero(m.presence(60, None, 25)) * m.block_s
    assert len(on) >= 5 and on.min() >= 0.9 and on.max() <= 2.1


def test_hypotheses_are_involutions():
    az = np.array([-170.0, -45.0, 0.0, 30.0, 120.0])
    el = np.array([-30.0, 0.0, 10.0, 45.0, -5.0])
    for h in ("declared", "mirror_azimuth", "front_back", "yx_swap", "elevation_sign"):
        a2, e2 = apply_hypothesis(h, *apply_hypothesis(h, az, el))
        np.testing.assert_allclose((a2 - az + 180) % 360 - 180, 0, atol=1e-9)
        np.testing.assert_allclose(e2, el)
    assert float(apply_hypothesis("yx_swap", 30.0, 0.0)[0]) == pytest.approx(60.0)


def test_decide_needs_a_clear_gain():
    def s(name, agree, best, n=50):
        return CandidateScore(name, agree, None, n, 20, clips_best=best)

    same = decide("ambix", {"declared": s("declared", 0.8, 15), "mirror_azimuth":
                            s("mirror_azimuth", 0.75, 5)})
    assert same["best"] == "declared" and same["mismatch"] is False
    flip = decide("ambix", {"declared": s("declared", 0.3, 2), "mirror_azimuth":
                            s("mirror_azimuth", 0.85, 18)})
    assert flip["best"] == "mirror_azimuth" and flip["mismatch"] is True
    assert "mirror_azimuth" in flip["evidence"]


# ----------------------------------------------------------------------------------------
# synthetic corpora (anechoic: the DOA is reliable, so the audit's logic is what is tested)
# ----------------------------------------------------------------------------------------

CORPUS = dict(n_clips=14, seed=5, engine="ism", rt60_s=None, snr_db=(20.0, 30.0),
              allow_motion=False)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    from foakit.bench.sobench.inject import inject_sobench_errors, mirror_sobench_labels
    from foakit.bench.sobench.synth import write_sobench_corpus

    base = tmp_path_factory.mktemp("sobench")
    clean = base / "clean"
    write_sobench_corpus(clean, **CORPUS)
    bad = base / "injected"
    changes = inject_sobench_errors(clean, bad, rate=0.25, seed=1)
    mirrored = base / "mirrored"
    mirror_sobench_labels(clean, mirrored)
    fuma = base / "fuma"
    write_sobench_corpus(fuma, channel_order="fuma", **CORPUS)
    return {"clean": clean, "bad": bad, "changes": changes, "mirrored": mirrored,
            "fuma": fuma}


def flagged(result):
    return {v.key["qa_id"] for v in result.verdicts if v.verdict == "suspicious"}


def test_clean_corpus_is_mostly_consistent(corpora):
    r = audit_sobench(corpora["clean"], workers=1)
    c = r.summary["counts"]
    assert c["total"] > 80
    assert len(flagged(r)) <= 0.05 * c["total"]
    assert c["by_verdict"]["consistent"] >= 0.6 * c["total"]
    assert r.summary["convention"]["mismatch"] is False
    assert r.summary["convention"]["best"] == "declared"
    assert not r.failures


def test_injected_errors_are_flagged(corpora):
    r = audit_sobench(corpora["bad"], workers=1)
    injected = {c["qa_id"] for c in corpora["changes"]}
    assert len(injected) >= 12
    got = flagged(r)
    precision = len(got & injected) / max(len(got), 1)
    recall = len(got & injected) / len(injected)
    assert precision >= 0.85, (precision, recall)
    assert recall >= 0.75, (precision, recall)
    by_id = {v.key["qa_id"]: v for v in r.verdicts}
    for c in corpora["changes"]:
        v = by_id[c["qa_id"]]
        assert v.field == c["field"]
        if v.verdict == "suspicious":
            assert v.reason and 0 < v.confidence <= 1


def test_convention_names_mirrored_labels_and_fuma_audio(corpora):
    m = audit_sobench(corpora["mirrored"], workers=1).summary["convention"]
    assert m["mismatch"] is True and m["best"] == "mirror_azimuth"
    f = audit_sobench(corpora["fuma"], workers=1).summary["convention"]
    assert f["mismatch"] is True and f["best"] == "fuma_as_ambix"
    assert f["candidates"]["fuma_as_ambix"]["agreement"] > \
        f["candidates"]["declared"]["agreement"] + 0.2
    ok = audit_sobench(corpora["fuma"], channel_order="fuma", workers=1).summary["convention"]
    assert ok["mismatch"] is False and "ambix_as_fuma" in ok["candidates"]


def test_estimate_clip_reports_bad_files(tmp_path):
    p = tmp_path / "broken.wav"
    p.write_bytes(b"RIFF....WAVEjunk")
    e = estimate_clip("broken", p)
    assert isinstance(e, ClipEstimate) and not e.ok and e.error
    assert e.status == "error"


# ----------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------

def foakit(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *args], capture_output=True,
                          text=True, timeout=600)


def test_cli_sobench_outputs_and_exit_codes(corpora, tmp_path):
    out = tmp_path / "audit"
    r = foakit("audit", "sobench", str(corpora["bad"]), "-o", str(out), "--no-progress",
               "--workers", "1", "--max-figures", "3")
    assert r.returncode == 0, r.stderr
    assert "suspicious" in r.stderr
    flags = [json.loads(line) for line in (out / "flags.jsonl").read_text().splitlines()]
    assert flags
    for f in flags:
        assert {"qa_id", "field", "label", "estimate", "confidence", "reason"} <= set(f)
        assert f["verdict"] == "suspicious"
    assert [f["confidence"] for f in flags] == sorted((f["confidence"] for f in flags),
                                                      reverse=True)
    summary = json.loads((out / "summary.json").read_text())
    assert {"declared", "best", "mismatch", "candidates"} <= set(summary["convention"])
    n_verdicts = len((out / "verdicts.jsonl").read_text().splitlines())
    assert n_verdicts == summary["counts"]["total"]
    index = (out / "index.md").read_text()
    figs = [f["figure"] for f in flags if f.get("figure")]
    assert len(figs) == min(3, len(flags))
    for rel in figs + ["figures/error_rose.png"]:
        assert (out / rel).stat().st_size > 1000
    assert figs[0] in index
    # a missing audio file: audited from the corpus only, exit status 1
    broken = tmp_path / "broken"
    from foakit.bench.sobench.inject import mirror_sobench_labels

    mirror_sobench_labels(corpora["clean"], broken, hypothesis="declared")
    victim, garbled = sorted((broken / "audio" / "test").iterdir())[:2]
    os.unlink(victim)
    garbled.write_bytes(b"not a wav file")  # read and failed: counted apart
    r = foakit("audit", "sobench", str(broken), "-o", str(tmp_path / "a2"), "--no-progress",
               "--workers", "1", "--no-figures")
    assert r.returncode == 1 and victim.stem in r.stderr and garbled.stem in r.stderr
    assert "analysed (1 of them failed)" in r.stderr
    assert foakit("audit", "sobench", str(tmp_path / "nope"), "-o",
                  str(tmp_path / "a3")).returncode == 2
    assert foakit("audit").returncode == 2


def test_config_validation():
    with pytest.raises(ValueError):
        SobenchAuditConfig(agree_prom=0.1, doubt_prom=0.2)
    with pytest.raises(ValueError, match="own_start_tol_s"):
        SobenchAuditConfig(own_start_tol_s=0.0)


def test_event_elevation_flip_needs_the_mirrored_elevation_and_an_unambiguous_event():
    from foakit.audit.estimates import DoaEstimate
    from foakit.bench.sobench.audit_config import SobenchAuditConfig
    from foakit.bench.sobench.audit_direction import _Ctx, _event_elevation_flip

    def ctx(events):
        doa = DoaEstimate("ambix", 0.4, np.zeros((1, 4, 4), np.float32), events)
        return _Ctx(cc=None, clip=None, doa=doa, cfg=SobenchAuditConfig())

    up = {"onset_s": 1.0, "offset_s": 4.0, "azimuth_deg": 40.0, "elevation_deg": 28.0,
          "motion": "stationary", "source": 0}
    other = {"onset_s": 2.0, "offset_s": 5.0, "azimuth_deg": -120.0, "elevation_deg": 30.0,
             "motion": "stationary", "source": 1}
    # label -30: the source's event sits at +28 -> flipped
    got = _event_elevation_flip(ctx([up]), -30.0, (1.0, 3.0), 45.0)
    assert got is not None and got["elevation_deg"] == 28.0
    # the label agrees with the event, or the event is at neither sign: no flip
    assert _event_elevation_flip(ctx([up]), 30.0, (1.0, 3.0), 45.0) is None
    assert _event_elevation_flip(ctx([dict(up, elevation_deg=0.0)]), -30.0, (1.0, 3.0),
                                 45.0) is None
    # another azimuth, or outside the window: not this source
    assert _event_elevation_flip(ctx([up]), -30.0, (1.0, 3.0), -100.0) is None
    assert _event_elevation_flip(ctx([up]), -30.0, (5.0, 6.0), 45.0) is None
    # no azimuth known: only when one source sounds in the window
    assert _event_elevation_flip(ctx([up]), -30.0, (1.0, 3.0), None) is not None
    assert _event_elevation_flip(ctx([up, other]), -30.0, (1.0, 3.0), None) is None


def test_event_time_shift_and_arbitration_by_the_class_event():
    from foakit.audit.doamap import DoaMap
    from foakit.audit.estimates import DoaEstimate
    from foakit.bench.sobench.audit_claims import TimeClaim
    from foakit.bench.sobench.audit_config import SobenchAuditConfig
    from foakit.bench.sobench.audit_direction import _Ctx
    from foakit.bench.sobench.audit_time import _arbitrate, _class_events, _event_time_shift

    def ctx(events, **cfg):
        # an empty energy map (the presence votes abstain): only the events speak
        dmap = DoaMap(0.1, 10.0, 10.0, np.zeros((100, 36, 18), np.float32),
                      np.zeros(100, np.float32))
        doa = DoaEstimate("ambix", 0.4, np.zeros((1, 4, 4), np.float32), events, dmap)
        return _Ctx(cc=None, clip=None, doa=doa, cfg=SobenchAuditConfig(**cfg))

    dog = {"onset_s": 4.0, "offset_s": 7.0, "azimuth_deg": 40.0, "elevation_deg": 0.0,
           "motion": "stationary", "source": 0}
    far = {"onset_s": 1.0, "offset_s": 3.0, "azimuth_deg": -120.0, "elevation_deg": 0.0,
           "motion": "stationary", "source": 1}
    pres = [(np.zeros(10), 45.0, "qa_x")]  # the class is known at 45 deg
    x = ctx([dog, far])
    events = _class_events(x, pres)
    assert events == [dog]  # the other direction's event is not the class's
    # a span moved by -2 s as a whole: suspicious, with the event's span as estimate
    got = _event_time_shift(x, events, "span", 2.0, 5.0)
    assert got is not None and got["onset_s"] == 4.0
    # the label right (within event_time_tol_s), or its end not moved alike: no verdict
    assert _event_time_shift(x, events, "span", 4.3, 7.0) is None
    assert _event_time_shift(x, events, "span", 2.0, 9.0) is None
    # an onset: only the start counts; a shift under min_shift_s is not a shift
    assert _event_time_shift(x, events, "onset", 1.5, 1.5) is not None
    assert _event_time_shift(x, events, "onset", 3.2, 3.2) is None
    # two sources in the class's direction: ambiguous, no events; off switch
    twin = dict(dog, onset_s=8.0, offset_s=9.0, azimuth_deg=50.0, source=2)
    assert _class_events(ctx([dog, twin]), pres) == []
    assert _class_events(ctx([dog], event_shift_conf=0.0), pres) == []
    # arbitration: the event starts at the other claim's onset -> the label loses
    lab = TimeClaim("dog", "span", 2.0, 5.0, "a", "label")
    other = TimeClaim("dog", "onset", 4.0, 4.0, "b", "label")
    vote, votes = _arbitrate(x, pres, True, lab, other, events)
    assert vote == -1 and "starts at 4.0 s" in votes[-1][1]
    vote, _ = _arbitrate(x, pres, True, other, lab, events)
    assert vote == 1


def test_a_reverberant_elevation_is_read_from_the_event_that_starts_with_its_sound():
    from foakit.audit.doamap import DoaMap
    from foakit.audit.estimates import DoaEstimate
    from foakit.bench.sobench.audit import audit_clip, class_vocabulary, clip_claims
    from foakit.bench.sobench.audit_config import SobenchAuditConfig

    from .items import audit_item

    items = [audit_item("e", "estimate_elevation", "At what elevation is the sound that starts "
                        "around 4.6 s?", "About -19 degrees.", "-19 degrees",
                        {"elevation_deg": -19.0})]
    # three events sound in the question's window; the one that starts there is at +13 deg
    earlier = {"onset_s": 0.6, "offset_s": 5.1, "azimuth_deg": 164.0, "elevation_deg": 19.0,
               "motion": "stationary", "source": 0}
    starts = {"onset_s": 4.6, "offset_s": 8.7, "azimuth_deg": 12.0, "elevation_deg": 13.0,
              "motion": "stationary", "source": 1}
    # a third starts 0.4 s later: no single event is tied to the question's start
    later = {"onset_s": 5.0, "offset_s": 5.5, "azimuth_deg": -100.0, "elevation_deg": 0.0,
             "motion": "stationary", "source": 2}
    energy = np.zeros((100, 36, 18), np.float32)
    energy[:, 19, 7] = 1.0  # the map holds the label's direction (15, -15 deg)
    dmap = DoaMap(0.1, 10.0, 10.0, energy, energy.reshape(100, -1).sum(axis=1))
    onsets = np.array([[4.65, 12.0, 60.0, 1.0, 1.0, 0.0]])  # no vote either way

    def verdict(events, psi):
        doa = DoaEstimate("ambix", 0.4, np.zeros((25, 4, 4), np.float32), events, dmap,
                          onsets=onsets)
        frames = {"time_s": np.arange(100) * 0.1 + 0.05, "diffuseness": np.full(100, psi),
                  "active": np.ones(100, bool)}
        clip = ClipEstimate("a", "a.wav", sample_rate=16000, duration_s=10.0, frames=frames,
                            doa=doa)
        v, _ = audit_clip(clip_claims("a", items, class_vocabulary(items)), clip,
                          SobenchAuditConfig())
        return v[0]

    v = verdict([earlier, starts, later], 0.8)
    assert v.verdict == "suspicious" and v.estimate == 13.0 and "4.6-8.7 s" in v.reason
    # the event at the label's elevation: it agrees; a dry window: the map decides
    assert verdict([earlier, dict(starts, elevation_deg=-17.0), later], 0.8).verdict \
        == "consistent"
    assert verdict([earlier, starts, later], 0.3).verdict == "consistent"


def test_onsets_start_at_needs_new_onsets_from_one_of_the_directions():
    from foakit.audit.estimates import DoaEstimate
    from foakit.bench.sobench.audit_config import SobenchAuditConfig
    from foakit.bench.sobench.audit_direction import _Ctx
    from foakit.bench.sobench.audit_time import _onsets_start_at

    def ctx(rows):
        onsets = np.array([[t, az, 0.0, 1.0, 1.0, 0.0] for t, az in rows]) if rows else None
        doa = DoaEstimate("ambix", 0.4, np.zeros((1, 4, 4), np.float32), [], onsets=onsets)
        return _Ctx(cc=None, clip=None, doa=doa, cfg=SobenchAuditConfig())

    new = [(4.0, 40.0), (4.05, 44.0)]
    got = _onsets_start_at(ctx(new), 4.0, [45.0])
    assert got is not None and abs(got["azimuth_deg"] - 42.0) < 1.0
    assert _onsets_start_at(ctx(new), 4.0, [120.0]) is None  # from another direction
    assert _onsets_start_at(ctx(new), 4.0, []) is None  # no direction known
    assert _onsets_start_at(ctx([(3.0, 42.0)] + new), 4.0, [45.0]) is None  # already playing
    assert _onsets_start_at(ctx(None), 4.0, [45.0]) is None
