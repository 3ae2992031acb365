import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None and
                    subprocess.run([sys.executable, "-m", "ruff", "--version"],
                                   capture_output=True).returncode != 0,
                    reason="ruff is in the test extra")
def test_ruff_clean():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "foakit", "tests", "benchmarks"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_importing_foakit_imports_no_gpu_library():
    code = ("import sys, foakit, foakit.corpus, foakit.analysis, foakit.cli; "
            "bad = [m for m in ('cupy', 'numba.cuda', 'torch') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
