"""Two-stage, four-option questions about a synthetic scene, in varied phrasings.

Stage 1 asks which sounds are heard (the options are sound lists); stage 2 asks one of the
six RMS-AQA categories about the scene.  Every template kind has several phrasings and
several option styles (directions as sector words, clock positions or angles; times as
intervals or onsets; counts in digits or words), distractors are drawn so that the right
option is unambiguous (as RMS-AQA's reviewers require), and the answer letter is shuffled
over A-D.  Each item also carries its ``truth`` (the category, the source it is about and
the value the right option states) for tests and the audit's measurements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...conventions import azimuth_difference, wrap_azimuth
from ...synth.scene import Scene, Source
from .baselines import max_overlap
from .format import CATEGORIES, LETTERS

__all__ = ["DOMESTIC", "ACTIONS", "make_items", "stage1_pair", "stage2_pair"]

#: Household name of each foakit synthetic class.
DOMESTIC = {
    "speech": "a person talking", "dog": "a dog barking", "alarm": "a smoke alarm",
    "engine": "a vacuum cleaner", "footsteps": "footsteps", "piano": "a piano",
    "gong": "a doorbell", "telephone": "a phone ringing", "knock": "knocking on a door",
    "water": "running water", "bird": "a pet bird chirping", "clapping": "clapping",
    "music": "music playing",
}
#: The action each sound calls for, most urgent first (action prediction).
ACTIONS = {
    "alarm": "Check the kitchen for smoke and leave if there is a fire",
    "water": "Turn off the running tap before it overflows",
    "telephone": "Pick up the phone",
    "gong": "Go to the front door to greet the visitor",
    "knock": "Open the door to see who is knocking",
    "dog": "Check why the dog is barking",
    "engine": "Wait until the vacuuming stops before talking",
    "speech": "Turn towards the person who is speaking",
    "footsteps": "Make way for the person walking past",
    "bird": "Check the bird has food and water",
    "piano": "Lower the television volume so the piano can be heard",
    "music": "Turn the music down",
    "clapping": "Thank the audience",
}
_URGENCY = list(ACTIONS)
_WORDS = ("zero", "one", "two", "three", "four", "five", "six")
_STAGE1_Q = (
    "Which of the following sound events can be heard in the recording?",
    "Identify the sounds present in this clip.",
    "What sound events occur in this audio?",
    "Which set of sounds best describes what you hear?",
    "Listen to the scene. Which sources are active in it?",
)
_PREFIX = ("", "", "Given the sounds identified above, ", "Based on the events you recognised, ")
_SC_Q = (
    "How many distinct sound sources are present in the clip?",
    "Count the sound sources you hear. How many are there?",
    "How many different sounds are active during the recording?",
    "In total, how many separate sources emit sound in this scene?",
)
# the same number of phrasings as _SC_Q: one draw over both picks the kind and the phrasing
_SC_OVERLAP_Q = (
    "What is the maximum number of overlapping sounds?",
    "At most, how many sound sources are active at the same time?",
    "How many sounds can be heard at once at the busiest moment of the clip?",
    "What is the largest number of sources that play simultaneously?",
)
_SL_Q = (
    "Where is {x} relative to the listener?",
    "From which direction does {x} come?",
    "Relative to the microphone, where is {x} located?",
    "In which direction would you turn to face {x}?",
)
_TD_SPAN_Q = ("When is {x} audible?", "During which time interval does {x} occur?",
              "In which part of the clip can {x} be heard?")
_TD_ONSET_Q = ("When does {x} start?", "At what point in the clip does {x} begin?",
               "At roughly what time is {x} first heard?")
_SR_SIDE_Q = ("Relative to {y}, on which side is {x}?",
              "Is {x} to the left or to the right of {y}, as the listener hears it?")
_SR_NEAR_Q = ("Which sound source is closest to the listener?",
              "Which of these sounds comes from the nearest position?")
_TR_FIRST_Q = ("Which sound starts first?", "Which event is heard earliest in the clip?",
               "Which of these sounds begins before the others?")
_TR_ORDER_Q = ("Does {x} begin before or after {y}?",
               "Relative to {y}, when does {x} start?")
_AP_Q = ("Based on what you hear, what should a home assistant robot do first?",
         "Which action is the most appropriate response to this scene?",
         "What is the most sensible thing to do after hearing this?")
_SECTORS = ((0, ("in front of the listener", "straight ahead", "to the front")),
            (45, ("to the front left", "front-left", "ahead and to the left")),
            (90, ("to the left", "on the left side", "directly left")),
            (135, ("behind and to the left", "to the back left", "rear-left")),
            (180, ("behind the listener", "directly behind", "at the back")),
            (-135, ("behind and to the right", "to the back right", "rear-right")),
            (-90, ("to the right", "on the right side", "directly right")),
            (-45, ("to the front right", "front-right", "ahead and to the right")))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _name(src: Source) -> str:
    return DOMESTIC.get(src.label, src.label)


def _sound_list(labels: list[str], style: int) -> str:
    names = [DOMESTIC.get(x, x) for x in labels]
    if len(names) == 1:
        return _cap(("only " if style == 1 else "") + names[0])
    if style == 2:
        return _cap("; ".join(names))
    return _cap(", ".join(names[:-1]) + " and " + names[-1])


def _shuffle(rng: np.random.Generator, right: Any, wrong: list, render, *,
             order: np.ndarray | None = None) -> tuple[dict, str, list]:
    """Options A-D with the right one at a random letter (``order``, a permutation of 4,
    when drawn already); also the values in letter order."""
    vals = [right, *wrong[:3]]
    order = rng.permutation(4) if order is None else order
    values = [vals[i] for i in order]
    letter = LETTERS[int(np.flatnonzero(order == 0)[0])]
    return {LETTERS[i]: render(v) for i, v in enumerate(values)}, letter, values


def stage1_pair(scene: Scene, rng: np.random.Generator, labels: list[str]) -> dict:
    """The stage-1 pair: which sounds are heard (distractors add, drop or swap a sound)."""
    have = [s.label for s in sorted(scene.sources, key=lambda s: s.onset_s)]
    others = [x for x in labels if x not in have]
    cands: list[tuple[str, ...]] = []
    for _ in range(40):
        kind = rng.integers(0, 3)
        c = list(have)
        if kind == 0 and others:
            c.insert(int(rng.integers(0, len(c) + 1)), others[int(rng.integers(len(others)))])
        elif kind == 1 and len(c) > 1:
            c.pop(int(rng.integers(len(c))))
        elif others:
            c[int(rng.integers(len(c)))] = others[int(rng.integers(len(others)))]
        if sorted(c) != sorted(have) and len(set(c)) == len(c) and \
                all(sorted(c) != sorted(x) for x in cands):
            cands.append(tuple(c))
        if len(cands) == 3:
            break
    style = int(rng.integers(0, 3))
    options, answer, values = _shuffle(rng, tuple(have), cands,
                                       lambda v: _sound_list(list(v), style))
    return {"stage": 1, "question": _STAGE1_Q[int(rng.integers(len(_STAGE1_Q)))],
            "options": options, "answer": answer,
            "truth": {"labels": have, "option_counts": [len(v) for v in values]}}


def _direction_options(rng, az: float, style: int) -> tuple[list, callable]:
    """Right and wrong direction claims (azimuths) and how to write one."""
    if style == 0:  # eight sectors
        grid = [a for a, _ in _SECTORS]
        right = min(grid, key=lambda g: abs(azimuth_difference(az, g)))
        words = {a: w for a, w in _SECTORS}
        pick = int(rng.integers(3))

        def render(a):
            return _cap(words[a][pick])
        min_sep = 55.0  # the neighbouring sector only when az is >= 10 deg from it
    elif style == 1:  # clock positions, 12 = front, 3 = right
        grid = [wrap_azimuth(-30.0 * h) for h in range(12)]
        right = min(grid, key=lambda g: abs(azimuth_difference(az, g)))

        def render(a):
            h = int(round(-a / 30.0)) % 12 or 12
            return f"At about {h} o'clock"
        min_sep = 50.0
    else:  # angles, 15-degree steps, left or right of the front
        grid = [float(wrap_azimuth(15.0 * k)) for k in range(24)]
        right = min(grid, key=lambda g: abs(azimuth_difference(az, g)))

        def render(a):
            a = float(wrap_azimuth(a))
            if abs(a) < 1e-6:
                return "Straight ahead, at 0 degrees"
            if abs(abs(a) - 180) < 1e-6:
                return "Directly behind, at 180 degrees"
            return f"About {abs(a):.0f} degrees to the {'left' if a > 0 else 'right'}"
        min_sep = 45.0
    far = [g for g in grid if abs(azimuth_difference(g, az)) >= min_sep]
    wrong = [far[i] for i in rng.permutation(len(far))[:3]]
    return [right, *wrong], render


def _interval_text(style: int):
    def render(v):
        a, b = v
        return (f"From {a:.1f} s to {b:.1f} s", f"Between {a:.1f} and {b:.1f} seconds",
                f"{a:.1f}-{b:.1f} s")[style]
    return render


def stage2_pair(scene: Scene, rng: np.random.Generator, category: int, labels: list[str],
                *, mirror: bool = False) -> dict | None:
    """The stage-2 pair of a category (None when the scene cannot carry it).

    ``mirror`` writes localization answers with the azimuth mirrored (a corpus whose
    labels took the wrong azimuth sign), for the convention audit's tests.
    """
    srcs = sorted(scene.sources, key=lambda s: s.onset_s)
    n = len(srcs)
    prefix = _PREFIX[int(rng.integers(len(_PREFIX)))]
    truth: dict[str, Any] = {"category_id": category}
    if category == 1:
        # every draw is taken before the count is known, in the order the distinct-only
        # corpus took them, so that its distinct pairs and all later draws stay as they were
        shift = int(rng.integers(0, 3))
        style = int(rng.integers(0, 3))
        wrong_order = rng.permutation(3)
        order = rng.permutation(4)
        pick = int(rng.integers(2 * len(_SC_Q)))  # even: distinct, odd: overlap
        kind = ("distinct", "overlap")[pick % 2]
        q = (_SC_Q, _SC_OVERLAP_Q)[pick % 2][pick // 2]
        m = n if kind == "distinct" else max_overlap([(s.onset_s, s.offset_s)] for s in srcs)
        lo = max(1, min(m - shift, 6 - 3))
        wrong = [c for c in range(lo, lo + 4) if c != m]
        forms = (lambda c: f"{c} distinct sound" + ("" if c == 1 else "s")) \
            if kind == "distinct" else \
            (lambda c: "1 sound at a time" if c == 1 else f"{c} simultaneous sounds")
        opts, ans, _ = _shuffle(rng, m, [wrong[i] for i in wrong_order], lambda c: (
            str(c), _cap(_WORDS[c]) + (" source" if c == 1 else " sources"),
            forms(c))[style], order=order)
        truth.update(count=m, count_kind=kind)
    elif category == 2:
        still = [i for i, s in enumerate(srcs) if not s.is_moving]
        i = int(rng.choice(still)) if still else int(rng.integers(n))
        az = srcs[i].mid_azimuth_deg
        az_claim = float(wrap_azimuth(-az)) if mirror else az
        vals, render = _direction_options(rng, az_claim, int(rng.integers(0, 3)))
        opts, ans, _ = _shuffle(rng, vals[0], vals[1:], render)
        q = _SL_Q[int(rng.integers(len(_SL_Q)))].format(x=_name(srcs[i]))
        truth.update(source=i, azimuth_deg=round(az, 1), option_azimuth_deg=vals[0],
                     mirrored=mirror)
    elif category == 3:
        i = int(rng.integers(n))
        s = srcs[i]
        if rng.random() < 0.6:
            span = (s.onset_s, s.offset_s)
            wrong = []
            for _ in range(200):
                ln = float(rng.uniform(1.0, 5.0))
                a = round(float(rng.uniform(0.0, scene.duration_s - ln)), 1)
                w = (a, round(a + ln, 1))
                inter = max(0.0, min(w[1], span[1]) - max(w[0], span[0]))
                union = max(w[1], span[1]) - min(w[0], span[0])
                if inter / union < 0.3 and all(abs(w[0] - x[0]) > 0.5 for x in wrong):
                    wrong.append(w)
                if len(wrong) == 3:
                    break
            opts, ans, _ = _shuffle(rng, span, wrong, _interval_text(int(rng.integers(0, 3))))
            q = _TD_SPAN_Q[int(rng.integers(len(_TD_SPAN_Q)))].format(x=_name(s))
            truth.update(source=i, span=list(span))
        else:
            grid = [round(x, 1) for x in np.arange(0.0, scene.duration_s - 0.9, 0.1)]
            far = [g for g in grid if abs(g - s.onset_s) >= 1.5]
            wrong = []
            for j in rng.permutation(len(far)):
                if all(abs(far[j] - w) >= 1.0 for w in wrong):
                    wrong.append(far[j])
                if len(wrong) == 3:
                    break
            style = int(rng.integers(0, 3))
            opts, ans, _ = _shuffle(rng, s.onset_s, wrong, lambda t: (
                f"At about {t:.1f} s", f"Around {t:.1f} seconds in",
                f"Starting near {t:.1f} s")[style])
            q = _TD_ONSET_Q[int(rng.integers(len(_TD_ONSET_Q)))].format(x=_name(s))
            truth.update(source=i, onset_s=s.onset_s)
    elif category == 4:
        if n < 2:
            return None
        if rng.random() < 0.5:
            i, j = (int(v) for v in rng.permutation(n)[:2])
            d = float(azimuth_difference(srcs[i].mid_azimuth_deg, srcs[j].mid_azimuth_deg))
            right = "left" if d > 0 else "right"
            words = {"left": f"To the left of {_name(srcs[j])}",
                     "right": f"To the right of {_name(srcs[j])}",
                     "above": f"Directly above {_name(srcs[j])}",
                     "same": f"In the same direction as {_name(srcs[j])}"}
            wrong = [w for w in ("left", "right", "above", "same") if w != right]
            opts, ans, _ = _shuffle(rng, right, wrong, lambda w: words[w])
            q = _SR_SIDE_Q[int(rng.integers(len(_SR_SIDE_Q)))].format(
                x=_name(srcs[i]), y=_name(srcs[j]))
            truth.update(source=i, reference=j, side=right)
        else:
            i = int(np.argmin([s.distance_m for s in srcs]))
            dists = sorted(s.distance_m for s in srcs)
            if len(dists) > 1 and dists[1] - dists[0] < 0.5:
                return None  # too close to call
            pool = [s.label for k, s in enumerate(srcs) if k != i]
            pool += [x for x in labels if x not in {s.label for s in srcs}]
            opts, ans, _ = _shuffle(rng, srcs[i].label, pool[:3],
                                    lambda x: _cap(DOMESTIC.get(x, x)))
            q = _SR_NEAR_Q[int(rng.integers(len(_SR_NEAR_Q)))]
            truth.update(source=i, closest=srcs[i].label)
    elif category == 5:
        if n < 2:
            return None
        if rng.random() < 0.5:
            pool = [s.label for s in srcs[1:]]
            pool += [x for x in labels if x not in {s.label for s in srcs}]
            opts, ans, _ = _shuffle(rng, srcs[0].label, pool[:3],
                                    lambda x: _cap(DOMESTIC.get(x, x)))
            q = _TR_FIRST_Q[int(rng.integers(len(_TR_FIRST_Q)))]
            truth.update(source=0, first=srcs[0].label)
        else:
            i, j = (int(v) for v in rng.permutation(n)[:2])
            right = "before" if srcs[i].onset_s < srcs[j].onset_s else "after"
            words = {"before": "Before it", "after": "After it",
                     "same": "At exactly the same moment", "never": "It is never heard"}
            wrong = [w for w in words if w != right]
            opts, ans, _ = _shuffle(rng, right, wrong, lambda w: words[w])
            q = _TR_ORDER_Q[int(rng.integers(len(_TR_ORDER_Q)))].format(
                x=_name(srcs[i]), y=_name(srcs[j]))
            truth.update(source=i, reference=j, order=right)
    else:
        urgent = min((s.label for s in srcs), key=_URGENCY.index)
        pool = [ACTIONS[x] for x in _URGENCY if x != urgent]
        wrong = [pool[k] for k in rng.permutation(len(pool))[:3]]
        opts, ans, _ = _shuffle(rng, ACTIONS[urgent], wrong, lambda a: a)
        q = _AP_Q[int(rng.integers(len(_AP_Q)))]
        truth.update(label=urgent)
    return {"stage": 2, "question": prefix + (q[0].lower() + q[1:] if prefix else q),
            "options": opts, "answer": ans, "category_id": category,
            "category_name": CATEGORIES[category], "truth": truth}


def make_items(scene: Scene, rng: np.random.Generator, categories: list[int],
               labels: list[str], *, mirror: bool = False) -> list[tuple[dict, dict]]:
    """Two-stage items for the wanted categories (those the scene cannot carry are
    skipped)."""
    out = []
    for cat in categories:
        s2 = stage2_pair(scene, rng, cat, labels, mirror=mirror)
        if s2 is not None:
            out.append((stage1_pair(scene, rng, labels), s2))
    return out
