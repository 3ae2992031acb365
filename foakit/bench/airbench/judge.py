"""Judge requests for AIR-Bench Chat: the official pairwise prompt, in both orders.

``score_chat.py`` (OFA-Sys/AIR-Bench) builds one user message per item from a fixed
template: the audio description (``meta_info``), the question, then Assistant 1's and
Assistant 2's answers (the reference ``answer_gt`` first), asking for one line of two
scores.  foakit writes the same message for ``reference-first`` and, with the answers
exchanged, for ``model-first`` (the swapped "cir" order), with a ``pair_id`` shared by
the two orders of an item.  Nothing is sent anywhere.

Where foakit differs, and why:

* The template's placeholders are filled in one pass: the official chain of
  ``str.replace`` calls also replaces a placeholder word that appears *inside* an
  earlier-filled text (an answer that contains ``XAssistant2X``).
* The official script sets ``temperature`` 2.0 on a random half of the requests; foakit
  sets no sampling parameters (the user's judge client does).
* An item without ``meta_info`` stops the official script (``exit(1)``); foakit skips it
  and reports it, as it skips (and reports) items whose ``response`` is None, which the
  official script skips silently.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from ...errors import ParameterError
from .format import item_key

__all__ = ["PROMPT_TEMPLATE", "ORDER_CHOICES", "build_prompt", "build_requests"]

#: The official template (``score_chat.py``); the four placeholders are filled in one pass.
PROMPT_TEMPLATE = (
    "You are a helpful and precise assistant for checking the quality of the answer.\n"
    "[Detailed Audio Description]\nXAudioX\n[Question]\nXQuestionX\n"
    "[The Start of Assistant 1s Answer]\nXAssistant1X\n[The End of Assistant 1s Answer]\n"
    "[The Start of Assistant 2s Answer]\nXAssistant2X\n[The End of Assistant 2s Answer]\n"
    "[System]\n"
    "We would like to request your feedback on the performance of two AI assistants in "
    "response to the user question and audio description displayed above. AI assistants "
    "are provided with detailed audio descriptions and questions.\n"
    "Please rate the helpfulness, relevance, accuracy, and comprehensiveness of their "
    "responses. Each assistant receives an overall score on a scale of 1 to 10, where a "
    "higher score indicates better overall performance. Please output a single line "
    "containing only two values indicating the scores for Assistant 1 and 2, respectively. "
    "The two scores are separated by a space.")

ORDER_CHOICES = ("both", "reference-first", "model-first")
_SLOTS = re.compile("XAudioX|XQuestionX|XAssistant1X|XAssistant2X")


def build_prompt(meta_info: str, question: str, first: str, second: str) -> str:
    """The official judge message with Assistant 1 = ``first``, Assistant 2 = ``second``."""
    fill = {"XAudioX": meta_info, "XQuestionX": question, "XAssistant1X": first,
            "XAssistant2X": second}
    return _SLOTS.sub(lambda m: fill[m.group(0)], PROMPT_TEMPLATE)


def _pair_id(row: Mapping) -> str:
    return hashlib.sha1(item_key(row).encode("utf-8")).hexdigest()[:16]


def build_requests(responses: Iterable[tuple[int, Mapping]], *, order: str = "both"
                   ) -> tuple[list[dict], list[dict]]:
    """Judge requests for a model's responses.

    Parameters
    ----------
    responses : iterable of (line, mapping)
        Records of ``Chat_result_modelx.jsonl`` (``path``, ``question``, ``answer_gt``,
        ``task_name``, ``dataset_name``, ``response``, ``meta_info``, ``uniq_id``).
    order : {"both", "reference-first", "model-first"}

    Returns
    -------
    requests : list of dict
        ``request_id`` (``pair_id:order``), ``pair_id``, ``order``, the item's fields,
        ``response`` and ``messages`` (one user message).
    skipped : list of dict
        ``line``, ``key`` and ``reason`` of records without a response or meta_info.
    """
    if order not in ORDER_CHOICES:
        raise ParameterError(f"{order=} is not one of {ORDER_CHOICES}")
    orders = ("reference-first", "model-first") if order == "both" else (order,)
    out, skipped = [], []
    seen: set[str] = set()
    for line, row in responses:
        if not isinstance(row, Mapping):
            skipped.append({"line": line, "key": None, "reason": "not an object"})
            continue
        key = item_key(row)
        reason = None
        if row.get("response") is None:
            reason = "no response"
        elif row.get("meta_info") is None:
            reason = "no meta_info"
        elif key in seen:
            reason = "repeats an earlier item"
        if reason:
            skipped.append({"line": line, "key": key, "reason": reason})
            continue
        seen.add(key)
        pid = _pair_id(row)
        meta, q = str(row["meta_info"]), str(row.get("question", ""))
        ref, resp = str(row.get("answer_gt", "")), str(row["response"])
        for o in orders:
            first, second = (ref, resp) if o == "reference-first" else (resp, ref)
            out.append({"request_id": f"{pid}:{o}", "pair_id": pid, "order": o,
                        "uniq_id": row.get("uniq_id"), "task_name": row.get("task_name"),
                        "dataset_name": row.get("dataset_name"), "path": row.get("path"),
                        "question": q, "answer_gt": ref, "response": resp,
                        "meta_info": meta,
                        "messages": [{"role": "user",
                                      "content": build_prompt(meta, q, first, second)}]})
    return out, skipped
