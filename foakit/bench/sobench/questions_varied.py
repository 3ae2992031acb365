"""The "varied" question style's words (:mod:`foakit.bench.sobench.questions_words`) and
builders (``STYLES["varied"]`` of :mod:`foakit.bench.sobench.questions_synth`), re-exported
here for one release."""

from __future__ import annotations

from .questions_synth import STYLES
from .questions_words import LABEL_WORDS, SECTOR_WORDS, VARIED_ENDINGS, VARIED_PREAMBLES

__all__ = ["VARIED_PREAMBLES", "VARIED_ENDINGS", "SECTOR_WORDS", "LABEL_WORDS", "BUILDERS"]

BUILDERS = STYLES["varied"].builders
