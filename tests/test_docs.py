"""The README and docs/: every relative link and anchor resolves; the README names only the
benchmarks foakit registers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# how the README names each benchmark that foakit has or may have a package for
DISPLAY = {"sobench": "SO-Bench", "starss": "STARSS", "rmsaqa": "RMS-AQA",
           "airbench": "AIR-Bench", "halluaudio": "HalluAudio"}


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        title = re.sub(r"[^\w\- ]", "", title)
        out.add(title.replace(" ", "-"))
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_relative_links_resolve(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), f"{page.name}: broken link {target}"
        if anchor:
            assert anchor in _anchors(dest), f"{page.name}: no heading #{anchor} in {dest.name}"


def test_readme_names_only_registered_benchmarks():
    from foakit.bench import BENCHMARKS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, shown in DISPLAY.items():
        if name not in BENCHMARKS:
            assert shown not in readme, f"README names {shown}, which foakit does not support"
    for name in BENCHMARKS:
        assert DISPLAY.get(name, name) in readme, f"README does not name {name}"
