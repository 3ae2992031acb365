"""RMS-AQA: two-stage spatial QA over 10 s, 24 kHz FOA clips (``docs/rmsaqa.md``).

* :mod:`.format`: the QA file or per-sample directory (per-record problem reports), audio
  paths, answers (foakit's JSONL or the official evaluation log).
* :mod:`.extract`: the option letter of a model's answer text (the official rule).
* :mod:`.scoring`: A_S1, A_S2, A_GS2 overall and per category.
* :mod:`.claims`: what an option claims (count, direction, time, sound list).
* :mod:`.baselines`: oracle / chance / prior / dsp answers.
* :mod:`.audit`: signal checks of the decidable answers and the convention audit.
* :mod:`.synth`: RMS-AQA-layout synthetic corpora (:mod:`.synth_qa` their questions).
* :mod:`.demo`: the demo corpus and its per-category baseline table.
* :mod:`.cli`: the ``rmsaqa`` sub-commands of ``foakit baseline``, ``score``, ``audit``.
"""

from __future__ import annotations

from ..._moved import lazy_names

# Where each public name lives.  Names load on first use (PEP 562), so that
# ``foakit --help``, which imports every command's cli module, does not pay for
# NumPy, SciPy and the audit machinery.
_WHERE = {
    "CATEGORIES": "format",
    "KINDS": "baselines",
    "LETTERS": "format",
    "METRICS": "scoring",
    "STATUSES": "extract",
    "ANSWER_FIELDS": "answers",
    "CONDITIONING": "answers",
    "SPLIT_AUDIO": "format",
    "derived_audio_path": "format",
    "sample_files": "format",
    "AuditConfig": "audit",
    "BaselineRun": "baselines",
    "Claim": "claims",
    "DspConfig": "baselines",
    "Item": "format",
    "Pair": "format",
    "QASet": "format",
    "RecordProblem": "format",
    "analyze_for_qa": "baselines",
    "audit_rmsaqa": "audit",
    "audio_file": "format",
    "chance_answers": "baselines",
    "check_audio": "format",
    "demo_reports": "demo",
    "demo_table": "demo",
    "dsp_answer": "baselines",
    "dsp_answers": "baselines",
    "extract_letter": "extract",
    "format_comparison": "scoring",
    "format_report": "scoring",
    "load_qa": "format",
    "max_overlap": "baselines",
    "oracle_answers": "baselines",
    "overlap_count": "baselines",
    "prior_answers": "baselines",
    "prior_letters": "baselines",
    "qa_path": "synth",
    "read_answers": "answers",
    "read_claim": "claims",
    "run_baseline": "baselines",
    "score_answers": "scoring",
    "source_count": "baselines",
    "write_answers": "answers",
    "write_audit": "audit",
    "write_rmsaqa_corpus": "synth",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
