"""HalluAudio files: the parquet configs ``multiple_choice`` and ``open_freeform``.

A HalluAudio root is a local copy of the Hugging Face dataset (``docs/halluaudio.md``).  Each
config is a folder named after it (``ROOT/multiple_choice/*.parquet``, also below ``data/``
or a hub snapshot) or files whose names start with it
(``multiple_choice-00000-of-00001.parquet``).  One row per audio:

* the audio column: the Hugging Face Audio feature, a struct ``{bytes, path}`` (the bytes
  embedded; ``path`` is only a name, read from under the root when the bytes are absent);
* ``ground_truth``: a JSON string, the human label (``level``, ``speech_presence``,
  ``transcript_status``, ``semantic_content``, ``intent_confidence``, ``uncertain_spans``,
  ``label_notes``);
* ``eval_cases``: a JSON array (or a list column) of the cases of that config;
* row metadata: the audio id and the level.

Rows are read with pyarrow one small batch at a time, so memory stays flat on a corpus of
any size; the scorer reads no audio column at all.  An audio present in both configs is one
audio (:class:`Audio` holds the cases of both).  A broken row (bad JSON, no id) is reported
with its id and file; the rest loads.  Field names beyond those the dataset card gives are not
public: the names this reader accepts for each are listed in :data:`CASE_FIELDS` and
:data:`ROW_FIELDS`; any other field is kept in ``extra``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import resolve_under, resolved

__all__ = [
    "CONFIGS",
    "SCORING_RULES",
    "RESULT_CLASSES",
    "PROMPT_MODES",
    "CASE_FIELDS",
    "ROW_FIELDS",
    "Case",
    "Row",
    "BrokenRow",
    "Audio",
    "Corpus",
    "find_config_files",
    "iter_rows",
    "load_corpus",
    "rubric_allows_partial",
    "row_audio_bytes",
    "speech_presence",
    "uncertain_spans",
]

#: The dataset's two configs.
CONFIGS = ("multiple_choice", "open_freeform")
#: The dataset card's scoring rules; the first three are closed (deterministic).
SCORING_RULES = ("exact_match", "normalized_match", "multiple_choice", "llm_judge")
CLOSED_RULES = SCORING_RULES[:3]
#: Authoring selections the dataset card materializes as multiple-choice cases with options.
AUTHORING_MC = ("binary", "open_constrained")
#: ``transcript_status`` values that mark the human transcript reliable (the only case in
#: which the dataset card lets a transcription case use ``normalized_match``).
RELIABLE_TRANSCRIPT = ("reliable", "verified", "human_verified", "confirmed")
#: expected_result_class values the dataset card names.
RESULT_CLASSES = ("supported", "partial", "insufficient", "no_speech", "not_applicable")
PROMPT_MODES = ("natural", "constrained")

#: Case field -> the names accepted for it (the first is the dataset card's own name).
CASE_FIELDS: dict[str, tuple[str, ...]] = {
    "case_id": ("case_id", "id", "eval_case_id"),
    "prompt": ("prompt", "question"),
    "choice_options": ("choice_options", "options", "choices"),
    "expected_result": ("expected_result", "expected", "answer"),
    "expected_result_class": ("expected_result_class", "result_class"),
    "expected_intent": ("expected_intent", "intent"),
    "rubric": ("rubric", "judge_rubric", "expected_intent_rubric"),
    "forbidden_claims": ("forbidden_claims",),
    "hallucination_if": ("hallucination_if",),
    "scoring": ("scoring", "scoring_rule", "scoring_method", "scorer"),
    "prompt_mode": ("prompt_mode", "mode", "prompt_style", "prompt_variant"),
    "aliases": ("approved_aliases", "answer_aliases", "aliases"),
    "asks_reason": ("asks_reason", "requires_reason", "with_reason"),
    "partial_passes": ("partial_passes", "allow_partial"),
    "transcript_status": ("transcript_status", "transcript_reliability"),
}
#: Row field -> the names accepted for it.
ROW_FIELDS: dict[str, tuple[str, ...]] = {
    "audio_id": ("audio_id", "id", "sample_id", "uid"),
    "level": ("level", "annotation_level"),
    "audio": ("audio",),
    "ground_truth": ("ground_truth",),
    "eval_cases": ("eval_cases",),
}
#: Case fields the dataset card names; a field absent from every case is reported as missing.
SEED_CASE_FIELDS = ("prompt", "expected_result", "expected_result_class", "expected_intent",
                    "rubric", "forbidden_claims", "hallucination_if", "scoring",
                    "prompt_mode", "choice_options")

_LEVEL = re.compile(r"^\s*(?:level\s*)?L?\s*([1-6])\b", re.IGNORECASE)


@dataclass
class Case:
    """One eval case.  ``index`` is its position in the row's ``eval_cases``; ``key`` is
    ``(audio_id, config, case_id)`` with ``case_id`` the case's own id or ``str(index)``."""

    audio_id: str
    config: str
    index: int
    case_id: str
    prompt: str
    scoring: str | None
    prompt_mode: str | None
    choice_options: dict[str, str] | None
    expected_result: Any
    expected_result_class: str | None
    expected_intent: Any
    rubric: Any
    forbidden_claims: list
    hallucination_if: Any
    aliases: list[str]
    asks_reason: bool
    partial_passes: bool
    level: str | None = None
    extra: dict = field(default_factory=dict)
    #: The case's own transcript status, else its audio's ``ground_truth`` one.
    transcript_status: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.audio_id, self.config, self.case_id)

    @property
    def transcript_reliable(self) -> bool:
        """Whether the human transcript is marked reliable (:data:`RELIABLE_TRANSCRIPT`)."""
        t = str(self.transcript_status or "").strip().lower().replace("-", "_")
        return t.replace(" ", "_") in RELIABLE_TRANSCRIPT

    @property
    def rule(self) -> str | None:
        """The scoring rule the dataset card's protocol gives this case, or None.

        * ``binary`` / ``open_constrained`` (authoring selections) with options:
          ``multiple_choice``; without options: None.
        * ``normalized_match`` only when the transcript is marked reliable, else the open
          judge path (``llm_judge``).
        * ``not_applicable`` cases use their closed-answer rule: an ``llm_judge`` (or
          unruled) one with options is ``multiple_choice``; without options it has no
          closed rule (:attr:`incomplete_reason`), never a judge rubric.
        * no rule: ``multiple_choice`` with options, ``llm_judge`` in ``open_freeform``.
        """
        rule = self.scoring
        if rule in AUTHORING_MC:
            return "multiple_choice" if self.choice_options else None
        if rule == "normalized_match" and not self.transcript_reliable:
            return "llm_judge"
        if rule is None:
            if self.choice_options:
                return "multiple_choice"
            rule = "llm_judge" if self.config == "open_freeform" else None
        if rule == "llm_judge" and self.expected_result_class == "not_applicable":
            return "multiple_choice" if self.choice_options else "exact_match"
        return rule if rule in SCORING_RULES else None

    @property
    def closed(self) -> bool:
        return self.rule in CLOSED_RULES

    @property
    def incomplete_reason(self) -> str | None:
        """Why a closed case cannot be scored before review, or None: no expected result;
        a multiple-choice case without options, or whose key is not among its options; a
        ``not_applicable`` case with neither options nor an expected answer."""
        if not self.closed:
            return None
        exp = self.expected_result
        if exp in (None, "") or (isinstance(exp, (list, dict)) and not exp):
            return ("not_applicable case without a closed answer (no options, no "
                    "expected_result)" if self.expected_result_class == "not_applicable"
                    else "no expected_result")
        if self.rule == "multiple_choice" and not self.choice_options:
            # the card asks for a reliable key among the options: with none there is no
            # answer space to check the key against
            return f"multiple-choice case without options (expected key {exp!r})"
        if self.rule == "multiple_choice" and \
                str(exp).strip() not in self.choice_options:
            return (f"expected key {exp!r} is not among the options "
                    f"{', '.join(self.choice_options)}")
        return None

    @property
    def complete(self) -> bool:
        """A closed case needs an expected result (a multiple-choice one, a key among its
        options); an open one is valid without."""
        return self.incomplete_reason is None

    def model_input(self) -> dict:
        """What the model under test receives besides the audio: the prompt (with its
        options), never a scorer-side field."""
        out = {"audio_id": self.audio_id, "config": self.config, "case_id": self.case_id,
               "prompt": self.prompt}
        if self.choice_options:
            out["choice_options"] = dict(self.choice_options)
        return out


