"""Shared writers of the signal audits (AIR-Bench, HalluAudio): one layout for all.

``DIR/items.jsonl``
    One line per item: its key fields, measures (or error) and verdicts.
``DIR/flags.jsonl``
    One line per problem: the item's key fields, ``kind``, ``value``, ``reason`` (and
    ``figure`` when one was drawn); sorted by kind, then item.
``DIR/summary.json``
    Counts of items and flags by group and kind, failures, the audit's rules.
``DIR/figures/``
    Distributions of the measures per group, and a spectrogram with the speech-activity
    track per flagged item.
``DIR/index.md``
    A page linking all of it, with the count tables.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["ITEMS_FILE", "FLAGS_FILE", "SUMMARY_FILE", "INDEX_FILE", "FIGURES_DIR",
           "safe_name", "write_jsonl", "write_json", "count_flags", "write_index"]

ITEMS_FILE = "items.jsonl"
FLAGS_FILE = "flags.jsonl"
SUMMARY_FILE = "summary.json"
INDEX_FILE = "index.md"
FIGURES_DIR = "figures"


def safe_name(name: str) -> str:
    """A file-name-safe form of an item key (for figure names)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:120]


def _atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_jsonl(path: str | os.PathLike, records: Iterable[Mapping]) -> Path:
    """Write records as JSON lines, atomically (strict JSON)."""
    p = Path(path)
    _atomic(p, "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n"
                       for r in records))
    return p


def write_json(path: str | os.PathLike, obj) -> Path:
    """Write one JSON document, indented, atomically."""
    p = Path(path)
    _atomic(p, json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return p


def count_flags(flags: Sequence[Mapping], *, group: str) -> dict:
    """``{"by_kind": {...}, "by_group": {group: {kind: n}}, "items_flagged": n}``; an item
    is identified by its ``key`` field."""
    by_kind = Counter(f["kind"] for f in flags)
    by_group: dict[str, Counter] = {}
    for f in flags:
        by_group.setdefault(str(f.get(group)), Counter())[f["kind"]] += 1
    return {"by_kind": dict(sorted(by_kind.items())),
            "by_group": {g: dict(sorted(c.items())) for g, c in sorted(by_group.items())},
            "items_flagged": len({f.get("key") for f in flags})}


def _table(rows: Mapping[str, Mapping[str, int]], cols: Sequence[str]) -> list[str]:
    out = ["| | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, row in rows.items():
        out.append(f"| {name} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
    return out


def write_index(path: str | os.PathLike, *, title: str, summary: Mapping, flags:
                Sequence[Mapping], group: str, figures: Sequence[str] = (),
                notes: Sequence[str] = (), max_rows: int = 200) -> Path:
    """Write ``index.md``: counts by group and kind, the flags (first ``max_rows``), the
    corpus figures and notes (the audit's rules).

    Parameters
    ----------
    path : str or PathLike
    title : str
    summary : mapping
        With ``counts`` (``items``, ``failed``, ``by_group`` items per group) and
        ``flags`` (:func:`count_flags`).
    flags : sequence of mapping
        flags.jsonl lines (``kind``, ``value``, ``reason``, ``figure`` optional).
    group : str
        The grouping field (``task_name``, ``level``).
    figures : sequence of str
        Corpus figure paths relative to the index.
    notes : sequence of str
        Paragraphs appended at the end.
    """
    c = summary.get("counts", {})
    fl = summary.get("flags", {})
    lines = [f"# {title}", "",
             f"{c.get('items', 0)} items, {c.get('failed', 0)} failed to decode or measure, "
             f"{fl.get('items_flagged', 0)} flagged ({len(flags)} flags).", ""]
    kinds = list(fl.get("by_kind", {}))
    if kinds:
        lines += [f"## Flags by {group} and kind", ""]
        lines += _table(fl.get("by_group", {}), kinds)
        lines += ["", "| total | " + " | ".join(str(fl["by_kind"][k]) for k in kinds) + " |",
                  ""]
    if figures:
        lines += ["## Figures", ""]
        lines += [f"![{Path(f).stem}]({f})" for f in figures]
        lines.append("")
    if flags:
        lines += ["## Flags", "", f"| key | {group} | kind | value | reason | figure |",
                  "|---|---|---|---|---|---|"]
        for f in flags[:max_rows]:
            fig = f"[fig]({f['figure']})" if f.get("figure") else ""
            val = json.dumps(f.get("value"), ensure_ascii=False)
            reason = str(f.get("reason", "")).replace("|", "/")
            lines.append(f"| {f.get('key')} | {f.get(group)} | {f['kind']} | {val} | "
                         f"{reason} | {fig} |")
        if len(flags) > max_rows:
            lines.append(f"\n... {len(flags) - max_rows} more in flags.jsonl")
        lines.append("")
    for n in notes:
        lines += [n, ""]
    p = Path(path)
    _atomic(p, "\n".join(lines))
    return p
