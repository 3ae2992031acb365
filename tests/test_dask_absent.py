"""foakit without Dask: importing it never imports Dask, and --dask without the extra is a
one-line usage error (runs whether or not the extra is installed)."""

from __future__ import annotations

import subprocess
import sys

_NO_DASK_IMPORTS = """
import sys
import foakit, foakit.pool, foakit.corpus, foakit.dist, foakit.cli, foakit.cli.common
foakit.cli.build_parser()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))
assert not loaded, loaded
"""

_BLOCKED = """
import sys
sys.modules["distributed"] = None  # import distributed now raises ImportError
from foakit.cli import _run
sys.exit(_run(sys.argv[1:], []))
"""


def test_importing_foakit_never_imports_dask():
    r = subprocess.run([sys.executable, "-c", _NO_DASK_IMPORTS], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_dask_option_without_the_extra_exits_2(tmp_path):
    (tmp_path / "audio").mkdir()
    r = subprocess.run([sys.executable, "-c", _BLOCKED, "analyze", str(tmp_path / "audio"),
                        "-o", str(tmp_path / "o"), "--dask", "local:1", "--no-progress"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "foakit[dask]" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()
