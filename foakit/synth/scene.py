"""Scene description with known truth: sources, timing, room, noise.

A :class:`Scene` is pure data (JSON-able through :meth:`Scene.to_dict`); rendering lives in
:mod:`foakit.synth.render`.  Angles follow :mod:`foakit.conventions`: azimuth in degrees,
counter-clockwise from the front (+90 = left), wrapped to [-180, 180); elevation up positive.

Timing convention
-----------------
``onset_s`` / ``offset_s`` are the times at which the **direct sound** starts and stops in the
rendered file.  No propagation delay (``distance / c``) is applied; reflections and
reverberation follow the direct sound.  Truth time spans are therefore exactly
``[onset_s, offset_s]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..conventions import angular_distance, azimuth_difference, direction_to_vector, wrap_azimuth
from ..errors import ParameterError

__all__ = [
    "KINDS",
    "LABEL_KINDS",
    "LABELS",
    "MOTION_MIN_DEG",
    "SPEED_OF_SOUND",
    "Source",
    "Scene",
    "random_scene",
    "room_geometry",
]

#: Speed of sound (m/s) used for delays and room geometry.
SPEED_OF_SOUND = 343.0
#: A trajectory whose total azimuth change is below this (degrees) counts as stationary.
MOTION_MIN_DEG = 20.0
#: Signal families :func:`foakit.synth.source_signal` can make.
KINDS = (
    "speechlike",
    "harmonic",
    "bell",
    "impacts",
    "chirp",
    "noise",
    "alarm",
    "engine",
    "bark",
)
#: Default signal family of each sound class (label).
LABEL_KINDS: dict[str, str] = {
    "speech": "speechlike",
    "dog": "bark",
    "alarm": "alarm",
    "engine": "engine",
    "footsteps": "impacts",
    "piano": "harmonic",
    "gong": "bell",
    "telephone": "alarm",
    "knock": "impacts",
    "water": "noise",
    "bird": "chirp",
    "clapping": "impacts",
    "music": "harmonic",
}
#: Sound classes used by :func:`random_scene` (fixed order; also the STARSS class list).
LABELS: tuple[str, ...] = tuple(LABEL_KINDS)

_TIME_GRID = 0.1
_SRC_WALL_MARGIN = 0.5  # metres between a source and any wall
_MIC_WALL_MARGIN = 1.0  # metres between the microphone and any wall
_MIN_ROOM = (3.0, 3.0, 2.5)


@dataclass
class Source:
    """One sound event with its position and time span.

    Parameters
    ----------
    azimuth_deg, elevation_deg : float
        Direction (degrees) at ``onset_s``; azimuth is wrapped to [-180, 180).
    distance_m : float
        Distance from the microphone (m); the direct sound has amplitude ``1 / distance_m``.
    onset_s, offset_s : float
        Start and end of the direct sound in the rendered file (s), ``onset_s < offset_s``.
    label : str
        Sound class ("dog", "speech", ...).
    azimuth_end_deg : float or None
        Azimuth at ``offset_s`` for a moving source; the azimuth moves linearly along the
        shorter arc from ``azimuth_deg`` to ``azimuth_end_deg``.  None = stationary.
    level_db : float
        Source level relative to a unit-RMS source at 1 m.
    kind : str
        Signal family (one of :data:`KINDS`); empty = the default of ``label``
        (:data:`LABEL_KINDS`, else ``"noise"``).
    """

    azimuth_deg: float
    elevation_deg: float
    distance_m: float
    onset_s: float
    offset_s: float
    label: str
    azimuth_end_deg: float | None = None
    level_db: float = 0.0
    kind: str = ""

    def __post_init__(self) -> None:
        self.azimuth_deg = round(float(wrap_azimuth(self.azimuth_deg)), 9)
        if self.azimuth_end_deg is not None:
            self.azimuth_end_deg = round(float(wrap_azimuth(self.azimuth_end_deg)), 9)
        if not self.kind:
            self.kind = LABEL_KINDS.get(self.label, "noise")
        el, d, on, off = self.elevation_deg, self.distance_m, self.onset_s, self.offset_s
        if not -90.0 <= el <= 90.0:
            raise ParameterError(f"elevation_deg={el!r} must be in [-90, 90]")
        if not (d > 0 and math.isfinite(d)):
            raise ParameterError(f"distance_m={d!r} must be positive")
        if not (0.0 <= on < off):
            raise ParameterError(f"onset_s={on!r}, offset_s={off!r}: need 0 <= onset_s < offset_s")
        if self.kind not in KINDS:
            raise ParameterError(f"kind={self.kind!r} must be one of {KINDS}")

    @property
    def azimuth_change_deg(self) -> float:
        """Signed azimuth change over the event (degrees, shorter arc); 0 if stationary."""
        if self.azimuth_end_deg is None:
            return 0.0
        return float(azimuth_difference(self.azimuth_end_deg, self.azimuth_deg))

    @property
    def motion(self) -> str:
        """``"stationary"``, ``"right_to_left"`` (azimuth increases) or ``"left_to_right"``.

        A total azimuth change below :data:`MOTION_MIN_DEG` counts as stationary.
        """
        delta = self.azimuth_change_deg
        if abs(delta) < MOTION_MIN_DEG:
            return "stationary"
        return "right_to_left" if delta > 0 else "left_to_right"

    @property
    def is_moving(self) -> bool:
        """True when :attr:`motion` is not ``"stationary"``."""
        return self.motion != "stationary"

    def azimuth_at(self, t_s: Any) -> np.ndarray:
        """Azimuth (degrees) at time(s) ``t_s``, clamped to the event's span.

        Parameters
        ----------
        t_s : float or ndarray [shape=(k,)]
            Times in seconds from the start of the clip.

        Returns
        -------
        ndarray [shape=() or (k,)]
            Azimuths in [-180, 180).
        """
        t = np.asarray(t_s, dtype=float)
        frac = np.clip((t - self.onset_s) / (self.offset_s - self.onset_s), 0.0, 1.0)
        return wrap_azimuth(self.azimuth_deg + self.azimuth_change_deg * frac)

    @property
    def mid_azimuth_deg(self) -> float:
        """Azimuth half-way through the event (the position used for reverberation)."""
        return float(wrap_azimuth(self.azimuth_deg + 0.5 * self.azimuth_change_deg))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able truth, with the derived ``motion``."""
        d = asdict(self)
        d["motion"] = self.motion
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Source:
        """Inverse of :meth:`to_dict` (derived and unknown keys are ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class Scene:
    """A synthetic FOA scene.

    Parameters
    ----------
    sources : list of Source
        The sound events.
    duration_s : float
        Length of the rendered clip (s); every source must end by then.
    sample_rate : int
        Sampling rate (Hz).
    snr_db : float or None
        Diffuse background noise: mean power of the mixture of the direct sounds over the
        union of their active periods, measured on W, relative to the noise power on W.
        None = no noise.
    rt60_s : float or None
        Reverberation time; None = anechoic.
    room_dim : tuple of 3 floats or None
        Shoebox room size (m) for reverberant scenes; None = the smallest room that holds
        every source (see :func:`room_geometry`).
    seed : int
        Seeds the source signals, the noise and the reverberation tail.
    """

    sources: list[Source]
    duration_s: float
    sample_rate: int = 16000
    snr_db: float | None = None
    rt60_s: float | None = None
    room_dim: tuple[float, float, float] | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        self.sources = [s if isinstance(s, Source) else Source.from_dict(s) for s in self.sources]
        dur, sr = self.duration_s, self.sample_rate
        if not (dur > 0 and math.isfinite(dur)):
            raise ParameterError(f"duration_s={dur!r} must be positive")
        if int(sr) != sr or sr <= 0:
            raise ParameterError(f"sample_rate={sr!r} must be a positive integer")
        self.sample_rate = int(sr)
        if int(self.seed) != self.seed or self.seed < 0:
            raise ParameterError(f"seed={self.seed!r} must be a non-negative integer")
        self.seed = int(self.seed)
        for i, s in enumerate(self.sources):
            if s.offset_s > dur + 1e-9:
                raise ParameterError(
                    f"sources[{i}].offset_s={s.offset_s!r} is after duration_s={dur!r}"
                )
        if self.rt60_s is not None and not self.rt60_s > 0:
            raise ParameterError(f"rt60_s={self.rt60_s!r} must be positive or None")
        if self.room_dim is not None:
            rd = tuple(float(v) for v in self.room_dim)
            if len(rd) != 3 or min(rd) <= 0:
                raise ParameterError(f"room_dim={self.room_dim!r} must be 3 positive lengths (m)")
            self.room_dim = rd

    @property
    def n_samples(self) -> int:
        """Number of samples of the rendered clip."""
        return int(round(self.duration_s * self.sample_rate))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able truth.

        Keys: the fields, ``sources`` as dicts (with ``motion``), ``timing`` (a reminder of
        the timing convention) and, for reverberant scenes, ``geometry`` (room size and
        microphone position actually used, m).
        """
        d: dict[str, Any] = {
            "sources": [s.to_dict() for s in self.sources],
            "duration_s": self.duration_s,
            "sample_rate": self.sample_rate,
            "snr_db": self.snr_db,
            "rt60_s": self.rt60_s,
            "room_dim": list(self.room_dim) if self.room_dim is not None else None,
            "seed": self.seed,
            "timing": "direct sound starts at onset_s (no propagation delay)",
        }
        if self.rt60_s is not None:
            room, mic = room_geometry(self)
            d["geometry"] = {
                "room_dim_m": [round(v, 4) for v in room],
                "mic_position_m": [round(v, 4) for v in mic],
            }
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Scene:
        """Inverse of :meth:`to_dict`; derived and unknown keys are ignored."""
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        kw["sources"] = [Source.from_dict(s) for s in d.get("sources", [])]
        if kw.get("room_dim") is not None:
            kw["room_dim"] = tuple(kw["room_dim"])
        return cls(**kw)


