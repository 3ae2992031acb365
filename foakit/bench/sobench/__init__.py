"""SO-Bench: spatial-audio QA over 16 kHz FOA clips (``docs/sobench.md``).

* :mod:`.format`: ``qa/<split>.jsonl``, audio paths, ``predictions.jsonl`` (re-exported here).
* :mod:`.baselines`: oracle / prior / dsp predictions (:func:`~.baselines.run_baseline`).
* :mod:`.scoring`: local scoring by the official rules (:func:`~.scoring.score_predictions`).
* :mod:`.audit`: label audit (:func:`~.audit.audit_sobench`).
* :mod:`.inject`: known label errors injected into a corpus, to measure the audit.
* :mod:`.synth`: SO-Bench-layout synthetic corpora; :mod:`.questions_synth` their questions.
* :mod:`.cli`: the ``sobench`` sub-commands of ``foakit baseline``, ``score`` and ``audit``.
"""

from __future__ import annotations

from .format import (
    RELATION_TASKS,
    REQUIRED_KEYS,
    SOURCE_TASKS,
    TASKS,
    Cues,
    QAItem,
    QASet,
    load_qa,
    parse_question,
    prediction_text,
    qa_file,
    read_predictions,
    referents,
    resolve_audio_path,
    write_predictions,
)

__all__ = [
    "TASKS",
    "SOURCE_TASKS",
    "RELATION_TASKS",
    "REQUIRED_KEYS",
    "QAItem",
    "QASet",
    "qa_file",
    "load_qa",
    "resolve_audio_path",
    "prediction_text",
    "read_predictions",
    "write_predictions",
    "Cues",
    "parse_question",
    "referents",
]
