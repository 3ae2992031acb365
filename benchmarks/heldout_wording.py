"""A measurement-only wording family for SO-Bench-layout synthetic corpora.

:func:`rewrite_corpus` copies a corpus written by ``foakit.bench.sobench.synth`` and gives
every QA item a question and an answer in another voice, keeping its labels: ``qa_id``,
``audio_id``, ``audio_path``, ``task_name``, ``question_class``, ``answer_format``,
``canonical_answer``, ``answer_meta`` and ``source_refs`` are copied unchanged.  The wording
was written from the SO-Bench record format and README alone, without foakit's question
templates or its question parser, so a figure measured on it says how the tools do on wording
nobody tuned on.  It is for measurement only: never tune a threshold or a parser on it.

References to a source are phrased from the TRUTH of the sources the item is about
(``source_refs`` into ``truth/scenes.jsonl``): a location-only reference (sector words, clock
face, degrees to a side, signed azimuth, above/below), a class with descriptive words or
plurals, an order word, a start time, a motion or a distance rank, each used only when no
other source of the clip fits it.  Values in the answers come from the input's labels
(``answer_meta``, ``canonical_answer``), so labels an injector corrupted stay corrupted: the
answer text says what the label says.

Layouts of the copy (``audio``): ``"symlink"`` (``audio`` is a relative symlink to the source
corpus's ``audio`` folder), ``"hardlink"`` (audio files hard-linked, copied where links fail)
or ``"hf"`` (a Hugging Face-cache-like tree: ``dst/snapshots/<rev>/`` whose files are
symlinks into ``dst/blobs/<sha256>``; the snapshot folder is the corpus root).

    python benchmarks/heldout_wording.py SRC DST [--seed 0] [--audio symlink|hardlink|hf]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

AUDIO_MODES = ("symlink", "hardlink", "hf")

# Class words: (noun phrase without article, "s" countable singular / "p" plural / "m" mass)
CLASS_WORDS: dict[str, list[tuple[str, str]]] = {
    "speech": [("person speaking", "s"), ("voice", "s"), ("talking", "m"), ("speech", "m")],
    "dog": [("barking dog", "s"), ("dog", "s"), ("dog's barking", "m"), ("dog barks", "p")],
    "alarm": [("alarm", "s"), ("beeping alarm", "s"), ("alarm signal", "s")],
    "engine": [("engine", "s"), ("running engine", "s"), ("motor hum", "m"),
               ("engine noise", "m")],
    "footsteps": [("footsteps", "p"), ("steps", "p"), ("person walking", "s")],
    "piano": [("piano", "s"), ("piano notes", "p"), ("piano playing", "m")],
    "gong": [("gong", "s"), ("struck gong", "s"), ("gong strikes", "p")],
    "telephone": [("ringing telephone", "s"), ("phone", "s"), ("telephone ringing", "m"),
                  ("ringtone", "s")],
    "knock": [("knocking", "m"), ("knocks", "p"), ("knock on a door", "s")],
    "water": [("running water", "m"), ("water", "m"), ("splashing water", "m")],
    "bird": [("bird", "s"), ("birdsong", "m"), ("chirping bird", "s"), ("bird chirps", "p")],
    "clapping": [("clapping", "m"), ("hand claps", "p"), ("applause", "m")],
    "music": [("music", "m"), ("melody", "s"), ("piece of music", "s")],
}

# Sector words as a noun phrase ("coming from ___") and as a place phrase ("the sound ___")
SECTOR_WORDS = {
    "front": ["straight ahead", "the front", "directly in front"],
    "front-left": ["ahead to the left", "the front-left", "the left front"],
    "left": ["your left", "the left-hand side", "your left side"],
    "back-left": ["behind you on the left", "the back-left", "the rear left"],
    "back": ["directly behind you", "the rear", "behind you"],
    "back-right": ["behind you on the right", "the back-right", "the rear right"],
    "right": ["your right", "the right-hand side", "your right side"],
    "front-right": ["ahead to the right", "the front-right", "the right front"],
}
SECTOR_PLACES = {
    "front": ["straight ahead", "in front of you", "dead ahead"],
    "front-left": ["ahead on your left", "in front and to the left", "to the front-left"],
    "left": ["on your left", "to your left", "off to the left"],
    "back-left": ["behind you on the left", "to the back-left", "at your left rear"],
    "back": ["directly behind you", "behind you", "at your back"],
    "back-right": ["behind you on the right", "to the back-right", "at your right rear"],
    "right": ["on your right", "to your right", "off to the right"],
    "front-right": ["ahead on your right", "in front and to the right", "to the front-right"],
}
SECTORS = ("front", "front-left", "left", "back-left", "back", "back-right", "right",
           "front-right")

PREAMBLES = [
    "", "", "Listen to this four-channel ambisonic recording.", "Spatial audio question:",
    "You are wearing a first-order ambisonic microphone at the centre of a room.",
    "Here is a short FOA clip.", "Consider the scene you hear.", "Audio task.",
]
AZ_NOTES = ["", "", "(0 degrees is straight ahead and positive angles turn to the left.)",
            "Use azimuth in degrees, counter-clockwise from the front."]
SUFFIXES = ["", "", "Keep it short.", "One sentence is enough.", "Be precise."]


# --- small phrasing helpers -------------------------------------------------------------

def _pick(rng: np.random.Generator, options: Sequence[Any]) -> Any:
    return options[int(rng.integers(len(options)))]


def _num(x: float, rng: np.random.Generator) -> str:
    """``x`` (kept to 2 decimals) as "4", "4.0" or "4.25"."""
    v = round(float(x), 2)
    short = f"{v:.2f}".rstrip("0").rstrip(".")
    if "." not in short and rng.random() < 0.5:
        return f"{v:.1f}"
    return "0" if short in ("-0", "") else short


def _secs(x: float, rng: np.random.Generator) -> str:
    return _num(x, rng) + _pick(rng, [" s", "s", " seconds", " sec"])


def _span(a: float, b: float, rng: np.random.Generator) -> str:
    na, nb = _num(a, rng), _num(b, rng)
    return _pick(rng, [f"from {na} s to {nb} s", f"between {na} and {nb} seconds",
                       f"{na}-{nb} s", f"starting at {na} s and ending at {nb} s",
                       f"from about {na} until {nb} seconds"])


def sector(az: float) -> str:
    """One of :data:`SECTORS` for azimuth ``az`` (degrees, counter-clockwise, 0 = front)."""
    return SECTORS[int(math.floor(((az + 22.5) % 360.0) / 45.0)) % 8]


def clock(az: float) -> int:
    """Clock-face hour of ``az`` (12 = front, 3 = right, 9 = left)."""
    h = int(round((-az % 360.0) / 30.0)) % 12
    return 12 if h == 0 else h


def _wrap(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def _azimuths(s: dict) -> list[float]:
    """Azimuths a source occupies (5 points along a moving source's path)."""
    a0, a1 = float(s["azimuth_deg"]), s.get("azimuth_end_deg")
    if a1 is None:
        return [a0]
    d = _wrap(float(a1) - a0)
    return [_wrap(a0 + d * f) for f in (0.0, 0.25, 0.5, 0.75, 1.0)]


def _angle(s: dict, o: dict) -> float:
    """Smallest angle (degrees) between source ``s`` and any direction ``o`` occupies."""
    def vec(az, el):
        a, e = math.radians(az), math.radians(el)
        return np.array([math.cos(a) * math.cos(e), math.sin(a) * math.cos(e), math.sin(e)])

    v = vec(float(s["azimuth_deg"]), float(s["elevation_deg"]))
    return min(math.degrees(math.acos(float(np.clip(v @ vec(a, float(o["elevation_deg"])),
                                                    -1.0, 1.0))))
               for a in _azimuths(o))


def _moving(s: dict) -> bool:
    return str(s.get("motion", "stationary")) != "stationary"


class Ref:
    """A phrase that picks out one source: ``text`` with the article, ``plural`` for verbs."""

    def __init__(self, text: str, plural: bool = False, kind: str = "") -> None:
        self.text, self.plural, self.kind = text, plural, kind

    def v(self, singular: str, plural: str) -> str:
        return plural if self.plural else singular


def _class_ref(src: dict, rng: np.random.Generator) -> Ref:
    np_, form = _pick(rng, CLASS_WORDS.get(str(src["label"]),
                                           [(str(src["label"]).replace("_", " "), "s")]))
    return Ref(f"the {np_}", form == "p", "class")


def class_answer(label: str, rng: np.random.Generator) -> str:
    """An indefinite mention of ``label`` for an answer ("a barking dog", "footsteps")."""
    np_, form = _pick(rng, CLASS_WORDS.get(label, [(label.replace("_", " "), "s")]))
    if form == "s":
        return ("an " if np_[0] in "aeiou" else "a ") + np_
    return np_


def _unique(i: int, sources: list[dict], fits: Callable[[dict, float], bool]) -> bool:
    """True when no other source fits ``fits`` at any azimuth it occupies."""
    return not any(fits(s, a) for j, s in enumerate(sources) if j != i for a in _azimuths(s))


def refs_for(i: int, sources: list[dict], rng: np.random.Generator,
             kinds: Sequence[str]) -> list[Ref]:
    """Every reference of ``kinds`` that picks out source ``i`` alone, phrased from truth.

    Kinds: ``class``, ``sector``, ``clock``, ``side``, ``signed`` (azimuth in degrees),
    ``updown`` (elevation words), ``order``, ``onset``, ``motion``, ``distance``.
    """
    s = sources[i]
    az, el = float(s["azimuth_deg"]), float(s["elevation_deg"])
    out: list[Ref] = []
    still = not _moving(s)
    if "class" in kinds and sum(x["label"] == s["label"] for x in sources) == 1:
        out.append(_class_ref(s, rng))
    if "sector" in kinds and still and _unique(i, sources, lambda o, a: sector(a) == sector(az)):
        where = _pick(rng, SECTOR_WORDS[sector(az)])
        place = _pick(rng, SECTOR_PLACES[sector(az)])
        out.append(Ref(_pick(rng, [f"the sound coming from {where}", f"the source {place}",
                                   f"whatever you hear {place}"]), kind="sector"))
    if "clock" in kinds and still and _unique(i, sources,
                                              lambda o, a: abs(_wrap(a - az)) < 30.0):
        out.append(Ref(_pick(rng, [f"the source at roughly {clock(az)} o'clock",
                                   f"the sound at about {clock(az)} o'clock"]), kind="clock"))
    if "side" in kinds and still and 10.0 <= abs(az) <= 150.0 and _unique(
            i, sources, lambda o, a: abs(_wrap(a - az)) < 25.0):
        side = "left" if az > 0 else "right"
        out.append(Ref(_pick(rng, [f"the sound {round(abs(az))} degrees to your {side}",
                                   f"the source about {round(abs(az))} degrees off to the "
                                   f"{side}"]), kind="side"))
    if "signed" in kinds and still and _unique(i, sources,
                                               lambda o, a: abs(_wrap(a - az)) < 25.0):
        where = _pick(rng, SECTOR_WORDS[sector(az)])
        out.append(Ref(_pick(rng, [
            f"the sound at an azimuth of about {round(az)} degrees",
            f"the source near {round(az)}° azimuth",
            f"the sound from {where} (about {round(az)} degrees azimuth)"]), kind="signed"))
    if "updown" in kinds and abs(el) >= 25.0:
        up = el > 0
        others = [float(o["elevation_deg"]) for j, o in enumerate(sources) if j != i]
        if all((e < el - 25.0) if up else (e > el + 25.0) for e in others):
            out.append(Ref(_pick(rng, ["the one above you", "the sound from above",
                                       "the elevated source"] if up else
                                 ["the one below you", "the sound from down low",
                                  "the source below ear level"]), kind="updown"))
    if "azel" in kinds and still and all(
            _angle(s, o) >= 10.0 for j, o in enumerate(sources) if j != i):
        out.append(Ref(f"the sound at azimuth {round(az)} degrees and elevation {round(el)} "
                       "degrees", kind="azel"))
    onsets = [float(x["onset_s"]) for x in sources]
    on = onsets[i]
    if "order" in kinds and len(sources) > 1 and all(
            abs(on - o) >= 0.3 for j, o in enumerate(onsets) if j != i):
        rank = sorted(onsets).index(on)
        word = "last" if rank == len(onsets) - 1 else ["first", "second", "third"][rank]
        out.append(Ref(_pick(rng, [f"the {word} sound to start", f"the sound that begins {word}",
                                   f"the {word} event"]), kind="order"))
    if "onset" in kinds and len(sources) > 1 and all(
            abs(on - o) >= 0.5 for j, o in enumerate(onsets) if j != i):
        out.append(Ref(f"the sound that starts around {_secs(on, rng)}", kind="onset"))
    if "motion" in kinds and _moving(s) and sum(
            str(x.get("motion")) == str(s["motion"]) for x in sources) == 1:
        way = ("from your right towards your left" if s["motion"] == "right_to_left"
               else "from your left towards your right")
        out.append(Ref(f"the sound that travels {way}", kind="motion"))
    dists = [float(x["distance_m"]) for x in sources]
    if "distance" in kinds and len(sources) > 1 and all(
            abs(dists[i] - d) >= 0.5 for j, d in enumerate(dists) if j != i):
        word = ("nearest" if dists[i] == min(dists) else "farthest"
                if dists[i] == max(dists) else "")
        if word:
            out.append(Ref(_pick(rng, [f"the {word} sound", f"the {word} source"]),
                           kind="distance"))
    return out


def choose_ref(i: int, sources: list[dict], rng: np.random.Generator,
               kinds: Sequence[str], fallback: Sequence[str] = ("class",)) -> Ref:
    """One reference of ``kinds`` to source ``i`` (``fallback`` kinds, then its class)."""
    if len(sources) == 1 and rng.random() < 0.5:
        return Ref(_pick(rng, ["the sound", "the only source", "the single sound in the clip"]),
                   kind="only")
    for ks in (kinds, fallback, ("azel",)):
        cands = refs_for(i, sources, rng, ks)
        if cands:
            return _pick(rng, cands)
    return _class_ref(sources[i], rng)


AZ_WORDS = ("sector", "clock", "side", "signed")
LOC = AZ_WORDS + ("updown",)


def _dir_words(az: float, rng: np.random.Generator) -> str:
    return _pick(rng, SECTOR_WORDS[sector(az)])


# --- one phrasing per task ------------------------------------------------------------

def _q_azimuth(row, src, i, rng):
    r = choose_ref(i, src, rng, ("class", "order", "onset", "updown", "distance"))
    a = float(row["answer_meta"].get("azimuth_deg", 0.0))
    q = _pick(rng, [f"What is the azimuth of {r.text}?",
                    f"From which horizontal angle {r.v('does', 'do')} {r.text} reach you?",
                    f"Give the direction of {r.text} in degrees.",
                    f"How far round from straight ahead {r.v('is', 'are')} {r.text}?"])
    side = "left" if a > 0 else "right"
    ans = _pick(rng, [f"About {round(a)} degrees.", f"Azimuth: {a:.1f}°.",
                      f"Roughly {round(a)}°, {_pick(rng, SECTOR_PLACES[sector(a)])}.",
                      f"{round(abs(a))} degrees to the {side} (azimuth {round(a)})."])
    return q, ans


def _q_elevation(row, src, i, rng):
    r = choose_ref(i, src, rng, ("class", "order", "onset") + AZ_WORDS + ("distance",))
    e = float(row["answer_meta"].get("elevation_deg", 0.0))
    q = _pick(rng, [f"At what elevation {r.v('is', 'are')} {r.text}?",
                    f"How high or low {r.v('is', 'are')} {r.text}, in degrees?",
                    f"Estimate the vertical angle of {r.text}.",
                    f"What angle above or below the horizon {r.v('does', 'do')} {r.text} "
                    "come from?"])
    where = "above" if e > 0 else "below"
    ans = _pick(rng, [f"About {round(e)} degrees.", f"Elevation {e:.1f}°.",
                      f"Roughly {round(abs(e))} degrees {where} the horizontal "
                      f"(elevation {round(e)}).", f"{round(e)} deg"])
    return q, ans


def _q_distance(row, src, i, rng):
    r = choose_ref(i, src, rng, ("class", "order", "onset") + LOC)
    d = float(row["answer_meta"].get("distance_m", 0.0))
    q = _pick(rng, [f"How far away {r.v('is', 'are')} {r.text}?",
                    f"Estimate the distance to {r.text} in metres.",
                    f"What is the range of {r.text} from the microphone?",
                    f"How many meters from you {r.v('is', 'are')} {r.text}?"])
    ans = _pick(rng, [f"About {d:.1f} m.", f"Roughly {d:.2f} metres away.",
                      f"{d:.1f} meters", f"The distance is close to {d:.1f} m."])
    return q, ans


def _q_detect_time(row, src, i, rng):
    r = choose_ref(i, src, rng, ("class",) + LOC + ("distance",))
    a, b = row["answer_meta"].get("time_span", [0.0, 0.0])
    q = _pick(rng, [f"When can you hear {r.text}?",
                    f"During which part of the clip {r.v('is', 'are')} {r.text} audible?",
                    f"Give the start and end time of {r.text}.",
                    f"Over what time range {r.v('does', 'do')} {r.text} play?"])
    ans = _pick(rng, [f"{_span(a, b, rng).capitalize()}.", f"It is audible {_span(a, b, rng)}.",
                      f"You hear it {_span(a, b, rng)}.", f"{_num(a, rng)} to {_num(b, rng)} s"])
    return q, ans


def _q_onset(row, src, i, rng):
    r = choose_ref(i, src, rng, LOC + ("motion",), fallback=("distance", "class"))
    t = float(row["answer_meta"].get("onset_time", 0.0))
    with_class = rng.random() < 0.25 and r.kind != "class"
    if with_class:
        label = str(src[i]["label"])
        bare, form = _pick(rng, CLASS_WORDS.get(label, [(label.replace("_", " "), "s")]))
        np_ = (("an " if bare[0] in "aeiou" else "a ") + bare) if form == "s" else bare
        many = form == "p"
        q = _pick(rng, [f"There {'are' if many else 'is'} {np_} coming from somewhere. "
                        f"{r.text[0].upper()}{r.text[1:]}: when does it start?",
                        f"When does {r.text} begin? ({'They are' if many else 'It is'} {np_}.)"])
        ans = _pick(rng, [f"The {bare} {'start' if many else 'starts'} at about "
                          f"{_secs(t, rng)}.", f"At {_secs(t, rng)}."])
        return q, ans
    if r.kind in AZ_WORDS and rng.random() < 0.5:
        az = float(src[i]["azimuth_deg"])
        q = _pick(rng, [f"A sound comes from {_dir_words(az, rng)} (about {round(az)} degrees "
                        "azimuth). When does it start?",
                        f"Something is heard at roughly {clock(az)} o'clock. At what time does "
                        "it first appear?"])
    else:
        q = _pick(rng, [f"When does {r.text} start?", f"At what moment {r.v('does', 'do')} "
                        f"{r.text} first become audible?", f"What is the onset time of {r.text}?",
                        f"How many seconds into the clip {r.v('does', 'do')} {r.text} begin?"])
    ans = _pick(rng, [f"It starts at about {_secs(t, rng)}.", f"Onset: {_secs(t, rng)}.",
                      f"At {_secs(t, rng)}.", f"Roughly {_num(t, rng)} seconds in."])
    return q, ans


NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six"]


def _q_count(row, src, refs, rng):
    n = int(row["answer_meta"].get("active_count", 0))
    q = _pick(rng, ["How many different sound sources can you hear?",
                    "Count the distinct sounds in this recording.",
                    "How many separate things are making sound in the clip?",
                    "Over the whole clip, how many sources are active?"])
    word = NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)
    ans = _pick(rng, [f"{n}.", f"There are {word} sources." if n != 1 else "Just one.",
                      f"I count {n}.", f"{word.capitalize()} distinct sounds."
                      if n != 1 else "One source."])
    return q, ans


