"""AIR-Bench Chat files as foakit reads them (``docs/airbench.md``).

``ROOT/Chat/Chat_meta.json``
    A JSON list of items: ``meta_info`` (a text description; for dialogue tasks a JSON list
    of turns as a string; for others often a Python-literal dict as a string),
    ``question``, ``answer_gt``, ``path``, ``task_name``, ``dataset_name``, ``uniq_id``.
    The audio is at ``ROOT/Chat/{task_name}_{dataset_name}/{path}`` (wav or mp3).
The evalscope record form
    JSON lines (or a JSON list) of ``{"input": [{"content": [{"audio": ...}, {"text":
    question}]}], "target": answer_gt, "metadata": {uniq_id, task_name, dataset_name,
    meta_info, question, ...}}``; the audio path is read from the record (absolute paths
    of another machine are re-rooted under ``ROOT/Chat/{task_name}_{dataset_name}/`` by
    their file name).  evalscope itself writes the audio as a base64 data URI
    (``data:audio/wav;base64,...``): that audio is decoded into a cache folder under a
    name taken from its content (:func:`decode_data_uri`), and the item points there.

8 tasks map to 5 categories as the official ``cal_score.py`` maps them
(:data:`CATEGORY_OF`); Mixed is the mean of ``speech_and_sound`` and ``speech_and_music``.
"""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...errors import FormatError
from ..paths import resolve_under

__all__ = ["TASKS", "CATEGORIES", "CATEGORY_OF", "SPEECH_TASKS", "MIXED", "ChatItem",
           "ChatCorpus", "meta_file", "load_chat", "parse_meta_info", "transcription_of",
           "speaking_times", "read_json_records", "item_key", "decode_data_uri",
           "DEFAULT_AUDIO_CACHE"]

