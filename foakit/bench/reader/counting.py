"""What a counting question counts: the sounds of the clip, or the most at one moment.

A counting question asks the *maximum number of sounds at once* ("From the audio alone,
what is the maximum number of overlapping sounds?", "At most how many sources play at the
same time?") when one sentence holds both

* a word of concurrency: overlap / overlapping, simultaneous(ly), concurrent(ly),
  co-occurring, coinciding, in parallel, together (not "all together"), "at once", "at a
  time" (not "one at a time"), "at the same time / moment / instant", "at any (one, given,
  single) time / moment / instant / point", "at one time / moment"; and
* a word of maximum: maximum, max, maximal, peak, largest, greatest, biggest, highest, top,
  "at most", "the most", "most" before a count noun ("most sounds");

or a busiest moment ("at the busiest moment", "when the scene is busiest", "the most
crowded point"), which says both.  A concurrency word under a negation or a concession
("not at the same time", "whether or not they overlap", "including overlapping ones",
"regardless of overlap") does not count, and neither does a sentence that says it counts in
total ("in total", "altogether", "overall", "all told").  Every other counting question asks
the number of distinct sounds in the clip: when in doubt the reading is "distinct".
"""

from __future__ import annotations

from .tokens import _COUNT_ADJ, _COUNT_NOUN, Token, tokenize

__all__ = ["COUNT_KINDS", "count_kind", "overlap_cue"]

#: The two things a counting question can ask.
COUNT_KINDS = ("distinct", "overlap")

_CONCURRENT = {"overlap", "overlaps", "overlapping", "overlapped", "simultaneous",
               "simultaneously", "concurrent", "concurrently", "coinciding", "coincide",
               "coincident", "cooccurring", "co-occurring", "together"}
_MOMENT = {"time", "moment", "instant", "point", "second", "timepoint"}
_MAX = {"maximum", "max", "maximal", "peak", "largest", "greatest", "biggest", "highest",
        "top"}
_BUSY = {"busiest", "densest", "fullest", "noisiest"}
# words that cancel the concurrency word after them: "not at the same time", "whether or
# not they overlap", "including overlapping ones", "even if they overlap"
_CANCEL = {"not", "never", "without", "regardless", "whether", "including", "include",
           "includes", "even", "irrespective", "no", "non", "except", "excluding", "ignoring",
           "ignore"}
_TOTAL = ("in total", "altogether", "all together", "overall", "all told", "in all",
          "total number", "the total")
_SENTENCE_END = {".", "?", "!", ";"}


def _sentences(toks: list[Token]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in toks:
        if t.text in _SENTENCE_END:
            out.append([])
        else:
            out[-1].append(t.text)
    return [s for s in out if s]


def _at(words: list[str], i: int, phrase: str) -> int | None:
    """The index after ``phrase`` when it starts at ``i``."""
    ps = phrase.split()
    return i + len(ps) if words[i:i + len(ps)] == ps else None


def _concurrency(w: list[str], i: int) -> int | None:
    """The index after a concurrency phrase starting at ``i``, or None."""
    t = w[i]
    if t == "co" and w[i + 1:i + 3] == ["-", "occurring"]:
        return i + 3
    if t == "together":
        return None if i and w[i - 1] in ("all", "put") else i + 1
    if t in _CONCURRENT:
        return i + 1
    if t == "parallel" and i and w[i - 1] == "in":
        return i + 1
    for p in ("at once", "all at once"):
        j = _at(w, i, p)
        if j is not None:
            return j
    j = _at(w, i, "at a time")
    if j is not None:
        return None if i and w[i - 1] == "one" else j
    for lead in ("at the same", "at any one", "at any given", "at any single", "at any",
                 "at a single", "at one", "in any one", "in any single", "at a given"):
        j = _at(w, i, lead)
        if j is not None and j < len(w) and w[j] in _MOMENT:
            return j + 1
    return None


def _maximum(w: list[str], i: int) -> int | None:
    """The index after a maximum phrase starting at ``i``, or None."""
    t = w[i]
    if t in _MAX:
        # "the highest-pitched sound", "the top of the room": no maximum of a count
        if t in ("highest", "top") and i + 1 < len(w) and w[i + 1] not in (
                "number", "count", "amount", "overlap", "concurrency", "simultaneous",
                "overlapping", "concurrent", "moment", "point"):
            return None
        return i + 1
    if t == "most":
        if i and w[i - 1] in ("at", "the"):
            # "the most likely", "most of them": a quantifier or an adverb
            if i + 1 < len(w) and w[i + 1] in ("of", "likely", "probably", "prominent",
                                               "clearly", "clear", "audible", "obvious",
                                               "noticeable", "common", "frequent"):
                return None
            return i + 1
        if i + 1 < len(w) and (w[i + 1] in _COUNT_NOUN or w[i + 1] in _COUNT_ADJ):
            return i + 1
    return None


def _busy(w: list[str], i: int) -> int | None:
    """The index after a busiest-moment phrase ("busiest moment", "at its busiest", "the
    most crowded point")."""
    if w[i] in _BUSY:
        return i + 1
    j = _at(w, i, "most crowded") or _at(w, i, "most busy")
    return j


def _cancelled(w: list[str], i: int, j: int) -> bool:
    """The concurrency phrase w[i:j] is negated or conceded."""
    before = w[max(0, i - 3):i]
    return any(x in _CANCEL for x in before) or w[j:j + 2] == ["or", "not"]


def overlap_cue(question: str) -> tuple[str, str] | None:
    """The words that make a counting question ask the most sounds at one moment.

    Parameters
    ----------
    question : str

    Returns
    -------
    (str, str) or None
        The maximum phrase and the concurrency phrase (the same words for a busiest
        moment), or None when the question asks the number of distinct sounds.
    """
    for s in _sentences(tokenize(question)):
        text = " " + " ".join(s) + " "
        if any(f" {p} " in text for p in _TOTAL):
            continue
        maxes: list[str] = []
        concs: list[str] = []
        for i in range(len(s)):
            j = _busy(s, i)
            if j is not None:
                return " ".join(s[i:j]), " ".join(s[i:j])
            j = _maximum(s, i)
            if j is not None:
                maxes.append(" ".join(s[i:j]))
            j = _concurrency(s, i)
            if j is not None and not _cancelled(s, i, j):
                concs.append(" ".join(s[i:j]))
        if maxes and concs:
            return maxes[0], concs[0]
    return None


def count_kind(question: str) -> str:
    """``"overlap"`` when a counting question asks the most sounds active at one moment,
    else ``"distinct"`` (the number of different sounds in the clip).

    See the module docstring for the words read; a question with no maximum and
    concurrency words in one sentence (and no busiest moment) is ``"distinct"``.
    """
    return "overlap" if overlap_cue(question) is not None else "distinct"

