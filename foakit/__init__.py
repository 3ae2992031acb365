"""foakit: first-order ambisonics analysis at corpus scale.

Internal conventions: ambiX (ACN W, Y, Z, X; SN3D); azimuth counter-clockwise from the front
(+90 = left) in [-180, 180); elevation up positive.  See :mod:`foakit.conventions`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import AudioError, BackendUnavailable, FoakitError, FormatError, ParameterError

__all__ = [
    "__version__",
    "FoakitError",
    "ParameterError",
    "AudioError",
    "FormatError",
    "BackendUnavailable",
]
