"""STARSS label audit: Hungarian matching, DCASE-style metrics, per-source verdicts on
synthetic corpora with injected errors, the convention audit and the CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

from foakit.audit.estimates import DoaEstimate
from foakit.bench.starss.audit import (
    StarssAuditConfig,
    _match_clip,
    _metrics,
    audit_starss,
    match_window,
    window_references,
)
from foakit.bench.starss.format import SourceTrack, read_label_csv, rows_to_tracks
from foakit.conventions import direction_to_vector


def unit(az, el=0.0):
    return direction_to_vector(az, el)


def test_hungarian_matching_minimises_total_angle():
    refs = np.stack([unit(0), unit(90)])
    ests = np.stack([unit(80), unit(10), unit(-150)])
    pairs = match_window(refs, ests)
    assert sorted((i, j) for i, j, _ in pairs) == [(0, 1), (1, 0)]
    assert sorted(round(e) for *_, e in pairs) == [10, 10]
    # greedy would give ref 0 the 10-deg peak and ref 1 nothing closer than 80: same here,
    # but with a shared nearest peak the assignment must still be one-to-one
    pairs = match_window(np.stack([unit(0), unit(20)]), np.stack([unit(10), unit(100)]))
    assert len({j for _, j, _ in pairs}) == 2
    assert match_window(refs, np.zeros((0, 3))) == []


def _track(frames, az, el=0.0, cls=0, src=0):
    frames = np.asarray(frames)
    return SourceTrack(cls, src, frames, np.full(len(frames), float(az)),
                       np.full(len(frames), float(el)))


def test_window_references_and_metrics():
    tr = _track(range(0, 8), 30)  # 0.0-0.8 s: windows 0 and 1 of 0.4 s
    refs = window_references(tr, 0.4)
    assert sorted(refs) == [0, 1]
    np.testing.assert_allclose(refs[0], unit(30), atol=1e-9)
    assert sorted(window_references(tr, 0.4, shift=2)) == [2, 3]
    mirrored = window_references(tr, 0.4, hypothesis="mirror_azimuth")
    np.testing.assert_allclose(mirrored[1], unit(-30), atol=1e-9)
    assert window_references(_track([0], 30), 0.4) == {}  # 1 of 4 frames: not present
    peaks = np.zeros((3, 4, 4), np.float32)
    peaks[0, 0] = [*unit(35), 1.0]      # 5 deg: TP
    peaks[1, 0] = [*unit(80), 1.0]      # 50 deg: spatial FP
    peaks[2, 0] = [*unit(-90), 1.0]     # no reference: FP
    doa = DoaEstimate("ambix", 0.4, peaks, [])
    m = _match_clip({(0, 0): tr}, doa, StarssAuditConfig())
    met = _metrics(m)
    assert (met["TP"], met["FP_spatial"], met["FP"], met["FN"]) == (1, 1, 1, 0)
    assert met["F20"] == pytest.approx(1 / (1 + 1 + 0.5))
    assert met["LE_deg"] == pytest.approx(27.5, abs=0.1)
    assert met["LR"] == pytest.approx(1.0)


CORPUS = dict(n_clips=10, seed=2, engine="ism", rt60_s=None, snr_db=(20.0, 30.0),
              allow_motion=False, duration_s=8.0)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    from foakit.bench.starss.inject import (
        inject_starss_errors,
        label_frames,
        transform_starss_labels,
    )
    from foakit.bench.starss.synth import write_starss_corpus

    base = tmp_path_factory.mktemp("starss")
    clean = base / "clean"
    write_starss_corpus(clean, **CORPUS)
    audio, meta = clean / "foa_dev", clean / "metadata_dev"
    n_frames = label_frames(audio)
    assert n_frames and set(n_frames.values()) == {80}  # 8.0 s clips
    bad = base / "meta_injected"
    changes = inject_starss_errors(meta, bad, rate=0.3, seed=3, n_frames=n_frames)
    mirrored = base / "meta_mirrored"
    transform_starss_labels(meta, mirrored, "mirror_azimuth")
    fuma = base / "fuma"
    write_starss_corpus(fuma, channel_order="fuma", **CORPUS)
    return {"audio": audio, "meta": meta, "bad": bad, "changes": changes,
            "mirrored": mirrored, "fuma": fuma}


def flagged(result):
    return {(v.key["audio_id"], v.key["class"], v.key["source"])
            for v in result.verdicts if v.verdict == "suspicious"}


def test_clean_corpus(corpora):
    r = audit_starss(corpora["audio"], corpora["meta"], workers=1)
    n = r.summary["counts"]["total"]
    assert n >= 15 and len(flagged(r)) <= 0.05 * n
    assert r.summary["convention"]["best"] == "declared"
    assert r.summary["convention"]["mismatch"] is False
    met = r.summary["metrics"]["corpus"]
    assert met["LR"] > 0.8 and met["LE_deg"] < 15 and 0 < met["F20"] <= 1
    assert set(r.summary["metrics"]["clips"]) == {p.stem for p in corpora["audio"].iterdir()}


def test_injected_sources_are_flagged(corpora):
    r = audit_starss(corpora["audio"], corpora["bad"], workers=1)
    injected = {(c["audio_id"], c["class"], c["source"]) for c in corpora["changes"]}
    assert len(injected) >= 5
    got = flagged(r)
    assert len(got & injected) / max(len(got), 1) >= 0.8
    assert len(got & injected) / len(injected) >= 0.8
    kinds = {c["kind"] for c in corpora["changes"]}
    assert len(kinds) >= 3
    for v in r.verdicts:
        if v.verdict == "suspicious":
            assert v.key["frames"] and v.reason and v.field in (
                "azimuth", "elevation", "direction", "time")


def test_convention_audit(corpora):
    m = audit_starss(corpora["audio"], corpora["mirrored"], workers=1).summary["convention"]
    assert m["mismatch"] is True and m["best"] == "mirror_azimuth"
    f = audit_starss(corpora["fuma"] / "foa_dev", corpora["fuma"] / "metadata_dev",
                     workers=1).summary["convention"]
    assert f["mismatch"] is True and f["best"] == "fuma_as_ambix"


def foakit(*args):
    return subprocess.run([sys.executable, "-m", "foakit", *args], capture_output=True,
                          text=True, timeout=600)


def test_cli_starss(corpora, tmp_path):
    out = tmp_path / "audit"
    r = foakit("audit", "starss", "--audio", str(corpora["audio"]), "--metadata",
               str(corpora["bad"]), "-o", str(out), "--no-progress", "--workers", "1",
               "--max-figures", "2")
    assert r.returncode == 0, r.stderr
    flags = [json.loads(x) for x in (out / "flags.jsonl").read_text().splitlines()]
    assert flags
    for f in flags:
        assert {"audio_id", "class", "source", "frames", "field", "label", "estimate",
                "confidence", "reason"} <= set(f)
    summary = json.loads((out / "summary.json").read_text())
    assert {"F20", "LE_deg", "LR"} <= set(summary["metrics"]["corpus"])
    assert (out / "index.md").read_text().count("![") >= 1
    # a label file without audio and a malformed one: reported, exit status 1
    meta = tmp_path / "meta"
    meta.mkdir()
    for p in corpora["meta"].iterdir():
        (meta / p.name).write_text(p.read_text())
    (meta / "orphan.csv").write_text("0,1,0,10,0\n")
    (meta / sorted(p.name for p in corpora["meta"].iterdir())[0]).write_text("0,1,0,x,0\n")
    r = foakit("audit", "starss", "--audio", str(corpora["audio"]), "--metadata", str(meta),
               "-o", str(tmp_path / "a2"), "--no-progress", "--workers", "1", "--no-figures")
    assert r.returncode == 1
    assert "orphan.csv" in r.stderr and "is not a number" in r.stderr
    r = foakit("audit", "starss", "--audio", str(tmp_path / "none"), "--metadata", str(meta),
               "-o", str(tmp_path / "a3"))
    assert r.returncode == 2


def test_injection_really_changes_labels(corpora):
    for c in corpora["changes"]:
        a = rows_to_tracks(read_label_csv(corpora["meta"] / f"{c['audio_id']}.csv"))
        b = rows_to_tracks(read_label_csv(corpora["bad"] / f"{c['audio_id']}.csv"))
        ta, tb = a[(c["class"], c["source"])], b[(c["class"], c["source"])]
        changed = (not np.array_equal(ta.frames, tb.frames)
                   or not np.allclose(ta.azimuth_deg, tb.azimuth_deg)
                   or not np.allclose(ta.elevation_deg, tb.elevation_deg))
        assert changed, c


def test_an_analysed_event_vouches_only_for_a_matching_stationary_track():
    from foakit.bench.starss.audit import StarssAuditConfig
    from foakit.bench.starss.audit_events import _event_support

    cfg = StarssAuditConfig()
    frames = np.arange(20, 60)  # 2.0-6.0 s
    tr = SourceTrack(1, 0, frames, np.full(40, 50.0), np.full(40, 10.0))
    ev = {"onset_s": 2.1, "offset_s": 5.9, "azimuth_deg": 55.0, "elevation_deg": 5.0,
          "motion": "stationary"}
    assert _event_support([ev], tr, 50.0, 10.0, 2.0, 6.0, cfg) is not None
    # another direction, a late start (shifted labels), too short, or moving: no
    assert _event_support([dict(ev, azimuth_deg=-50.0)], tr, 50.0, 10.0, 2.0, 6.0, cfg) is None
    assert _event_support([dict(ev, onset_s=3.6)], tr, 50.0, 10.0, 2.0, 6.0, cfg) is None
    # a short event at the onset (a tonal source whose onset alone is direct-path dominant)
    # still vouches; one shorter than event_support_min_s does not
    assert _event_support([dict(ev, offset_s=2.8)], tr, 50.0, 10.0, 2.0, 6.0, cfg) is not None
    assert _event_support([dict(ev, offset_s=2.4)], tr, 50.0, 10.0, 2.0, 6.0, cfg) is None
    # an event closer to another track labelled at its start is that track's
    other = SourceTrack(2, 0, frames, np.full(40, 60.0), np.full(40, 5.0))
    assert _event_support([ev], tr, 50.0, 10.0, 2.0, 6.0, cfg,
                          {(1, 0): tr, (2, 0): other}) is None
    assert _event_support([dict(ev, motion="left_to_right")], tr, 50.0, 10.0, 2.0, 6.0,
                          cfg) is None
    # a moving track is not vouched for
    moving = SourceTrack(1, 0, frames, np.linspace(0.0, 90.0, 40), np.full(40, 10.0))
    assert _event_support([ev], moving, 45.0, 10.0, 2.0, 6.0, cfg) is None


def test_an_onset_event_where_a_convention_error_puts_the_label_contradicts_it():
    from foakit.bench.starss.audit import StarssAuditConfig
    from foakit.bench.starss.audit_events import _onset_contradiction

    cfg = StarssAuditConfig()
    frames = np.arange(20, 60)  # 2.0-6.0 s
    tr = SourceTrack(1, 0, frames, np.full(40, 70.0), np.full(40, 10.0))
    ev = {"onset_s": 2.1, "offset_s": 5.9, "azimuth_deg": -72.0, "elevation_deg": 8.0,
          "motion": "stationary"}
    got = _onset_contradiction([ev], tr, 70.0, 10.0, cfg)
    assert got is not None and got[1] == "mirror_azimuth" and got[2] > 100
    # an event starting later than the label, one near the label, one where no hypothesis
    # puts the label (a mislocalised event) or one another track explains: no
    assert _onset_contradiction([dict(ev, onset_s=2.6)], tr, 70.0, 10.0, cfg) is None
    assert _onset_contradiction([dict(ev, azimuth_deg=95.0)], tr, 70.0, 10.0, cfg) is None
    assert _onset_contradiction([dict(ev, azimuth_deg=30.0, elevation_deg=45.0)], tr,
                                70.0, 10.0, cfg) is None
    # far from the label and from every hypothesis (a rotated label): blamed beyond
    # contradict_any_deg only
    rot = dict(ev, azimuth_deg=150.0, elevation_deg=10.0)   # 80 deg from the label
    got = _onset_contradiction([rot], tr, 70.0, 10.0, cfg)
    assert got is not None and got[1] == "none"
    assert _onset_contradiction([rot], tr, 70.0, 10.0,
                                StarssAuditConfig(contradict_any_deg=90.0)) is None
    other = SourceTrack(2, 0, frames, np.full(40, -80.0), np.full(40, 0.0))
    assert _onset_contradiction([ev], tr, 70.0, 10.0, cfg, {(1, 0): tr, (2, 0): other}) is None
    # the elevation flip names its hypothesis
    up = SourceTrack(1, 0, frames, np.full(40, 30.0), np.full(40, 35.0))
    flip = _onset_contradiction([dict(ev, azimuth_deg=31.0, elevation_deg=-33.0)], up, 30.0,
                                35.0, cfg)
    assert flip is not None and flip[1] == "elevation_sign"


def test_an_event_spanning_the_labelled_frames_moved_gives_the_time_shift():
    from foakit.bench.starss.audit import StarssAuditConfig
    from foakit.bench.starss.audit_events import _event_shift

    cfg = StarssAuditConfig()
    frames = np.arange(30, 60)  # labelled 3.0-6.0 s
    tr = SourceTrack(1, 0, frames, np.full(30, 40.0), np.full(30, 0.0))
    ev = {"onset_s": 5.0, "offset_s": 8.0, "azimuth_deg": 42.0, "elevation_deg": 3.0,
          "motion": "stationary"}
    got = _event_shift([ev], tr, 40.0, 0.0, cfg)
    assert got is not None and got[0] == pytest.approx(2.0) and got[1] > 0.9
    # the same source heard before the labels: frames too late
    early = _event_shift([dict(ev, onset_s=1.2, offset_s=4.2)], tr, 40.0, 0.0, cfg)
    assert early is not None and early[0] == pytest.approx(-1.8)
    # a sound already going 1.8 s before the labels start and running into them needs less
    # IoU gain than one starting inside the span (labels 3.0-6.0, event 1.2-5.6: IoU 0.54
    # unshifted, 0.68 moved by -1.8 s)
    lead = dict(ev, onset_s=1.2, offset_s=5.6)
    assert _event_shift([lead], tr, 40.0, 0.0, cfg)[0] == pytest.approx(-1.8)
    assert _event_shift([lead], tr, 40.0, 0.0, StarssAuditConfig(lead_shift_gain=0.3)) is None
    # an intermittent source whose event starts inside the span and ends with it: no
    assert _event_shift([dict(ev, onset_s=4.5, offset_s=6.0)], tr, 40.0, 0.0, cfg) is None
    # another direction, or a shift below min_shift_s: no
    assert _event_shift([dict(ev, azimuth_deg=100.0)], tr, 40.0, 0.0, cfg) is None
    assert _event_shift([dict(ev, onset_s=3.5, offset_s=6.5)], tr, 40.0, 0.0, cfg) is None


def test_events_that_veto_the_energy_maps_verdicts():
    from foakit.bench.starss.audit import StarssAuditConfig
    from foakit.bench.starss.audit_events import (
        _event_in_span,
        _onset_contradiction,
        _onset_in_azimuth,
    )

    cfg = StarssAuditConfig()
    frames = np.arange(20, 60)  # 2.0-6.0 s
    tr = SourceTrack(1, 0, frames, np.full(40, 50.0), np.full(40, 30.0))
    late = {"onset_s": 3.5, "offset_s": 5.5, "azimuth_deg": 52.0, "elevation_deg": 28.0,
            "motion": "stationary"}
    # an event from the label that starts late still sounds in the span; elsewhere: no
    assert _event_in_span([late], tr, 50.0, 30.0, 2.0, 6.0, cfg) is not None
    assert _event_in_span([dict(late, azimuth_deg=-50.0)], tr, 50.0, 30.0, 2.0, 6.0,
                          cfg) is None
    assert _event_in_span([dict(late, onset_s=6.5, offset_s=8.0)], tr, 50.0, 30.0, 2.0,
                          6.0, cfg) is None
    # an onset event at the labelled azimuth, whatever its elevation, starts with the label
    onset = dict(late, onset_s=2.1, elevation_deg=-10.0)
    assert _onset_in_azimuth([onset], tr, 50.0, cfg) is not None
    assert _onset_in_azimuth([dict(onset, azimuth_deg=90.0)], tr, 50.0, cfg) is None
    assert _onset_in_azimuth([late], tr, 50.0, cfg) is None
    # an elevation-only contradiction needs the flipped label within contradict_el_hyp_deg
    near_flip = dict(onset, azimuth_deg=50.0, elevation_deg=-25.0)
    assert _onset_contradiction([near_flip], tr, 50.0, 30.0, cfg)[1] == "elevation_sign"
    pulled = dict(onset, azimuth_deg=50.0, elevation_deg=-15.0)   # 15 deg from the flip
    assert _onset_contradiction([pulled], tr, 50.0, 30.0, cfg) is None


def _clip_with(peak_az, events, n_blocks=80, src_az=-70.0, el=10.0):
    """A ClipEstimate whose map and DOA peaks hold one source (0.4 s windows)."""
    from foakit.audit.doamap import DoaMap
    from foakit.audit.estimates import ClipEstimate

    energy = np.zeros((n_blocks, 36, 18), np.float32)
    ia, ie = int((src_az + 180) // 10), int((el + 90) // 10)
    energy[20:60, ia, ie] = 1.0
    energy[:, 0, 0] += 1e-3
    dmap = DoaMap(0.1, 10.0, 10.0, energy, energy.reshape(n_blocks, -1).sum(axis=1))
    peaks = np.zeros((n_blocks // 4, 2, 4), np.float32)
    peaks[5:15, 0] = [*unit(peak_az, el), 1.0]
    doa = DoaEstimate("ambix", 0.4, peaks, events, dmap)
    t = np.arange(0, n_blocks * 0.1, 0.02)
    return ClipEstimate("c", "c.wav", doa=doa, frames={"time_s": t,
                                                       "diffuseness": np.full(len(t), 0.5)})


def test_an_onset_contradiction_needs_the_matched_peaks_to_disagree_too():
    from foakit.bench.starss.audit import audit_tracks

    frames = np.arange(20, 60)
    tracks = {(1, 0): SourceTrack(1, 0, frames, np.full(40, 70.0), np.full(40, 10.0))}
    onset = {"onset_s": 2.05, "offset_s": 5.9, "azimuth_deg": -71.0, "elevation_deg": 9.0,
             "motion": "stationary"}
    (v,), _ = audit_tracks("c", tracks, _clip_with(-70.0, [onset]))
    assert v.verdict == "suspicious" and v.evidence.get("onset_event_hypothesis") == \
        "mirror_azimuth"
    # DOA peaks on the label (a DCASE true positive): the onset event alone does not blame it
    (v,), _ = audit_tracks("c", tracks, _clip_with(70.0, [onset]))
    assert "onset_event_hypothesis" not in v.evidence
    # the label as written, with its own onset event: vouched for
    right = {(1, 0): SourceTrack(1, 0, frames, np.full(40, -70.0), np.full(40, 10.0))}
    (v,), _ = audit_tracks("c", right, _clip_with(-70.0, [onset]))
    assert v.verdict == "consistent" and "event" in v.evidence


def test_the_maps_time_shift_needs_an_onset_from_the_label_where_the_sound_starts():
    """The map hears the labelled direction 2-6 s while the labels say 0-4 s: a shift of
    +2 s, blamed only when an onset from the label's direction marks 2 s (a sound unmasked
    when louder ones stop, or another source's floor reflection, has none)."""
    from foakit.bench.starss.audit import audit_tracks
    from foakit.bench.starss.audit_events import _onset_near

    tracks = {(1, 0): SourceTrack(1, 0, np.arange(0, 40), np.full(40, -70.0),
                                  np.full(40, 10.0))}
    clip = _clip_with(-70.0, [])
    (v,), _ = audit_tracks("c", tracks, clip)  # no onset array: the map alone decides
    assert v.field == "time" and v.verdict == "suspicious"
    assert v.estimate == pytest.approx([2.0, 6.0], abs=0.25)  # presence is smoothed
    here = np.array([[2.1, -68.0, 12.0, 1.0, 0.9, 0.0]])
    for onsets, flagged in ((here, True), (np.zeros((0, 6)), False),
                            (here + [0, 40.0, 0, 0, 0, 0], False),   # another azimuth
                            (here * [1, 1, -2, 1, 1, 1], False),     # 24 deg below
                            (here + [1.5, 0, 0, 0, 0, 0], False)):   # 3.6 s: too late
        clip.doa.onsets = onsets
        (v,), _ = audit_tracks("c", tracks, clip)
        assert (v.field == "time" and v.verdict == "suspicious") is flagged, onsets
    cfg = StarssAuditConfig()
    assert _onset_near(None, 2.0, -70.0, 10.0, cfg)
    assert _onset_near(here, 2.6, -70.0, 10.0, cfg) and not _onset_near(here, 2.7, -70.0,
                                                                          10.0, cfg)


