"""SO-Bench files: ``qa/<split>.jsonl``, the audio under the benchmark root, ``predictions.jsonl``.

An SO-Bench root holds ``qa/test.jsonl`` (one QA record a line) and the FOA audio the records
name by ``audio_path``, relative to the root (``audio/test/foa_*.wav``).  This module reads
and writes those files and nothing else: it knows nothing of signals or kernels.

Record keys (FORMATS.md section 4): ``qa_id, split, audio_id, audio_path, task_name,
question_class, answer_format, question, answer, canonical_answer, answer_meta``.  Only
``qa_id``, ``audio_path``, ``task_name`` and ``question`` are required here; the others
default to empty.  ``answer_meta`` keys: ``azimuth_deg``, ``elevation_deg``, ``distance_m``,
``time_span [start, end]``, ``onset_time``, ``active_count``.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ..errors import FormatError

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
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise FormatError(path, f"cannot read ({exc.strerror or exc})") from None
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
    """The file an ``audio_path`` names, refusing any path that leaves ``root``.

    Parameters
    ----------
    root : str or PathLike
        The SO-Bench root.
    audio_path : str
        Path relative to ``root`` as the QA record gives it (POSIX separators).

    Returns
    -------
    Path
        ``root / audio_path`` (not resolved, so it may not exist: reading it is the
        caller's business).

    Raises
    ------
    FormatError
        The path is empty, absolute (POSIX, Windows drive or UNC), has a ``..``
        component, or resolves (through symlinks) to a place outside ``root``.
    """
    text = str(audio_path)
    if not text.strip():
        raise FormatError(text, "empty audio_path")
    if "\x00" in text:
        raise FormatError(repr(text), "audio_path contains a NUL byte")
    posix, windows = PurePosixPath(text), PureWindowsPath(text)
    if posix.is_absolute() or windows.drive or windows.root or text.startswith("~"):
        raise FormatError(text, "refused: audio_path is absolute; it must be relative to "
                          "the SO-Bench root")
    if ".." in posix.parts or ".." in windows.parts:
        raise FormatError(text, "refused: audio_path has a '..' component and would "
                          "escape the SO-Bench root")
    rootp = Path(root)
    target = rootp.joinpath(*posix.parts)
    real_root = Path(os.path.realpath(rootp))
    real_target = Path(os.path.realpath(target))
    if real_target != real_root and real_root not in real_target.parents:
        raise FormatError(text, f"refused: audio_path resolves to {real_target}, outside "
                          f"the SO-Bench root {real_root} (symlink out of the root)")
    return target


def prediction_text(row: Mapping[str, Any]) -> str:
    """The answer text of a prediction row, read as the official scorer reads it.

    ``prediction``, then ``prediction_cleaned``, then ``prediction_raw``: the first that
    is non-empty (the order SO-Bench's README documents for its scorer); "" when none is.
    """
    for key in ("prediction", "prediction_cleaned", "prediction_raw"):
        value = row.get(key)
        if value is not None and str(value).strip():
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


# --------------------------------------------------------------------------------------
# What a question says about the event it means (SO-Bench phrasing, in general terms)
# --------------------------------------------------------------------------------------

_NUM = r"[-+]?\d+(?:\.\d+)?"
_SEC = r"(?:s|sec|secs|seconds?)\b"
_INSTRUCTION = re.compile(r"^\s*(?:listen|answer|respond|reply|report|give|provide|use|please|"
                          r"state|express|based on|note|assume|format|round)\b", re.I)
_CONVENTION = re.compile(r"clockwise|convention|=|\bmeans\b|\branges?\b|\bbuckets?\b", re.I)
_OPPOSITES = (("left", "right"), ("front", "back|behind"), ("higher", "lower"),
              ("above", "below"), ("closer|nearer", "farther|further|away"),
              ("toward|towards", "away"), ("up", "down"))
# "X or Y" / "X, Y" answer options (opposite words, at most a few words apart, no noun between)
_OPTIONS = re.compile("|".join(
    rf"\b(?:{a})\b(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?(?:\bor\b|,|/)"
    rf"(?:(?!sound|source|\bone\b|[.?!]).){{0,30}}?\b(?:{b})\b"
    for x, y in _OPPOSITES for a, b in ((x, y), (y, x))), re.I)
_DIRECTIONS = (
    (45.0, r"front[\s_-]*left|left[\s_-]*front|forward[\s_-]*left|upper[\s_-]+left"),
    (-45.0, r"front[\s_-]*right|right[\s_-]*front|forward[\s_-]*right|upper[\s_-]+right"),
    (135.0, r"(?:back|rear|behind)[\s_-]*(?:and\s+)?(?:to\s+the\s+)?left|left[\s_-]*(?:rear|back)"),
    (-135.0, r"(?:back|rear|behind)[\s_-]*(?:and\s+)?(?:to\s+the\s+)?right"
             r"|right[\s_-]*(?:rear|back)"),
    (0.0, r"in front|front|ahead|forward"),
    (180.0, r"behind|back|rear"),
    (90.0, r"left(?![\s-]+(?:over|behind))"),
    (-90.0, r"right(?![\s-]+(?:after|before|now|away|at the (?:start|end|beginning)))"),
)
_UP = re.compile(r"\b(?:above|overhead|upper|high up|up high|elevated|from above)\b")
_DOWN = re.compile(r"\b(?:below|beneath|underneath|under|lower|from below)\b")
_ORDER = {"first": 0, "earliest": 0, "initial": 0, "second": 1, "third": 2, "fourth": 3,
          "fifth": 4, "last": -1, "final": -1, "latest": -1}
_SUPERLATIVES = (("closest", r"closest|nearest"), ("farthest", r"farthest|furthest|most distant"),
                 ("loudest", r"loudest|strongest"), ("quietest", r"quietest|softest|faintest"),
                 ("highest", r"highest"), ("lowest", r"lowest"), ("longest", r"longest"),
                 ("shortest", r"shortest|briefest"))


@dataclass
class Cues:
    """What a question says about the event it asks about.

    Attributes
    ----------
    azimuth_deg : float or None
        From an explicit angle ("60 degrees", "azimuth of -30") or a direction word
        (front 0, front-left 45, left 90, back-left 135, behind 180, right -90, ...).
    azimuth_explicit : bool
        The azimuth was a number, not a word.
    elevation_deg : float or None
        From an explicit elevation angle.
    elevation_sign : int
        +1 for above / overhead, -1 for below, 0 when not said.
    time_s : float or None
        A time the event is active at ("at 3.2 s").
    window : (float, float) or None
        A time range ("between 2 and 4 s", "after 5 s", "in the first 3 seconds").
    order : int or None
        0-based order of onset ("first", "second", ...), -1 for "last".
    superlative : str or None
        closest, farthest, loudest, quietest, highest, lowest, longest, shortest.
    text : str
        The question text the cues came from.
    matched : list of str
        The phrases read, for the evidence.
    """

    azimuth_deg: float | None = None
    azimuth_explicit: bool = False
    elevation_deg: float | None = None
    elevation_sign: int = 0
    time_s: float | None = None
    window: tuple[float, float] | None = None
    order: int | None = None
    superlative: str | None = None
    text: str = ""
    matched: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when the question says nothing that singles out an event."""
        return not self.matched

    def kinds(self) -> set[str]:
        """The kinds of cue present (azimuth, elevation, time, order, superlative)."""
        out = set()
        if self.azimuth_deg is not None:
            out.add("azimuth")
        if self.elevation_deg is not None or self.elevation_sign:
            out.add("elevation")
        if self.time_s is not None or self.window is not None:
            out.add("time")
        if self.order is not None:
            out.add("order")
        if self.superlative:
            out.add("superlative")
        return out


def _core_text(question: str) -> str:
    """The question without instruction sentences or angle-convention explanations."""
    text = re.sub(r"\([^)]*\)", lambda m: " " if _CONVENTION.search(m.group(0))
                  else m.group(0), str(question))
    sentences = re.split(r"(?<=[.?!])\s+", text)
    kept = [s for s in sentences if not _INSTRUCTION.match(s) and not _CONVENTION.search(s)]
    return " ".join(kept) if kept else text


def _mask(text: str, m: re.Match) -> str:
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


def _cues(text: str) -> Cues:
    c = Cues(text=" ".join(text.split()))
    t = _OPTIONS.sub(lambda m: " " * len(m.group(0)), text.lower())
    for m in re.finditer(rf"(?:between|from)\s+({_NUM})\s*(?:{_SEC})?\s*(?:and|to|-|until)\s*"
                         rf"({_NUM})\s*{_SEC}", t):
        a, b = sorted((float(m.group(1)), float(m.group(2))))
        c.window = (a, b)
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"\b(first|last|final)\s+({_NUM})\s*{_SEC}", t):
        if m.group(1) == "first":
            c.window = (0.0, float(m.group(2)))
            c.matched.append(m.group(0))
        t = _mask(t, m)
    for m in re.finditer(rf"(?:\b(at|around|about|near|after|before|by|until)\s+)?(?:around\s+|"
                         rf"about\s+|roughly\s+|approximately\s+)?(?:t\s*=\s*)?({_NUM})\s*{_SEC}",
                         t):
        x, prep = float(m.group(2)), m.group(1)
        if prep == "after":
            c.window = (x, math.inf)
        elif prep in ("before", "by", "until"):
            c.window = (0.0, x)
        else:
            c.time_s = x
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"({_NUM})\s*(?:°|º|degrees?\b|degs?\b)(\s*(?:of\s+)?(?:to the\s+)?"
                         r"(?:elevation|azimuth|left|right|above|below|up|down)?)", t):
        x, after = float(m.group(1)), m.group(2).strip()
        before = t[max(0, m.start() - 40):m.start()]
        kw = [(before.rfind(k), k) for k in ("elevation", "azimuth", "height")]
        near = max(kw)[1] if max(kw)[0] >= 0 else "azimuth"
        is_el = any(w in after for w in ("elevation", "above", "below", "up", "down")) or \
            (not after and near in ("elevation", "height"))
        signed = m.group(1)[0] in "+-"
        if is_el:
            c.elevation_deg = -abs(x) if not signed and ("below" in after or "down" in after) \
                else x
        else:
            c.azimuth_deg = -abs(x) if not signed and "right" in after else x
            c.azimuth_explicit = True
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for m in re.finditer(rf"\b(azimuth|elevation)(?:\s+angle)?(?:\s+of|\s+is|\s+at|\s*=|\s*:)?"
                         rf"\s*(?:about|around|approximately|roughly)?\s*({_NUM})\b", t):
        if m.group(1) == "azimuth":
            c.azimuth_deg, c.azimuth_explicit = float(m.group(2)), True
        else:
            c.elevation_deg = float(m.group(2))
        c.matched.append(m.group(0).strip())
        t = _mask(t, m)
    for az, pat in _DIRECTIONS:
        m = re.search(rf"\b(?:{pat})\b", t)
        if m:
            if c.azimuth_deg is None:
                c.azimuth_deg = az
                c.matched.append(m.group(0))
            t = _mask(t, m)
    for sign, pat in ((1, _UP), (-1, _DOWN)):
        m = pat.search(t)
        if m and not c.elevation_sign and c.elevation_deg is None:
            c.elevation_sign = sign
            c.matched.append(m.group(0))
    for name, pat in _SUPERLATIVES:
        m = re.search(rf"\b(?:{pat})\b", t)
        if m and c.superlative is None:
            c.superlative = name
            c.matched.append(m.group(0))
    t = re.sub(r"\bper second\b|\bfirst[\s-]+order\b", " ", t)
    m = re.search(r"\b(" + "|".join(_ORDER) + r")\b", t)
    if m:
        c.order = _ORDER[m.group(1)]
        c.matched.append(m.group(0))
    return c


