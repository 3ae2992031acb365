"""What an answer option claims: a count, a direction, a time or interval, a sound list.

Options are read with the shared expression reader (:func:`foakit.bench.reader.read`):
sector words and their synonyms, clock positions, angles with side words, time points,
intervals ("between the 6- and 8-second marks"), open intervals ("after 9 s", "from 9 s
until the end"), parts of the clip ("during the opening three seconds", "the entire
recording"), counts in digits or words and lists of sounds.  An option with a cue word the
reader leaves unread claims nothing checkable (:attr:`Claim.unread` says which words), so
no answer rests on a cue that was not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..questions import AZIMUTH_HALFWIDTH_DEG
from ..reader import Reading, read, resolve_window

__all__ = ["Claim", "read_claim", "count_of", "direction_of", "time_of", "list_length",
           "onset_question", "coverage"]

_ONSET_Q = re.compile(r"\b(start|starts|begin|begins|onset|first heard|first audible)\b", re.I)


@dataclass(frozen=True)
class Claim:
    """What one option states (fields it does not state are None).

    Attributes
    ----------
    count : int or None
    azimuth_deg : float or None
        Counter-clockwise from the front (+90 = left), relative to the listener.
    halfwidth_deg : float or None
        How precise the direction is: 22.5 for sector words, 15 for clock positions,
        7.5 for angles.
    onset_s : float or None
        A point in time (an onset).
    span : (float, float) or None
        An interval (s); an open one or a part of the clip only when the clip's duration
        was given.
    n_listed : int
        Number of sounds the option lists (1 for a single phrase).
    unread : tuple of str
        Cue words the reader did not read; when there are any, the option claims nothing
        checkable (count, direction and times are None).
    """

    count: int | None = None
    azimuth_deg: float | None = None
    halfwidth_deg: float | None = None
    onset_s: float | None = None
    span: tuple[float, float] | None = None
    n_listed: int = 1
    unread: tuple[str, ...] = ()

    @property
    def fully_read(self) -> bool:
        """True when every cue word of the option was read."""
        return not self.unread


def _direction(r: Reading) -> tuple[float, float] | None:
    for e in r.exprs:
        if e.kind == "direction":
            return float(e.value["azimuth_deg"]), AZIMUTH_HALFWIDTH_DEG[e.value["azimuth_kind"]]
    return None


def _time(r: Reading, duration_s: float | None
          ) -> tuple[str, float | tuple[float, float]] | None:
    s = r.summary()
    win = resolve_window(s, duration_s)
    if win is not None:
        return "span", (float(win[0]), float(win[1]))
    if s.get("time_s") is not None:
        return "onset", float(s["time_s"])
    return None


def count_of(text: str) -> int | None:
    """A count in digits or words ("3", "three sources", "a pair of sounds"), or None."""
    c = read(text).summary().get("count")
    return None if c is None else int(c)


def direction_of(text: str) -> tuple[float, float] | None:
    """(azimuth, half-width) in degrees of a direction claim, or None."""
    return _direction(read(text))


def time_of(text: str, *, duration_s: float | None = None
            ) -> tuple[str, float | tuple[float, float]] | None:
    """``("span", (a, b))`` or ``("onset", t)`` of a time claim, or None; open intervals
    and parts of the clip need the clip's ``duration_s``."""
    return _time(read(text), duration_s)


def list_length(text: str) -> int:
    """How many sounds an option lists ("a dog barking, speech and a doorbell" -> 3;
    "In the audio, you can hear dishwasher." -> 1)."""
    return int(read(text).summary().get("n_sounds") or 1)


def onset_question(question: str) -> bool:
    """True when a question asks when something starts (its times are onsets)."""
    return bool(_ONSET_Q.search(question))


def read_claim(text: str, *, duration_s: float | None = None) -> Claim:
    """Everything :class:`Claim` can hold, read from one option's text.

    ``duration_s`` (the clip's length) turns open intervals and parts of the clip into
    spans; without it they give none.  An option with unread cue words claims nothing
    checkable.
    """
    r = read(text)
    unread = tuple(w for _, _, w in r.unread)
    n_listed = int(r.summary().get("n_sounds") or 1)
    if unread:
        return Claim(n_listed=n_listed, unread=unread)
    d = _direction(r)
    t = _time(r, duration_s)
    c = r.summary().get("count")
    return Claim(count=int(c) if c is not None and d is None and t is None else None,
                 azimuth_deg=d[0] if d else None, halfwidth_deg=d[1] if d else None,
                 onset_s=t[1] if t and t[0] == "onset" else None,
                 span=t[1] if t and t[0] == "span" else None,
                 n_listed=n_listed)


def coverage(texts: Iterable[str]) -> dict:
    """How many of ``texts`` the reader reads with no unread cue word.

    Returns
    -------
    dict
        ``n``, ``fully_read`` and ``share`` (None when there are no texts).
    """
    n = ok = 0
    for t in texts:
        n += 1
        ok += read(str(t)).fully_read
    return {"n": n, "fully_read": ok, "share": round(ok / n, 4) if n else None}
