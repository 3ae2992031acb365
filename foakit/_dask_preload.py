"""Imported once by the fork server of a ``local[:N]`` Dask cluster (:mod:`foakit.dist`).

Every worker is forked from that server, so it inherits the modules imported and the
kernels loaded here instead of importing and loading them itself (some 0.6 s of CPU per
worker, as much as a thousand clips' work), as the local pool's workers inherit them from
their parent (:func:`foakit.corpus.load_kernels`).
"""

from __future__ import annotations

import gc

import distributed  # noqa: F401  (the worker's own modules, as Dask's fork server preloads)

from .corpus import load_kernels

load_kernels()

# Frozen before the workers fork: their garbage collections leave the inherited objects
# alone instead of writing to (and so copying) every page that holds one.
gc.freeze()