def _pair(row, src, rng, kinds):
    a, b = (int(x) for x in row["source_refs"][:2])
    ra = choose_ref(a, src, rng, kinds)
    rb = choose_ref(b, src, rng, kinds)
    if ra.text == rb.text:  # two phrasings of one kind that read alike: fall back to class
        ra, rb = _class_ref(src[a], rng), _class_ref(src[b], rng)
    return ra, rb


def _q_left_right(row, src, refs, rng):
    ra, rb = _pair(row, src, rng, ("class", "order", "onset", "updown", "distance"))
    c = str(row["canonical_answer"]).strip().lower()
    q = _pick(rng, [f"{ra.v('Is', 'Are')} {ra.text} to the left or to the right of {rb.text}?",
                    f"Compared with {rb.text}, which side {ra.v('is', 'are')} {ra.text} on: "
                    "left or right?",
                    f"Relative to {rb.text}, {ra.v('does', 'do')} {ra.text} sit further left "
                    "or further right?",
                    f"Left or right: where {ra.v('is', 'are')} {ra.text} with respect to "
                    f"{rb.text}?"])
    ans = _pick(rng, [f"{c.capitalize()}.", f"To the {c} of it.",
                      f"{ra.text[0].upper()}{ra.text[1:]} {ra.v('is', 'are')} on the {c}.",
                      f"Further {c}."])
    return q, ans