@dataclass
class Row:
    """One parquet row: an audio of one config."""

    audio_id: str
    config: str
    level: str | None
    ground_truth: dict
    cases: list[Case]
    file: str
    row: int
    audio: dict | None = None
    extra: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass
class BrokenRow:
    """A row that cannot be read; ``audio_id`` is None when even the id is unreadable."""

    audio_id: str | None
    config: str
    file: str
    row: int
    problem: str

    def line(self) -> str:
        who = self.audio_id if self.audio_id is not None else f"row {self.row}"
        return f"{self.file}: row {self.row} ({who}): {self.problem}"


@dataclass
class Audio:
    """One audio across the configs: its label and the cases of both."""

    audio_id: str
    level: str | None
    ground_truth: dict
    cases: list[Case]
    configs: list[str]
    sources: list[tuple[str, int]]


@dataclass
class Corpus:
    """A HalluAudio root's labels and cases (no audio): what scoring needs."""

    root: str
    files: dict[str, list[str]]
    audios: dict[str, Audio]
    broken: list[BrokenRow]
    problems: list[str]
    missing_fields: list[str]
    unknown_fields: dict[str, list[str]]

    def cases(self) -> Iterator[Case]:
        for audio in self.audios.values():
            yield from audio.cases

    def case_index(self) -> dict[tuple[str, str, str], Case]:
        return {c.key: c for c in self.cases()}


