"""HalluAudio (LuVox): parquet loading, closed-case scoring, judge requests, baselines and
the speech-activity / SNR audit of its labels (docs/halluaudio.md)."""

from .audit import RULES, THRESHOLDS, AuditResult, audit, judge_audio, write_report
from .baselines import KINDS, baseline_responses, write_responses
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
from .judge import judge_requests, leaks
from .scoring import (
    JUDGE_LABELS,
    SCORER_VERSION,
    extract_choice,
    format_report,
    normalize,
    read_judge_labels,
    read_responses,
    score,
    score_case,
    violated_claims,
)
from .synth import FAMILIES, WRONG_KINDS, write_corpus

__all__ = [
    "CONFIGS", "Audio", "BrokenRow", "Case", "Corpus", "Row", "find_config_files",
    "iter_rows", "load_corpus", "speech_presence", "uncertain_spans",
    "JUDGE_LABELS", "SCORER_VERSION", "extract_choice", "format_report", "normalize",
    "read_judge_labels", "read_responses", "score", "score_case", "violated_claims",
    "judge_requests", "leaks", "KINDS", "baseline_responses", "write_responses",
    "RULES", "THRESHOLDS", "AuditResult", "audit", "judge_audio", "write_report",
    "FAMILIES", "WRONG_KINDS", "write_corpus",
]