def parse_question(question: str) -> Cues:
    """Read what a question says about the event it means.

    Direction words (front, front-left, left, behind, ..., above, below), explicit angles
    ("60 degrees", "azimuth -30", "20 degrees above"), times ("at 3.2 s", "between 2 and
    4 s", "after 5 s"), order words (first, second, last) and superlatives (closest,
    loudest, ...).  Instruction sentences ("Answer in one sentence ...") and angle
    convention explanations are ignored, and so are answer options ("left or right").
    Sound class names are not cues: signal analysis cannot recognise them.
    """
    return _cues(_core_text(question))


_FILLER = re.compile(r"^(?:\s*\b(?:is|are|was|which|what|does|do|the|a|an|sound|source|one|"
                     r"event|that|heard|coming|located|positioned|it|between)\b)+\s*", re.I)


_TRAIL = re.compile(r"(?:\s+\b(?:to|on|of|the|is|are|closer|nearer|farther|further|higher|"
                    r"lower|away)\b)+\s*$", re.I)


def referents(question: str) -> list[Cues]:
    """The sounds a relation question names, in order, each with its cues.

    The question (options such as "left or right" removed) is split at "or", "than",
    "relative to", "compared to", "versus", "of the", ",", ";" and ":" (and "and" after
    "between"); parts without a cue are dropped, and a part adding only new kinds of cue
    after a comma or "and" joins the previous one.  ``Cues.text`` is the part without
    leading filler words ("the sound", "is", ...).
    """
    core = _OPTIONS.sub(" ", _core_text(question))
    seps = r"\bor\b|\bthan\b|\brelative to\b|\bcompared (?:to|with)\b|\bversus\b|\bvs\.?|" \
           r"\bof the\b|[,;:]|\band\b"
    pieces = re.split(rf"({seps})", core, flags=re.I)
    out: list[Cues] = []
    prev_sep = ""
    between = "between" in core.lower()
    for i in range(0, len(pieces), 2):
        seg, sep = pieces[i], (pieces[i + 1].lower().strip() if i + 1 < len(pieces) else "")
        cues = _cues(seg)
        if not cues.empty:
            if out and prev_sep in (",", "and") and not (prev_sep == "and" and between) and \
                    not (cues.kinds() & out[-1].kinds()):
                cues = _cues(out[-1].text + " " + seg)
                out.pop()
            cues.text = _TRAIL.sub("", _FILLER.sub("", cues.text).strip(" ?.!,"))
            out.append(cues)
        prev_sep = sep
    return out