def find_config_files(root: str | os.PathLike) -> dict[str, list[Path]]:
    """The parquet files of each config under ``root`` (symlinks followed), sorted.

    A file belongs to a config when a folder on its path below ``root`` is named after it,
    or its own name starts with the config's name.  Raises FormatError when ``root`` is not
    a folder or holds no file of either config.
    """
    from ...errors import FormatError

    base = Path(root)
    if not base.is_dir():
        raise FormatError(base, "not a folder (expected the HalluAudio dataset root)")
    found: dict[str, list[Path]] = {c: [] for c in CONFIGS}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "blobs")
        rel = Path(dirpath).relative_to(base).parts
        for name in sorted(filenames):
            if not name.endswith(".parquet"):
                continue
            config = next((c for c in CONFIGS if c in rel), None)
            if config is None:
                config = next((c for c in CONFIGS if name.startswith(c)), None)
            if config is not None:
                found[config].append(Path(dirpath) / name)
    if not any(found.values()):
        raise FormatError(base, "no parquet file of the configs multiple_choice / "
                          "open_freeform (neither a folder nor a file named after them)")
    return found


def _pick(d: dict, names: tuple[str, ...]) -> tuple[str | None, Any]:
    for n in names:
        if n in d:
            return n, d[n]
    return None, None


def _options(value: Any) -> dict[str, str] | None:
    """choice_options as ``{key: text}``: a mapping, a list of ``{key, text}`` objects, or a
    list of texts (keyed A, B, C, ...)."""
    if value in (None, "", [], {}):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"choice_options is not JSON: {exc.msg}") from None
    if isinstance(value, dict):
        return {str(k).strip(): str(v) for k, v in value.items()}
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            if isinstance(item, dict):
                k = item.get("key", item.get("label", item.get("option", chr(65 + i))))
                out[str(k).strip()] = str(item.get("text", item.get("value", "")))
            else:
                out[chr(65 + i)] = str(item)
        return out
    raise ValueError(f"choice_options of type {type(value).__name__}")


def _level(value: Any) -> str | None:
    if value is None:
        return None
    m = _LEVEL.match(str(value))
    return f"L{m.group(1)}" if m else None


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes")


_PARTIAL_OK = re.compile(r"\bpartial(?:ly correct)?(?: answers?)?\s+(?:(?:is|are|counts?|"
                         r"as)\s+)*(?:a\s+)?(?:pass(?:es|ing)?|acceptable|allowed|accepted)\b",
                         re.IGNORECASE)


