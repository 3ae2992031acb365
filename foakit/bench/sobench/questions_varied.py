"""The "varied" question style's words; the builder is :mod:`foakit.bench.sobench.questions_synth`
(``STYLES["varied"]``), re-exported here for one release."""

from __future__ import annotations

from .questions_synth import (
    LABEL_WORDS,
    SECTOR_WORDS,
    STYLES,
    VARIED_ENDINGS,
    VARIED_PREAMBLES,
)

__all__ = ["VARIED_PREAMBLES", "VARIED_ENDINGS", "SECTOR_WORDS", "LABEL_WORDS", "BUILDERS"]

BUILDERS = STYLES["varied"].builders
