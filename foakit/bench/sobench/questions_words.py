"""The words of the synthetic SO-Bench questions: task tables and each style's phrasings.

What every task is (:data:`TASK_QUESTION_CLASS`, :data:`TASK_ANSWER_FORMAT`,
:data:`GENERATED_TASKS`), the ``"house"`` style's preambles, templates and endings, how
sectors and motions are said, and the ``"varied"`` style's preambles, endings, sector and
label words.  :mod:`foakit.bench.sobench.questions_synth` builds the questions from them.
"""

from __future__ import annotations

TASK_QUESTION_CLASS = {
    "estimate_azimuth": "azimuth",
    "estimate_elevation": "elevation",
    "estimate_distance": "distance",
    "detect_time": "detect",
    "onset_from_location": "detect",
    "count_sources": "detect",
    "relative_left_right": "azimuth",
    "compare_elevation": "elevation",
    "compare_distance": "distance",
    "classify_motion": "motion",
    "detect_source": "detect",
    "identify_source_by_doa": "azimuth",
    "identify_source_by_location": "azimuth",
    "spatial_temporal": "reasoning",
    "multi_hop": "reasoning",
}
#: The SO-Bench tasks the generator writes questions for, in the order it writes them
#: (every task but ``speech_content``: the synthetic sources say no words).
GENERATED_TASKS: tuple[str, ...] = tuple(TASK_QUESTION_CLASS)
_NUM, _REL, _LAB, _ST = "numeric", "categorical", "label", "structured_text"
TASK_ANSWER_FORMAT = {
    "estimate_azimuth": _NUM, "estimate_elevation": _NUM, "estimate_distance": _NUM,
    "detect_time": _ST, "onset_from_location": _ST, "count_sources": _NUM,
    "relative_left_right": _REL, "compare_elevation": _REL, "compare_distance": _REL,
    "classify_motion": _REL, "detect_source": _LAB, "identify_source_by_doa": _LAB,
    "identify_source_by_location": _LAB, "spatial_temporal": _ST, "multi_hop": _LAB,
}
PREAMBLES = (
    "Listen to the audio clip and answer based only on what you hear.",
    "Listen carefully to this spatial audio recording.",
)
DETECT_TIME_CONTEXT = (
    "Based on the audio clip, state which sound sources are audible and when each one occurs."
)
TEMPLATES: dict[str, tuple[str, ...]] = {
    "estimate_azimuth": (
        "What is the azimuth of {ref}?",
        "From which azimuth angle does {ref} arrive?",
        "In which horizontal direction, as an azimuth angle, is {ref} located?",
    ),
    "estimate_elevation": (
        "What is the elevation of {ref}?",
        "At what elevation angle is {ref} located?",
        "How far above or below ear level is {ref}, as an elevation angle?",
    ),
    "estimate_distance": (
        "How far away is {ref}?",
        "What is the distance to {ref}?",
        "Estimate how far {ref} is from the listener.",
    ),
    "detect_time": (
        "During which time interval can {ref} be heard?",
        "When does {ref} start and stop?",
        "Between which times is {ref} audible?",
    ),
    "onset_from_location": (
        "When does {ref} begin?",
        "At what time does {ref} start?",
        "What is the onset time of {ref}?",
    ),
    "count_sources": (
        "How many distinct sound sources can be heard in the clip?",
        "How many different sounds occur in this recording?",
        "Count the sound sources you can hear.",
    ),
    "relative_left_right": (
        "Is {ref_a} to the left or to the right of {ref_b}?",
        "Relative to {ref_b}, is {ref_a} on the left or on the right?",
        "Compared with {ref_b}, does {ref_a} come from further left or further right?",
    ),
    "compare_elevation": (
        "Is {ref_a} higher or lower than {ref_b}?",
        "Compared with {ref_b}, is {ref_a} positioned higher or lower?",
        "Does {ref_a} come from higher or lower than {ref_b}?",
    ),
    "compare_distance": (
        "Is {ref_a} closer or farther than {ref_b}?",
        "Compared with {ref_b}, is {ref_a} closer to you or farther away?",
        "Relative to {ref_b}, is {ref_a} closer or farther from the listener?",
    ),
    "classify_motion": (
        "Is {ref} stationary or moving? If it moves, in which direction?",
        "Does {ref} stay in place, move to the left, or move to the right?",
        "How does the position of {ref} change over time?",
    ),
    "detect_source": (  # single-event clips
        "What sound can be heard in this clip?",
        "Which sound event occurs in the recording?",
        "What is making the sound in this clip?",
    ),
    "detect_source_window": (  # several events: a window where exactly one is active
        "What sound can be heard between {t0}s and {t1}s?",
        "Which sound event is audible from {t0}s to {t1}s?",
        "What sound is playing from {t0}s to {t1}s?",
    ),
    "identify_source_by_doa": (
        "Which sound comes from about {az} degrees azimuth?",
        "What sound arrives from an azimuth of about {az} degrees?",
        "What is the sound source located at about {az} degrees azimuth and {el} degrees "
        "elevation?",
    ),
    "identify_source_by_location": (
        "What sound is coming from {where}?",
        "Which sound do you hear from {where}?",
        "Identify the sound that comes from {where}.",
    ),
    "spatial_temporal": (
        "Where does {ref} come from, and during which time interval is it heard?",
        "Which sound comes from {where}, and when is it heard?",
        "What sound do you hear from {where}, and between which times?",
    ),
    "multi_hop": (
        "Which sound starts right after {ref} begins?",
        "Of {ref_a} and {ref_b}, which one is higher? Name the sound.",
        "Of {ref_a} and {ref_b}, which one is closer to you? Name the sound.",
    ),
}
_TIMES = "Answer in one natural sentence and report times in seconds."
_NAME = "Answer in one natural sentence and name the sound."
ENDINGS = {
    "estimate_azimuth": "Answer in one natural sentence and give the azimuth in degrees (0 is "
    "straight ahead and angles increase counter-clockwise, so 90 is to your left).",
    "estimate_elevation": "Answer in one natural sentence and give the elevation in degrees "
    "(positive is above ear level, negative below).",
    "estimate_distance": "Answer in one natural sentence and give the distance in meters (near "
    "is under 1.5 m, mid-range is 1.5 to 4.0 m, far is over 4.0 m).",
    "detect_time": _TIMES,
    "onset_from_location": "Answer in one natural sentence and report the time in seconds.",
    "count_sources": "Answer in one natural sentence and give the number.",
    "relative_left_right": "Answer in one natural sentence.",
    "compare_elevation": "Answer in one natural sentence.",
    "compare_distance": "Answer in one natural sentence.",
    "classify_motion": "Answer in one natural sentence and say whether it is stationary, "
    "moving left or moving right.",
    "detect_source": _NAME,
    "identify_source_by_doa": _NAME,
    "identify_source_by_location": _NAME,
    "spatial_temporal": _TIMES,
    "multi_hop": _NAME,
}
#: Sector centres (degrees azimuth) and names; each sector spans +-22.5 degrees.
SECTORS = (
    (0.0, "front"), (45.0, "front-left"), (90.0, "left"), (135.0, "back-left"),
    (-180.0, "back"), (-135.0, "back-right"), (-90.0, "right"), (-45.0, "front-right"),
)
#: How a sector is said after "coming from".
SECTOR_PHRASES = {
    "front": "the front", "front-left": "the front-left", "left": "your left",
    "back-left": "the back-left", "back": "behind", "back-right": "the back-right",
    "right": "your right", "front-right": "the front-right",
}
#: Source.motion -> SO-Bench motion answer (moving left = azimuth increasing).
MOTION_ANSWERS = {
    "stationary": "stationary", "right_to_left": "moving left", "left_to_right": "moving right",
}
VARIED_PREAMBLES = (
    "You will hear a first-order ambisonics (FOA) recording.",
    "The following question refers to a spatial audio clip.",
    "Imagine you are standing where the microphone was.",
    "Consider the spatial sound scene in this recording.",
)
_V_TIMES = "Please give the times in seconds."
_V_NAME = "Provide the name of the sound source."
_BRIEF = "Reply in a short sentence."
VARIED_ENDINGS = {
    "estimate_azimuth": "Give the angle in degrees (azimuth 0 = ahead, 90 = left, -90 = right).",
    "estimate_elevation": "Report the elevation in degrees, positive meaning up.",
    "estimate_distance": "State the distance in metres.",
    "detect_time": _V_TIMES,
    "onset_from_location": "Reply with the onset in seconds.",
    "count_sources": "Respond with a number.",
    "relative_left_right": _BRIEF,
    "compare_elevation": _BRIEF,
    "compare_distance": _BRIEF,
    "classify_motion": "State whether it is static, moving left or moving right.",
    "detect_source": _V_NAME,
    "identify_source_by_doa": _V_NAME,
    "identify_source_by_location": _V_NAME,
    "spatial_temporal": _V_TIMES,
    "multi_hop": _V_NAME,
}
#: Sector name -> ways to say "from there" (each reads back to the sector's centre).
SECTOR_WORDS = {
    "front": ("straight ahead", "in front of you"),
    "front-left": ("ahead and to the left", "at the front left"),
    "left": ("on your left", "to your left"),
    "back-left": ("behind you on the left", "at the rear left"),
    "back": ("directly behind you", "behind you"),
    "back-right": ("behind you on the right", "at the rear right"),
    "right": ("on your right", "to your right"),
    "front-right": ("ahead and to the right", "at the front right"),
}
#: Label -> (descriptive word, possessive phrase or "").
LABEL_WORDS = {
    "speech": ("ongoing", ""), "dog": ("barking", "the dog's barking"),
    "alarm": ("beeping", "the alarm's beeping"), "engine": ("idling", "the engine's hum"),
    "footsteps": ("shuffling", ""), "piano": ("tinkling", "the piano's melody"),
    "gong": ("struck", "the gong's ring"), "telephone": ("ringing", "the telephone's ring"),
    "knock": ("sharp", ""), "water": ("running", ""), "bird": ("chirping", "the bird's song"),
    "clapping": ("steady", ""), "music": ("background", ""),
}