def rubric_allows_partial(rubric: Any) -> bool:
    """Whether a case rubric explicitly lets ``partial`` pass: a rubric object with
    ``partial_passes`` / ``allow_partial`` / ``partial_is_pass`` true, or rubric text
    saying so ("partial is acceptable", "partial answers pass", "partial counts as a
    pass"); anything else, a rubric that merely mentions partial answers included, does
    not."""
    if isinstance(rubric, dict):
        return any(_truthy(rubric.get(k)) for k in ("partial_passes", "allow_partial",
                                                     "partial_is_pass"))
    if isinstance(rubric, list):
        return any(rubric_allows_partial(r) for r in rubric)
    return isinstance(rubric, str) and _PARTIAL_OK.search(rubric) is not None


def parse_case(obj: Any, *, audio_id: str, config: str, index: int,
               level: str | None, ground_truth: dict | None = None) -> Case:
    """One eval case from its JSON object; raises ValueError naming the bad field.

    ``ground_truth`` (the audio's label) gives the transcript status a case without its
    own inherits."""
    if not isinstance(obj, dict):
        raise ValueError(f"eval_cases[{index}] is a {type(obj).__name__}, not an object")
    used, vals = set(), {}
    for name, names in CASE_FIELDS.items():
        key, v = _pick(obj, names)
        if key is not None:
            used.add(key)
        vals[name] = v
    forbidden = vals["forbidden_claims"]
    if isinstance(forbidden, str):
        forbidden = [forbidden] if forbidden.strip() else []
    elif forbidden is not None and not isinstance(forbidden, list):
        forbidden = [forbidden]  # one claim given alone (a text or a {text, pattern})
    aliases = vals["aliases"]
    if aliases is not None and not isinstance(aliases, list):
        aliases = [aliases]
    scoring = vals["scoring"]
    mode = vals["prompt_mode"]
    try:
        options = _options(vals["choice_options"])
    except ValueError as exc:
        raise ValueError(f"eval_cases[{index}]: {exc}") from None
    cid = vals["case_id"]
    return Case(
        audio_id=audio_id, config=config, index=index,
        case_id=str(cid) if cid not in (None, "") else str(index),
        prompt="" if vals["prompt"] is None else str(vals["prompt"]),
        scoring=str(scoring).strip().lower() if scoring not in (None, "") else None,
        prompt_mode=str(mode).strip().lower() if mode not in (None, "") else None,
        choice_options=options, expected_result=vals["expected_result"],
        expected_result_class=(str(vals["expected_result_class"]).strip().lower()
                               if vals["expected_result_class"] not in (None, "") else None),
        expected_intent=vals["expected_intent"], rubric=vals["rubric"],
        forbidden_claims=list(forbidden or []), hallucination_if=vals["hallucination_if"],
        aliases=[str(a) for a in (aliases or [])], asks_reason=_truthy(vals["asks_reason"]),
        partial_passes=(_truthy(vals["partial_passes"])
                        or rubric_allows_partial(vals["rubric"])), level=level,
        extra={k: v for k, v in obj.items() if k not in used},
        transcript_status=_transcript_status(vals["transcript_status"], ground_truth))


def _transcript_status(own: Any, gt: dict | None) -> str | None:
    v = own if own not in (None, "") else (gt or {}).get("transcript_status")
    if isinstance(v, dict):
        v = v.get("value", v.get("label", v.get("status")))
    return None if v in (None, "") else str(v)


def _json_field(value: Any, name: str, want: type) -> Any:
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name} is not valid JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(value, want):
        raise ValueError(f"{name} is a {type(value).__name__}, expected a JSON "
                         f"{'object' if want is dict else 'array'}")
    return value


