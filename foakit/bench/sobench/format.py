"""SO-Bench files: ``qa/<split>.jsonl``, the audio under the benchmark root, ``predictions.jsonl``.

An SO-Bench root holds ``qa/test.jsonl`` (one QA record a line) and the FOA audio the records
name by ``audio_path``, relative to the root (``audio/test/foa_*.wav``).  This module reads
and writes those files and nothing else: it knows nothing of signals or kernels.

Record keys (docs/sobench.md): ``qa_id, split, audio_id, audio_path, task_name,
question_class, answer_format, question, answer, canonical_answer, answer_meta``.  Only
``qa_id``, ``audio_path``, ``task_name`` and ``question`` are required here; the others
default to empty.  ``answer_meta`` keys: ``azimuth_deg``, ``elevation_deg``, ``distance_m``,
``time_span [start, end]``, ``onset_time``, ``active_count``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import FormatError, ParameterError
from ...files import read_text, write_atomic
from ..paths import resolve_under
from ..questions import Cues, parse_question, referents

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
    "PREDICTION_TEXT_ORDERS",
    "prediction_text",
    "read_predictions",
    "write_predictions",
    "Cues",
    "parse_question",
    "referents",
]

#: The 16 SO-Bench task names, in the order of the benchmark's README.
TASKS = (
    "estimate_elevation",
    "estimate_azimuth",
    "detect_time",
    "detect_source",
    "identify_source_by_doa",
    "identify_source_by_location",
    "onset_from_location",
    "estimate_distance",
    "multi_hop",
    "spatial_temporal",
    "compare_elevation",
    "relative_left_right",
    "compare_distance",
    "speech_content",
    "classify_motion",
    "count_sources",
)
#: Tasks whose answer is a sound class (the official scorer's semantic source match).
SOURCE_TASKS = frozenset(
    {"detect_source", "identify_source_by_doa", "identify_source_by_location", "multi_hop"}
)
#: Tasks judged by the official scorer's ``relation_match``.
RELATION_TASKS = frozenset({"relative_left_right", "compare_elevation", "compare_distance"})
#: Keys every QA record must have.
REQUIRED_KEYS = ("qa_id", "audio_path", "task_name", "question")


@dataclass(frozen=True)
class QAItem:
    """One SO-Bench question.

    Attributes
    ----------
    qa_id, audio_path, task_name, question : str
        As in the record (``qa_id`` as a string).
    answer, canonical_answer : str
        Reference answers ("" when absent).
    answer_meta : dict
        Structured ground truth ({} when absent).
    line : int
        1-based line of the record in its file.
    record : dict
        The whole record as read.
    """

    qa_id: str
    audio_path: str
    task_name: str
    question: str
    answer: str = ""
    canonical_answer: str = ""
    answer_meta: dict = field(default_factory=dict)
    line: int = 0
    record: dict = field(default_factory=dict, repr=False)


@dataclass
class QASet:
    """The QA records of one split.

    Attributes
    ----------
    path : Path
        The file read.
    items : list of QAItem
        In file order.
    duplicates : dict
        ``qa_id`` -> the 1-based lines of every record carrying it, for ids seen more
        than once (empty when all ids are unique).
    unknown_tasks : dict
        Task names not among :data:`TASKS` -> number of records.
    """

    path: Path
    items: list[QAItem]
    duplicates: dict[str, list[int]] = field(default_factory=dict)
    unknown_tasks: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


def qa_file(root: str | os.PathLike, split: str = "test") -> Path:
    """The QA file of ``split`` under ``root``: ``qa/<split>.jsonl`` (or ``.json``).

    ``root`` may also be the ``qa`` folder itself or the file itself.
    """
    rootp = Path(root)
    if rootp.is_file():
        return rootp
    for folder in (rootp / "qa", rootp):
        for suffix in (".jsonl", ".json"):
            candidate = folder / f"{split}{suffix}"
            if candidate.is_file():
                return candidate
    raise FormatError(rootp, f"no qa/{split}.jsonl under this SO-Bench root")


def _json_rows(path: Path) -> Iterable[tuple[int, Any]]:
    """(line, object) pairs of a JSONL file (or of a JSON list / ``{"records": [...]}``)."""
    text = read_text(path)
    if path.suffix == ".json":
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(path, f"bad JSON: {exc.msg}", line=exc.lineno) from None
        if isinstance(payload, Mapping):
            payload = payload.get("records", payload.get("data"))
        if not isinstance(payload, list):
            raise FormatError(path, "expected a JSON list of records (or {'records': [...]})")
        return [(i + 1, row) for i, row in enumerate(payload)]
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise FormatError(path, f"bad JSON: {exc.msg} (column {exc.colno})",
                              line=lineno) from None
    return rows


def load_qa(root: str | os.PathLike, split: str = "test") -> QASet:
    """Read the QA records of an SO-Bench root.

    Parameters
    ----------
    root : str or PathLike
        The SO-Bench folder (holding ``qa/<split>.jsonl``), or the QA file itself.
    split : str
        Split name (SO-Bench releases only ``test``).

    Returns
    -------
    QASet
        Records in file order; duplicate ``qa_id`` values are reported in
        ``QASet.duplicates``, not dropped.

    Raises
    ------
    FormatError
        No QA file, a line that is not JSON or not an object, a record missing one of
        :data:`REQUIRED_KEYS`, or a key of the wrong type.  The message names file:line.
    """
    path = qa_file(root, split)
    items: list[QAItem] = []
    lines_by_id: dict[str, list[int]] = {}
    unknown: dict[str, int] = {}
    for lineno, row in _json_rows(path):
        if not isinstance(row, dict):
            raise FormatError(path, f"expected a JSON object, got {type(row).__name__}",
                              line=lineno)
        missing = [k for k in REQUIRED_KEYS if row.get(k) in (None, "")]
        if missing:
            raise FormatError(path, f"record lacks {', '.join(missing)}", line=lineno)
        for key in ("audio_path", "task_name", "question"):
            if not isinstance(row[key], str):
                raise FormatError(path, f"{key} must be a string, got "
                                  f"{type(row[key]).__name__}", line=lineno)
        meta = row.get("answer_meta") or {}
        if not isinstance(meta, dict):
            raise FormatError(path, "answer_meta must be an object", line=lineno)
        item = QAItem(
            qa_id=str(row["qa_id"]),
            audio_path=row["audio_path"],
            task_name=row["task_name"],
            question=row["question"],
            answer=str(row.get("answer") or ""),
            canonical_answer=str(row.get("canonical_answer") or ""),
            answer_meta=meta,
            line=lineno,
            record=row,
        )
        items.append(item)
        lines_by_id.setdefault(item.qa_id, []).append(lineno)
        if item.task_name not in TASKS:
            unknown[item.task_name] = unknown.get(item.task_name, 0) + 1
    duplicates = {k: v for k, v in lines_by_id.items() if len(v) > 1}
    return QASet(path=path, items=items, duplicates=duplicates, unknown_tasks=unknown)


def resolve_audio_path(root: str | os.PathLike, audio_path: str) -> Path:
    """The file an ``audio_path`` names under ``root``, refusing names that leave it.

    Parameters
    ----------
    root : str or PathLike
        The SO-Bench root.
    audio_path : str
        Path relative to ``root`` as the QA record gives it (POSIX separators).

    Returns
    -------
    Path
        ``root / audio_path``, not resolved: symlinks inside the root are followed wherever
        they lead when the file is read (a Hugging Face hub snapshot stores every file as a
        symlink into its ``blobs/`` folder; corpora often reach their audio through a
        symlinked folder).

    Raises
    ------
    FormatError
        The path is empty, absolute (POSIX, Windows drive or UNC) or has a ``..``
        component (:func:`foakit.bench.paths.resolve_under`).
    """
    return resolve_under(root, audio_path, root_name="SO-Bench root")


#: The orders in which a prediction row's text fields are read.  ``code``: the order the
#: official scorer's code reads them (``scripts/score_sobench.py``: ``prediction_cleaned or
#: prediction or prediction_raw``), which its published numbers come from; ``readme``: the
#: order its README documents (``prediction`` first).
PREDICTION_TEXT_ORDERS = {
    "code": ("prediction_cleaned", "prediction", "prediction_raw"),
    "readme": ("prediction", "prediction_cleaned", "prediction_raw"),
}


def prediction_text(row: Mapping[str, Any], *, order: str = "code") -> str:
    """The answer text of a prediction row, read as the official scorer reads it.

    Parameters
    ----------
    row : mapping
        One prediction record.
    order : {"code", "readme"}
        :data:`PREDICTION_TEXT_ORDERS`.  ``code`` takes the first field that is truthy,
        exactly as the scorer's ``a or b or c`` does (a field of spaces counts);
        ``readme`` takes the first that is not blank.

    Returns
    -------
    str
        "" when no field holds text.
    """
    if order not in PREDICTION_TEXT_ORDERS:
        raise ParameterError(f"{order=!r} must be one of {tuple(PREDICTION_TEXT_ORDERS)}")
    for key in PREDICTION_TEXT_ORDERS[order]:
        value = row.get(key)
        if order == "code" and value:
            return str(value)
        if order == "readme" and value is not None and str(value).strip():
            return str(value)
    return ""


def read_predictions(path: str | os.PathLike) -> list[dict]:
    """Read a ``predictions.jsonl``.

    Returns
    -------
    list of dict
        One per non-blank line, in order; each gains ``"_line"`` (1-based line number).

    Raises
    ------
    FormatError
        Unreadable file, a line that is not JSON or not a JSON object (names file:line).
    """
    p = Path(path)
    if not p.is_file():
        raise FormatError(p, "no such predictions file")
    rows = []
    for lineno, row in _json_rows(p):
        if not isinstance(row, dict):
            raise FormatError(p, f"expected a JSON object, got {type(row).__name__}",
                              line=lineno)
        row = dict(row)
        row["_line"] = lineno
        rows.append(row)
    return rows


def write_predictions(path: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write prediction rows as JSON Lines, atomically (a temporary file then a rename).

    Keys starting with ``_`` are private and not written.  Returns the path written.
    """
    return write_atomic(path, (json.dumps({k: v for k, v in row.items()
                                            if not str(k).startswith("_")},
                                           ensure_ascii=False, allow_nan=False) + "\n"
                                for row in rows))

