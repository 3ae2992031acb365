"""RMS-AQA files: the QA JSON, the audio it names, and answers JSONL.

QA JSON (``docs/rmsaqa.md``): ``{"records": [...]}`` or a bare list.  A record has
``segment_id``, ``audio_path`` and ``qa_pairs``; a pair has ``stage`` (or ``layer``) 1 or 2,
``question``, ``options`` {A..D}, ``answer`` (or ``correct_option``) and, at stage 2,
``category_id`` / ``category_name`` (one is derived from the other when missing);
``task_id`` is optional.  A record holds one or two *two-stage items*: each stage-1 pair
with the stage-2 pair that follows it.

Loading never stops at a bad record: every problem (a record that is not an object, a
missing field, a stage-2 pair without its stage 1, an answer letter not among the options,
a duplicate ``segment_id`` ...) becomes a :class:`RecordProblem` naming the record, and the
rest loads.  Only a file that is not JSON, or not a list of records, raises.

Answers JSONL: one line per two-stage item, ``segment_id``, ``item`` (0-based index of the
two-stage item in its record), ``stage1``, ``stage2`` (each a letter or a model's raw text).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import FormatError
from ..paths import resolve_under, resolved

__all__ = [
    "CATEGORIES",
    "CATEGORY_IDS",
    "LETTERS",
    "Pair",
    "Item",
    "RecordProblem",
    "QASet",
    "load_qa",
    "audio_file",
    "check_audio",
    "read_answers",
    "write_answers",
]

#: The six stage-2 categories, by id.
CATEGORIES: dict[int, str] = {
    1: "Sound Counting",
    2: "Source Localization",
    3: "Temporal Detection",
    4: "Spatial Relations",
    5: "Temporal Relations",
    6: "Action Prediction",
}
#: Category id of each name (lower case, also the short forms the paper uses).
CATEGORY_IDS: dict[str, int] = {
    **{v.lower(): k for k, v in CATEGORIES.items()},
    "sc": 1, "sl": 2, "td": 3, "sr": 4, "tr": 5, "ap": 6,
    "spatial location": 2, "spatial relation": 4, "temporal relation": 5,
}
#: Option letters in order.
LETTERS = ("A", "B", "C", "D")
_BROKEN = object()  # a stage-1 pair that did not load, waiting for its stage 2


@dataclass(slots=True)
class Pair:
    """One question of a two-stage item.

    Attributes
    ----------
    stage : int
        1 or 2.
    question : str
    options : dict
        Letter -> option text, in letter order.
    answer : str
        The reference letter (one of ``options``).
    category_id : int or None
        Stage 2: 1-6 (None at stage 1, or when the record gives no category).
    category_name : str
        Stage 2: the category's name ("" at stage 1).
    task_id : str
        As in the record ("" when absent).
    """

    stage: int
    question: str
    options: dict
    answer: str
    category_id: int | None = None
    category_name: str = ""
    task_id: str = ""


@dataclass(slots=True)
class Item:
    """One two-stage item: a stage-1 pair and the stage-2 pair that follows it.

    Attributes
    ----------
    segment_id : str
    index : int
        0-based index of the item within its record (the answers' ``item``).
    audio_path : str
        As the record gives it (relative to the audio root).
    stage1, stage2 : Pair
    record : int
        0-based position of the record in the file.
    """

    segment_id: str
    index: int
    audio_path: str
    stage1: Pair
    stage2: Pair
    record: int = 0

    @property
    def key(self) -> tuple[str, int]:
        """``(segment_id, index)``: what an answer line names."""
        return (self.segment_id, self.index)

    @property
    def category_id(self) -> int | None:
        return self.stage2.category_id

    @property
    def category(self) -> str:
        """The stage-2 category name, or ``"unknown"``."""
        return self.stage2.category_name or "unknown"


@dataclass(frozen=True)
class RecordProblem:
    """A problem with one record (the rest of the file still loads).

    Attributes
    ----------
    record : int
        0-based position of the record in the file.
    segment_id : str or None
        The record's id when it has one.
    problem : str
        One line.
    dropped : bool
        True when the problem cost items (the record or pairs were not loaded).
    """

    record: int
    segment_id: str | None
    problem: str
    dropped: bool = True

    def __str__(self) -> str:
        who = f"record {self.record}" + (f" ({self.segment_id!r})" if self.segment_id else "")
        return f"{who}: {self.problem}" + ("" if self.dropped else " (kept)")


@dataclass
class QASet:
    """The two-stage items of an RMS-AQA QA file.

    Attributes
    ----------
    path : Path
        The QA file.
    audio_root : Path
        What ``audio_path`` is relative to.
    items : list of Item
        In file order.
    problems : list of RecordProblem
        Everything that did not load cleanly, per record.
    n_records : int
        Records in the file (loaded or not).
    """

    path: Path
    audio_root: Path
    items: list[Item]
    problems: list[RecordProblem] = field(default_factory=list)
    n_records: int = 0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def by_key(self) -> dict[tuple[str, int], Item]:
        """``(segment_id, item)`` -> Item."""
        return {it.key: it for it in self.items}


_PLAIN = {chr(c): chr(c) for c in range(65, 91)} | {chr(c): chr(c - 32) for c in range(97, 123)}


def _letter(value: Any) -> str | None:
    """A reference letter as records write it ("D", "d", "(D)", "D.", "Option D")."""
    fast = _PLAIN.get(value) if isinstance(value, str) else None
    if fast is not None:  # nearly every record: a bare letter
        return fast
    if not isinstance(value, str):
        return None
    text = value.strip().strip("().:").strip()
    if text.lower().startswith("option "):
        text = text[7:].strip()
    return text.upper() if len(text) == 1 else None


def _options(raw: Any) -> dict | str:
    """Letter -> text, or a string saying what is wrong."""
    if isinstance(raw, list):
        raw = {LETTERS[i] if i < len(LETTERS) else chr(65 + i): v for i, v in enumerate(raw)}
    if not isinstance(raw, dict) or not raw:
        return "options must be an object {A: ..., B: ...}"
    out = {}
    for k, v in raw.items():
        letter = _PLAIN.get(k) or _letter(str(k))
        if letter is None or not letter.isalpha():
            return f"option key {k!r} is not a letter"
        if not isinstance(v, str) or not v.strip():
            return f"option {k!r} has no text"
        out[letter] = v
    if len(out) < 2:
        return "fewer than two options"
    keys = list(out)
    return out if keys == sorted(keys) else dict(sorted(out.items()))


def _category(row: Mapping) -> tuple[int | None, str, str | None]:
    """(id, name, problem) of a stage-2 pair; id and name derived from each other."""
    cid, name = row.get("category_id"), row.get("category_name")
    if isinstance(cid, str) and cid.strip().isdigit():
        cid = int(cid)
    if cid is not None and not (isinstance(cid, int) and not isinstance(cid, bool)):
        return None, "", f"category_id {cid!r} is not an integer"
    name = name.strip() if isinstance(name, str) else None
    if cid is None and not name:
        return None, "", "stage-2 pair has neither category_id nor category_name"
    if cid is None:
        got = CATEGORY_IDS.get(name.lower())
        if got is None:
            return None, name, f"unknown category_name {name!r}"
        return got, CATEGORIES[got], None
    if cid not in CATEGORIES:
        return cid, name or "", f"unknown category_id {cid}"
    if name and CATEGORY_IDS.get(name.lower()) not in (None, cid):
        return cid, CATEGORIES[cid], (f"category_name {name!r} disagrees with category_id "
                                      f"{cid}; the id is used")
    return cid, CATEGORIES[cid], None


def _pair(row: Any, where: str) -> tuple[Pair, str | None] | str:
    """The pair and its category problem (kept), or the problem that drops it."""
    if not isinstance(row, dict):
        return f"{where} is not an object"
    stage = row.get("stage", row.get("layer"))
    if isinstance(stage, str) and stage.strip().isdigit():
        stage = int(stage)
    if stage not in (1, 2) or isinstance(stage, bool):
        return f"{where}: stage {stage!r} must be 1 or 2"
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        return f"{where}: no question"
    options = _options(row.get("options"))
    if isinstance(options, str):
        return f"{where}: {options}"
    raw_answer = row.get("answer", row.get("correct_option"))
    letter = _letter(raw_answer)
    if letter is None or letter not in options:
        return (f"{where}: answer {raw_answer!r} is not among the options "
                f"{', '.join(options)}")
    task = row.get("task_id")
    cid, name, problem = None, "", None
    if stage == 2:
        cid, name, problem = _category(row)
    return Pair(stage=stage, question=question, options=options, answer=letter,
                category_id=cid, category_name=name,
                task_id="" if task is None else str(task)), problem


def _records(path: Path) -> list:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise FormatError(path, f"cannot read ({exc.strerror or exc})") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"bad JSON: {exc.msg} (column {exc.colno})",
                          line=exc.lineno) from None
    if isinstance(payload, dict):
        if "records" not in payload:
            raise FormatError(path, "a JSON object needs a 'records' list")
        payload = payload["records"]
    if not isinstance(payload, list):
        raise FormatError(path, "expected a list of records (or {'records': [...]})")
    return payload


def load_qa(path: str | os.PathLike, *, audio_root: str | os.PathLike | None = None) -> QASet:
    """Read an RMS-AQA QA file; bad records are reported, not fatal.

    Parameters
    ----------
    path : str or PathLike
        The QA JSON.
    audio_root : str or PathLike, optional
        What ``audio_path`` is relative to; default the QA file's folder.

    Returns
    -------
    QASet
        The two-stage items in file order and one :class:`RecordProblem` per problem.
        A record whose ``segment_id`` repeats an earlier one is dropped (answers name
        items by ``segment_id``, so only the first can be answered).

    Raises
    ------
    FormatError
        The file cannot be read, is not JSON, or is not a list of records.
    """
    p = Path(path)
    if not p.is_file():
        raise FormatError(p, "no such QA file")
    root = Path(audio_root) if audio_root is not None else p.parent
    rows = _records(p)
    items: list[Item] = []
    problems: list[RecordProblem] = []
    first_of: dict[str, int] = {}
    for ri, row in enumerate(rows):
        def bad(msg: str, sid: str | None = None, dropped: bool = True, _ri=ri) -> None:
            problems.append(RecordProblem(_ri, sid, msg, dropped))

        if not isinstance(row, dict):
            bad(f"not an object ({type(row).__name__})")
            continue
        sid = row.get("segment_id")
        if sid is None or (isinstance(sid, str) and not sid.strip()):
            bad("no segment_id")
            continue
        sid = str(sid)
        if sid in first_of:
            bad(f"duplicate segment_id (first in record {first_of[sid]}); record dropped",
                sid)
            continue
        first_of[sid] = ri
        audio = row.get("audio_path")
        if not isinstance(audio, str) or not audio.strip():
            bad("no audio_path", sid)
            continue
        pairs = row.get("qa_pairs")
        if not isinstance(pairs, list) or not pairs:
            bad("qa_pairs must be a non-empty list", sid)
            continue
        pending: Pair | object | None = None
        n_items = 0
        for pi, raw in enumerate(pairs):
            got = _pair(raw, f"qa_pairs[{pi}]")
            if isinstance(got, str):
                bad(got, sid)
                stage = raw.get("stage", raw.get("layer")) if isinstance(raw, dict) else None
                # a broken stage 1 takes its stage 2 with it; a broken stage 2 its stage 1
                pending = _BROKEN if str(stage) == "1" else None
                continue
            got, cat_problem = got
            if got.stage == 1:
                if isinstance(pending, Pair):
                    bad(f"qa_pairs[{pi}]: a stage-1 pair follows a stage-1 pair; the "
                        "earlier one has no stage 2", sid)
                pending = got
                continue
            if pending is _BROKEN:
                bad(f"qa_pairs[{pi}]: stage-2 pair dropped with its malformed stage 1", sid)
                pending = None
                continue
            if pending is None:
                bad(f"qa_pairs[{pi}]: stage-2 pair without its stage 1", sid)
                continue
            if cat_problem:
                bad(f"qa_pairs[{pi}]: {cat_problem}", sid, dropped=False)
            items.append(Item(sid, n_items, audio, pending, got, ri))
            n_items += 1
            pending = None
        if isinstance(pending, Pair):
            bad("the last stage-1 pair has no stage 2", sid)
        if n_items > 2:
            bad(f"{n_items} two-stage items (RMS-AQA records hold one or two)", sid,
                dropped=False)
    return QASet(path=p, audio_root=root, items=items, problems=problems, n_records=len(rows))


def audio_file(qa: QASet, item: Item) -> Path:
    """The audio file of an item under the QA set's audio root.

    Raises
    ------
    FormatError
        ``audio_path`` escapes the root lexically (absolute, ``..``, ``~``).
    """
    return resolve_under(qa.audio_root, item.audio_path, root_name="--audio-root")


def check_audio(qa: QASet) -> tuple[dict[str, Path], dict[str, str]]:
    """Which audio files can be read.

    Returns
    -------
    ok : dict
        ``audio_path`` -> the file it names (not resolved), for every readable
        4-channel file.
    problems : dict
        ``audio_path`` -> one line (refused, missing, not audio, not 4 channels), with
        the resolved path where there is one.
    """
    import soundfile as sf

    ok: dict[str, Path] = {}
    problems: dict[str, str] = {}
    for it in qa.items:
        name = it.audio_path
        if name in ok or name in problems:
            continue
        try:
            f = audio_file(qa, it)
        except FormatError as exc:
            problems[name] = str(exc)
            continue
        real = resolved(f)
        if not os.path.isfile(real):
            problems[name] = f"{name}: no such audio file ({real})"
            continue
        try:
            info = sf.info(real)
        except Exception as exc:  # libsndfile's errors are not one type
            problems[name] = f"{name}: not readable audio ({real}: {exc})"
            continue
        if info.channels != 4:
            problems[name] = f"{name}: {info.channels} channels, FOA needs 4 ({real})"
            continue
        ok[name] = f
    return ok, problems


def read_answers(path: str | os.PathLike) -> list[dict]:
    """Read an answers JSONL.

    Returns
    -------
    list of dict
        ``segment_id`` (str), ``item`` (int), ``stage1``, ``stage2`` (str or None) and
        ``_line`` (1-based), one per non-blank line, in order.

    Raises
    ------
    FormatError
        Unreadable file, a line that is not a JSON object, a line without
        ``segment_id`` or with an ``item`` that is not a non-negative integer.
    """
    p = Path(path)
    if not p.is_file():
        raise FormatError(p, "no such answers file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(p, f"cannot read ({exc})") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(p, f"bad JSON: {exc.msg} (column {exc.colno})",
                              line=lineno) from None
        if not isinstance(row, dict):
            raise FormatError(p, f"expected a JSON object, got {type(row).__name__}",
                              line=lineno)
        if row.get("segment_id") in (None, ""):
            raise FormatError(p, "answer line lacks segment_id", line=lineno)
        idx = row.get("item", 0)
        if isinstance(idx, str) and idx.strip().isdigit():
            idx = int(idx)
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            raise FormatError(p, f"item {idx!r} must be a non-negative integer", line=lineno)
        out = {"segment_id": str(row["segment_id"]), "item": idx, "_line": lineno}
        for stage in ("stage1", "stage2"):
            v = row.get(stage)
            out[stage] = None if v is None else (v if isinstance(v, str) else str(v))
        rows.append(out)
    return rows


def write_answers(path: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write answer rows as JSON Lines, atomically (keys starting with ``_`` are dropped)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for row in rows:
                clean = {k: v for k, v in row.items() if not str(k).startswith("_")}
                fh.write(json.dumps(clean, ensure_ascii=False, allow_nan=False) + "\n")
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p
