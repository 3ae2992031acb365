"""The first run after installing compiles the Numba kernels: it says so once, and the
progress bar starts after it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from foakit import corpus
from foakit.corpus import COMPILE_NOTICE, warm_kernels


def test_slow_loading_is_announced_once(monkeypatch):
    monkeypatch.setattr(corpus, "load_kernels", lambda params=None: time.sleep(0.3))
    said = []
    warm_kernels(notify=said.append, after_s=0.05)
    assert said == [COMPILE_NOTICE]


def test_fast_loading_says_nothing(monkeypatch):
    monkeypatch.setattr(corpus, "load_kernels", lambda params=None: None)
    said = []
    warm_kernels(notify=said.append, after_s=0.5)
    time.sleep(0.6)  # the timer would have fired by now
    assert said == []


@pytest.mark.slow
def test_a_cold_kernel_cache_is_announced_and_a_warm_one_is_not(tmp_path):
    from foakit.conventions import encode_plane_wave
    from foakit.synth import write_wav

    rng = np.random.default_rng(0)
    s = rng.normal(size=16000) * 0.1
    write_wav(tmp_path / "audio" / "a.wav", encode_plane_wave(s, 40.0, 0.0), 16000)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))

    def run(out):
        return subprocess.run([sys.executable, "-m", "foakit", "analyze", str(tmp_path / "audio"),
                               "-o", str(tmp_path / out), "--workers", "1"],
                              capture_output=True, text=True, env=env, timeout=600)

    first = run("out1")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling the analysis kernels") == 1
    second = run("out2")
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr
