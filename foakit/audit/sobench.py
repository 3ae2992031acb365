"""SO-Bench label audit (former import path).

Moved to :mod:`foakit.bench.sobench.audit`; this module re-exports it for one release.
"""

from __future__ import annotations

from foakit.bench.sobench.audit import *  # noqa: F403
from foakit.bench.sobench.audit import __all__  # noqa: F401
