"""Rooms whose floor and ceiling absorb unlike the walls: the ``"ism-surfaces"`` and
``"pyroomacoustics-surfaces"`` engines.

The ``"ism"`` and ``"pyroomacoustics"`` engines give all six surfaces of a room the one
absorption Sabine's formula asks of ``rt60_s``, so their floor and ceiling reflections are
alike and their pulls on an elevation estimate cancel.  Real rooms rarely are: a hard floor
under an absorbing ceiling (offices, classrooms) or a carpet under a plaster ceiling.  The
``-surfaces`` engines are the same image-source models with, per scene, one of floor and
ceiling hard (``HARD`` times the mean absorption) and the other soft (``SOFT`` times, at most
``MAX_ALPHA``), the floor the hard one with probability ``FLOOR_HARD``, and the walls taking
what keeps the room's total absorption (Sabine's area-weighted mean, so ``rt60_s`` holds).
Broadband like their base engines, with their late tails: they are a family to choose
settings on, unlike ``"pyroomacoustics-bands"`` (:mod:`foakit.synth.bands`), which stays a
room model nothing is chosen on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .scene import Scene

__all__ = ["FLOOR_HARD", "HARD", "MAX_ALPHA", "SOFT", "SURFACE_ENGINES", "Surfaces",
           "base_engine", "draw_surfaces", "image_gains"]

#: The ``-surfaces`` engines and the image-source engine each is built on.
SURFACE_ENGINES = {"ism-surfaces": "ism", "pyroomacoustics-surfaces": "pyroomacoustics"}
#: Probability that the floor is the hard one of floor and ceiling.
FLOOR_HARD = 0.7
#: Range of the hard surface's absorption, times the room's mean.
HARD = (0.1, 0.4)
#: Range of the soft surface's absorption, times the room's mean.
SOFT = (1.6, 2.6)
#: Highest absorption any surface gets.
MAX_ALPHA = 0.95


@dataclass(frozen=True)
class Surfaces:
    """Which of floor and ceiling is hard, and their absorptions relative to the mean."""

    floor_hard: bool
    hard: float
    soft: float

    def absorption(self, room, alpha: float) -> tuple[float, ...]:
        """Energy absorption of the six surfaces (x = 0, x = L, y = 0, y = L, floor,
        ceiling) of a room of size ``room`` (m) whose area-weighted mean is ``alpha``
        (short of it only where every surface is at ``MAX_ALPHA``)."""
        lx, ly, lz = (float(v) for v in room)
        hard = alpha * self.hard
        soft = min(MAX_ALPHA, alpha * self.soft)
        floor, ceiling = (hard, soft) if self.floor_hard else (soft, hard)
        flat, walls = lx * ly, 2.0 * lz * (lx + ly)
        total = alpha * (2.0 * flat + walls)
        wall = (total - flat * (floor + ceiling)) / walls
        if not 0.01 <= wall <= MAX_ALPHA:
            # the walls cannot take the rest (a wide, low room): they take their limit and
            # floor and ceiling are scaled to keep the total
            wall = float(np.clip(wall, 0.01, MAX_ALPHA))
            k = (total - walls * wall) / (flat * (floor + ceiling))
            floor, ceiling = min(MAX_ALPHA, floor * k), min(MAX_ALPHA, ceiling * k)
        return (wall, wall, wall, wall, floor, ceiling)


def draw_surfaces(scene: Scene) -> Surfaces:
    """The scene's surfaces, seeded from ``scene.seed`` (its own stream)."""
    rng = np.random.default_rng([scene.seed, 17])
    return Surfaces(floor_hard=bool(rng.random() < FLOOR_HARD), hard=float(rng.uniform(*HARD)),
                    soft=float(rng.uniform(*SOFT)))


def base_engine(engine: str, scene: Scene) -> tuple[str, Surfaces | None]:
    """The image-source engine behind ``engine`` and the scene's surfaces (None: all six
    alike)."""
    if engine in SURFACE_ENGINES:
        return SURFACE_ENGINES[engine], draw_surfaces(scene)
    return engine, None


def image_gains(n_max: int, absorption) -> np.ndarray:
    """Reflection gain of each image of the ``"ism"`` engine's image grid (per axis the
    images ``p + 2 n L`` then ``-p + 2 n L``, ``n = -n_max ... n_max``; raveled in C order
    over x, y, z): the product over the surfaces it reflects off of ``sqrt(1 - alpha)``."""
    nn = np.arange(-n_max, n_max + 1)
    # reflections off the low (x = 0) and the high (x = L) surface of each axis
    low = np.concatenate([np.abs(nn), np.abs(nn - 1)])
    high = np.concatenate([np.abs(nn), np.abs(nn)])
    beta = np.sqrt(1.0 - np.asarray(absorption, dtype=float))
    per_axis = [beta[2 * k] ** low * beta[2 * k + 1] ** high for k in range(3)]
    return np.einsum("i,j,k->ijk", *per_axis).ravel()