def _row(raw: dict, *, config: str, file: str, row: int, audio_column: str | None
         ) -> Row | BrokenRow:
    _, aid = _pick(raw, ROW_FIELDS["audio_id"])
    _, gt_raw = _pick(raw, ROW_FIELDS["ground_truth"])
    aid = None if aid in (None, "") else str(aid)
    try:
        gt = _json_field(gt_raw, "ground_truth", dict) if gt_raw is not None else {}
    except (ValueError, UnicodeDecodeError) as exc:
        return BrokenRow(aid, config, file, row, str(exc))
    if aid is None:
        aid = gt.get("audio_id")
        if aid in (None, ""):
            return BrokenRow(None, config, file, row, "no audio id (audio_id / id column, "
                             "or ground_truth.audio_id)")
        aid = str(aid)
    _, level_raw = _pick(raw, ROW_FIELDS["level"])
    level = _level(level_raw) or _level(gt.get("level", gt.get("annotation_level")))
    problems = []
    if gt_raw is None:
        problems.append("no ground_truth")
    if level is None:
        problems.append(f"no level L1-L6 (row level {level_raw!r}, ground_truth level "
                        f"{gt.get('level')!r})")
    _, cases_raw = _pick(raw, ROW_FIELDS["eval_cases"])
    try:
        if cases_raw is None:
            # a flat export: the row itself is one case
            flat = {k: v for k, v in raw.items() if k not in sum(ROW_FIELDS.values(), ())}
            items = [flat] if any(n in flat for n in CASE_FIELDS["prompt"]) else []
            if not items:
                problems.append("no eval_cases")
        else:
            items = _json_field(cases_raw, "eval_cases", list)
        cases = [parse_case(c, audio_id=aid, config=config, index=i, level=level,
                            ground_truth=gt) for i, c in enumerate(items)]
    except (ValueError, UnicodeDecodeError) as exc:
        return BrokenRow(aid, config, file, row, str(exc))
    known = set(sum(ROW_FIELDS.values(), ()))
    extra = {k: v for k, v in raw.items() if k not in known and not
             (cases_raw is None and any(k in n for n in CASE_FIELDS.values()))}
    audio = raw.get(audio_column) if audio_column else None
    return Row(aid, config, level, gt, cases, file, row, audio, extra, problems)


def iter_rows(root: str | os.PathLike, *, audio: bool = True, batch_rows: int = 1,
              files: dict[str, list[Path]] | None = None) -> Iterator[Row | BrokenRow]:
    """Every row of both configs, in file order, read ``batch_rows`` rows at a time.

    Parameters
    ----------
    root : str or PathLike
        The dataset root.
    audio : bool
        Read the audio column (False: labels and cases only, no audio bytes read).
    batch_rows : int
        Rows turned into Python objects at a time (memory holds one row group of the file
        and this many rows).
    files : dict, optional
        :func:`find_config_files`' answer, when already known.

    Yields
    ------
    Row or BrokenRow
    """
    import pyarrow.parquet as pq

    from ...errors import FormatError

    files = find_config_files(root) if files is None else files
    for config in CONFIGS:
        for path in files.get(config, ()):
            try:
                pf = pq.ParquetFile(path)
            except Exception as exc:  # pyarrow raises several types for a corrupt file
                raise FormatError(path, f"not a readable parquet file ({exc})") from None
            names = pf.schema_arrow.names
            audio_col = next((n for n in ROW_FIELDS["audio"] if n in names), None)
            cols = [n for n in names if audio or n != audio_col]
            row = 0
            # one row group at a time: ParquetFile.iter_batches holds on to what it has
            # read, so its memory grows with the file; row groups read apart stay flat
            for g in range(pf.metadata.num_row_groups):
                table = pf.read_row_group(g, columns=cols)
                for batch in table.to_batches(max_chunksize=batch_rows):
                    for raw in batch.to_pylist():
                        yield _row(raw, config=config, file=str(path), row=row,
                                   audio_column=audio_col if audio else None)
                        row += 1
                del table


def row_audio_bytes(root: str | os.PathLike, audio: Any, *, audio_id: str
                    ) -> tuple[bytes, str]:
    """The bytes and a name of a row's audio struct ``{bytes, path}``.

    The embedded bytes when present; otherwise the file ``path`` names under ``root``
    (:func:`foakit.bench.paths.resolve_under`: a name escaping the root is refused).
    Raises FormatError (refused name) or AudioError (no audio, unreadable file).
    """
    from ...errors import AudioError

    if isinstance(audio, (bytes, bytearray)):
        return bytes(audio), audio_id
    if not isinstance(audio, dict):
        raise AudioError(audio_id, "no audio in the row")
    name = audio.get("path") or audio_id
    data = audio.get("bytes")
    if data:
        return bytes(data), str(name)
    if not audio.get("path"):
        raise AudioError(audio_id, "audio struct has neither bytes nor path")
    path = resolve_under(root, audio["path"], field="audio.path", root_name="HalluAudio root")
    try:
        return path.read_bytes(), resolved(path)
    except OSError as exc:
        raise AudioError(resolved(path), f"audio.path not readable ({exc.strerror})") from None


