"""STARSS label audit (former import path).

Moved to :mod:`foakit.bench.starss.audit`; this module re-exports it for one release.
"""

from __future__ import annotations

from foakit.bench.starss.audit import *  # noqa: F403
from foakit.bench.starss.audit import __all__  # noqa: F401