def _q_compare_el(row, src, refs, rng):
    ra, rb = _pair(row, src, rng, ("class", "order", "onset") + AZ_WORDS + ("distance",))
    c = str(row["canonical_answer"]).strip().lower()
    other = {"higher": "above", "lower": "below"}.get(c, c)
    q = _pick(rng, [f"{ra.v('Is', 'Are')} {ra.text} higher or lower than {rb.text}?",
                    f"Which way {ra.v('is', 'are')} {ra.text} vertically from {rb.text}: above "
                    "or below?",
                    f"Compared with {rb.text}, {ra.v('is', 'are')} {ra.text} raised or lowered?",
                    f"{ra.v('Does', 'Do')} {ra.text} come from higher up than {rb.text}, or "
                    "lower down?"])
    ans = _pick(rng, [f"{c.capitalize()}.", f"{ra.v('It is', 'They are')} {other} it.",
                      f"{ra.text[0].upper()}{ra.text[1:]} {ra.v('is', 'are')} {c}.",
                      f"{c.capitalize()} than the other one."])
    return q, ans


def _q_compare_dist(row, src, refs, rng):
    ra, rb = _pair(row, src, rng, ("class", "order", "onset") + LOC)
    c = str(row["canonical_answer"]).strip().lower()
    alt = {"closer": "nearer", "farther": "further away"}.get(c, c)
    q = _pick(rng, [f"{ra.v('Is', 'Are')} {ra.text} closer or farther than {rb.text}?",
                    f"Which is nearer to you: {ra.text}, or {rb.text}? Say whether the first "
                    "is closer or farther.",
                    f"Compared with {rb.text}, {ra.v('is', 'are')} {ra.text} nearer or more "
                    "distant?",
                    f"Distance check: {ra.v('is', 'are')} {ra.text} closer to the microphone "
                    f"than {rb.text}, or farther?"])
    ans = _pick(rng, [f"{c.capitalize()}.", f"{ra.v('It is', 'They are')} {alt}.",
                      f"{c.capitalize()} away.",
                      f"{ra.text[0].upper()}{ra.text[1:]} {ra.v('is', 'are')} {c}."])
    return q, ans


