"""The expression rules of the reader, tried in :data:`_RULES` order.

Each rule tries to read one expression at a token and takes the tokens it reads: intervals,
open intervals, parts of the clip, durations, time points, clock positions, angles,
heights, distances, directions and relations, counts, temporal relations and what a
question asks.
"""

from __future__ import annotations

import math

from .tokens import (
    _CLIP,
    _COUNT_ADJ,
    _COUNT_NOUN,
    _DEG,
    _FRAME,
    _METRE,
    _MS,
    _PART_INDEX,
    _PARTS,
    _RIGHT_ADVERB,
    _SEC,
    _Scanner,
)


class _Parser(_Scanner):
    """The scanner with the expression rules: each ``r_*`` tries to read an expression at
    token i and returns True when it did."""

    def r_interval(self, i: int) -> bool:
        k = i
        lead = self.w(i) in ("between", "from", "spans", "spanning", "span")
        if lead:
            k = i + 1
        k = self.hedge(k)
        t1 = self.time(k, unit=False)
        if t1 is None:
            return False
        a, k, unit1 = t1
        if self.w(k) in ("-", "to", "and", "until", "till", "through", "thru", "up") and \
                not (self.w(k) == "and" and not lead):
            if self.w(k) == "up":
                if self.w(k + 1) != "to":
                    return False
                k += 1
            k2 = self.hedge(k + 1)
            if lead and self.lit(k2, "the end") is not None or \
                    self.lit(k2, "the very end") is not None:
                if not unit1:
                    return False
                e = self.opt(k2, "the very end", "the end")
                e = self.opt(e, "of the clip", "of the recording", "of the audio")
                self.add("open_interval", i, e, window=(a, None))
                return True
            t2 = self.time(k2, unit=True)
            if t2 is None:
                return False
            b, e, _ = t2
            self.add("interval", i, e, window=self.span(a, b))
            return True
        if lead and self.w(i) == "from" and unit1:
            e = self.opt(k, "onward", "onwards", "on", "and later", "or later", "forward")
            if e > k:
                self.add("open_interval", i, e, window=(a, None))
                return True
        return False

    def r_start_end(self, i: int) -> bool:
        """"starting at 0.7 s and ending at 4.5 s", "it begins at 2 s and ends at 5 s"."""
        k = self.opt(i, "starting at", "starting from", "starts at", "begins at",
                     "beginning at", "start at", "begin at", "onset at", "it starts at",
                     "it begins at")
        if k == i:
            return False
        t1 = self.time(self.hedge(k), unit=False)
        if t1 is None:
            return False
        a, j, _ = t1
        j = self.opt(j, ",", "and")
        j = self.opt(j, "ending at", "ends at", "stopping at", "stops at", "finishing at",
                     "finishes at", "end at", "offset at", "it ends at", "it stops at")
        if not self.w(j - 1) == "at":
            return False
        t2 = self.time(self.hedge(j))
        if t2 is None:
            return False
        b, e, _ = t2
        self.add("interval", i, e, window=self.span(a, b))
        return True

    def r_open(self, i: int) -> bool:
        after = ("after", "later than", "not until", "past", "beyond", "not before",
                 "only after", "following")
        before = ("before", "by", "earlier than", "until", "till", "up until", "up to",
                  "prior to", "no later than", "within")
        for side, words in (("after", after), ("before", before)):
            k = self.opt(i, *words)
            if k == i:
                continue
            k = self.hedge(k)
            t = self.time(k)
            if t is None:
                continue
            v, e, _ = t
            e = self.opt(e, "or later", "onward", "onwards")
            self.add("open_interval", i, e, window=(v, None) if side == "after" else (0.0, v))
            return True
        t = self.time(i)
        if t is not None:
            v, e, _ = t
            k = self.opt(e, "onward", "onwards", "and later", "or later", "and after")
            if k > e:
                self.add("open_interval", i, k, window=(v, None))
                return True
        return False

    def r_part(self, i: int) -> bool:
        w = self.w(i)
        k = i + (self.w(i) == "the")
        first = self.w(k)
        # "the opening three seconds", "the last 3 s"
        if first in ("first", "opening", "initial", "last", "closing", "final", "beginning",
                     "starting", "ending"):
            t = self.time(k + 1)
            if t is not None and t[2]:
                v, e, _ = t
                e = self.opt(e, "of the clip", "of the recording", "of the audio",
                             "of the file")
                if first in ("last", "closing", "final", "ending"):
                    self.add("clip_part", i, e, window_last_s=v)
                else:
                    self.add("clip_part", i, e, window=(0.0, v))
                return True
        if first in _PART_INDEX and self.w(k + 1) in _PARTS:
            n, idx = _PARTS[self.w(k + 1)], _PART_INDEX[first]
            if idx is None:
                frac = (1 / 3, 2 / 3) if n == 3 else (0.25, 0.75)
            elif idx < n:
                idx %= n
                frac = (idx / n, (idx + 1) / n)
            else:
                return False
            e = self.opt(k + 2, "of the clip", "of the recording", "of the audio",
                         "of the file")
            self.add("clip_part", i, e, window_frac=(round(frac[0], 4), round(frac[1], 4)))
            return True
        whole = (0.0, 1.0)
        for p in ("throughout the entire", "throughout the whole", "throughout the",
                  "throughout", "the entire", "the whole", "the full", "the complete",
                  "all of the", "entire", "whole", "from start to finish",
                  "from beginning to end", "from start to end", "start to finish",
                  "all the way through", "all along", "the whole time", "continuously"):
            e = self.lit(i, p)
            if e is None:
                continue
            if p.startswith(("throughout", "from", "start", "all the", "all along",
                             "the whole time", "continuously")):
                e = self.opt(e, "clip", "recording", "audio", "file", "scene", "duration")
                self.add("clip_part", i, e, window_frac=whole)
                return True
            if self.w(e) in _CLIP:
                self.add("clip_part", i, e + 1, window_frac=whole)
                return True
        k = self.opt(i, "at the very", "at the", "near the very", "near the", "towards the",
                     "toward the", "by the", "in the very", "in the", "around the", "the very")
        if k == i and w != "the":
            if w in ("midway", "halfway"):
                e = self.opt(i + 1, "through the clip", "through the recording", "through")
                self.add("clip_part", i, e, window_frac=(0.4, 0.6))
                return True
            if w in ("early", "late") and self.w(i + 1) in ("on", "in"):
                e = self.opt(i + 1, "on", "in the clip", "in the recording", "in the audio")
                self.add("clip_part", i, e,
                         window_frac=(0.0, 1 / 3) if w == "early" else (2 / 3, 1.0))
                return True
            return False
        k = max(k, i + (w == "the"))
        where = self.w(k)
        fracs = {"beginning": (0.0, 0.2), "start": (0.0, 0.2), "outset": (0.0, 0.2),
                 "middle": (0.4, 0.6), "end": (0.8, 1.0), "close": (0.8, 1.0)}
        # "the start and end times", "the end of the dog": no part of the clip
        if self.w(k + 1) in ("and", "or", "/", "time", "times", "point", "points") or \
                (self.w(k + 1) == "of" and self.w(self.opt(k + 2, "the", "this")) not in _CLIP):
            return False
        if where in fracs and (where != "close" or self.w(k + 1) == "of"):
            e = self.opt(k + 1, "of the clip", "of the recording", "of the audio",
                         "of the file", "of the scene")
            if where == "close" and e == k + 1:
                return False
            self.add("clip_part", i, e, window_frac=fracs[where])
            return True
        return False

    def r_duration(self, i: int) -> bool:
        k = self.opt(i, "lasts", "lasting", "last", "lasted", "for", "duration of",
                     "duration is", "duration", "persists for", "goes on for", "continues for",
                     "heard for", "length of", "lasts for", "runs for", "plays for")
        if k > i:
            k = self.hedge(k)
            t = self.time(k)
            if t is not None:
                v, e, _ = t
                e = self.opt(e, "in total", "long", "overall")
                self.add("duration", i, e, duration_s=v)
                return True
        # "a 3-second sound", "a 500 ms beep": a length before a noun
        if self.w(i) in ("a", "an"):
            n = self.number(i + 1)
            if n is not None:
                v, j = n
                j += self.w(j) == "-"
                if (self.w(j) in _SEC or self.w(j) in _MS) and \
                        self.w(j + 1) not in ("mark", "marks", "point", "in", "into"):
                    scale = 0.001 if self.w(j) in _MS else 1.0
                    e = self.opt(j + 1, "long")
                    self.add("duration", i, e, duration_s=v * scale)
                    return True
        # "500 ms" on its own: milliseconds say how long, not when
        n = self.number(i)
        if n is not None and self.w(n[1]) in _MS:
            self.add("duration", i, n[1] + 1, duration_s=n[0] / 1000.0)
            return True
        short = {"brief", "short", "momentary", "quick", "transient", "short-lived", "burst",
                 "instantaneous", "fleeting"}
        long = {"long", "sustained", "extended", "lengthy", "prolonged", "continuous",
                "long-lasting", "steady", "ongoing"}
        if self.w(i) in short | long and self.w(i - 1) not in ("how", "as", "so"):
            self.add("duration", i, i + 1,
                     duration_class="short" if self.w(i) in short else "long")
            return True
        return False

    def r_point(self, i: int) -> bool:
        k = self.opt(i, "at", "around", "about", "near", "roughly", "approximately",
                     "starting at", "starting near", "starting around", "beginning at",
                     "onset at", "t =", "t=", "by about")
        k = self.hedge(k)
        t = self.time(k)
        if t is None:
            return False
        v, e, _ = t
        self.add("time_point", i, e, time_s=v)
        return True

    def r_clock(self, i: int) -> bool:
        k = self.opt(i, "at your", "at the", "at", "around", "your", "about", "roughly")
        k = self.hedge(k)
        n = self.number(k)
        if n is None:
            return False
        h, j = n
        half = 0.0
        if self.w(j) == ":" and self.w(j + 1) in ("00", "30"):
            half = 0.5 if self.w(j + 1) == "30" else 0.0
            j += 2
        if self.w(j) not in ("o'clock", "oclock") and self.lit(j, "o ' clock") is None:
            return False
        e = self.opt(j, "o ' clock") if self.w(j) not in ("o'clock", "oclock") else j + 1
        if not (1 <= h <= 12 and float(h).is_integer()):
            return False
        hours = h % 12 + half
        az = (-30.0 * hours + 180.0) % 360.0 - 180.0
        self.add("direction", i, e, azimuth_deg=az + 0.0,
                 azimuth_kind="clock")
        return True

    def r_angle(self, i: int) -> bool:
        k = i
        axis = None
        if self.w(i) in ("azimuth", "elevation", "az", "el"):
            axis = "elevation" if self.w(i) in ("elevation", "el") else "azimuth"
            k = self.opt(i + 1, "angle of", "angle is", "angle", "of", "is", "at", "=", ":")
        k = self.hedge(k)
        n = self.number(k)
        if n is None:
            return False
        v, j = n
        has_unit = self.w(j) in _DEG
        if not has_unit and axis is None:
            return False
        e = j + has_unit
        e2 = self.opt(e, "off to the", "off to your", "to the", "to your", "off the",
                      "off", "of", "on the", "on your", "toward the", "towards the")
        side = self.w(e2)
        if side in ("left", "right"):
            e = e2 + 1
            e = self.opt(e, "of center", "of centre", "of the front", "of straight ahead",
                         "side", "hand side", "- hand side")
            self.add("direction", i, e, azimuth_deg=v if side == "left" or v < 0 else -v,
                     azimuth_kind="angle")
            return True
        if side in ("above", "below", "up", "down", "elevation", "upward", "downward"):
            e = self.opt(e2 + 1, "the horizon", "the horizontal", "horizontal", "ear level")
            neg = side in ("below", "down", "downward")
            self.add("height", i, e, elevation_deg=-abs(v) if neg else v)
            return True
        if axis == "elevation":
            self.add("height", i, e, elevation_deg=v)
        else:
            self.add("direction", i, e, azimuth_deg=v, azimuth_kind="angle")
        return True

    def _atom(self, i: int) -> tuple[str, int] | None:
        """One direction word at ``i``: (F, B, L or R, index after)."""
        w = self.w(i)
        if w == "in" and self.w(i + 1) == "front":
            return "F", i + 2
        if w in ("front", "ahead", "forward", "forwards", "fore", "frontal"):
            return "F", i + 1
        if w in ("behind", "rear", "back", "backward", "backwards", "aft"):
            return "B", i + 1
        if w in ("left", "lefthand"):
            return "L", i + 1
        if w in ("right", "righthand") and not (self.w(i + 1) in _RIGHT_ADVERB and
                                                 self.w(i + 1) not in ("of",)):
            return "R", i + 1
        return None

    def r_direction(self, i: int) -> bool:
        if self.w(i) == "right" and self.w(i + 1) in _RIGHT_ADVERB:
            return False
        a = self._atom(i)
        if a is None:
            return False
        atoms = [a[0]]
        k = a[1]
        rel = False
        e = k
        glue = {"-", "and", ",", "to", "the", "your", "on", "over", "off", "you", "side",
                "hand", "slightly", "a", "bit", "little", "somewhat", "sector", "area",
                "region", "quadrant", "direction", "of", "just", "then", "but", "toward",
                "towards", "in", "more"}
        while True:
            j = k
            while self.w(j) in glue and j - k < 6:
                if self.w(j) == "of":
                    nxt = self.opt(j + 1, "the", "a", "an", "your", "my")
                    if self.w(nxt) in _FRAME:
                        j = nxt + 1
                        e = j
                        continue
                    if self._atom(nxt) is None:
                        rel = True
                        if self.w(nxt) not in ("and",):
                            break
                j += 1
            nxt = self._atom(j)
            if nxt is None or not self.free(j, nxt[1]):
                break
            if nxt[0] in atoms:
                break
            atoms.append(nxt[0])
            k = e = nxt[1]
        # the glue words read after the last direction word ("side", "area", "region")
        e = self.opt(e, "side", "- hand side", "hand side", "area", "region", "sector",
                     "quadrant", "direction", "of you", "of the listener", "of the room",
                     "of the microphone", "of me")
        # "behind the sofa", "in front of the door": a relation to another thing
        nxt = self.opt(e, "of")
        det = self.opt(nxt, "the", "a", "an", "and")
        if not rel and atoms[0] in ("F", "B") and len(atoms) == 1 and det > nxt and \
                self.w(det) not in _FRAME and self.w(det) and (
                    nxt > e or self.w(e - 1) == "behind" or self.w(i) == "in"):
            rel = True
        if rel or self._relative_frame():
            names = {"F": "in_front_of", "B": "behind", "L": "left_of", "R": "right_of"}
            self.add("spatial_relation", i, e,
                     spatial_relations=[names[x] for x in atoms])
            return True
        s = set(atoms)
        if s == {"F", "B"} or s == {"L", "R"} or len(s) > 2:
            return False
        vec = {"F": 0.0, "B": 180.0, "L": 90.0, "R": -90.0}
        if len(s) == 1:
            az = vec[atoms[0]]
        else:
            lr = 90.0 if "L" in s else -90.0
            az = lr / 2 if "F" in s else math.copysign(135.0, lr)
        self.add("direction", i, e, azimuth_deg=az, azimuth_kind="word")
        return True

    def _relative_frame(self) -> bool:
        """The text places things relative to another sound ("Relative to the robot,
        ...", "... relative to the dog"), not to the listener."""
        for k in range(len(self.toks)):
            if self.lit(k, "relative to") or self.lit(k, "compared to") or \
                    self.lit(k, "compared with") or self.lit(k, "with respect to"):
                j = self.opt(k + 2 + (self.w(k) == "with"), "the", "a", "an")
                if self.w(j) not in _FRAME:
                    return True
        return False

    def r_height(self, i: int) -> bool:
        for p in ("at ear level", "ear level", "ear - level", "at head height",
                  "head height", "at head level", "head level", "eye level",
                  "at eye level", "at the listener's height", "at listener height",
                  "level with the listener", "level with you"):
            e = self.lit(i, p)
            if e is not None:
                self.add("height", i, e, elevation_deg=0.0)
                return True
        up = ("overhead", "from above", "high up", "up high", "up above", "elevated",
              "near the ceiling", "close to the ceiling", "by the ceiling",
              "on the ceiling", "upper", "above", "up")
        down = ("near the floor", "on the floor", "close to the floor", "by the floor",
                "from below", "down low", "low down", "low", "below", "beneath",
                "underneath", "lower", "down")
        for sign, words in ((1, up), (-1, down)):
            e = self.opt(i, *words)
            if e == i:
                continue
            w = self.w(i)
            if w in ("up", "down") and e == i + 1:
                return False
            if w in ("above", "below", "beneath", "underneath", "under"):
                det = self.opt(e, "the", "a", "an", "your", "my")
                if det > e and self.w(det) not in _FRAME and self.w(det) not in (
                        "horizon", "horizontal", "ear", "head"):
                    e2 = det + 1
                    self.add("spatial_relation", i, e2,
                             spatial_relations=["above" if sign > 0 else "below"])
                    return True
                e = self.opt(e, "the listener", "you", "the microphone", "the horizon",
                             "ear level", "your head")
            self.add("height", i, e, elevation_sign=sign)
            return True
        return False

    def r_distance(self, i: int) -> bool:
        for key, words in (("distance_max_m", ("within", "less than", "under", "no more than",
                                               "at most", "closer than", "nearer than")),
                           ("distance_min_m", ("more than", "over", "beyond", "at least",
                                               "farther than", "further than"))):
            k = self.opt(i, *words)
            if k == i:
                continue
            k = self.hedge(k)
            n = self.number(k)
            if n is not None and self.w(n[1]) in _METRE:
                e = self.opt(n[1] + 1, "away", "from the listener", "from you",
                             "from the microphone")
                self.add("distance", i, e, **{key: n[0]})
                return True
        k = self.hedge(i)
        n = self.number(k)
        if n is not None and self.w(n[1]) in _METRE:
            e = self.opt(n[1] + 1, "away", "from the listener", "from you",
                         "from the microphone", "from the mic")
            self.add("distance", i, e, distance_m=n[0])
            return True
        for cls, words in (("far", ("far away", "far off", "a long way off", "a long way away",
                                    "in the distance", "distant", "far")),
                           ("near", ("very close to the listener", "close to the listener",
                                     "close to you", "close to me", "very close", "close by",
                                     "nearby", "near the listener", "near you", "near me",
                                     "close", "near"))):
            e = self.opt(i, *words)
            if e > i:
                if self.w(i) in ("close", "near", "far") and e == i + 1 and \
                        self.w(e) in ("to", "the", "from", "than"):
                    return False
                self.add("distance", i, e, distance_class=cls)
                return True
        for rel, words in (("closer", ("closer", "nearer")),
                           ("farther", ("farther", "further", "more distant"))):
            e = self.opt(i, *words)
            if e > i:
                if self.w(i) == "further" and self.w(e) not in ("from", "away", "than"):
                    return False
                e = self.opt(e, "away", "to me", "to you", "to the listener",
                             "from the listener", "from you", "from me")
                e = self.opt(e, "than")
                self.add("spatial_relation", i, e, spatial_relations=[rel])
                return True
        return False

    def r_count(self, i: int) -> bool:
        k = self.opt(i, "there is", "there are", "there's")
        k = self.opt(k, "only", "just", "exactly", "at most", "a total of", "up to",
                     "precisely", "at least", "a maximum of")
        if self.lit(k, "no") is not None:
            j = k + 1
            while self.w(j) in _COUNT_ADJ and self.w(j + 1) in _COUNT_ADJ | _COUNT_NOUN:
                j += 1
            if self.w(j) in _COUNT_NOUN:
                e = self.opt(j + 1, "at all")
                self.add("count", i, e, count=0)
                return True
            return False
        j = self.opt(k, "a single", "one single", "a lone", "a sole", "a solitary")
        if j > k:
            v = 1.0
        else:
            n = self.number(k)
            if n is None:
                return False
            v, j = n
        if not float(v).is_integer() or v < 0:
            return False
        e = j
        while self.w(e) in _COUNT_ADJ and self.w(e + 1) in _COUNT_ADJ | _COUNT_NOUN and \
                e - j < 3:
            e += 1
        if self.w(e) in _COUNT_NOUN and not (self.w(e) == "one" and e == j):
            self.add("count", i, e + 1, count=int(v))
            return True
        # a bare number option: "3", "Five", "Just one.", "I count 4."
        rest = [t for t in self.toks[e:] if t.text not in (".", "!", ",")]
        frame = {"there", "is", "are", "only", "just", "exactly", "i", "we", "count",
                 "counted", "hear", "heard", "can", "make", "out", "detect", "total", "in",
                 "the", "answer", "number", ":", "it's", "it", "sources", "sounds"}
        if not rest and all(t.text in frame for t in self.toks[:i]):
            self.add("count", i, e, count=int(v))
            return True
        return False

    def r_temporal(self, i: int) -> bool:
        rels = (("contained_within", ("contained within", "contained in", "within the duration of",
                                      "fully inside", "entirely inside", "entirely within",
                                      "fully within", "inside", "nested within")),
                ("starts_earlier", ("starts earlier", "start earlier", "begins earlier",
                                    "begin earlier", "begins sooner", "begin sooner",
                                    "starts sooner", "start sooner", "starts first")),
                ("ends_later", ("ends later", "end later", "stops later", "stop later",
                                "finishes later", "finish later", "ends after",
                                "lasts longer")),
                ("starts_later", ("starts later", "start later", "begins later",
                                  "begin later")),
                ("ends_earlier", ("ends earlier", "end earlier", "stops earlier",
                                  "finishes earlier", "ends sooner")),
                ("overlaps", ("overlaps with", "overlap with", "overlapping with", "overlaps",
                              "overlap", "at the same time as", "simultaneously with",
                              "at the same time", "simultaneously", "concurrently with",
                              "coincides with")),
                ("during", ("during", "while", "whilst", "in the course of")),
                ("before", ("before", "preceding", "precedes", "precede", "preceded",
                            "prior to", "earlier than", "sooner than", "ahead of")),
                ("after", ("after", "following", "follows", "follow", "followed",
                           "later than", "once")))
        for name, words in rels:
            e = self.opt(i, *words)
            if e > i:
                if name == "before" and self.w(i) == "ahead" and not self.w(e):
                    return False
                if name == "during" and self.w(e) in ("which", "what"):
                    return False
                e = self.opt(e, "than")
                self.add("temporal_relation", i, e, temporal_relation=name)
                return True
        return False

    def r_asks(self, i: int) -> bool:
        for name, words in (("count", ("how many", "number of", "count the", "count")),
                            ("time", ("what time span", "what time", "time span",
                                      "time interval", "at what point", "over what period",
                                      "what period", "when", "how long", "interval",
                                      "period")),
                            ("direction", ("which direction", "what direction",
                                           "which way", "which side", "where", "direction"))):
            e = self.opt(i, *words)
            if e > i:
                self.add("asks", i, e, asks=name)
                return True
        return False


_NOT_LIST = {"time_point", "interval", "open_interval", "clip_part", "duration", "direction",
             "height", "distance", "spatial_relation"}
_RULES = ("r_interval", "r_start_end", "r_part", "r_open", "r_duration", "r_point", "r_clock",
          "r_angle", "r_height", "r_distance", "r_direction", "r_count", "r_temporal")
