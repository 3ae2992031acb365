"""SO-Bench question generator (former import path).

Moved to :mod:`foakit.bench.sobench.questions_synth`; this module re-exports it for one release.
"""

from __future__ import annotations

from foakit.bench.sobench.questions_synth import *  # noqa: F403
from foakit.bench.sobench.questions_synth import __all__  # noqa: F401
