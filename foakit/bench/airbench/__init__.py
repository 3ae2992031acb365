"""AIR-Bench Chat: corpus loading, the signal audit, judge requests and score aggregation.

* :mod:`.format`: Chat/Chat_meta.json and the evalscope record form; tasks -> categories.
* :mod:`.audit`: ``foakit audit airbench`` (decodability, levels, clipping, stereo faults,
  speech against the task and meta_info, duration / loudness outliers, duplicates).
* :mod:`.judge`: ``foakit judge-requests airbench`` (the official pairwise prompt, both
  orders; nothing is sent).
* :mod:`.scoring`: ``foakit score airbench`` (the official cal_score.py aggregation, per
  order and combined).
* :mod:`.synth`: a synthetic corpus with known defects, and judge outputs.
"""

from __future__ import annotations

from .audit import RULES, AirbenchAudit, audit_airbench
from .format import (
    CATEGORIES,
    CATEGORY_OF,
    MIXED,
    SPEECH_TASKS,
    TASKS,
    ChatCorpus,
    ChatItem,
    load_chat,
    parse_meta_info,
    transcription_of,
)
from .judge import PROMPT_TEMPLATE, build_prompt, build_requests
from .scoring import parse_judge_line, read_judged, score_judged, score_order
from .synth import DEFECTS, write_corpus, write_judge_files

__all__ = [
    "TASKS", "CATEGORIES", "CATEGORY_OF", "MIXED", "SPEECH_TASKS", "ChatItem", "ChatCorpus",
    "load_chat", "parse_meta_info", "transcription_of",
    "RULES", "AirbenchAudit", "audit_airbench",
    "PROMPT_TEMPLATE", "build_prompt", "build_requests",
    "parse_judge_line", "read_judged", "score_order", "score_judged",
    "DEFECTS", "write_corpus", "write_judge_files",
]
