"""RMS-AQA answers: JSON Lines or a JSON list, one row per two-stage item: foakit's
``segment_id``, ``item``, ``stage1``, ``stage2``, or the official evaluation log
(``rmsaqachallenge/rmsaqa-code`` ``evaluation.py``, commit ``bd0b89d3``:
``stage1_generated_text`` / ``stage2_generated_text``, else ``stage*_pred_option``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ...errors import FormatError
from ...files import write_atomic

__all__ = ["ANSWER_FIELDS", "CONDITIONING", "read_answers", "write_answers"]


#: Where a row's answer to each stage is read, in order: foakit's field, the official
#: log's generated text, the official log's extracted letter (``evaluation.py``).
ANSWER_FIELDS = {1: ("stage1", "stage1_generated_text", "stage1_pred_option"),
                 2: ("stage2", "stage2_generated_text", "stage2_pred_option")}
#: How stage 2 was conditioned: on nothing, the predicted or the reference stage-1 answer.
CONDITIONING = ("none", "predicted", "reference")
_OFFICIAL_LOG = ("stage1_generated_text", "stage2_generated_text", "stage1_pred_option",
                 "stage2_pred_option")


def _answer_rows(p: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line, row) of a JSON list (the official ``predictions.json``) or JSON Lines."""
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(p, f"bad JSON: {exc.msg} (column {exc.colno})",
                              line=exc.lineno) from None
        yield from ((i, r) for i, r in enumerate(rows, start=1))
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(p, f"bad JSON: {exc.msg} (column {exc.colno})",
                              line=lineno) from None


def read_answers(path: str | os.PathLike) -> list[dict]:
    """Read an answers file: foakit's JSONL or the official evaluation log.

    Each stage's answer is the first of :data:`ANSWER_FIELDS` the row holds: foakit's
    ``stage1`` / ``stage2``, else the official log's ``stage*_generated_text`` (the
    model's text), else its ``stage*_pred_option`` (the letter the official extraction
    read, with its ``stage*_extract_status``).  The official log's form is JSON Lines
    (``answers_log.jsonl``) or a JSON list (``predictions.json``).

    Returns
    -------
    list of dict
        ``segment_id`` (str), ``item`` (int), ``stage1``, ``stage2`` (str or None),
        ``field1`` / ``field2`` (the field each was read from, or None),
        ``status1`` / ``status2`` (the log's extraction status where the answer is its
        extracted letter, else None), ``stage2_conditioning`` (one of
        :data:`CONDITIONING`, or ``"unstated"``) and ``_line`` (1-based line, or
        position in a list), one per row, in order.

    Raises
    ------
    FormatError
        Unreadable file, a row that is not a JSON object, a row without ``segment_id``,
        an ``item`` that is not a non-negative integer, an unknown
        ``stage2_conditioning``, or a file in which no row holds any answer field (the
        message names the fields it found).
    """
    p = Path(path)
    if not p.is_file():
        raise FormatError(p, "no such answers file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(p, f"cannot read ({exc})") from None
    rows: list[dict] = []
    seen: set[str] = set()
    any_answer = False
    for lineno, row in _answer_rows(p, text):
        if not isinstance(row, dict):
            raise FormatError(p, f"expected a JSON object, got {type(row).__name__}",
                              line=lineno)
        seen.update(map(str, row))
        if row.get("segment_id") in (None, ""):
            raise FormatError(p, "answer row lacks segment_id", line=lineno)
        idx = row.get("item", 0)
        if isinstance(idx, str) and idx.strip().isdigit():
            idx = int(idx)
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise FormatError(p, f"item {idx!r} must be a non-negative integer", line=lineno)
        cond = row.get("stage2_conditioning")
        if cond is None:
            cond = "predicted" if any(k in row for k in _OFFICIAL_LOG) else "unstated"
        elif cond not in CONDITIONING:
            raise FormatError(p, f"stage2_conditioning {cond!r} must be one of "
                              f"{', '.join(CONDITIONING)}", line=lineno)
        out = {"segment_id": str(row["segment_id"]), "item": idx,
               "stage2_conditioning": cond, "_line": lineno}
        for stage, names in ANSWER_FIELDS.items():
            name = next((k for k in names if k in row), None)
            v = row.get(name) if name else None
            any_answer |= name is not None
            status = row.get(f"stage{stage}_extract_status") \
                if name and name.endswith("_pred_option") else None
            out[f"stage{stage}"] = None if v is None else (v if isinstance(v, str) else str(v))
            out[f"field{stage}"] = name
            out[f"status{stage}"] = status if isinstance(status, str) else None
        rows.append(out)
    if rows and not any_answer:
        found = ", ".join(sorted(seen)[:20]) + (" ..." if len(seen) > 20 else "")
        want = ", ".join(k for names in ANSWER_FIELDS.values() for k in names)
        raise FormatError(p, f"no row holds an answer field ({want}); the rows hold: "
                          f"{found}")
    return rows


def write_answers(path: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write answer rows as JSON Lines, atomically (keys starting with ``_`` are dropped)."""
    return write_atomic(path, (json.dumps({k: v for k, v in row.items()
                                           if not str(k).startswith("_")},
                                          ensure_ascii=False, allow_nan=False) + "\n"
                               for row in rows))
