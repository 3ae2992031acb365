"""The CUDA backend: batched analysis on CuPy + Numba CUDA (imported only when asked for).

* :mod:`foakit.gpu.batch`: the batched analysis of one device batch (also runs on NumPy +
  the Numba CPU kernels, which is how it is tested without a GPU).
* :mod:`foakit.gpu.pipeline`: feeding it from memory (:func:`analyze_clips`) or from a corpus
  (:func:`analyze_batches_cuda`, behind ``analyze_corpus(backend="cuda")``) with decoding
  threads, pinned buffers, two CUDA streams and host processes.
* :mod:`foakit.gpu.check`: comparing results with the CPU backend (float32 tolerances).

Importing this package imports neither CuPy nor ``numba.cuda``.  Install with the ``gpu``
extra (CuPy for CUDA 12 and ``numba-cuda``).
"""

from __future__ import annotations

from .batch import analyze_batch
from .pipeline import analyze_batches_cuda, analyze_clips

__all__ = ["analyze_batch", "analyze_batches_cuda", "analyze_clips"]
