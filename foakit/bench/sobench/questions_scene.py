"""Which sources, pairs and windows a synthetic scene lets a question name.

:class:`_Ctx` holds what a scene allows (sources named by sector, by a clear direction of
arrival, by order of onset); the choosers below pick the pair, window or next sound a task
asks about, shared by both question styles (:mod:`foakit.bench.sobench.questions_build`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...conventions import azimuth_difference, wrap_azimuth
from ...synth.scene import Scene, Source
from .questions_words import SECTOR_PHRASES, SECTORS

_SECTOR_MARGIN = 5.0  # degrees a named source keeps from a sector boundary
_ORDER_GAP = 0.5  # seconds that make "first"/"last" unambiguous


def sector_of(azimuth_deg: float) -> tuple[str, float]:
    """Sector name of an azimuth and its distance (degrees) to the nearest sector boundary."""
    diffs = [abs(float(azimuth_difference(azimuth_deg, c))) for c, _ in SECTORS]
    k = int(np.argmin(diffs))
    return SECTORS[k][1], 22.5 - diffs[k]


def _deg(x: float) -> int:
    return int(wrap_azimuth(round(x)))


def _span(s: Source) -> list[float]:
    return [round(s.onset_s, 2), round(s.offset_s, 2)]


class _Ctx:
    """What a scene allows: which sources can be named and how."""

    def __init__(self, scene: Scene, rng: np.random.Generator) -> None:
        self.scene, self.rng = scene, rng
        self.src = scene.sources
        self.stat = [i for i, s in enumerate(self.src) if not s.is_moving]
        occupied: dict[str, list[int]] = {}
        for i, s in enumerate(self.src):
            azs = s.azimuth_at(np.linspace(s.onset_s, s.offset_s, 25)) if s.is_moving else [
                s.azimuth_deg]
            for name in {sector_of(a)[0] for a in azs}:
                occupied.setdefault(name, []).append(i)
        self.sector: dict[int, str] = {}
        for i in self.stat:
            name, margin = sector_of(self.src[i].azimuth_deg)
            if occupied[name] == [i] and margin >= _SECTOR_MARGIN:
                self.sector[i] = name
        self.doa_ok = [i for i in self.stat if all(
            np.min(np.abs(azimuth_difference(
                o.azimuth_at(np.linspace(o.onset_s, o.offset_s, 25)),
                self.src[i].azimuth_deg))) >= 30.0
            for j, o in enumerate(self.src) if j != i)]
        self.order: dict[int, str] = {}
        if len(self.src) >= 2:
            ons = sorted(range(len(self.src)), key=lambda j: self.src[j].onset_s)
            first, second = ons[0], ons[1]
            if self.src[second].onset_s - self.src[first].onset_s >= _ORDER_GAP:
                self.order[first] = "the first sound"
            last, prev = ons[-1], ons[-2]
            if (self.src[last].onset_s - self.src[prev].onset_s >= _ORDER_GAP
                    and self.src[last].offset_s >= max(s.offset_s for s in self.src)):
                self.order[last] = "the last sound"

    def pick(self, items: Sequence[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def by_class(self, i: int) -> str:
        return f"the sound of the {self.src[i].label}"

    def by_location(self, i: int, *, numeric: bool | None = None) -> str | None:
        if numeric is None:
            numeric = i not in self.sector or self.rng.random() < 0.25
        if numeric:
            return None if i not in self.doa_ok else (
                f"the sound coming from about {_deg(self.src[i].azimuth_deg)} degrees azimuth")
        return f"the sound coming from {SECTOR_PHRASES[self.sector[i]]}"

    def ref(self, i: int) -> str:
        """Class or order reference (order with probability 0.3 when unambiguous)."""
        if i in self.order and self.rng.random() < 0.3:
            return self.order[i]
        return self.by_class(i)


Item = tuple[str, str, str, dict[str, Any], list[int]]  # core, answer, canonical, meta, refs


# --- scene facts both styles ask about (they choose; the styles only word) ----------------

def _relation_pairs(c: _Ctx, task: str) -> list[tuple[int, int, str]]:
    """Ordered pairs of still sources a relation task can ask about, with the relation:
    left / right (sine of azimuth >= 0.25 apart), higher / lower (>= 10 deg), farther /
    closer (>= 0.75 m)."""
    pairs = []
    for a in c.stat:
        for b in c.stat:
            if a == b:
                continue
            sa, sb = c.src[a], c.src[b]
            if task == "relative_left_right":
                d = np.sin(np.deg2rad(sa.azimuth_deg)) - np.sin(np.deg2rad(sb.azimuth_deg))
                ok, rel = abs(d) >= 0.25, ("left" if d > 0 else "right")
            elif task == "compare_elevation":
                d = sa.elevation_deg - sb.elevation_deg
                ok, rel = abs(d) >= 10.0, ("higher" if d > 0 else "lower")
            else:
                d = sa.distance_m - sb.distance_m
                ok, rel = abs(d) >= 0.75, ("farther" if d > 0 else "closer")
            if ok:
                pairs.append((a, b, rel))
    return pairs


def _motion_source(c: _Ctx) -> int:
    """A moving source when there is one, else any source (drawn)."""
    moving = [i for i, s in enumerate(c.src) if s.is_moving]
    return c.pick(moving) if moving else c.pick(range(len(c.src)))


def _solo_window(c: _Ctx, i: int) -> tuple[float, float]:
    """The longest part of source ``i``'s activity that no other source covers."""
    s = c.src[i]
    t0, t1 = s.onset_s, s.offset_s
    for j, o in enumerate(c.src):
        if j == i or o.offset_s <= t0 or o.onset_s >= t1:
            continue
        left, right = (t0, min(t1, o.onset_s)), (max(t0, o.offset_s), t1)
        t0, t1 = max((left, right), key=lambda w: w[1] - w[0])
    return t0, t1


def _next_sound(c: _Ctx, i: int, ons: list[int]) -> int | None:
    """The source that starts next after ``i`` (``ons``: sources by onset), or None when
    there is none, it moves, or the one after it starts within 0.3 s of it."""
    k = ons.index(i)
    if k + 1 >= len(ons):
        return None
    nxt = ons[k + 1]
    gaps = [c.src[j].onset_s - c.src[i].onset_s for j in ons[k + 1:]]
    if c.src[nxt].is_moving or (len(gaps) > 1 and gaps[1] - gaps[0] < 0.3):
        return None
    return nxt