def test_onsets_from_the_label_overrule_an_event_that_contradicts_it():
    """A reverberant event starting with the label from elsewhere blames the label unless
    the onsets' first milliseconds come from the label and none from the event."""
    from foakit.bench.starss.audit import audit_tracks

    frames = np.arange(20, 60)
    tracks = {(1, 0): SourceTrack(1, 0, frames, np.full(40, 70.0), np.full(40, 10.0))}
    onset = {"onset_s": 2.05, "offset_s": 5.9, "azimuth_deg": -71.0, "elevation_deg": 9.0,
             "motion": "stationary"}
    from_label = np.array([[2.06, 68.0, 12.0, 1.0, 0.9, 0.0]])
    from_event = np.array([[2.1, -70.0, 8.0, 1.0, 0.9, 0.0]])
    for onsets, blamed in ((None, True), (np.zeros((0, 6)), True), (from_label, False),
                           (np.vstack([from_label, from_event]), True), (from_event, True)):
        clip = _clip_with(-70.0, [onset])
        clip.doa.onsets = onsets
        (v,), _ = audit_tracks("c", tracks, clip)
        assert ("onset_event_hypothesis" in v.evidence) is blamed, onsets
        assert ("onset_event_overruled" in v.evidence) is (not blamed)


def test_onsets_from_the_label_or_no_matched_peak_keep_a_weak_map_from_blaming_it():
    """The map hears the source at -70 deg and nothing at the label's 70 deg: the labels fit
    better mirrored.  Two onsets from the label itself (a source masked in the map by louder
    sound) make that unverifiable, unless another label there explains them; so does a
    track no window's DOA peak was matched to (no peak disagrees with it)."""
    from foakit.bench.starss.audit import audit_tracks

    frames = np.arange(20, 60)
    tracks = {(1, 0): SourceTrack(1, 0, frames, np.full(40, 70.0), np.full(40, 10.0))}
    (v,), _ = audit_tracks("c", tracks, _clip_with(-70.0, []))
    assert v.verdict == "suspicious" and v.field == "azimuth"
    from_label = np.array([[2.06, 68.0, 12.0, 1.0, 0.9, 0.0], [3.5, 71.0, 9.0, 1.0, 0.9, 0.0]])
    clip = _clip_with(-70.0, [])
    clip.doa.onsets = from_label
    (v,), _ = audit_tracks("c", tracks, clip)
    assert v.verdict == "unverifiable" and "2 onset(s) come from the labelled" in v.reason
    assert v.evidence["onset_vote"]["side"] == "label"
    # a dry track: no reflections mask it, so the map's verdict stands
    clip.frames["diffuseness"] = np.full(len(clip.frames["time_s"]), 0.1)
    (v,), _ = audit_tracks("c", tracks, clip)
    assert v.verdict == "suspicious"
    clip.frames["diffuseness"] = np.full(len(clip.frames["time_s"]), 0.5)
    # one onset is not enough (onset_min_votes), nor are two another label there explains
    clip.doa.onsets = from_label[:1]
    (v,), _ = audit_tracks("c", tracks, clip)
    assert v.verdict == "suspicious"
    clip.doa.onsets = from_label
    other = SourceTrack(2, 0, frames, np.full(40, 75.0), np.full(40, 5.0))
    got = {v.key["class"]: v for v in audit_tracks("c", {**tracks, (2, 0): other}, clip)[0]}
    assert got[1].verdict == "suspicious"
    # no DOA peak in any of its windows: no peak disagrees with the label
    clip = _clip_with(-70.0, [])
    clip.doa.peaks[:] = 0.0
    (v,), _ = audit_tracks("c", tracks, clip)
    assert v.verdict == "unverifiable" and v.evidence["windows_matched"] == 0
    clip.frames["diffuseness"] = np.full(len(clip.frames["time_s"]), 0.1)
    (v,), _ = audit_tracks("c", tracks, clip)
    assert v.verdict == "suspicious"


