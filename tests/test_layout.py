"""The house rules of the package layout (docs/architecture.md), checked on the source."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "foakit"
MAX_LINES = 650
# Modules kept for one release so that former import paths still work.
SHIMS = {"foakit.audit.sobench", "foakit.audit.starss", "foakit.audit.common",
         "foakit.baselines.sobench", "foakit.scoring.sobench", "foakit.synth.qa"}


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _top_level_imports(name: str, path: Path, *, everywhere: bool = False) -> set[str]:
    """foakit modules ``name`` imports when it is imported (not inside functions, not under
    ``if TYPE_CHECKING``), or with ``everywhere`` every foakit module it names in an import
    statement."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in tree.body:
        typing_only = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        if typing_only and not everywhere:
            continue
        deep = everywhere or isinstance(node, ast.If | ast.Try)
        for sub in ast.walk(node) if deep else [node]:
            if isinstance(sub, ast.Import):
                found |= {a.name for a in sub.names if a.name.startswith("foakit")}
            elif isinstance(sub, ast.ImportFrom):
                if sub.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - sub.level + 1]
                    mod = ".".join(base + ([sub.module] if sub.module else []))
                else:
                    mod = sub.module or ""
                if mod.startswith("foakit"):
                    found.add(mod)
                    found |= {f"{mod}.{a.name}" for a in sub.names}
    return found


def test_no_import_cycle():
    """Not at import time, and not through imports inside functions or for type checking
    either: the layers import downwards only."""
    mods = _modules()
    graph = {m: {d for d in _top_level_imports(m, p, everywhere=True) if d in mods and d != m}
             for m, p in mods.items()}
    # a module imports its parent packages too
    for m in graph:
        graph[m] = {d for d in graph[m] if not m.startswith(d + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_no_module_is_over_the_size_limit():
    big = {m: n for m, p in _modules().items()
           if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines: {big}"


def test_the_audit_core_names_no_benchmark():
    for m, p in _modules().items():
        if m.startswith("foakit.audit") and m not in SHIMS:
            deps = _top_level_imports(m, p)
            assert not any(d.startswith("foakit.bench") for d in deps), (m, deps)


def test_benchmarks_import_no_other_benchmark():
    from foakit.bench import BENCHMARKS

    for m, p in _modules().items():
        parts = m.split(".")
        if len(parts) > 2 and parts[1] == "bench" and parts[2] in BENCHMARKS:
            for d in _top_level_imports(m, p):
                dp = d.split(".")
                assert not (len(dp) > 2 and dp[1] == "bench" and dp[2] in BENCHMARKS
                            and dp[2] != parts[2]), (m, d)


def test_every_registered_benchmark_has_a_cli_with_a_hook():
    from foakit.bench import BENCHMARKS, cli_modules

    hooks = ("add_baseline", "add_score", "add_audit", "add_judge_requests")
    seen = [name for name, mod in cli_modules() if any(hasattr(mod, h) for h in hooks)]
    assert seen == list(BENCHMARKS)


def test_no_test_module_imports_another():
    for p in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.split(".")[-1].startswith("test_"), (p.name, node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[-1].startswith("test_") for a in node.names)


@pytest.mark.parametrize("name", sorted(SHIMS))
def test_former_import_paths_still_work(name):
    mod = importlib.import_module(name)
    assert mod.__all__ and all(hasattr(mod, n) for n in mod.__all__)


def test_the_command_line_loads_no_heavy_library_until_a_command_runs():
    """``foakit --help`` (and every command's start) imports each registered benchmark's
    cli module: they import the standard library only, their packages load lazily."""
    import subprocess
    import sys

    code = ("import sys, foakit.cli\n"
            "foakit.cli.build_parser()\n"
            "heavy = ('scipy', 'pyarrow', 'matplotlib', 'pyloudnorm', 'soundfile', 'numba')\n"
            "print(','.join(m for m in heavy if m in sys.modules))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"loaded at start-up: {r.stdout.strip()}"
