"""SO-Bench baselines (former import path).

Moved to :mod:`foakit.bench.sobench.baselines`; this module re-exports it for one release.
"""

from __future__ import annotations

from foakit.bench.sobench.baselines import *  # noqa: F403
from foakit.bench.sobench.baselines import __all__  # noqa: F401
