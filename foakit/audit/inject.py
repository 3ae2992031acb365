"""Inject known label errors into a corpus, to measure an audit (and to test one).

The errors are those real pipelines make (``docs/conventions.md``): azimuth mirrored
(``az -> -az``), front and back exchanged (``az -> 180 - az``), an azimuth offset, the
elevation sign flipped, onsets and time spans shifted, one source's azimuths rotated.  An
error is only injected where it changes the label beyond what the benchmark's scorer
tolerates (azimuth by >= ``min_az_change_deg``, elevation by >= 2 x ``min_abs_el_deg``):
mirroring an azimuth of 5 deg is no error.

This module holds what every benchmark's injector shares (:func:`az_error`,
:func:`link_tree`); the injectors live with their benchmarks
(:mod:`foakit.bench.sobench.inject`, :mod:`foakit.bench.starss.inject`) and stay importable
from here for one release.
"""


from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from .._moved import moved_names
from ..conventions import azimuth_difference, wrap_azimuth

__all__ = ["AZIMUTH_ERRORS", "az_error", "link_tree"]

#: Azimuth error kinds.
AZIMUTH_ERRORS = ("mirror", "front_back", "offset")


def az_error(rng: np.random.Generator, az: float, min_change: float) -> tuple[float, str]:
    kinds = list(AZIMUTH_ERRORS)
    rng.shuffle(kinds)
    for kind in kinds:
        if kind == "mirror":
            new = -az
        elif kind == "front_back":
            new = 180.0 - az
        else:
            new = az + float(rng.choice([-1.0, 1.0])) * rng.uniform(max(50.0, min_change), 120.0)
        new = float(wrap_azimuth(new))
        if abs(float(azimuth_difference(new, az))) >= min_change:
            return round(new, 1), kind
    raise AssertionError("an offset always changes the azimuth")  # pragma: no cover


def link_tree(src: Path, dst: Path) -> None:
    """Recreate ``src`` under ``dst`` with hard links to its files (copies where links fail).

    Hard links cost no space and leave the copy a corpus of ordinary files, as the one it
    came from (the symlinked layouts are tested apart).
    """
    for dirpath, _, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            target = dst / rel / f
            if target.exists() or target.is_symlink():
                target.unlink()
            try:
                os.link(Path(dirpath) / f, target)
            except OSError:
                shutil.copy2(Path(dirpath) / f, target)


_MOVED = {
    "inject_sobench_errors": "foakit.bench.sobench.inject",
    "mirror_sobench_labels": "foakit.bench.sobench.inject",
    "inject_starss_errors": "foakit.bench.starss.inject",
    "transform_starss_labels": "foakit.bench.starss.inject",
}


__getattr__ = moved_names(__name__, _MOVED)
