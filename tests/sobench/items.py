"""Hand-made SO-Bench QA items for the audit tests (all about one clip, ``a``)."""

from foakit.bench.sobench.format import QAItem


def audit_item(qa_id, task, question, answer="", canonical="", meta=None, refs=None):
    """A QA item of clip ``a`` (``audio/test/a.wav``); ``refs``: its ``source_refs``."""
    record = {"audio_id": "a"} if refs is None else {"audio_id": "a", "source_refs": refs}
    return QAItem(qa_id=qa_id, audio_path="audio/test/a.wav", task_name=task,
                  question=question, answer=answer, canonical_answer=canonical,
                  answer_meta=meta or {}, record=record)