def _q_motion(row, src, i, rng):
    r = choose_ref(i, src, rng, ("class", "order", "onset", "updown", "distance"))
    c = str(row["canonical_answer"]).strip().lower()
    q = _pick(rng, [f"{r.v('Does', 'Do')} {r.text} move? If so, in which direction?",
                    f"{r.v('Is', 'Are')} {r.text} stationary, or {r.v('does it', 'do they')} "
                    "travel left or right?",
                    f"Describe any movement of {r.text}.",
                    f"Which way, if any, {r.v('does', 'do')} {r.text} drift?"])
    if c == "stationary":
        ans = _pick(rng, ["It stays put.", "Stationary.", "It does not move.",
                          "No movement; it stays in one place."])
    else:
        way = "left" if "left" in c else "right"
        frm = "right" if way == "left" else "left"
        ans = _pick(rng, [f"It moves to the {way}.", f"It travels from {frm} to {way}.",
                          f"Moving {way}.", f"It drifts towards your {way}."])
    return q, ans


def _solo_windows(i: int, src: list[dict]) -> list[tuple[float, float]]:
    """Intervals where only source ``i`` sounds."""
    a, b = float(src[i]["onset_s"]), float(src[i]["offset_s"])
    cuts = [(a, b)]
    for j, s in enumerate(src):
        if j == i:
            continue
        o0, o1 = float(s["onset_s"]), float(s["offset_s"])
        nxt = []
        for x, y in cuts:
            if o1 <= x or o0 >= y:
                nxt.append((x, y))
                continue
            if o0 > x:
                nxt.append((x, o0))
            if o1 < y:
                nxt.append((o1, y))
        cuts = nxt
    return [(x, y) for x, y in cuts if y - x >= 0.4]


