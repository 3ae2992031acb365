"""RMS-AQA files: the QA JSON and the audio it names (answers: :mod:`.answers`).

QA (``docs/rmsaqa.md``), in every form the official loader reads
(``rmsaqachallenge/rmsaqa-code``, ``spatial_af3/dataset.py``, commit ``bd0b89d3``): one
JSON file ``{"records": [...]}`` (or a bare list), or a directory of per-sample JSON files
holding one record each (``metadata.json`` skipped).  A record has ``segment_id``,
``qa_pairs`` and optionally ``audio_path``; without one the path is derived from the
``segment_id`` (``dev-000001`` -> ``dev_audio/dev-000001.wav``, ``train-...`` ->
``train_audio/...``), relative to the audio root.  A pair has ``stage`` 1 or 2,
``question``, ``options`` {A..D} and ``answer`` (the letter; ``correct_option``, when
given, must agree), or in the legacy form ``layer``, ``answer`` (the option TEXT) and
``correct_option`` (the letter).  A stage-2 pair carries ``category_id`` and
``category_name``, which must agree as the official meter (``spatial_af3/metrics.py``)
checks them.  A record holds one or two *two-stage items*: each stage-1 pair with the
stage-2 pair that follows it.

Loading never stops at a bad record: every problem becomes a :class:`RecordProblem`
naming the file and the record, and the rest loads.  Only a QA path that is not JSON, or
not a list of records, raises.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
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
    "SPLIT_AUDIO",
    "derived_audio_path",
    "sample_files",
    "load_qa",
    "audio_file",
    "check_audio",
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
    answer : str or None
        The reference letter (one of ``options``); None when the set was loaded without
        labels (``load_qa(..., labels=False)``).
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
    answer: str | None
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
        As the record gives it, or derived from ``segment_id`` (relative to the audio
        root); "" when neither gives one.
    stage1, stage2 : Pair
    record : int
        0-based position of the record in the QA set (file order; per-sample files in
        name order).
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
    """A problem with one record (the rest of the set still loads).

    Attributes
    ----------
    record : int or None
        0-based position of the record in the QA set; None for a per-sample file that
        holds no readable record.
    segment_id : str or None
        The record's id when it has one.
    problem : str
        One line.
    dropped : bool
        True when the problem cost items (the record or pairs were not loaded).
    file : str
        The JSON file the record is in.
    """

    record: int | None
    segment_id: str | None
    problem: str
    dropped: bool = True
    file: str = ""

    def __str__(self) -> str:
        who = "file" if self.record is None else f"record {self.record}"
        who += f" ({self.segment_id!r})" if self.segment_id else ""
        where = f" in {self.file}" if self.file else ""
        return f"{who}{where}: {self.problem}" + ("" if self.dropped else " (kept)")


@dataclass
class QASet:
    """The two-stage items of an RMS-AQA QA file or per-sample directory.

    Attributes
    ----------
    path : Path
        The QA file or directory.
    audio_root : Path
        What ``audio_path`` is relative to.
    items : list of Item
        In file order.
    problems : list of RecordProblem
        Everything that did not load cleanly, per record.
    n_records : int
        Records in the set (loaded or not).
    labels : bool
        False when the answer fields were not read (every ``Pair.answer`` is None).
    """

    path: Path
    audio_root: Path
    items: list[Item]
    problems: list[RecordProblem] = field(default_factory=list)
    n_records: int = 0
    labels: bool = True

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def by_key(self) -> dict[tuple[str, int], Item]:
        """``(segment_id, item)`` -> Item."""
        return {it.key: it for it in self.items}


_PLAIN = {chr(c): chr(c) for c in range(65, 91)} | {chr(c): chr(c - 32) for c in range(97, 123)}
#: The folder each split's audio lies in, by ``segment_id`` prefix (``dataset.py``).
SPLIT_AUDIO = {"dev-": "dev_audio", "train-": "train_audio"}


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
    """Letter -> text, or a string saying what is wrong (a number is read as its text)."""
    if isinstance(raw, list):
        raw = {LETTERS[i] if i < len(LETTERS) else chr(65 + i): v for i, v in enumerate(raw)}
    if not isinstance(raw, dict) or not raw:
        return "options must be an object {A: ..., B: ...}"
    out = {}
    for k, v in raw.items():
        letter = _PLAIN.get(k) or _letter(str(k))
        if letter is None or not letter.isalpha():
            return f"option key {k!r} is not a letter"
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            # the official loader and prompt read an option's value as str(value)
            # (dataset.py _normalize_answer, mcq.py format_mcq_options): 1 -> "1"
            v = str(v)
        if not isinstance(v, str) or not v.strip():
            return f"option {k!r} has no text"
        out[letter] = v
    if len(out) < 2:
        return "fewer than two options"
    keys = list(out)
    return out if keys == sorted(keys) else dict(sorted(out.items()))


def _category(row: Mapping) -> tuple[int | None, str, str | None, bool]:
    """(id, name, problem, dropped) of a stage-2 pair, checked as ``metrics.py`` checks.

    The official meter needs an integer id 1-6 and exactly its name.  A name that
    contradicts the id drops the pair (the official meter refuses it and foakit cannot
    tell which is right); a missing id or name, or a name in another spelling of the same
    category, is derived and kept with a problem.  An id that is not an integer or not in
    the table, or neither id nor a known name, is kept with a problem under the category
    "unknown" (name "").
    """
    cid, raw_name = row.get("category_id"), row.get("category_name")
    if isinstance(cid, str) and cid.strip().isdigit():
        cid = int(cid)
    if cid is not None and not (isinstance(cid, int) and not isinstance(cid, bool)):
        return None, "", f"category_id {cid!r} is not an integer", False
    name = raw_name.strip() if isinstance(raw_name, str) else None
    if cid is None and not name:
        return None, "", "stage-2 pair has neither category_id nor category_name", False
    if cid is None:
        got = CATEGORY_IDS.get(name.lower())
        if got is None:
            return None, "", f"unknown category_name {name!r}", False
        return got, CATEGORIES[got], (f"no category_id (the official meter needs one); "
                                      f"{got} from category_name {name!r}"), False
    if cid not in CATEGORIES:
        # a name beside an id outside the table is not trusted either: "unknown"
        return cid, "", f"unknown category_id {cid}", False
    official = CATEGORIES[cid]
    if not name:
        return cid, official, (f"no category_name (the official meter needs one); "
                               f"{official!r} from category_id {cid}"), False
    if CATEGORY_IDS.get(name.lower()) not in (None, cid) or name.lower() not in CATEGORY_IDS:
        return cid, official, (f"category_name {raw_name!r} does not match category_id "
                               f"{cid} ({official!r})"), True
    if raw_name != official:
        return cid, official, (f"category_name {raw_name!r} is not spelled as the official "
                               f"meter requires ({official!r})"), False
    return cid, official, None, False


def _reference(row: Mapping, options: Mapping[str, str], where: str) -> str:
    """The reference letter of a pair, or raises ValueError with the problem.

    ``stage`` form: ``answer`` is the letter (``correct_option``, when given, agrees).
    Legacy (``layer``) form: ``correct_option`` is the letter and ``answer`` the option
    text; without ``correct_option`` an answer that is exactly one option's text, or a
    letter, is read.
    """
    answer, correct = row.get("answer"), row.get("correct_option")
    if "stage" in row:
        raw = answer if answer is not None else correct
        letter = _letter(raw)
        if letter is None or letter not in options:
            raise ValueError(f"{where}: answer {raw!r} is not among the options "
                             f"{', '.join(options)}")
        if answer is not None and correct is not None and _letter(correct) != letter:
            raise ValueError(f"{where}: answer {answer!r} conflicts with correct_option "
                             f"{correct!r}")
        return letter
    if correct is not None:
        letter = _letter(correct)
        if letter is None or letter not in options:
            raise ValueError(f"{where}: correct_option {correct!r} is not among the options "
                             f"{', '.join(options)}")
        return letter
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)  # the official legacy answer is str(answer), as option texts
    if isinstance(answer, str):
        same = [k for k, v in options.items() if v.strip() == answer.strip()]
        if len(same) == 1:
            return same[0]
        letter = _letter(answer)
        if letter is not None and letter in options:
            return letter
    raise ValueError(f"{where}: legacy pair without correct_option, and answer {answer!r} "
                     f"is neither an option's text nor one of the letters "
                     f"{', '.join(options)}")


def _pair(row: Any, where: str, labels: bool
          ) -> tuple[Pair, str | None, bool] | str:
    """The pair with its category problem and whether it drops the pair, or the problem
    that drops it."""
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
    letter = None
    if labels:
        try:
            letter = _reference(row, options, where)
        except ValueError as exc:
            return str(exc)
    task = row.get("task_id")
    cid, name, problem, drop = None, "", None, False
    if stage == 2:
        cid, name, problem, drop = _category(row)
    return Pair(stage=stage, question=question, options=options, answer=letter,
                category_id=cid, category_name=name,
                task_id="" if task is None else str(task)), problem, drop


def _payload(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise FormatError(path, f"cannot read ({exc.strerror or exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"bad JSON: {exc.msg} (column {exc.colno})",
                          line=exc.lineno) from None


def _records(path: Path) -> list:
    payload = _payload(path)
    if isinstance(payload, dict):
        if "records" not in payload:
            raise FormatError(path, "a JSON object needs a 'records' list")
        payload = payload["records"]
    if not isinstance(payload, list):
        raise FormatError(path, "expected a list of records (or {'records': [...]})")
    return payload


def sample_files(path: str | os.PathLike) -> list[Path]:
    """The per-sample JSON files of a QA directory, in name order (``metadata.json``, in
    any case, skipped; symlinks followed).

    Raises
    ------
    FormatError
        The directory holds no such file.
    """
    d = Path(path)
    files = sorted(f for f in d.glob("*.json")
                   if f.name.casefold() != "metadata.json" and f.is_file())
    if not files:
        raise FormatError(d, "the QA directory holds no per-sample *.json file")
    return files


def _sources(p: Path) -> Iterator[tuple[Path, list | None, str | None]]:
    """(file, records, problem) per JSON file of a QA file or directory."""
    if not p.is_dir():
        yield p, _records(p), None
        return
    for f in sample_files(p):
        try:
            payload = _payload(f)
        except FormatError as exc:
            yield f, None, exc.args[-1] if exc.args else str(exc)
            continue
        recs = payload.get("records") if isinstance(payload, dict) else None
        if not isinstance(recs, list):
            yield f, None, "a per-sample file needs {'records': [one record]}"
        elif len(recs) != 1:
            yield f, None, f"a per-sample file holds exactly one record, not {len(recs)}"
        else:
            yield f, recs, None


def derived_audio_path(segment_id: str) -> str:
    """The ``audio_path`` the official loader derives from a ``segment_id``.

    ``dev-000001`` or ``dev-000001.json`` -> ``dev_audio/dev-000001.wav``; ``train-...``
    -> ``train_audio/...``; any other id -> "" (no audio).
    """
    for prefix, folder in SPLIT_AUDIO.items():
        if segment_id.startswith(prefix):
            # the id starts with the prefix, so its last component is never empty
            return f"{folder}/{PurePosixPath(segment_id).with_suffix('.wav').name}"
    return ""


def load_qa(path: str | os.PathLike, *, audio_root: str | os.PathLike | None = None,
            labels: bool = True) -> QASet:
    """Read an RMS-AQA QA file or per-sample directory; bad records are reported, not
    fatal.

    Parameters
    ----------
    path : str or PathLike
        The QA JSON, or a directory of per-sample JSON files (one record each).
    audio_root : str or PathLike, optional
        What ``audio_path`` is relative to; default the folder holding the QA file or
        directory (where the official release keeps ``dev_audio/`` and
        ``train_audio/``).
    labels : bool
        False: the answer fields (``answer``, ``correct_option``) are not read at all, so
        whatever they hold cannot reach the caller (blind baselines load this way).

    Returns
    -------
    QASet
        The two-stage items in file order and one :class:`RecordProblem` per problem.
        A record whose ``segment_id`` repeats an earlier one is dropped (answers name
        items by ``segment_id``, so only the first can be answered).

    Raises
    ------
    FormatError
        The path does not exist; a QA file cannot be read, is not JSON, or is not a list
        of records; a directory holds no per-sample JSON file.
    """
    p = Path(path)
    if not p.exists():
        raise FormatError(p, "no such QA file or directory")
    root = Path(audio_root) if audio_root is not None else p.parent
    items: list[Item] = []
    problems: list[RecordProblem] = []
    first_of: dict[str, int] = {}
    ri = -1
    for f, rows, trouble in _sources(p):
        fname = f.name if p.is_dir() else str(f)
        if rows is None:
            problems.append(RecordProblem(None, None, str(trouble), True, fname))
            continue
        for row in rows:
            ri += 1

            def bad(msg: str, sid: str | None = None, dropped: bool = True, _ri=ri,
                    _f=fname) -> None:
                problems.append(RecordProblem(_ri, sid, msg, dropped, _f))

            if not isinstance(row, dict):
                bad(f"not an object ({type(row).__name__})")
                continue
            sid = row.get("segment_id")
            if sid is None or (isinstance(sid, str) and not sid.strip()):
                bad("no segment_id")
                continue
            sid = str(sid)
            if sid in first_of:
                bad(f"duplicate segment_id (first in record {first_of[sid]}); record "
                    "dropped", sid)
                continue
            first_of[sid] = ri
            audio = row.get("audio_path")
            if audio is not None and not isinstance(audio, str):
                bad(f"audio_path {audio!r} is not a string", sid)
                continue
            audio = (audio or "").strip() or derived_audio_path(sid)
            pairs = row.get("qa_pairs")
            if not isinstance(pairs, list) or not pairs:
                bad("qa_pairs must be a non-empty list", sid)
                continue
            n_items = _items(sid, ri, audio, pairs, labels, items, bad)
            if n_items > 2:
                bad(f"{n_items} two-stage items (RMS-AQA records hold one or two)", sid,
                    dropped=False)
    return QASet(path=p, audio_root=root, items=items, problems=problems,
                 n_records=ri + 1, labels=labels)


def _items(sid: str, ri: int, audio: str, pairs: list, labels: bool, items: list[Item],
           bad: Callable[..., None]) -> int:
    """Append a record's two-stage items to ``items``; the number appended."""
    pending: Pair | object | None = None
    n_items = 0
    for pi, raw in enumerate(pairs):
        got = _pair(raw, f"qa_pairs[{pi}]", labels)
        if isinstance(got, str):
            bad(got, sid)
            stage = raw.get("stage", raw.get("layer")) if isinstance(raw, dict) else None
            # a broken stage 1 takes its stage 2 with it; a broken stage 2 its stage 1
            pending = _BROKEN if str(stage) == "1" else None
            continue
        got, cat_problem, cat_drop = got
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
            bad(f"qa_pairs[{pi}]: {cat_problem}", sid, dropped=cat_drop)
        if cat_drop:
            pending = None
            continue
        items.append(Item(sid, n_items, audio, pending, got, ri))
        n_items += 1
        pending = None
    if isinstance(pending, Pair):
        bad("the last stage-1 pair has no stage 2", sid)
    return n_items


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
