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

from ..._moved import lazy_names

# Where each public name lives.  Names load on first use (PEP 562), so that
# ``foakit --help`` and every other command, which import each benchmark's cli module,
# do not pay for SciPy and the audit machinery.
_WHERE = {
    "TASKS": "format",
    "CATEGORIES": "format",
    "CATEGORY_OF": "format",
    "MIXED": "format",
    "SPEECH_TASKS": "format",
    "ChatItem": "format",
    "ChatCorpus": "format",
    "load_chat": "format",
    "parse_meta_info": "format",
    "transcription_of": "format",
    "RULES": "audit",
    "AirbenchAudit": "audit",
    "audit_airbench": "audit",
    "PROMPT_TEMPLATE": "judge",
    "build_prompt": "judge",
    "build_requests": "judge",
    "parse_judge_line": "scoring",
    "read_judged": "scoring",
    "split_orders": "scoring",
    "score_order": "scoring",
    "score_judged": "scoring",
    "DEFECTS": "synth",
    "write_corpus": "synth",
    "write_judge_files": "synth",
}

__all__ = list(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