def _q_detect_source(row, src, i, rng):
    label = str(row["canonical_answer"]).strip()
    span = row["answer_meta"].get("time_span")
    if span is not None:
        q = _pick(rng, ["What sound is in this clip, and when does it play?",
                        "Name the sound you hear and say when it occurs.",
                        "Identify the event and its time span.",
                        "Which sound do you hear, and during what time?"])
        ans = _pick(rng, [f"{class_answer(label, rng).capitalize()}, {_span(*span, rng)}.",
                          f"I hear {class_answer(label, rng)} {_span(*span, rng)}."])
        return q, ans
    onsets = sorted(float(s["onset_s"]) for s in src)
    on = float(src[i]["onset_s"])
    opts = []
    wins = _solo_windows(i, src)
    if wins:
        x, y = max(wins, key=lambda w: w[1] - w[0])
        x, y = math.ceil((x + 0.05) * 10) / 10, math.floor((y - 0.05) * 10) / 10
        if y > x:
            opts.append(f"Which sound is the only one playing {_span(x, y, rng)}?")
            if x <= 0.5 and all(float(s["onset_s"]) >= y for j, s in enumerate(src) if j != i):
                opts.append(f"What do you hear in the first {_num(y, rng)} seconds?")
    if len(onsets) > 1 and on == onsets[0] and onsets[1] - on >= 0.3:
        opts.append(_pick(rng, ["Which sound starts first?", "What is the first thing heard?"]))
    if len(onsets) > 1 and on == onsets[-1] and on - onsets[-2] >= 0.3:
        opts.append(_pick(rng, ["Which sound begins last?", "What is the last sound to start?"]))
    if not opts:
        r = choose_ref(i, src, rng, LOC + ("motion", "distance"))
        opts.append(f"What is {r.text}?")
    q = _pick(rng, opts)
    ans = _pick(rng, [f"{class_answer(label, rng).capitalize()}.",
                      f"That is {class_answer(label, rng)}.", f"It's {class_answer(label, rng)}."])
    return q, ans


