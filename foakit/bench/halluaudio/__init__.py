"""HalluAudio (LuVox): parquet loading, closed-case scoring, judge requests, baselines and
the speech-activity / SNR audit of its labels."""

from .format import (
    CONFIGS,
    Audio,
    BrokenRow,
    Case,
    Corpus,
    Row,
    find_config_files,
    iter_rows,
    load_corpus,
    speech_presence,
    uncertain_spans,
)

__all__ = [
    "CONFIGS",
    "Audio",
    "BrokenRow",
    "Case",
    "Corpus",
    "Row",
    "find_config_files",
    "iter_rows",
    "load_corpus",
    "speech_presence",
    "uncertain_spans",
]
