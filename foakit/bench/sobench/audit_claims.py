"""What the QA items of an SO-Bench corpus say, read without the audio.

The class vocabulary (:func:`class_vocabulary`), and per audio file the claims its items make
(:func:`clip_claims`): which class each item is about, directions and time spans or onsets
named in questions or carried as labels, and which classes a motion answer calls moving.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...conventions import azimuth_difference, wrap_azimuth
from ..questions import AZIMUTH_HALFWIDTH_DEG, Cues, class_mentions
from .audit_config import SobenchAuditConfig
from .format import SOURCE_TASKS, QAItem, parse_question

__all__ = [
    "class_vocabulary",
    "clip_claims",
    "ClipClaims",
    "DirClaim",
    "TimeClaim",
    "source_names",
    "resolve_by_events",
    "first_onsets",
    "anonymous_sources",
    "question_start",
]

_DIRECTION_TASKS = ("identify_source_by_doa", "identify_source_by_location", "spatial_temporal",
                    "onset_from_location")
_STOP = {"is", "are", "be", "can", "start", "starts", "begin", "begins", "arrive", "arrives",
         "come", "comes", "coming", "located", "positioned", "heard", "audible", "and", "or",
         "to", "from", "at", "in", "on", "that", "which", "when", "during", "relative",
         "compared", "higher", "lower", "closer", "farther", "left", "right", "stay", "stays",
         "move", "moves", "does", "do", "with", "than", "the", "a", "an", "of", "it"}
_RELATION_WORDS = {
    "relative_left_right": ("left", "right"),
    "compare_elevation": ("higher", "lower", "same"),
    "compare_distance": ("closer", "farther", "same"),
}

# ----------------------------------------------------------------------------------------
# corpus side: classes and claims
# ----------------------------------------------------------------------------------------

def _norm_class(text: str) -> str:
    t = " ".join(re.sub(r"[^a-z0-9' -]", " ", str(text).lower()).split())
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    return re.sub(r"^sound of (?:the |a |an )?", "", t).strip()


def class_vocabulary(items: list[QAItem]) -> list[str]:
    """Sound-class names a corpus uses, longest first.

    From the canonical answers of the source tasks, from the head noun of a label item's
    answer subject when its question names it too ("The chirping bird is heard ..." for
    "When is the bird heard?"), and from "the sound of the X" phrases in questions (X = up
    to two words, cut at verbs and prepositions, kept when some answer
    of the corpus names it too).
    """
    vocab: set[str] = set()
    answers = " ".join(it.answer.lower() + " " + it.canonical_answer.lower() for it in items)
    for it in items:
        if it.task_name in SOURCE_TASKS and it.canonical_answer:
            name = _norm_class(it.canonical_answer)
            if name and len(name.split()) <= 4:
                vocab.add(name)
        for m in re.finditer(r"\bsound of (?:the |an? )?([a-z][a-z'-]*(?: [a-z][a-z'-]*)?)",
                             it.question.lower()):
            words = []
            for w in m.group(1).split():
                if w in _STOP:
                    break
                words.append(w)
            while words:
                name = " ".join(words)
                if re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", answers):
                    vocab.add(name)
                    break
                words.pop()
    for it in items:
        head = _answer_subject(it)
        if not head or any(head in v.split() for v in vocab):
            continue  # "bell" of "The church bell ...": "church bell" names it already
        if re.search(rf"(?<![a-z]){re.escape(head)}(?:e?s)?(?![a-z])", it.question.lower()):
            vocab.add(head)
    return sorted(vocab, key=lambda v: (-len(v), v))


# an answer that opens with its subject ("The chirping bird is heard from ...")
_SUBJECT = re.compile(r"^\s*(?:the|an?)\s+((?:[a-z'-]+\s+){0,3}?[a-z'-]+)\s+(?:is|are|was|"
                      r"were|starts?|begins?|can|comes?|sounds?|arrives?|moves?|stays?|"
                      r"remains?|stops?|ends?|lasts?)\b")
# head nouns that name no class of their own
_GENERIC = {"sound", "sounds", "source", "sources", "noise", "event", "one", "thing",
            "signal", "audio", "clip", "recording", "answer", "it", "sound's", "distance",
            "azimuth", "elevation", "direction", "angle", "onset", "start", "time", "span",
            "interval", "count", "number", "total", "position", "location", "height", "level",
            "motion", "movement", "relation", "first", "second", "third", "last", "final",
            "earliest", "latest", "other", "same", "loudest", "quietest", "closest",
            "nearest", "farthest", "left", "right", "front", "back"}


_PREPOSITIONS = {"at", "behind", "from", "in", "on", "to", "near", "above", "below", "under",
                 "over", "of", "with", "by", "off", "ahead", "beside", "around", "about",
                 "you", "your", "me", "it", "that", "which", "who"}


def _answer_subject(it: QAItem) -> str | None:
    """The head noun of a label item's answer subject ("bird" in "The chirping bird is heard
    from 8.0s"), when the answer opens with one; None for source tasks, whose class is their
    canonical answer."""
    if it.task_name in SOURCE_TASKS:
        return None
    m = _SUBJECT.match(it.answer.lower())
    if m is None:
        return None
    words = _norm_class(m.group(1)).split()
    for k, w in enumerate(words):  # "the sound behind you": the noun phrase ends before it
        if w in _PREPOSITIONS:
            words = words[:k]
            break
    owner = [w for w in words if w.endswith("'s")]  # "the dog's barking": the dog
    if owner:
        words = [owner[0]]
    if not words or words[-1] in _GENERIC or words[-1] in _STOP:
        return None
    return words[-1].removesuffix("'s")


@dataclass
class DirClaim:
    """A statement about where a class is."""

    cls: str
    az: float | None
    el: float | None
    az_tol: float
    qa_id: str
    source: str  # "label" or what context gave it
    el_sign: int = 0
    task: str = ""
    # the analysis's ranking of onsets tied the item's order word to this direction
    by_rank: bool = False

    @property
    def origin(self) -> str:
        return f"the {self.task} label" if self.source == "label" else self.source


@dataclass
class TimeClaim:
    """A statement about when a class sounds: ``span`` [a, b], ``onset`` a, ``window`` [a, b]
    (the class is audible somewhere inside)."""

    cls: str
    kind: str
    a: float
    b: float
    qa_id: str
    source: str
    task: str = ""

    @property
    def origin(self) -> str:
        return f"the {self.task} label" if self.source == "label" else self.source


@dataclass
class ClipClaims:
    """Everything the corpus says about one audio file.

    Attributes
    ----------
    audio_id, audio_path : str
    items : list of QAItem
    subject : dict
        ``qa_id`` -> class the item is about (None when unknown).
    objects : dict
        ``qa_id`` -> second class of a relation item.
    classes : set of str
        Classes the clip's items name.
    dirs : list of DirClaim
    times : list of TimeClaim
    moving : set of str
        Classes a motion answer calls moving.
    pseudo : dict
        Sources known only by what class-less questions say of them (name -> azimuth in
        degrees, or None when the question gave a start time or "the only sound"); they are
        not in ``classes``.
    pseudo_start : dict
        The start time (s) a question gave a source of its own it names by that time.
    by_cue : set of str
        ``qa_id`` of the items whose class was found from another cue of their question (a
        direction, a start time, "the only sound": :func:`_by_cue`) or its ``source_refs``.
    unresolved : dict
        ``qa_id`` -> why an item that names no class could not be given one.
    cues : dict
        ``qa_id`` -> the item's question as :func:`parse_question` reads it (read once;
        :meth:`cues_of`).
    """

    audio_id: str
    audio_path: str
    items: list[QAItem] = field(default_factory=list)
    subject: dict[str, str | None] = field(default_factory=dict)
    objects: dict[str, str | None] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    dirs: list[DirClaim] = field(default_factory=list)
    times: list[TimeClaim] = field(default_factory=list)
    moving: set[str] = field(default_factory=set)
    pseudo: dict[str, float | None] = field(default_factory=dict)
    pseudo_start: dict[str, float] = field(default_factory=dict)
    by_cue: set[str] = field(default_factory=set)
    unresolved: dict[str, str] = field(default_factory=dict)
    cues: dict[str, Cues] = field(default_factory=dict)

    def cues_of(self, it: QAItem) -> Cues:
        """The parsed question of ``it`` (parsed on first use)."""
        c = self.cues.get(it.qa_id)
        if c is None:
            c = self.cues[it.qa_id] = parse_question(it.question)
        return c


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _span(x: Any) -> tuple[float, float] | None:
    if isinstance(x, list | tuple) and len(x) == 2:
        a, b = _num(x[0]), _num(x[1])
        if a is not None and b is not None:
            return (min(a, b), max(a, b))
    return None


def _claims_of(cc: ClipClaims, it: QAItem, subj: str, cfg: SobenchAuditConfig) -> None:
    """Add what one item says about its class ``subj``."""
    meta = it.answer_meta or {}
    cues = cc.cues_of(it)
    # direction context named in the question
    if it.task_name in _DIRECTION_TASKS or subj in cc.pseudo or it.qa_id in cc.by_cue:
        if cues.azimuth_deg is not None:
            tol = cfg.explicit_tol_deg if cues.azimuth_explicit else \
                cfg.sector_half_deg + cfg.sector_slack_deg
            cc.dirs.append(DirClaim(subj, float(cues.azimuth_deg), cues.elevation_deg, tol,
                                    it.qa_id, f"question of {it.task_name}",
                                    el_sign=cues.elevation_sign))
        elif cues.elevation_deg is not None:
            cc.dirs.append(DirClaim(subj, None, cues.elevation_deg, 0.0, it.qa_id,
                                    f"question of {it.task_name}"))
    # a start time the question gives ("the sound that starts around 2.5 s")
    t0 = cc.pseudo_start[subj] if subj in cc.pseudo_start else \
        question_start(it.question, cues)
    if t0 is not None and it.task_name not in _RELATION_WORDS:
        cc.times.append(TimeClaim(subj, "onset", t0, t0, it.qa_id,
                                  f"question of {it.task_name}"))
    if it.task_name == "detect_source":
        if cues.window is not None and math.isfinite(cues.window[1]):
            cc.times.append(TimeClaim(subj, "window", cues.window[0], cues.window[1],
                                      it.qa_id, "question of detect_source"))
    if it.task_name == "classify_motion":
        text = (it.canonical_answer + " " + it.answer).lower()
        if "moving" in text or "moves" in text:
            cc.moving.add(subj)
    # labels
    if it.task_name == "estimate_azimuth" and _num(meta.get("azimuth_deg")) is not None:
        cc.dirs.append(DirClaim(subj, _num(meta["azimuth_deg"]), None, cfg.az_tol_deg,
                                it.qa_id, "label", task=it.task_name))
    if it.task_name == "estimate_elevation" and _num(meta.get("elevation_deg")) is not None:
        cc.dirs.append(DirClaim(subj, None, _num(meta["elevation_deg"]), 0.0, it.qa_id,
                                "label", task=it.task_name))
    sp = _span(meta.get("time_span"))
    if sp is not None:
        cc.times.append(TimeClaim(subj, "span", sp[0], sp[1], it.qa_id, "label",
                                  task=it.task_name))
    on = _num(meta.get("onset_time"))
    if on is not None:
        cc.times.append(TimeClaim(subj, "onset", on, on, it.qa_id, "label",
                                  task=it.task_name))


_ONLY = re.compile(r"\b(?:the|this)\s+(?:only|single|sole|one and only)\s+(?:sound|source|"
                   r"event|thing|noise)\b|\bthe\s+(?:sound|source)\s+alone\b", re.I)
_STARTS = re.compile(r"\b(?:starts?|starting|begins?|beginning|onset|comes? in|first "
                     r"appears?|sets? in)\b", re.I)


def question_start(question: str, cues: Cues | None = None) -> float | None:
    """The time (s) a question says its sound starts at ("the sound that starts around
    3.5 s"), or None; ``cues``: the question's :func:`parse_question`, when already read."""
    t = (cues or parse_question(question)).time_s
    return float(t) if t is not None and _STARTS.search(question) else None


def source_names(cc: ClipClaims) -> list[str]:
    """The sounds the clip's source tasks name as their answer, one per head noun (free text
    names one sound in several ways: "the clapping", "hand claps")."""
    heads: dict[str, str] = {}
    for it in cc.items:
        name = cc.subject.get(it.qa_id)
        if it.task_name in SOURCE_TASKS and name and name not in cc.pseudo:
            heads.setdefault(str(name).split()[-1], str(name))
    return sorted(heads.values())


_THE_SOUND = re.compile(r"\bthe\s+(?:sound|source|event|noise)\b(?!\s+(?:of|that|which|at|"
                        r"from|coming|near|on|to|in front|behind|above|below))", re.I)


def _counts_more(cc: ClipClaims) -> bool:
    """Some item of the clip says it holds more than one sound."""
    return any(_num((it.answer_meta or {}).get("active_count")) not in (None, 1, 1.0)
               for it in cc.items)


def _named_onsets(cc: ClipClaims) -> dict[str, float]:
    """Each named class's earliest start the corpus gives (spans and onsets)."""
    out: dict[str, float] = {}
    for t in cc.times:
        if t.kind != "window" and t.cls not in cc.pseudo:
            out[t.cls] = min(out.get(t.cls, math.inf), t.a)
    return out


def _one_source(cc: ClipClaims, near: set[str], cfg: SobenchAuditConfig) -> set[str]:
    """``near`` as one class when the questions place all of its classes within
    ``az_tol_deg`` of each other and at most one of them is a source task's answer: one
    sound under several names ("the telephone" of an ``identify_source_by_location`` answer,
    "the ringtone" of a free-text answer); the class most items place is kept.  Two classes
    that source tasks give as answers are two sounds."""
    if len(near) < 2 or len(near & set(source_names(cc))) > 1:
        return near
    where = {c: [d.az for d in cc.dirs if d.cls == c and d.az is not None and d.source != "label"]
             for c in near}
    azs = [a for v in where.values() for a in v]
    if not azs or any(abs(float(azimuth_difference(a, b))) > cfg.az_tol_deg
                      for a in azs for b in azs):
        return near
    return {max(sorted(near), key=lambda c: len(where[c]))}


def _pseudo(cc: ClipClaims, name: str, az: float | None, start: float | None = None) -> str:
    cc.pseudo.setdefault(name, az)
    if start is not None:
        cc.pseudo_start.setdefault(name, start)
    return name


def _pseudo_at(cc: ClipClaims, az: float) -> str:
    """The source of its own at azimuth ``az``."""
    return _pseudo(cc, f"sound at {wrap_azimuth(round(az)):.0f} deg", float(az))


def _classes_near(dirs: list[DirClaim], az: float, tol: float) -> set[str]:
    """Classes of ``dirs`` within ``tol`` plus half the claim's own tolerance of ``az``."""
    return {d.cls for d in dirs if abs(float(azimuth_difference(d.az, az))) <= tol + d.az_tol / 2}


def _the_one(cc: ClipClaims, it: QAItem, names, why: str) -> str | None:
    """The one name of ``names`` (not empty), or None with ``why`` (its ``{}`` the names) in
    :attr:`ClipClaims.unresolved` when there are several."""
    names = sorted(names)
    if len(names) == 1:
        return names[0]
    cc.unresolved[it.qa_id] = why.format(", ".join(names))
    return None


def _by_cue(cc: ClipClaims, it: QAItem, cfg: SobenchAuditConfig) -> str | None:
    """The class an item that names no class means by what its question says instead.

    * A direction: the one class whose directions from other questions (labels only when
      no question places any class) lie within the cue's precision plus
      ``sector_slack_deg``; else a source of its own, ``"sound at N deg"``, shared by the
      clip's other class-less items pointing the same way, so their labels are checked
      against each other and against the signal from that direction.
    * "The only sound": the clip's one named class, or a source of its own.
    * A start time ("the sound that starts around 6.2 s"): the one class the corpus starts
      within ``time_ctx_tol_s`` of it; else a source of its own starting then.
    * A superlative and no other cue ("the nearest source", "the loudest sound"): a source
      of its own, ``"the closest sound"``, shared by the clip's items that say it.

    Order words are not followed: the corpus's starts come from labels, some of them wrong,
    and seldom cover every sound of the clip.  None (and why, in
    :attr:`ClipClaims.unresolved`) when the question says none of these, when two named
    sounds fit, or when it asks about several sounds (a relation).
    """
    if it.task_name in _RELATION_WORDS or it.task_name in SOURCE_TASKS:
        return None
    cues = cc.cues_of(it)
    tol_t = cfg.time_ctx_tol_s
    if cues.azimuth_deg is not None:
        tol = AZIMUTH_HALFWIDTH_DEG[cues.azimuth_kind or "word"] + cfg.sector_slack_deg
        named = [d for d in cc.dirs if d.az is not None and d.cls not in cc.pseudo]
        ctx = [d for d in named if d.source != "label"] or named
        near = _one_source(cc, _classes_near(ctx, cues.azimuth_deg, tol), cfg)
        if near:
            return _the_one(cc, it, near, f"the question's direction ({cues.azimuth_deg:.0f} "
                                          "deg) fits two named sounds: {}")
        for p, az in cc.pseudo.items():
            if az is not None and abs(float(azimuth_difference(az, cues.azimuth_deg))) <= tol:
                return p
        return _pseudo_at(cc, cues.azimuth_deg)
    if _ONLY.search(it.question):
        named = source_names(cc)
        if named:
            return _the_one(cc, it, named, "'the only sound', but the clip's source questions "
                                           "name {}")
        return _pseudo(cc, "the only sound", None)
    if cues.empty and _THE_SOUND.search(it.question) and not _counts_more(cc):
        named = source_names(cc)
        if len(named) == 1:
            return named[0]
    starts = _named_onsets(cc)
    if question_start(it.question, cues) is not None:
        near_t = [c for c, a in starts.items() if abs(a - cues.time_s) <= tol_t]
        if near_t:
            return _the_one(cc, it, near_t, f"the question's start time ({cues.time_s:g} s) "
                                            "fits two named sounds: {}")
        return _pseudo(cc, f"sound starting at {cues.time_s:.1f} s", None,
                       start=round(cues.time_s, 1))
    if cues.superlative and cues.order is None and cues.time_s is None \
            and cues.window is None and cues.elevation_deg is None:
        # "the nearest source" names one sound of the clip wherever it is asked, so the
        # clip's items saying it share a source of their own and check each other
        return _pseudo(cc, f"the {cues.superlative} sound", None)
    return None


_ORDINAL = {0: "first", 1: "second", 2: "third", 3: "fourth", 4: "fifth", -1: "last"}


def first_onsets(events: list[dict]) -> dict[Any, dict]:
    """Each analysed source's first event (events without an azimuth left out), by its
    ``source`` (an event without one is a source of its own)."""
    first: dict[Any, dict] = {}
    for e in events:
        if e.get("azimuth_deg") is None:
            continue
        k = e.get("source", id(e))
        if k not in first or e["onset_s"] < first[k]["onset_s"]:
            first[k] = e
    return first


def resolve_by_events(cc: ClipClaims, events: list[dict],
                      cfg: SobenchAuditConfig | None = None) -> None:
    """Give the class-less items that name their sound by order ("the first event", "the
    last sound to start") the sound the analysis hears start at that rank, and the sources
    known by a start time alone the direction of the one analysed source starting then
    (within ``event_time_tol_s``).

    The analysed sources (``events``: the audit's, with ``source``, ``onset_s``,
    ``azimuth_deg``) are ranked by their first onset; a rank is taken only when its source
    starts ``time_ctx_tol_s`` or more from its neighbours, and never when a moving source
    could be at it.  The item is then about the named class at that source's azimuth (as a
    direction cue of ``az_tol_deg``), or a source of its own there, with a direction claim
    whose origin says it came from the analysis (it can confirm a label, and contradict one
    only where the signal does not support the label: see ``_audit_direction``).
    """
    cfg = cfg or SobenchAuditConfig()
    ranked = sorted(first_onsets(events).values(), key=lambda e: e["onset_s"])
    if not ranked:
        return
    # a rank counts only where the analysis hears at least as many sounds as the clip's
    # items name or count (a missed sound shifts every rank after it)
    counts = [int(c) for it in cc.items if it.task_name == "count_sources"
              for c in [_num((it.answer_meta or {}).get("active_count"))] if c is not None]
    rankable = len(ranked) >= max([len(source_names(cc)), *counts])
    _the_only_source(cc, ranked, events, counts, cfg)
    for name, t0 in list(cc.pseudo_start.items()):
        at = [e for e in events if e.get("azimuth_deg") is not None
              and abs(e["onset_s"] - t0) <= cfg.event_time_tol_s
              and e.get("motion") in (None, "stationary")]
        if len({e.get("source") for e in at}) != 1:
            continue
        e = min(at, key=lambda e: abs(e["onset_s"] - t0))
        qid = next(q for q, c in cc.subject.items() if c == name)
        cc.dirs.append(DirClaim(name, float(e["azimuth_deg"]), None, cfg.az_tol_deg, qid,
                                f"the analysed events (one starts at {e['onset_s']:.1f} s)"))
    for it in cc.items:
        if cc.subject.get(it.qa_id) is not None or it.task_name in _RELATION_WORDS \
                or it.task_name in SOURCE_TASKS:
            continue
        cues = cc.cues_of(it)
        k = cues.order
        if k is None or cues.azimuth_deg is not None or not -len(ranked) <= k < len(ranked) \
                or not rankable:
            continue
        k %= len(ranked)
        e = ranked[k]
        gaps = [abs(e["onset_s"] - ranked[j]["onset_s"]) for j in (k - 1, k + 1)
                if 0 <= j < len(ranked)]
        if any(g < cfg.time_ctx_tol_s for g in gaps) or any(
                r.get("motion") not in (None, "stationary") for r in ranked):
            continue
        az = float(e["azimuth_deg"])
        named = [d for d in cc.dirs if d.az is not None and d.cls not in cc.pseudo
                 and d.source != "label"]
        near = _classes_near(named, az, cfg.az_tol_deg)
        if len(near) > 1:
            continue
        subj = near.pop() if near else _pseudo_at(cc, az)
        word = _ORDINAL.get(cues.order, f"number {k + 1}")
        cc.dirs.append(DirClaim(subj, az, None, cfg.az_tol_deg, it.qa_id,
                                f"the analysed events ({word} to start, {e['onset_s']:.1f} s)",
                                by_rank=True))
        cc.subject[it.qa_id] = subj
        cc.by_cue.add(it.qa_id)
        cc.unresolved.pop(it.qa_id, None)
        _claims_of(cc, it, subj, cfg)


def _the_only_source(cc: ClipClaims, ranked: list[dict], events: list[dict],
                     counts: list[int], cfg: SobenchAuditConfig) -> None:
    """Where the analysis hears one stationary source and the clip's items name one sound
    class (and count no more than one sound), that class comes from the source's direction:
    a direction claim from the analysis for a class no question places."""
    subjects = {s for s in cc.subject.values() if s is not None and s not in cc.pseudo}
    if len(ranked) != 1 or len(subjects) != 1 or any(c > 1 for c in counts) \
            or any(e.get("motion") not in (None, "stationary") for e in events):
        return
    subj = subjects.pop()
    if subj in cc.moving or any(d.cls == subj and d.az is not None for d in cc.dirs
                                if d.source != "label"):
        return
    qid = next(q for q, s in cc.subject.items() if s == subj)
    cc.dirs.append(DirClaim(subj, float(ranked[0]["azimuth_deg"]), None, cfg.az_tol_deg, qid,
                            "the analysed events (the only source the analysis hears)"))


def _single_ref(it: QAItem) -> str | None:
    """The one source a record's ``source_refs`` names (an index or an id), or None."""
    refs = it.record.get("source_refs")
    ok = isinstance(refs, list) and len(refs) == 1 and type(refs[0]) in (int, str)
    return str(refs[0]) if ok else None


def _by_refs(cc: ClipClaims, subj: dict[str, str | None]) -> set[str]:
    """Follow ``source_refs`` where records carry them: the classes the items of one source
    name are one sound (the most used name is kept), and an item that names no class is
    about the class its source's items name.  A name used for two sources (two sounds of one
    class) leaves each of them alone.  Returns the ``qa_id`` of the items given a class."""
    ref = {it.qa_id: k for it in cc.items if it.task_name not in _RELATION_WORDS
           and (k := _single_ref(it)) is not None}
    names: dict[str, Counter] = {}
    refs_of: dict[str, set[str]] = {}
    for q, k in ref.items():
        if subj.get(q) is not None:
            names.setdefault(k, Counter())[subj[q]] += 1
            refs_of.setdefault(subj[q], set()).add(k)
    alias: dict[str, str] = {}
    the: dict[str, str] = {}
    for k, used in names.items():
        if all(refs_of[n] == {k} for n in used):
            the[k] = max(sorted(used), key=lambda n: used[n])
            alias.update({n: the[k] for n in used})
    subj.update({q: alias.get(n, n) for q, n in subj.items() if n is not None})
    cc.objects.update({q: alias.get(o, o) for q, o in cc.objects.items() if o is not None})
    cc.classes = {alias.get(c, c) for c in cc.classes}
    linked = {q: the[k] for q, k in ref.items() if subj.get(q) is None and k in the}
    subj.update(linked)
    return set(linked)


def clip_claims(audio_id: str, items: list[QAItem], vocab: list[str],
                cfg: SobenchAuditConfig | None = None) -> ClipClaims:
    """Read the claims the items of one audio file make (see the module docstring).

    Items that name a class are read first; with ``source_refs`` in the records, items of
    one source index share its class (:func:`_by_refs`); an item that names none but gives
    a direction ("When does the sound from the back-right start?"), a start time or "the
    only sound" is then about the class found that way, or a source of its own
    (:attr:`ClipClaims.pseudo`).
    """
    cfg = cfg or SobenchAuditConfig()
    cc = ClipClaims(audio_id=audio_id, audio_path=items[0].audio_path, items=list(items))
    subj_of: dict[str, str | None] = {}
    for it in items:
        ans = class_mentions(it.answer, vocab)
        q = class_mentions(it.question, vocab)
        if it.task_name in SOURCE_TASKS:
            subj = _norm_class(it.canonical_answer) or (ans[0] if ans else None)
        elif it.task_name in _RELATION_WORDS:
            subj = ans[0] if ans else (q[0] if q else None)
            obj = ans[1] if len(ans) > 1 else (q[1] if len(q) > 1 else None)
            if obj == subj:
                obj = None
            cc.objects[it.qa_id] = obj
        else:
            subj = ans[0] if ans else (q[0] if q else None)
        subj_of[it.qa_id] = subj
        cc.classes.update(ans)
        cc.classes.update(q)
        if subj:
            cc.classes.add(subj)
    linked = _by_refs(cc, subj_of)
    pending = []
    for it in items:
        subj = subj_of[it.qa_id]
        cc.subject[it.qa_id] = subj
        if subj:
            if it.qa_id in linked:
                cc.by_cue.add(it.qa_id)
            _claims_of(cc, it, subj, cfg)
        else:
            pending.append(it)
    for it in pending:
        subj = _by_cue(cc, it, cfg)
        if subj is not None:
            cc.subject[it.qa_id] = subj
            cc.by_cue.add(it.qa_id)
            _claims_of(cc, it, subj, cfg)
    return cc


def anonymous_sources(cc: ClipClaims) -> None:
    """Give each label item still without a class a source of its own, ``"unnamed sound
    (qa_id)"``: its label is then held against the whole clip's signal (a direction no
    sound of the clip comes from, a span where no direction sounds), with the stricter
    thresholds of a source whose direction is unknown; a start time its question gives
    (``pseudo_start``) sets its time window.  Called once the analysis has had its say
    (:func:`resolve_by_events`)."""
    for it in cc.items:
        if cc.subject.get(it.qa_id) is not None or it.task_name in _RELATION_WORDS \
                or it.task_name in SOURCE_TASKS or not it.answer_meta:
            continue
        # a start time its question gives still says when to look
        subj = _pseudo(cc, f"unnamed sound ({it.qa_id})", None, start=question_start(it.question))
        cc.subject[it.qa_id] = subj
        _claims_of(cc, it, subj, SobenchAuditConfig())