def _q_identify(kinds):
    def f(row, src, i, rng):
        label = str(row["canonical_answer"]).strip()
        r = choose_ref(i, src, rng, kinds, fallback=LOC)
        if r.kind == "only":
            q = _pick(rng, ["What do you hear?", "Which sound is in the recording?",
                            "Name the sound in this clip.", "What is making the sound?"])
        else:
            q = _pick(rng, [f"What is {r.text}?", f"Which sound is {r.text}?",
                            f"Identify {r.text}.", f"What kind of sound is {r.text}?"])
        ans = _pick(rng, [f"{class_answer(label, rng).capitalize()}.",
                          f"That is {class_answer(label, rng)}.",
                          f"It's {class_answer(label, rng)}.",
                          f"You are hearing {class_answer(label, rng)}."])
        return q, ans
    return f


def _q_spatial_temporal(row, src, i, rng):
    canon = str(row["canonical_answer"])
    parts = [p.strip() for p in canon.split(",")]
    label = parts[0]
    where = SECTOR_PLACES.get(parts[1], [parts[1]]) if len(parts) > 1 else ["somewhere"]
    span = row["answer_meta"].get("time_span", [0.0, 0.0])
    r = choose_ref(i, src, rng, ("order", "onset", "updown", "distance"),
                   fallback=LOC + ("class",))
    q = _pick(rng, [f"Take {r.text}: what is it, where is it, and when is it heard?",
                    f"For {r.text}, give its class, its direction and its time span.",
                    f"Describe {r.text}: the kind of sound, where it comes from and when.",
                    f"What, where and when is {r.text}?"])
    ans = _pick(rng, [
        f"{class_answer(label, rng).capitalize()} {_pick(rng, where)}, {_span(*span, rng)}.",
        f"It is {class_answer(label, rng)}, {_pick(rng, where)}, heard {_span(*span, rng)}."])
    return q, ans