def _source_offsets(scene: Scene) -> np.ndarray:
    """Positions (relative to the mic) every source occupies, shape (k, 3)."""
    pts = [np.zeros(3)]
    for s in scene.sources:
        az = s.azimuth_at(np.linspace(s.onset_s, s.offset_s, 9))
        el = np.full_like(az, s.elevation_deg)
        pts.append(s.distance_m * direction_to_vector(az, el))
    return np.vstack(pts)


def _required_extent(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    p = _source_offsets(scene)
    lo = np.maximum(np.maximum(-p.min(axis=0), 0.0) + _SRC_WALL_MARGIN, _MIC_WALL_MARGIN)
    hi = np.maximum(np.maximum(p.max(axis=0), 0.0) + _SRC_WALL_MARGIN, _MIC_WALL_MARGIN)
    return lo, hi


def room_geometry(scene: Scene) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Room size and microphone position used for a reverberant scene.

    Every source position (every point of a moving source's path) stays 0.5 m from the
    walls and the microphone 1 m from them.  With ``scene.room_dim`` None the room is the
    smallest such box (at least 3 x 3 x 2.5 m); otherwise the microphone is placed so the
    spare room is split evenly on both sides of each axis.

    Returns
    -------
    room_dim : tuple of 3 floats
        Room size (m).
    mic_position : tuple of 3 floats
        Microphone (W) position in room coordinates (m).
    """
    lo, hi = _required_extent(scene)
    need = lo + hi
    if scene.room_dim is None:
        room = np.maximum(need, _MIN_ROOM)
    else:
        room = np.asarray(scene.room_dim, dtype=float)
        if np.any(room < need - 1e-9):
            raise ParameterError(
                f"room_dim={scene.room_dim!r} is too small for the sources: need at least "
                f"{tuple(np.round(need, 2).tolist())} m"
            )
    mic = lo + 0.5 * (room - need)
    return tuple(float(v) for v in room), tuple(float(v) for v in mic)


def sabine_absorption(rt60_s: float, room_dim: Sequence[float]) -> float:
    """Uniform energy absorption coefficient giving ``rt60_s`` by Sabine's formula."""
    lx, ly, lz = (float(v) for v in room_dim)
    vol = lx * ly * lz
    surf = 2.0 * (lx * ly + lx * lz + ly * lz)
    return 0.161 * vol / (surf * float(rt60_s))


def _grid(t: float) -> float:
    return round(round(t / _TIME_GRID) * _TIME_GRID, 1)


def _as_range(value: Any, name: str) -> tuple[float, float] | None:
    if value is None:
        return None
    if np.isscalar(value):
        return float(value), float(value)
    lo, hi = (float(v) for v in value)
    if hi < lo:
        raise ParameterError(f"{name}={value!r}: (lo, hi) needs lo <= hi")
    return lo, hi


def _draw_times(
    rng: np.random.Generator, n: int, duration_s: float, moving: list[bool], overlap: bool
) -> list[tuple[float, float]]:
    max_len = max(1.0, min(6.0, 0.6 * duration_s))
    for _ in range(500):
        lens = []
        for mv in moving:
            lo = 2.0 if mv else 1.0
            lens.append(_grid(rng.uniform(min(lo, max_len), max(max_len, lo))))
        if overlap or n == 1:
            spans = []
            for ln in lens:
                ln = min(ln, _grid(duration_s) - 0.0)
                on = _grid(rng.uniform(0.0, max(duration_s - ln, 0.0)))
                spans.append((on, round(min(on + ln, duration_s), 1)))
            ons = sorted(s[0] for s in spans)
            if any(b - a < 0.3 - 1e-9 for a, b in zip(ons[:-1], ons[1:], strict=True)):
                continue
            if overlap and n > 1 and not any(
                a[0] < b[1] and b[0] < a[1] for i, a in enumerate(spans) for b in spans[i + 1 :]
            ):
                continue
            if all(b - a >= 1.0 - 1e-9 for a, b in spans):
                return spans
        else:
            gap = 0.3
            slack = duration_s - sum(lens) - gap * (n - 1)
            if slack < 0:
                continue
            parts = rng.dirichlet(np.ones(n + 1)) * slack
            t = parts[0]
            spans = []
            for i, ln in enumerate(lens):
                on = math.ceil(t / _TIME_GRID - 1e-9) * _TIME_GRID
                spans.append((round(on, 1), round(on + ln, 1)))
                t = on + ln + gap + parts[i + 1]
            if spans[-1][1] <= duration_s + 1e-9:
                return spans
    raise ParameterError(
        f"cannot place {n} events of >= 1 s in duration_s={duration_s!r} (overlap={overlap})"
    )


def random_scene(
    rng_or_seed: int | np.random.Generator,
    *,
    n_sources: int | tuple[int, int] = (1, 3),
    duration_s: float = 10.0,
    sample_rate: int = 16000,
    rt60_s: float | tuple[float, float] | None = None,
    snr_db: float | tuple[float, float] | None = None,
    distance_m: tuple[float, float] = (0.8, 4.5),
    elevation_deg: tuple[float, float] = (-40.0, 40.0),
    allow_motion: bool = False,
    min_separation_deg: float = 45.0,
    overlap: bool = True,
    labels: Sequence[str] = LABELS,
    motion_probability: float = 0.35,
) -> Scene:
    """Draw a random scene with known truth.

    Parameters
    ----------
    rng_or_seed : int or numpy.random.Generator
        An int is the scene seed; a Generator draws one.  Everything (geometry, timing,
        signals, noise) then follows from ``Scene.seed``.
    n_sources : int or (int, int)
        Number of sources, or an inclusive range.  Labels are distinct within a scene.
    duration_s, sample_rate : float, int
        Clip length (s) and rate (Hz).
    rt60_s : float, (float, float) or None
        Reverberation time or uniform range; None = anechoic.  A value too short for the
        room (Sabine absorption above 0.8) is raised to the shortest feasible one.
    snr_db : float, (float, float) or None
        Background diffuse noise SNR or uniform range; None = no noise.
    distance_m, elevation_deg : (float, float)
        Uniform ranges of distance (m) and elevation (degrees).
    allow_motion : bool
        Let each source move (probability ``motion_probability``) by 40-120 degrees of
        azimuth over an event of at least 2 s.
    min_separation_deg : float
        Smallest great-circle angle between any two source positions (moving sources are
        checked along their path).
    overlap : bool
        True: at least two events overlap in time (when there are two or more);
        False: events are disjoint with >= 0.3 s gaps.
    labels : sequence of str
        Classes to draw from (without replacement).

    Returns
    -------
    Scene
        Events last >= 1 s, onsets and offsets lie on a 0.1 s grid and onsets differ by at
        least 0.3 s.
    """
    if isinstance(rng_or_seed, np.random.Generator):
        seed = int(rng_or_seed.integers(0, 2**31 - 1))
    elif isinstance(rng_or_seed, (int, np.integer)) and rng_or_seed >= 0:
        seed = int(rng_or_seed)
    else:
        raise ParameterError(f"{rng_or_seed=!r} must be a non-negative int or a Generator")
    rng = np.random.default_rng(seed)
    labels = list(labels)
    if np.isscalar(n_sources):
        n = int(n_sources)
    else:
        lo, hi = (int(v) for v in n_sources)
        if not 0 <= lo <= hi:
            raise ParameterError(f"{n_sources=!r}: (lo, hi) needs 0 <= lo <= hi")
        n = int(rng.integers(lo, hi + 1))
    if n < 0 or n > len(labels):
        raise ParameterError(f"{n_sources=!r} needs 0..{len(labels)} sources (distinct labels)")
    if duration_s < 1.0:
        raise ParameterError(f"{duration_s=!r} must be at least 1.0 s")
    if min_separation_deg < 0 or min_separation_deg > 120:
        raise ParameterError(f"{min_separation_deg=!r} must be in [0, 120]")
    d_lo, d_hi = _as_range(distance_m, "distance_m")
    e_lo, e_hi = _as_range(elevation_deg, "elevation_deg")
    if d_lo <= 0 or e_lo < -90 or e_hi > 90:
        raise ParameterError(f"{distance_m=!r} / {elevation_deg=!r} out of range")
    rt_range = _as_range(rt60_s, "rt60_s")
    snr_range = _as_range(snr_db, "snr_db")

    chosen = [labels[i] for i in rng.permutation(len(labels))[:n]]
    moving = [bool(allow_motion and rng.random() < motion_probability) for _ in range(n)]
    spans = _draw_times(rng, n, float(duration_s), moving, overlap)

    sources: list[Source] = []
    for i in range(n):
        for _ in range(2000):
            az = round(float(rng.uniform(-180.0, 180.0)), 1)
            el = round(float(rng.uniform(e_lo, e_hi)), 1)
            az_end = None
            if moving[i]:
                sweep = float(rng.uniform(40.0, 120.0)) * (1 if rng.random() < 0.5 else -1)
                az_end = round(float(wrap_azimuth(az + sweep)), 1)
            cand = Source(
                az, el, round(float(rng.uniform(d_lo, d_hi)), 2), spans[i][0], spans[i][1],
                chosen[i], azimuth_end_deg=az_end,
                level_db=round(float(rng.uniform(-4.0, 0.0)), 1),
            )
            if all(_separation(cand, other) >= min_separation_deg for other in sources):
                sources.append(cand)
                break
        else:
            raise ParameterError(
                f"cannot place {n} sources {min_separation_deg=} degrees apart"
            )

    scene = Scene(sources, float(duration_s), sample_rate=sample_rate, seed=seed)
    if snr_range is not None:
        scene.snr_db = round(float(rng.uniform(*snr_range)), 1)
    if rt_range is not None:
        rt = float(rng.uniform(*rt_range))
        lo, hi = _required_extent(scene)
        need = np.maximum(lo + hi, _MIN_ROOM)
        extra = rng.uniform(0.0, 1.0, 3) * np.array([3.0, 3.0, 1.5])
        room = tuple(float(v) for v in np.round(need + extra + 0.05, 1))
        rt = max(rt, 0.161 * np.prod(room) / (2 * (room[0] * room[1] + room[0] * room[2]
                                                  + room[1] * room[2]) * 0.8))
        scene.rt60_s = round(float(rt), 3)
        scene.room_dim = room
    return scene


def _separation(a: Source, b: Source) -> float:
    ta = np.linspace(a.onset_s, a.offset_s, 5)
    tb = np.linspace(b.onset_s, b.offset_s, 5)
    aza, azb = np.meshgrid(a.azimuth_at(ta), b.azimuth_at(tb), indexing="ij")
    ela, elb = np.full_like(aza, a.elevation_deg), np.full_like(azb, b.elevation_deg)
    return float(np.min(angular_distance(aza, ela, azb, elb)))