def test_other_labels_cones_are_removed_but_never_the_labels_own():
    """The prominence removes cones of half-width 40 deg around the other sources labelled at
    the same time (their early reflections land 20-40 deg from them), but a cone that would reach
    into the label's own is narrowed: a source labelled 30 deg from another keeps its
    energy."""
    import dataclasses

    from foakit.audit.doamap import DoaMap
    from foakit.bench.starss.audit_tracks import _track_prominence

    cfg = StarssAuditConfig()
    frames = np.arange(5, 35)

    def prominence(cells, other_az, cfg):
        energy = np.zeros((40, 36, 18), np.float32)
        for az, w in cells:  # 10-deg cells, elevation 0-10 deg
            energy[:, int((az + 180) // 10), 9] = w
        dmap = DoaMap(0.1, 10.0, 10.0, energy, energy.reshape(40, -1).sum(axis=1))
        tr = SourceTrack(1, 0, frames, np.full(30, 5.0), np.full(30, 5.0))
        other = SourceTrack(2, 0, frames, np.full(30, other_az), np.full(30, 5.0))
        return _track_prominence(dmap, tr, cfg, tracks={(1, 0): tr, (2, 0): other})

    # a louder source 80 deg away and its reflection 30 deg beyond it: both removed
    far = [(5.0, 1.0), (85.0, 4.0), (115.0, 2.0)]
    assert prominence(far, 85.0, cfg) == pytest.approx(1.0)
    assert prominence(far, 85.0, dataclasses.replace(cfg, exclude_deg=20.0)) == \
        pytest.approx(0.5)  # a 20 deg cone leaves the reflection, twice the label's energy
    # a louder source 30 deg away: its cone stops short of the label's direction
    near = [(5.0, 1.0), (35.0, 4.0)]
    assert prominence(near, 35.0, cfg) == pytest.approx(1.0)
    unguarded = dataclasses.replace(cfg, exclude_near_deg=40.0)
    assert not prominence(near, 35.0, unguarded) > 0.5  # removed with the other: NaN or ~0