def _relation(a: int, b: int, src: list[dict]) -> list[str]:
    """Relations of source ``b`` to source ``a`` that no third source shares."""
    def lat(s):
        return math.sin(math.radians(float(s["azimuth_deg"])))

    rel = {
        "further to the left than": lambda s: lat(s) > lat(src[a]) + 0.2,
        "further to the right than": lambda s: lat(s) < lat(src[a]) - 0.2,
        "higher than": lambda s: float(s["elevation_deg"]) > float(src[a]["elevation_deg"]) + 10,
        "lower than": lambda s: float(s["elevation_deg"]) < float(src[a]["elevation_deg"]) - 10,
        "closer than": lambda s: float(s["distance_m"]) < float(src[a]["distance_m"]) - 0.5,
        "farther than": lambda s: float(s["distance_m"]) > float(src[a]["distance_m"]) + 0.5,
        "starting after": lambda s: float(s["onset_s"]) > float(src[a]["onset_s"]) + 0.3,
        "starting before": lambda s: float(s["onset_s"]) < float(src[a]["onset_s"]) - 0.3,
    }
    others = [j for j in range(len(src)) if j not in (a, b)]
    return [k for k, fn in rel.items() if fn(src[b]) and not any(fn(src[j]) for j in others)]


def _q_multi_hop(row, src, refs, rng):
    a, b = (int(x) for x in row["source_refs"][:2])
    label = str(row["canonical_answer"]).strip()
    ra = choose_ref(a, src, rng, ("class", "order") + LOC, fallback=("onset", "distance"))
    rels = _relation(a, b, src) if len(src) > 2 else ["other than"]
    rel = _pick(rng, rels) if rels else "neither"
    if rel == "neither":
        c = next(j for j in range(len(src)) if j not in (a, b))
        rc = choose_ref(c, src, rng, ("class", "order") + LOC, fallback=("onset", "distance"))
        q = _pick(rng, [f"Leave out {ra.text} and {rc.text}. What is the remaining sound?",
                        f"Besides {ra.text} and {rc.text}, which sound is there?"])
    elif rel == "other than":
        q = _pick(rng, [f"Apart from {ra.text}, what else can you hear?",
                        f"Find {ra.text}. What is the other sound in the clip?"])
    else:
        q = _pick(rng, [f"First locate {ra.text}. Which sound is {rel} it?",
                        f"Step one: find {ra.text}. Step two: name the sound {rel} it.",
                        f"Which sound is {rel} {ra.text}?"])
    ans = _pick(rng, [f"{class_answer(label, rng).capitalize()}.", f"That would be "
                      f"{class_answer(label, rng)}.", f"It's {class_answer(label, rng)}."])
    return q, ans


def _q_other(row, src, refs, rng):
    """Tasks this family has no wording for: the question kept, with another preamble."""
    return str(row["question"]), str(row.get("answer", ""))


TASKS: dict[str, Any] = {
    "estimate_azimuth": _q_azimuth,
    "estimate_elevation": _q_elevation,
    "estimate_distance": _q_distance,
    "detect_time": _q_detect_time,
    "onset_from_location": _q_onset,
    "count_sources": _q_count,
    "relative_left_right": _q_left_right,
    "compare_elevation": _q_compare_el,
    "compare_distance": _q_compare_dist,
    "classify_motion": _q_motion,
    "detect_source": _q_detect_source,
    "identify_source_by_doa": _q_identify(("signed", "side", "clock")),
    "identify_source_by_location": _q_identify(("sector", "clock", "updown", "side")),
    "spatial_temporal": _q_spatial_temporal,
    "multi_hop": _q_multi_hop,
}
_WHOLE = {"count_sources", "relative_left_right", "compare_elevation", "compare_distance",
          "multi_hop"}


def item_rng(seed: int, qa_id: str, attempt: int = 0) -> np.random.Generator:
    """The generator of one item: the same for the same ``seed`` and ``qa_id``."""
    return np.random.default_rng([int(seed), zlib.crc32(qa_id.encode("utf-8")), attempt])


