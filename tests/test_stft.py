import numpy as np
import pytest
import scipy.fft
from hypothesis import given
from hypothesis import strategies as st

from foakit.errors import ParameterError
from foakit.kernels.stft import stft
from foakit.params import stft_grid

from .naive import naive_stft


@given(st.integers(1, 700), st.sampled_from([(16, 8), (15, 4), (32, 32), (20, 7)]),
       st.integers(0, 3))
def test_stft_equals_naive_reference(n, wh, seed):
    win, hop = wh
    x = np.random.default_rng(seed).normal(size=n)
    got = stft(x, win_length=win, hop_length=hop, n_fft=win + 3)
    ref = naive_stft(x, win, hop, win + 3)
    assert got.shape == ref.shape == (1 + n // hop, (win + 3) // 2 + 1)
    assert np.allclose(got, ref, atol=1e-10 * win)


def test_float32_tolerance_from_dtype():
    x = np.random.default_rng(1).normal(size=4000).astype(np.float32)
    got = stft(x, win_length=512, hop_length=320)
    assert got.dtype == np.complex64
    ref = naive_stft(x.astype(np.float64), 512, 320, 512)
    tol = np.finfo(np.float32).eps * 512 * np.abs(ref).max()
    assert np.abs(got - ref).max() < tol


@given(st.integers(2, 5), st.integers(100, 900))
def test_batched_equals_looped(batch, n):
    x = np.random.default_rng(batch).normal(size=(batch, 4, n)).astype(np.float32)
    got = stft(x, win_length=64, hop_length=20)
    for b in range(batch):
        for c in range(4):
            assert np.array_equal(got[b, c], stft(x[b, c], win_length=64, hop_length=20))


@pytest.mark.parametrize("sr,win,hop", [(16000, 512, 320), (24000, 1024, 480),
                                        (48000, 2048, 960)])
def test_grid_follows_sample_rate(sr, win, hop):
    g = stft_grid(sr)
    assert (g.win_length, g.hop_length, g.n_fft) == (win, hop, win)
    assert g.frame_rate == 50.0


@pytest.mark.parametrize("kw,msg", [
    ({"hop_length": 0}, "hop_length=0"),
    ({"win_length": 0}, "win_length=0"),
    ({"n_fft": 8}, "n_fft=8"),
])
def test_stft_errors_name_the_value(kw, msg):
    args = {"win_length": 16, "hop_length": 4} | kw
    with pytest.raises(ParameterError, match=msg):
        stft(np.zeros(100), **args)


def test_stft_rejects_empty_and_bad_window():
    with pytest.raises(ParameterError, match="at least one sample"):
        stft(np.zeros(0), win_length=16, hop_length=4)
    with pytest.raises(ParameterError, match="window shape"):
        stft(np.zeros(100), win_length=16, hop_length=4, window=np.ones(8))


def test_grid_errors():
    with pytest.raises(ParameterError, match="sample_rate=10"):
        stft_grid(10)
    with pytest.raises(ParameterError, match="hop_s"):
        stft_grid(16000, hop_s=0.1, win_s=0.03)


def test_cpu_stft_without_scipy_fft_gives_scipy_fft_bits():
    """In a fresh process, load_kernels and the CPU STFT import neither scipy.fft nor
    scipy.linalg (start-up time), and the STFT has scipy.fft.rfft's exact bits; importing
    scipy.linalg's BLAS module afterwards still works as usual."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import numpy as np\n"
        "from foakit.corpus import load_kernels\n"
        "from foakit.kernels.stft import stft, _frame_into, _hann_cpu\n"
        "load_kernels()\n"
        "rng = np.random.default_rng(0)\n"
        "outs = []\n"
        "for dt, n, win, hop in [(np.float32, 16000, 512, 320), (np.float64, 4801, 2048, 960),\n"
        "                        (np.float32, 300, 256, 100)]:\n"
        "    x = rng.normal(size=(4, n)).astype(dt)\n"
        "    outs.append((x, win, hop, stft(x, win_length=win, hop_length=hop)))\n"
        "assert 'scipy.fft' not in sys.modules and 'scipy.linalg' not in sys.modules\n"
        "import scipy.fft\n"
        "import scipy.linalg.cython_blas\n"
        "assert scipy.linalg.cython_blas.__pyx_capi__\n"
        "for x, win, hop, got in outs:\n"
        "    n_frames = 1 + x.shape[1] // hop\n"
        "    fr = np.empty((4, n_frames, win), x.dtype)\n"
        "    _frame_into(x, _hann_cpu(win, x.dtype.type), hop, win // 2, fr)\n"
        "    ref = scipy.fft.rfft(fr, axis=-1)\n"
        "    assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def test_direct_pocketfft_failure_falls_back_and_stays_off(monkeypatch):
    """A SciPy whose private pocketfft call differs: the STFT falls back to scipy.fft.rfft
    (the same result) and the direct path stays off for the process."""
    import types

    import foakit.kernels.stft as mod

    class Other:
        calls = 0

        def r2c(self, *args):
            Other.calls += 1
            raise TypeError("r2c() takes other arguments")

    monkeypatch.setattr(mod, "_pocketfft", [Other()])
    # as in a fresh process, where scipy.fft is not imported yet
    monkeypatch.setattr(mod, "sys", types.SimpleNamespace(modules={}))
    x = np.random.default_rng(1).normal(size=(2, 4000)).astype(np.float32)
    got = mod.stft(x, win_length=512, hop_length=320)
    assert Other.calls == 1 and mod._pocketfft == [None]
    n_frames = 1 + x.shape[1] // 320
    fr = np.empty((2, n_frames, 512), x.dtype)
    mod._frame_into(x, mod._hann_cpu(512, np.float32), 320, 256, fr)
    assert got.tobytes() == scipy.fft.rfft(fr, axis=-1).tobytes()
    assert mod.stft(x, win_length=512, hop_length=320).tobytes() == got.tobytes()
    assert Other.calls == 1
