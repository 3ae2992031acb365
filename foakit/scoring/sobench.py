"""SO-Bench scoring (former import path).

Moved to :mod:`foakit.bench.sobench.scoring`; this module re-exports it for one release.
"""

from __future__ import annotations

from foakit.bench.sobench.scoring import *  # noqa: F403
from foakit.bench.sobench.scoring import __all__  # noqa: F401