def rephrase(row: dict, sources: list[dict], *, seed: int) -> dict:
    """``row`` with a new ``question`` and ``answer``; every other key kept.

    Parameters
    ----------
    row : dict
        One SO-Bench QA record with ``source_refs``.
    sources : list of dict
        The clip's truth sources (``truth/scenes.jsonl`` ``sources``).
    seed : int
        Wording seed: the same seed gives the same question for the same ``qa_id``.
    """
    task = str(row["task_name"])
    fn = TASKS.get(task, _q_other)
    refs = [int(x) for x in row.get("source_refs") or []]
    for attempt in range(8):
        rng = item_rng(seed, str(row["qa_id"]), attempt)
        arg = refs if task in _WHOLE or fn is _q_other else (refs[0] if refs else 0)
        q, ans = fn(row, sources, arg, rng)
        pre, suf = _pick(rng, PREAMBLES), _pick(rng, SUFFIXES)
        if task in ("estimate_azimuth", "identify_source_by_doa"):
            suf = (_pick(rng, AZ_NOTES) + " " + suf).strip()
        text = " ".join(p for p in (pre, q, suf) if p)
        if text != row["question"]:
            break
    out = dict(row)
    out["question"], out["answer"] = text, ans
    return out


# --- corpus layouts ------------------------------------------------------------------

def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _hf_tree(staging: Path, dst: Path, rev: str) -> Path:
    """Move the files of ``staging`` into ``dst/blobs`` and link them from a snapshot."""
    snap = dst / "snapshots" / rev
    for dirpath, _, files in os.walk(staging):
        for f in files:
            p = Path(dirpath) / f
            rel = p.relative_to(staging)
            blob = dst / "blobs" / _sha256(p)
            blob.parent.mkdir(parents=True, exist_ok=True)
            if not blob.exists():
                os.replace(p, blob)
            link = snap / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))
    shutil.rmtree(staging)
    return snap


def rewrite_corpus(src_root: str | os.PathLike, dst_root: str | os.PathLike, *, seed: int,
                   audio: str = "symlink", refs: bool = True) -> Path:
    """Copy a synthetic SO-Bench-layout corpus with its questions and answers reworded.

    Parameters
    ----------
    src_root : str or PathLike
        A corpus of ``foakit.bench.sobench.synth.write_sobench_corpus`` (``qa/test.jsonl``
        with ``source_refs``, ``truth/scenes.jsonl``, ``audio/``), possibly with labels an
        injector changed.
    dst_root : str or PathLike
        The new folder (must not exist).
    seed : int
        Wording seed (a clean and an injected corpus reworded with one seed get the same
        questions).
    audio : {"symlink", "hardlink", "hf"}
        Layout of the copy (module docstring).
    refs : bool
        Keep each record's ``source_refs``; False writes the records without them, as
        SO-Bench files that do not carry the field are.

    Returns
    -------
    Path
        The corpus root to load: ``dst_root``, or for ``"hf"`` its snapshot folder.
    """
    if audio not in AUDIO_MODES:
        raise ValueError(f"audio={audio!r} must be one of {AUDIO_MODES}")
    src, dst = Path(src_root), Path(dst_root)
    if dst.exists() or dst.is_symlink():
        raise FileExistsError(f"{dst}: already exists")
    truth = {str(t["audio_id"]): t for t in _read_jsonl(src / "truth" / "scenes.jsonl")}
    rows = []
    for row in _read_jsonl(src / "qa" / "test.jsonl"):
        sources = truth.get(str(row.get("audio_id")), {}).get("sources", [])
        rows.append(rephrase(row, sources, seed=seed) if sources else dict(row))
        if not refs:
            rows[-1].pop("source_refs", None)
    root = dst / "staging" if audio == "hf" else dst
    _write_jsonl(root / "qa" / "test.jsonl", rows)
    (root / "truth").mkdir(parents=True)
    shutil.copy2(src / "truth" / "scenes.jsonl", root / "truth" / "scenes.jsonl")
    if audio == "symlink":
        (root / "audio").symlink_to(os.path.relpath((src / "audio").resolve(), root.resolve()),
                                    target_is_directory=True)
        return dst
    for dirpath, _, files in os.walk(src / "audio", followlinks=True):
        for f in files:
            p = Path(dirpath) / f
            _link_or_copy(p.resolve(), root / p.relative_to(src))
    if audio == "hardlink":
        return dst
    rev = hashlib.sha1(f"heldout-{seed}".encode()).hexdigest()
    return _hf_tree(root, dst, rev)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--audio", choices=AUDIO_MODES, default="symlink")
    args = p.parse_args(argv)
    try:
        root = rewrite_corpus(args.src, args.dst, seed=args.seed, audio=args.audio)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
