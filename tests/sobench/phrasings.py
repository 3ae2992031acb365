"""A phrasing test set for SO-Bench questions: each task asked in several ways, as different
benchmark authors write (data only; tests/sobench/test_phrasings.py uses it).

Every phrasing is about the one scene of :data:`SCENE`, and within a task every phrasing
means the same sound (:data:`TARGET`), so an answerer that reads the question right gives
one answer to all of them.  ``cues`` lists what :func:`foakit.bench.questions.parse_question`
must read (fields not listed must stay empty); ``classes`` what
:func:`foakit.bench.questions.class_mentions` finds with :data:`VOCAB`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: 10 s scene: (label, azimuth, elevation, onset, offset, amplitude).  The telephone is the
#: loudest and longest, so it is also the sound an answerer takes when it cannot tell.
SCENE = (
    ("dog", 50.0, 0.0, 0.5, 3.0, 1.0),
    ("footsteps", -80.0, -20.0, 3.8, 4.6, 1.0),
    ("telephone", -140.0, 30.0, 5.8, 9.2, 2.0),
)
DURATION_S = 10.0
VOCAB = ["telephone", "footsteps", "speech", "dog", "gong", "car"]
#: The sound each task's phrasings ask about (relations: the first-named and second-named).
TARGET = {
    "estimate_azimuth": "telephone", "estimate_elevation": "telephone",
    "estimate_distance": "telephone", "detect_time": "telephone",
    "onset_from_location": "dog", "count_sources": None,
    "relative_left_right": ("dog", "footsteps"), "compare_elevation": ("dog", "telephone"),
    "compare_distance": ("dog", "telephone"), "classify_motion": "telephone",
    "detect_source": "telephone", "identify_source_by_doa": "telephone",
    "identify_source_by_location": "telephone", "spatial_temporal": "telephone",
    "multi_hop": "telephone", "speech_content": None,
}
#: The SO-Bench README's detect_time example, verbatim.
SEED_DETECT_TIME = (
    "Listen to the audio clip and answer based only on what you hear. During which time "
    "interval can the sound of the gong be heard? Based on the audio clip, state which sound "
    "sources are audible and when each one occurs. Answer in one natural sentence and report "
    "times in seconds.")
_CONV = "(0 degrees = straight ahead, 90 degrees = to your left, -90 degrees = to your right)"


@dataclass(frozen=True)
class Phrasing:
    question: str
    cues: dict = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    refs: tuple[dict, ...] = ()  # relation tasks: the cues of each referent, in order


def _p(question, classes=(), refs=(), **cues):
    return Phrasing(question, cues, tuple(classes), tuple(refs))


BACK_RIGHT = {"azimuth_deg": -135.0, "azimuth_kind": "word"}
PHRASINGS: dict[str, list[Phrasing]] = {
    "estimate_azimuth": [
        _p("Listen to the audio clip and answer based only on what you hear. What is the "
           "azimuth of the sound of the telephone? Answer in one natural sentence and give the "
           "azimuth in degrees (0 is straight ahead and angles increase counter-clockwise, so "
           "90 is to your left).", ["telephone"]),
        _p(f"You are wearing headphones with a spatial recording. From which direction {_CONV} "
           "does the ringing telephone arrive?", ["telephone"]),
        _p("Where is the telephone's ringing coming from? Give the azimuth in degrees.",
           ["telephone"]),
        _p("Estimate the azimuth of the sound that comes from behind you and to the right.",
           **BACK_RIGHT),
        _p("Spatial audio question. What is the direction of arrival, in degrees, of the "
           "last sound?", order=-1),
        _p("What azimuth does the loudest sound come from?", superlative="loudest"),
        _p("The sound at 5 o'clock: what is its azimuth?", azimuth_deg=-150.0,
           azimuth_kind="clock"),
    ],
    "estimate_elevation": [
        _p("Listen carefully to this spatial audio recording. What is the elevation of the "
           "sound of the telephone? Answer in one natural sentence and give the elevation in "
           "degrees (positive is above ear level, negative below).", ["telephone"]),
        _p("How high is the ringing telephone, as an elevation angle?", ["telephone"]),
        _p("At what elevation is the sound above you?", elevation_sign=1),
        _p("What is the elevation angle of the sound in the second half of the clip?",
           window_frac=(0.5, 1.0)),
        _p("Give the elevation of the sound coming from the back-right, in degrees.",
           **BACK_RIGHT),
        _p("Telephones ring in this clip. How far above or below ear level are they?",
           ["telephone"]),
    ],
    "estimate_distance": [
        _p("Listen to the audio clip and answer based only on what you hear. How far away is "
           "the sound of the telephone? Answer in one natural sentence and give the distance "
           "in meters (near is under 1.5 m, mid-range is 1.5 to 4.0 m, far is over 4.0 m).",
           ["telephone"]),
        _p("How far from the listener is the ringing telephone?", ["telephone"]),
        _p("Estimate the distance, in metres, to the telephone's ring.", ["telephone"]),
        _p("How far away is the sound from the back-right?", **BACK_RIGHT),
        _p("What is the distance to the sound at about -140 degrees azimuth?",
           azimuth_deg=-140.0, azimuth_kind="angle"),
        _p("How many meters away is the last sound?", order=-1),
    ],
    "detect_time": [
        _p(SEED_DETECT_TIME, ["gong"]),
        _p("When does the ringing telephone start and stop? Report times in seconds.",
           ["telephone"]),
        _p("Between which times are telephones audible?", ["telephone"]),
        _p("During which interval is the sound in the second half of the clip heard?",
           window_frac=(0.5, 1.0)),
        _p("When is the sound from behind you and to the right audible?", **BACK_RIGHT),
        _p("What are the start and end times of the loudest sound?", superlative="loudest"),
        _p("When does the sound in the last 3 seconds start and stop?", window_last_s=3.0),
    ],
    "onset_from_location": [
        _p("Listen to the audio clip and answer based only on what you hear. When does the "
           "sound coming from the front-left begin? Answer in one natural sentence and report "
           "the time in seconds.", azimuth_deg=45.0, azimuth_kind="word"),
        _p("A sound comes from the front-left (about 50 degrees azimuth). When does it start?",
           azimuth_deg=50.0, azimuth_kind="angle"),
        _p("At what time does the sound at 10 o'clock begin?", azimuth_deg=60.0,
           azimuth_kind="clock"),
        _p("Something is heard about 50 degrees to your left. What is its onset time?",
           azimuth_deg=50.0, azimuth_kind="angle"),
        _p("When does the sound at azimuth 50° start?", azimuth_deg=50.0, azimuth_kind="angle"),
        _p("When does the sound ahead and to the left begin?", azimuth_deg=45.0,
           azimuth_kind="word"),
        _p("When does the first sound start?", order=0),
    ],
    "count_sources": [
        _p("Listen to the audio clip and answer based only on what you hear. How many "
           "distinct sound sources can be heard in the clip? Answer in one natural sentence "
           "and give the number."),
        _p("How many different sounds occur in this recording?"),
        _p("Count the sound sources you can hear."),
        _p("How many sources are active between 0 and 10 s?", window=(0.0, 10.0)),
        _p("In this first-order ambisonics clip, how many separate sound events are there?"),
        _p("How many things make a sound over the whole recording?"),
        _p("In this 10-second clip, how many sound sources do you hear?"),
    ],
    "relative_left_right": [
        _p("Is the sound at 1 s to the left or to the right of the sound at 4.2 s?",
           refs=({"time_s": 1.0}, {"time_s": 4.2})),
        _p("Relative to the second sound, is the first sound on the left or on the right?",
           refs=({"order": 0}, {"order": 1})),
        _p("Compared with the sound below you, does the sound at 10 o'clock come from "
           "further left or further right?",
           refs=({"azimuth_deg": 60.0, "azimuth_kind": "clock"}, {"elevation_sign": -1})),
        _p("Is the first sound left or right of the sound between 3.8 and 4.6 s?",
           refs=({"order": 0}, {"window": (3.8, 4.6)})),
        _p("Is the sound from the front-left to the left or right of the one on your right?",
           refs=({"azimuth_deg": 45.0, "azimuth_kind": "word"},
                 {"azimuth_deg": -90.0, "azimuth_kind": "word"})),
        _p("Relative to the sound at 4.2 s, is the sound at 1 s on the left or the right?",
           refs=({"time_s": 1.0}, {"time_s": 4.2})),
    ],
    "compare_elevation": [
        _p("Is the sound at 1 s higher or lower than the sound at 7 s?",
           refs=({"time_s": 1.0}, {"time_s": 7.0})),
        _p("Is the first sound higher or lower than the last sound?",
           refs=({"order": 0}, {"order": -1})),
        _p("Compared with the sound from the back-right, is the sound from the front-left "
           "positioned higher or lower?",
           refs=({"azimuth_deg": 45.0, "azimuth_kind": "word"}, BACK_RIGHT)),
        _p("Does the sound at 10 o'clock come from higher or lower than the one at 5 "
           "o'clock?", refs=({"azimuth_deg": 60.0, "azimuth_kind": "clock"},
                             {"azimuth_deg": -150.0, "azimuth_kind": "clock"})),
        _p("Is the sound in the first third of the clip above or below the sound in the "
           "last third?", refs=({"window_frac": (0.0, 1 / 3)},
                                {"window_frac": (2 / 3, 1.0)})),
        _p("Relative to the loudest sound, is the first sound higher or lower?",
           refs=({"order": 0}, {"superlative": "loudest"})),
    ],
    "compare_distance": [
        _p("Is the sound at 1 s closer or farther than the sound at 7 s?",
           refs=({"time_s": 1.0}, {"time_s": 7.0})),
        _p("Is the first sound closer or farther than the last sound?",
           refs=({"order": 0}, {"order": -1})),
        _p("Compared with the sound from the back-right, is the sound from the front-left "
           "closer to you or farther away?",
           refs=({"azimuth_deg": 45.0, "azimuth_kind": "word"}, BACK_RIGHT)),
        _p("Is the sound at 10 o'clock nearer or further than the one at 5 o'clock?",
           refs=({"azimuth_deg": 60.0, "azimuth_kind": "clock"},
                 {"azimuth_deg": -150.0, "azimuth_kind": "clock"})),
        _p("Relative to the sound above you, is the first sound closer or farther from the "
           "listener?", refs=({"order": 0}, {"elevation_sign": 1})),
        _p("Is the sound in the first third of the clip closer or farther than the sound in "
           "the last third?", refs=({"window_frac": (0.0, 1 / 3)},
                                    {"window_frac": (2 / 3, 1.0)})),
    ],
    "classify_motion": [
        _p("Listen carefully to this spatial audio recording. Is the sound of the telephone "
           "stationary or moving? If it moves, in which direction? Answer in one natural "
           "sentence and say whether it is stationary, moving left or moving right.",
           ["telephone"]),
        _p("Does the ringing telephone stay in place, move to the left, or move to the right?",
           ["telephone"]),
        _p("How does the position of the sound from the back-right change over time?",
           **BACK_RIGHT),
        _p("Is the last sound moving?", order=-1),
        _p("Does the sound above you move, and if so which way?", elevation_sign=1),
        _p("Is the loudest sound static or does it travel across the scene?",
           superlative="loudest"),
    ],
    "detect_source": [
        _p("Listen to the audio clip and answer based only on what you hear. What sound can "
           "be heard between 6.0s and 9.0s? Answer in one natural sentence and name the "
           "sound.", window=(6.0, 9.0)),
        _p("Which sound event is audible from 6.0 s to 9.0 s?", window=(6.0, 9.0)),
        _p("What is making the sound in the second half of the clip?",
           window_frac=(0.5, 1.0)),
        _p("Name the sound heard after 6 seconds.", window=(6.0, float("inf"))),
        _p("What do you hear during the last 3 seconds?", window_last_s=3.0),
        _p("Identify the sound source active at 7.5 s.", time_s=7.5),
        _p("Which sound is heard after the 6-second mark?", window=(6.0, float("inf"))),
        _p("What sound plays from 7 s until the end?", window=(7.0, float("inf"))),
        _p("Name the sound heard between the 6- and 9-second marks.", window=(6.0, 9.0)),
        _p("What can you hear during the closing three seconds?", window_last_s=3.0),
    ],
    "identify_source_by_doa": [
        _p("Listen to the audio clip and answer based only on what you hear. Which sound "
           "comes from about -140 degrees azimuth? Answer in one natural sentence and name "
           "the sound.", azimuth_deg=-140.0, azimuth_kind="angle"),
        _p("What sound arrives from an azimuth of about -140 degrees?", azimuth_deg=-140.0,
           azimuth_kind="angle"),
        _p("What is the sound source located at about -140 degrees azimuth and 30 degrees "
           "elevation?", azimuth_deg=-140.0, azimuth_kind="angle", elevation_deg=30.0),
        _p("Which sound is about 140 degrees to your right?", azimuth_deg=-140.0,
           azimuth_kind="angle"),
        _p("What do you hear at 140° right, 30° up?", azimuth_deg=-140.0,
           azimuth_kind="angle", elevation_deg=30.0),
        _p("Name the source at azimuth -140°.", azimuth_deg=-140.0, azimuth_kind="angle"),
    ],
    "identify_source_by_location": [
        _p("Listen carefully to this spatial audio recording. What sound is coming from the "
           "back-right? Answer in one natural sentence and name the sound.", **BACK_RIGHT),
        _p("Which sound do you hear from behind you, on the right?", **BACK_RIGHT),
        _p("Identify the sound that comes from the rear right.", **BACK_RIGHT),
        _p("What is the sound at 5 o'clock?", azimuth_deg=-150.0, azimuth_kind="clock"),
        _p("Which sound source is above you?", elevation_sign=1),
        _p("What do you hear from the right rear, above ear level?", elevation_sign=1,
           **BACK_RIGHT),
    ],
    "spatial_temporal": [
        _p("Listen to the audio clip and answer based only on what you hear. Where does the "
           "sound of the telephone come from, and during which time interval is it heard? "
           "Answer in one natural sentence and report times in seconds.", ["telephone"]),
        _p("Which sound comes from the back-right, and when is it heard?", **BACK_RIGHT),
        _p("What sound do you hear from the back-right, and between which times?",
           **BACK_RIGHT),
        _p("Where is the ringing telephone, and when does it ring?", ["telephone"]),
        _p("What do you hear at 5 o'clock, and when?", azimuth_deg=-150.0,
           azimuth_kind="clock"),
        _p("Where is the loudest sound and when is it heard?", superlative="loudest"),
    ],
    "multi_hop": [
        _p("Listen to the audio clip and answer based only on what you hear. Which sound "
           "starts right after the sound coming from your right begins? Answer in one natural "
           "sentence and name the sound.", relation="after",
           anchor={"azimuth_deg": -90.0, "azimuth_kind": "word"}),
        _p("Which sound starts after the footsteps?", ["footsteps"], relation="after",
           anchor={}),
        _p("What is the sound that follows the second sound?", relation="after",
           anchor={"order": 1}),
        _p("Of the sound coming from the front-left and the sound coming from the back-right, "
           "which one is higher? Name the sound.", azimuth_deg=45.0, azimuth_kind="word"),
        _p("Which sound begins just after the sound at 4.2 s?", relation="after",
           anchor={"time_s": 4.2}),
        _p("Name the sound that comes after the dog's barking and the footsteps.",
           ["dog", "footsteps"], relation="after", anchor={}),
    ],
    "speech_content": [
        _p("Listen to the audio clip and answer based only on what you hear. What does the "
           "speaker say? Answer with the exact words."),
        _p("Transcribe the speech in this recording.", ["speech"]),
        _p("What words does the woman speaking from the front-left say?",
           azimuth_deg=45.0, azimuth_kind="word"),
        _p("What is said at 2 o'clock?", azimuth_deg=-60.0, azimuth_kind="clock"),
        _p("What does the voice in the first half of the clip say?", window_frac=(0.0, 0.5)),
        _p("Write down what the second speaker says.", order=1),
    ],
}

#: Phrases the parser must report as unread (and read nothing else from).
#: Parts of the clip said in words: read (issue 27 asks for them), as fractions of the clip.
READ_PARTS = [
    ("the sound early in the clip", (0.0, 1 / 3)),
    ("the sound near the end of the recording", (0.8, 1.0)),
]
UNREAD = [
    ("the sound from the northeast", ["northeast"]),
    ("the sound 300 ms after the start", ["300 ms", "after the start"]),
    ("the sound about 2 m away", ["2 m"]),
    ("the sound thirty degrees to the left", ["thirty degrees to the left"]),
    ("the sound on the port side", ["port side"]),
    ("the sound at 13 o'clock", ["13 o'clock"]),
    ("the sound at 45", ["45"]),
]