def load_corpus(root: str | os.PathLike) -> Corpus:
    """Every row's label and cases (no audio bytes read), the configs merged per audio.

    Broken rows are listed in ``broken``; an audio whose configs disagree on its level or
    ground truth is kept (the first config's label) and the conflict listed in ``problems``.
    """
    files = find_config_files(root)
    audios: dict[str, Audio] = {}
    broken, problems = [], []
    seen_fields: set[str] = set()
    unknown: dict[str, set[str]] = {}
    seen_rows: set[tuple[str, str]] = set()
    for r in iter_rows(root, audio=False, batch_rows=256, files=files):
        if isinstance(r, BrokenRow):
            broken.append(r)
            continue
        where = f"{r.file}: row {r.row} ({r.audio_id})"
        problems.extend(f"{where}: {p}" for p in r.problems)
        if (r.audio_id, r.config) in seen_rows:
            problems.append(f"{where}: audio_id appears twice in {r.config}; its cases are "
                            "kept under their own case ids")
        seen_rows.add((r.audio_id, r.config))
        for c in r.cases:
            seen_fields.update(n for n in SEED_CASE_FIELDS
                               if getattr(c, n) not in (None, "", [], {}))
            for k in c.extra:
                unknown.setdefault(r.config, set()).add(k)
        a = audios.get(r.audio_id)
        if a is None:
            audios[r.audio_id] = Audio(r.audio_id, r.level, r.ground_truth, list(r.cases),
                                       [r.config], [(r.file, r.row)])
            continue
        if a.level != r.level or a.ground_truth != r.ground_truth:
            problems.append(f"{where}: its label differs from the same audio in "
                            f"{a.configs[0]} (level {a.level} vs {r.level}); the first is kept")
        taken = {c.key for c in a.cases}
        for c in r.cases:
            if c.key in taken:
                c.case_id = f"{c.case_id}#{c.index}"
            a.cases.append(c)
        a.configs.append(r.config)
        a.sources.append((r.file, r.row))
    missing = [f for f in SEED_CASE_FIELDS if f not in seen_fields]
    return Corpus(str(root), {k: [str(p) for p in v] for k, v in files.items()}, audios,
                  broken, problems, missing, {k: sorted(v) for k, v in unknown.items()})


# ---------------------------------------------------------------- ground-truth fields

_ABSENT = ("no", "none", "absent", "false", "0", "no_speech", "nospeech", "not_present",
           "no speech", "silence", "không")
_PRESENT = ("yes", "present", "true", "1", "speech", "speech_present", "clear", "partial",
            "unclear", "fragment", "fragments", "có")


def speech_presence(gt: dict) -> bool | None:
    """The label's speech presence: True, False, or None when absent or unreadable."""
    v = gt.get("speech_presence", gt.get("has_speech"))
    if isinstance(v, dict):
        v = v.get("value", v.get("label"))
    if isinstance(v, bool):
        return v
    if v is None:
        return None
    s = str(v).strip().lower().replace("-", "_")
    if s in _ABSENT or s.startswith("no_") or s.startswith("absent"):
        return False
    if s in _PRESENT or s.startswith("present") or s.startswith("speech"):
        return True
    return None


def uncertain_spans(gt: dict) -> list[tuple[float, float]]:
    """The label's uncertain spans as ``(start_s, end_s)``; forms read: ``[s, e]``,
    ``{"start": s, "end": e}`` (also ``start_s`` / ``end_s``); others skipped."""
    out = []
    for item in gt.get("uncertain_spans") or []:
        try:
            if isinstance(item, dict):
                s = item.get("start_s", item.get("start"))
                e = item.get("end_s", item.get("end"))
            else:
                s, e = item[0], item[1]
            s, e = float(s), float(e)
        except (TypeError, ValueError, IndexError, KeyError):
            continue
        if e > s >= 0:
            out.append((s, e))
    return out
