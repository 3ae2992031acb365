"""Batched array kernels.  They know nothing of files.

``stft`` and ``spatial`` are written once against an array namespace ``xp`` (NumPy or CuPy);
``histogram``, ``activity`` and ``peaks`` are Numba CPU kernels, each paired with a Numba CUDA
twin of the same signature in ``foakit.kernels.cuda`` (imported only when asked for).
"""
