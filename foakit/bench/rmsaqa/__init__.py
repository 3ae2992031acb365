"""RMS-AQA: two-stage spatial QA over 10 s, 24 kHz FOA clips (``docs/rmsaqa.md``).

* :mod:`.format`: the QA JSON (per-record problem reports), audio paths, answers JSONL.
* :mod:`.extract`: the option letter of a model's answer text (the reference order).
* :mod:`.scoring`: A_S1, A_S2, A_GS2 overall and per category.
* :mod:`.claims`: what an option claims (count, direction, time, sound list).
* :mod:`.baselines`: oracle / chance / prior / dsp answers.
* :mod:`.audit`: signal checks of the decidable answers and the convention audit.
* :mod:`.synth`: RMS-AQA-layout synthetic corpora (:mod:`.synth_qa` their questions).
* :mod:`.demo`: the demo corpus and its per-category baseline table.
* :mod:`.cli`: the ``rmsaqa`` sub-commands of ``foakit baseline``, ``score``, ``audit``.
"""

from __future__ import annotations

from .audit import AuditConfig, audit_rmsaqa, write_audit
from .baselines import (
    KINDS,
    BaselineRun,
    DspConfig,
    analyze_for_qa,
    chance_answers,
    dsp_answer,
    dsp_answers,
    oracle_answers,
    prior_answers,
    prior_letters,
    run_baseline,
    source_count,
)
from .claims import Claim, read_claim
from .demo import demo_reports, demo_table
from .extract import RULES, extract_letter
from .format import (
    CATEGORIES,
    LETTERS,
    Item,
    Pair,
    QASet,
    RecordProblem,
    audio_file,
    check_audio,
    load_qa,
    read_answers,
    write_answers,
)
from .scoring import METRICS, format_comparison, format_report, score_answers
from .synth import qa_path, write_rmsaqa_corpus

__all__ = [
    "CATEGORIES",
    "KINDS",
    "LETTERS",
    "METRICS",
    "RULES",
    "AuditConfig",
    "BaselineRun",
    "Claim",
    "DspConfig",
    "Item",
    "Pair",
    "QASet",
    "RecordProblem",
    "analyze_for_qa",
    "audit_rmsaqa",
    "audio_file",
    "chance_answers",
    "check_audio",
    "demo_reports",
    "demo_table",
    "dsp_answer",
    "dsp_answers",
    "extract_letter",
    "format_comparison",
    "format_report",
    "load_qa",
    "oracle_answers",
    "prior_answers",
    "prior_letters",
    "qa_path",
    "read_answers",
    "read_claim",
    "run_baseline",
    "score_answers",
    "source_count",
    "write_answers",
    "write_audit",
    "write_rmsaqa_corpus",
]
