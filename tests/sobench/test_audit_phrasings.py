"""SO-Bench audit: the same scene asked in seven ways gets the same verdicts.

One two-source plane-wave scene (a dog at 60 deg azimuth / 20 deg elevation, 0.5-2.0 s; a
gong at -90 / -10 deg, 2.0-3.5 s).  Every label is asked about in seven phrasings (class
names with and without article, plural, possessive, a descriptive word, or only the
direction), once with its true value and once corrupted; the verdict may not depend on the
phrasing.
"""

import pytest
import soundfile as sf

from foakit.audit.estimates import estimate_clip
from foakit.bench.sobench.audit import audit_clip, class_vocabulary, clip_claims

from ..scenes import plane_wave_scene
from .items import audit_item

# how each phrasing names the dog, and the clip's context items that say where it is
DOG_REFS = (
    "the sound of the dog",
    "the dog",
    "the barking dog",
    "the dog's barking",
    "the barking of the dogs",
    "the sound at about 60 degrees azimuth",
    "the sound at 10 o'clock",
)
QUESTIONS = {
    "estimate_azimuth": ("What is the azimuth of {ref}?", {"azimuth_deg": 60.0},
                         {"azimuth_deg": -120.0}),
    "estimate_elevation": ("How high above or below ear level is {ref}, in degrees?",
                           {"elevation_deg": 20.0}, {"elevation_deg": -20.0}),
    "detect_time": ("During which time interval can {ref} be heard?",
                    {"time_span": [0.5, 2.0]}, {"time_span": [2.3, 3.8]}),
    "onset_from_location": ("When does {ref} start?", {"onset_time": 0.5},
                            {"onset_time": 2.4}),
}
# phrasings that give only a direction ask about azimuth labels by another cue
AZIMUTH_ONLY_REFS = DOG_REFS[:5] + ("the first sound", "the sound that starts first")
CONTEXT = [
    audit_item("ctx1", "identify_source_by_doa",
               "Which sound comes from about 60 degrees azimuth?", "The dog.", "dog"),
    audit_item("ctx2", "identify_source_by_doa",
               "Which sound comes from about -90 degrees azimuth?", "The gong.", "gong"),
]


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    x = plane_wave_scene([(60, 20, 0.5, 2.0), (-90, -10, 2.0, 3.5)], duration=4.0, snr_db=25)
    p = tmp_path_factory.mktemp("phr") / "a.wav"
    sf.write(p, x.T, 16000, subtype="PCM_16")
    return estimate_clip("a", p)


def _verdict(clip, task, ref, meta):
    q = QUESTIONS[task][0].format(ref=ref)
    it = audit_item("q", task, f"Listen to the recording. {q}", "See the label.", "", meta)
    items = [*CONTEXT, it]
    cc = clip_claims("a", items, class_vocabulary(items))
    verdicts, _ = audit_clip(cc, clip)
    return next(v for v in verdicts if v.key["qa_id"] == "q")


@pytest.mark.parametrize("task", sorted(QUESTIONS))
@pytest.mark.parametrize("corrupted", [False, True])
def test_verdicts_hold_across_phrasings(clip, task, corrupted):
    meta = QUESTIONS[task][2 if corrupted else 1]
    refs = AZIMUTH_ONLY_REFS if task == "estimate_azimuth" else DOG_REFS
    verdicts = {ref: _verdict(clip, task, ref, meta).verdict for ref in refs}
    expected = "suspicious" if corrupted else "consistent"
    # "the first sound" names no class: the azimuth label of an unnamed source is checked
    # only against the signal, which may leave it unverifiable; never the other verdict
    named = {r: v for r, v in verdicts.items() if r in DOG_REFS}
    assert set(named.values()) == {expected}, verdicts
    opposite = "consistent" if corrupted else "suspicious"
    assert opposite not in verdicts.values(), verdicts