CATEGORY_OF = {
    "speech_QA": "speech", "speech_dialogue_QA": "speech",
    "sound_QA": "sound", "sound_generation_QA": "sound",
    "music_QA": "music", "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}
TASKS = tuple(CATEGORY_OF)
CATEGORIES = ("speech", "sound", "music", "speech_and_sound", "speech_and_music")
#: Mixed-audio = mean of these two categories (the paper's table).
MIXED = ("speech_and_sound", "speech_and_music")
#: Tasks whose clips must hold speech.
SPEECH_TASKS = ("speech_QA", "speech_dialogue_QA", "speech_and_sound_QA",
                "speech_and_music_QA")


@dataclass
class ChatItem:
    """One AIR-Bench Chat item.

    Attributes
    ----------
    key : str
        ``uniq_id`` as text (``task/dataset/path`` when the item has none; ``#2``, ``#3``
        appended to a repeated one).
    uniq_id, task_name, dataset_name, path, question, answer_gt, meta_info
        The fields as the file gives them (``meta_info`` the raw string).
    category : str or None
        :data:`CATEGORY_OF` of the task (None for an unknown task).
    audio : Path
        Where the audio is expected (not resolved through symlinks).
    line : int
        Position in the file (1-based: the list index + 1, or the JSON line).
    problems : list of str
        What is wrong with the item's fields (an unknown task, a repeated uniq_id, a path
        that escapes the root).
    """

    key: str
    uniq_id: Any
    task_name: str
    dataset_name: str
    path: str
    question: str
    answer_gt: str
    meta_info: Any
    category: str | None
    audio: Path | None
    line: int
    problems: list[str] = field(default_factory=list)

    def ident(self) -> dict:
        """The fields that name the item in reports."""
        return {"key": self.key, "uniq_id": self.uniq_id, "task_name": self.task_name,
                "dataset_name": self.dataset_name, "path": self.path}


@dataclass
class ChatCorpus:
    """Items of one AIR-Bench Chat root."""

    root: Path
    source: Path
    form: str
    items: list[ChatItem]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


def meta_file(root: str | os.PathLike) -> Path:
    """``ROOT/Chat/Chat_meta.json`` (or ``ROOT/Chat_meta.json`` when ROOT is the Chat
    folder)."""
    r = Path(root)
    for p in (r / "Chat" / "Chat_meta.json", r / "Chat_meta.json"):
        if p.is_file():
            return p
    raise FormatError(r / "Chat" / "Chat_meta.json", "no such file (an AIR-Bench root holds "
                      "Chat/Chat_meta.json)")


def read_json_records(path: str | os.PathLike) -> list[tuple[int, Any]]:
    """(line or index + 1, record) of a JSON list or a JSON-lines file.

    Raises
    ------
    FormatError
        Not JSON (the first bad line is named); blank lines are skipped.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise FormatError(p, f"cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise FormatError(p, "not UTF-8 text") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(p, f"not valid JSON ({exc.msg})", line=exc.lineno) from None
        return list(enumerate(data, 1))
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((i, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise FormatError(p, f"not a JSON line ({exc.msg})", line=i) from None
    return out


def parse_meta_info(meta: Any) -> tuple[Any, bool]:
    """``(value, ok)``: a ``meta_info`` string read as JSON, else as a Python literal
    (``"{'emotion': ...}"``); plain text descriptions are returned as they are.

    ``ok`` is False when the string looks structured (starts with ``{`` or ``[``) and
    neither reading works, or when ``meta_info`` is missing or not text.
    """
    if meta is None:
        return None, False
    if not isinstance(meta, str):
        return meta, isinstance(meta, dict | list)
    s = meta.strip()
    if not s:
        return meta, False
    if s[0] not in "{[":
        return meta, True
    try:
        return json.loads(s), True
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(s), True
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return meta, False


def transcription_of(meta: Any) -> str | None:
    """The transcription a parsed ``meta_info`` gives (dialogue turns joined), or None."""
    if isinstance(meta, dict):
        for k in ("transcription", "transcript", "text"):
            v = meta.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip()
        return None
    if isinstance(meta, list):
        parts = [transcription_of(t) for t in meta]
        text = " ".join(p for p in parts if p)
        return text or None
    return None


def speaking_times(meta: Any) -> list[tuple[float, float]]:
    """``(start, end)`` of each dialogue turn's ``"speaking time": "(0.00,13.39)"``."""
    out = []
    if isinstance(meta, list):
        for t in meta:
            v = t.get("speaking time") if isinstance(t, dict) else None
            if isinstance(v, str):
                try:
                    a, b = (float(x) for x in v.strip("() ").split(","))
                except ValueError:
                    continue
                out.append((a, b))
    return out


def item_key(row: Mapping) -> str:
    """The key of a judged / response record: ``uniq_id`` when present, else
    ``task/dataset/path/question`` (the official files carry no id)."""
    uid = row.get("uniq_id")
    if uid is not None and uid != "":
        return str(uid)
    return "/".join(str(row.get(k, "")) for k in ("task_name", "dataset_name", "path",
                                                  "question"))


#: Where decoded data-URI audio goes when the caller names no folder.
DEFAULT_AUDIO_CACHE = Path(tempfile.gettempdir()) / "foakit-airbench-audio"
_DATA_URI = re.compile(r"^data:(?P<mime>[^;,]*)(?P<params>(?:;[^;,]*)*);base64,",
                       re.IGNORECASE)
_EXT_OF_MIME = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
                "audio/vnd.wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3",
                "audio/flac": "flac", "audio/x-flac": "flac", "audio/ogg": "ogg"}


def decode_data_uri(uri: str, cache: str | os.PathLike, *, fmt: str | None = None) -> Path:
    """Write the audio of a base64 data URI into ``cache`` and return the file.

    The file is named by the SHA-1 of the decoded bytes, with the extension of the URI's
    media type (else ``fmt``, else ``bin``), and written once: the same audio decodes to
    the same file.

    Parameters
    ----------
    uri : str
        ``data:audio/wav;base64,...``.
    cache : str or PathLike
        The folder (created when absent).
    fmt : str, optional
        The record's own audio ``format`` (``wav``, ``mp3``), used when the media type
        names none.

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        Not a base64 data URI, or its payload is not base64 (the message says which).
    """
    m = _DATA_URI.match(uri)
    if m is None:
        raise ValueError(f"audio {uri[:40]!r}... is not a base64 data URI")
    try:
        data = base64.b64decode(uri[m.end():].strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"audio data URI payload is not base64 ({exc})") from None
    if not data:
        raise ValueError("audio data URI holds no bytes")
    ext = _EXT_OF_MIME.get(m.group("mime").lower()) or (str(fmt).lower().lstrip(".")
                                                        if fmt else "bin")
    folder = Path(cache)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha1(data).hexdigest()[:20]}.{ext}"
    if not path.is_file() or path.stat().st_size != len(data):
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    return path


def _audio_part(rec: Mapping) -> Mapping | None:
    for turn in rec.get("input") or []:
        for part in (turn or {}).get("content") or []:
            if isinstance(part, Mapping) and part.get("audio"):
                return part
    return None


def _audio_of_record(rec: Mapping) -> str | None:
    part = _audio_part(rec)
    return None if part is None else str(part["audio"])


def _question_of_record(rec: Mapping) -> str:
    for turn in rec.get("input") or []:
        for part in (turn or {}).get("content") or []:
            if isinstance(part, Mapping) and part.get("text"):
                return str(part["text"])
    return ""


def _flatten(rec: Mapping, cache: str | os.PathLike) -> dict:
    """An evalscope record as a Chat_meta item; a data-URI audio is decoded into
    ``cache`` (``_audio_file``, or ``_audio_error`` when it does not decode)."""
    md = dict(rec.get("metadata") or {})
    audio = _audio_of_record(rec) or ""
    task, ds = md.get("task_name", ""), md.get("dataset_name", "")
    if audio[:5].lower() == "data:":
        part = _audio_part(rec) or {}
        out = {"meta_info": md.get("meta_info"), "question": md.get("question")
               or _question_of_record(rec), "answer_gt": rec.get("target", ""),
               "task_name": task, "dataset_name": ds, "uniq_id": md.get("uniq_id")}
        try:
            f = decode_data_uri(audio, cache, fmt=part.get("format"))
        except ValueError as exc:
            return dict(out, path=str(md.get("path") or "data-uri"), _audio_error=str(exc))
        return dict(out, path=str(md.get("path") or f.name), _audio_file=f)
    folder = f"{task}_{ds}"
    parts = PurePosixPath(audio.replace("\\", "/")).parts
    # ".../Chat/{task}_{dataset}/{path}": keep what follows the task folder
    path = parts[parts.index(folder) + 1:] if folder in parts else parts[-1:]
    return {"meta_info": md.get("meta_info"), "question": md.get("question")
            or _question_of_record(rec), "answer_gt": rec.get("target", ""),
            "path": "/".join(path), "task_name": task, "dataset_name": ds,
            "uniq_id": md.get("uniq_id")}


def _is_record(row: Any) -> bool:
    return isinstance(row, Mapping) and "input" in row and "metadata" in row


def load_chat(root: str | os.PathLike, *, records: str | os.PathLike | None = None,
              audio_cache: str | os.PathLike | None = None) -> ChatCorpus:
    """Load an AIR-Bench Chat root.

    Parameters
    ----------
    root : str or PathLike
        Holds ``Chat/`` (its audio folders and, unless ``records`` is given,
        ``Chat_meta.json``).
    records : str or PathLike, optional
        A file of evalscope records (or a Chat_meta-style list) to read instead.
    audio_cache : str or PathLike, optional
        Where audio given as a base64 data URI is decoded to (default
        :data:`DEFAULT_AUDIO_CACHE`).  A URI that does not decode is an item problem.

    Returns
    -------
    ChatCorpus

    Raises
    ------
    FormatError
        No meta file, not JSON, or an item that is not an object / misses ``task_name`` or
        ``path`` (named by its position).
    """
    r = Path(root)
    src = Path(records) if records is not None else meta_file(r)
    chat = src.parent if records is None else (r / "Chat" if (r / "Chat").is_dir() else r)
    rows = read_json_records(src)
    items: list[ChatItem] = []
    seen: dict[str, int] = {}
    form = "evalscope" if rows and _is_record(rows[0][1]) else "chat_meta"
    for line, row in rows:
        if not isinstance(row, Mapping):
            raise FormatError(src, f"item {line} is {type(row).__name__}, not an object",
                              line=line)
        d = (_flatten(row, DEFAULT_AUDIO_CACHE if audio_cache is None else audio_cache)
             if _is_record(row) else dict(row))
        for k in ("task_name", "path"):
            if not isinstance(d.get(k), str) or not d.get(k):
                raise FormatError(src, f"item {line} has no {k!r}", line=line)
        problems = []
        task, ds = d["task_name"], str(d.get("dataset_name", ""))
        cat = CATEGORY_OF.get(task)
        if cat is None:
            problems.append(f"unknown task_name {task!r}")
        uid = d.get("uniq_id")
        key = str(uid) if uid is not None and uid != "" else f"{task}/{ds}/{d['path']}"
        if key in seen:
            seen[key] += 1
            problems.append(f"uniq_id {uid!r} repeats item {key}")
            key = f"{key}#{seen[key]}"
        else:
            seen[key] = 1
        if "_audio_file" in d:
            audio = Path(d["_audio_file"])
        elif "_audio_error" in d:
            problems.append(d["_audio_error"])
            audio = None
        else:
            try:
                audio = resolve_under(chat, f"{task}_{ds}/{d['path']}", field="path",
                                      root_name="Chat folder")
            except FormatError as exc:
                problems.append(exc.problem)
                audio = None
        items.append(ChatItem(key=key, uniq_id=uid, task_name=task, dataset_name=ds,
                              path=d["path"], question=str(d.get("question") or ""),
                              answer_gt=str(d.get("answer_gt") or ""),
                              meta_info=d.get("meta_info"), category=cat, audio=audio,
                              line=line, problems=problems))
    return ChatCorpus(root=r, source=src, form=form, items=items)
