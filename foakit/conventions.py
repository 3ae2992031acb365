"""Channel orders, normalisations and angle conventions: the one place that knows them.

Internal representation (every array a kernel sees)
---------------------------------------------------
ambiX: ACN channel order **W, Y, Z, X** with **SN3D** normalisation.  For a plane wave
``s`` from azimuth ``az`` and elevation ``el``::

    W = s,  Y = s sin(az) cos(el),  Z = s sin(el),  X = s cos(az) cos(el)

Angles are degrees; azimuth in [-180, 180), 0 = front, counter-clockwise positive
(+90 = left), elevation in [-90, 90], up positive, as DCASE / STARSS / SO-Bench use them.
``az = atan2(y, x)``, ``el = atan2(z, hypot(x, y))``.

FuMa (B-format, first order) is **W, X, Y, Z** with ``W = s / sqrt(2)`` and dipoles equal to
SN3D at first order, so converting FuMa -> ambiX is a reorder plus ``W * sqrt(2)``.

Order and normalisation are two conventions
-------------------------------------------
The channel order (``"ambix"``: W, Y, Z, X; ``"fuma"``: W, X, Y, Z) says which channel is
which; the normalisation says their gains relative to SN3D:

========== ========= ============= =====================================================
name       W gain    dipole gain   plane wave: ``(|X|^2 + |Y|^2 + |Z|^2) / |W|^2``
========== ========= ============= =====================================================
``sn3d``   1         1             1
``n3d``    1         sqrt(3)       3
``fuma``   1/sqrt(2) 1             2
========== ========= ============= =====================================================

``normalisation=None`` means the order's own: SN3D for ``"ambix"``, FuMa for ``"fuma"`` (so
``channel_order="fuma"`` alone is FuMa B-format, W at -3 dB).  Directions survive a uniform
dipole gain; diffuseness, energy and every threshold built on them do not, so every reader
converts to SN3D here, once, when the file is read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = [
    "INTERNAL_ORDER",
    "CHANNEL_ORDERS",
    "NORMALISATIONS",
    "PLANE_WAVE_RATIO",
    "CONVENTIONS",
    "W",
    "Y",
    "Z",
    "X",
    "check_channel_order",
    "check_normalisation",
    "resolve_normalisation",
    "to_internal",
    "from_internal",
    "wrap_azimuth",
    "angular_distance",
    "azimuth_difference",
    "direction_to_vector",
    "vector_to_direction",
    "encode_plane_wave",
]

#: Channel indices of the internal (ambiX, ACN/SN3D) order.
W, Y, Z, X = 0, 1, 2, 3
INTERNAL_ORDER = "ambix"
CHANNEL_ORDERS = ("ambix", "fuma")
_SQRT2 = float(np.sqrt(2.0))
#: Normalisations a 4-channel file may use (converted to SN3D when read).
NORMALISATIONS = ("sn3d", "n3d", "fuma")
_SQRT3 = float(np.sqrt(3.0))
#: Dipoles' power over the omni's for one plane wave, per normalisation.
PLANE_WAVE_RATIO = {"sn3d": 1.0, "n3d": 3.0, "fuma": 2.0}
#: The normalisation a channel order implies when none is given.
_ORDER_NORMALISATION = {"ambix": "sn3d", "fuma": "fuma"}

#: What every output states about its conventions.
CONVENTIONS: dict[str, Any] = {
    "internal_channel_order": "ACN (W, Y, Z, X)",
    "internal_normalisation": "SN3D",
    "normalisations_read": "sn3d, n3d (dipoles sqrt(3) x SN3D), fuma (W / sqrt(2))",
    "azimuth": "degrees in [-180, 180), 0 = front, counter-clockwise positive (+90 = left)",
    "elevation": "degrees in [-90, 90], up positive",
    "time": "seconds from the first sample; frame times are frame centres",
}


def check_channel_order(channel_order: str) -> str:
    """Return ``channel_order`` lower-cased, or raise :class:`ParameterError`."""
    order = str(channel_order).lower()
    if order not in CHANNEL_ORDERS:
        raise ParameterError(f"{channel_order=!r} must be one of {CHANNEL_ORDERS}")
    return order


def check_normalisation(normalisation: str) -> str:
    """Return ``normalisation`` lower-cased, or raise :class:`ParameterError`."""
    norm = str(normalisation).lower()
    if norm not in NORMALISATIONS:
        raise ParameterError(f"{normalisation=!r} must be one of {NORMALISATIONS}")
    return norm


def resolve_normalisation(channel_order: str, normalisation: str | None = None) -> str:
    """The normalisation of a file: ``normalisation`` checked, or, when None, the one
    ``channel_order`` implies (SN3D for ambiX, FuMa for FuMa)."""
    order = check_channel_order(channel_order)
    if normalisation is None:
        return _ORDER_NORMALISATION[order]
    return check_normalisation(normalisation)


def to_internal(x: Any, channel_order: str = "ambix", *, axis: int = -2,
                normalisation: str | None = None) -> Any:
    """Convert 4-channel FOA from ``channel_order`` and ``normalisation`` to ambiX (ACN/SN3D).

    Parameters
    ----------
    x : ndarray [shape=(..., 4, n)]
        FOA signal; the channel axis is ``axis`` (default: second to last).
        NumPy or CuPy; the result has the same array type.
    channel_order : {"ambix", "fuma"}
        Order of ``x``.
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Normalisation of ``x``; None: the order's own (SN3D for ambiX, FuMa for FuMa).

    Returns
    -------
    ndarray [shape=(..., 4, n)]
        ambiX signal.  For ambiX / SN3D the input itself is returned (no copy).
    """
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    if x.shape[axis] != 4:
        raise ParameterError(f"FOA needs 4 channels on axis {axis}, got shape {x.shape}")
    if order == "ambix" and norm == "sn3d":
        return x
    xm = _moveaxis(x, axis, 0)
    if order == "ambix":
        w, yy, zz, xx = xm[0], xm[1], xm[2], xm[3]
    else:
        w, xx, yy, zz = xm[0], xm[1], xm[2], xm[3]
    if norm == "fuma":  # FuMa W carries -3 dB
        w = w * _SQRT2
    elif norm == "n3d":  # N3D dipoles are sqrt(3) x SN3D
        yy, zz, xx = yy / _SQRT3, zz / _SQRT3, xx / _SQRT3
    out = _stack(x, [w, yy, zz, xx])
    return _moveaxis(out, 0, axis)


def from_internal(x: Any, channel_order: str = "ambix", *, axis: int = -2,
                  normalisation: str | None = None) -> Any:
    """Inverse of :func:`to_internal`: ambiX (ACN/SN3D) to ``channel_order`` and
    ``normalisation`` (None: the order's own)."""
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    if x.shape[axis] != 4:
        raise ParameterError(f"FOA needs 4 channels on axis {axis}, got shape {x.shape}")
    if order == "ambix" and norm == "sn3d":
        return x
    xm = _moveaxis(x, axis, 0)
    w, yy, zz, xx = xm[W], xm[Y], xm[Z], xm[X]
    if norm == "fuma":
        w = w / _SQRT2
    elif norm == "n3d":
        yy, zz, xx = yy * _SQRT3, zz * _SQRT3, xx * _SQRT3
    out = _stack(x, [w, yy, zz, xx] if order == "ambix" else [w, xx, yy, zz])
    return _moveaxis(out, 0, axis)


def _moveaxis(x: Any, src: int, dst: int) -> Any:
    return x.swapaxes(src, dst) if src != dst and x.ndim > 1 else x


def _stack(like: Any, parts: list) -> Any:
    mod = type(like).__module__.split(".")[0]
    if mod == "cupy":  # only reached when the caller already holds CuPy arrays
        import cupy

        return cupy.stack(parts)
    return np.stack(parts)


def wrap_azimuth(az_deg: Any) -> Any:
    """Wrap azimuth(s) in degrees to [-180, 180)."""
    return (np.asarray(az_deg, dtype=float) + 180.0) % 360.0 - 180.0


def azimuth_difference(a_deg: Any, b_deg: Any) -> Any:
    """Signed wrapped difference ``a - b`` in [-180, 180) degrees."""
    return wrap_azimuth(np.asarray(a_deg, dtype=float) - np.asarray(b_deg, dtype=float))


def direction_to_vector(az_deg: Any, el_deg: Any) -> np.ndarray:
    """Unit vectors ``[..., (x, y, z)]`` for directions in degrees."""
    az, el = np.broadcast_arrays(np.deg2rad(np.asarray(az_deg, dtype=float)),
                                 np.deg2rad(np.asarray(el_deg, dtype=float)))
    return np.stack([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)], axis=-1)


def vector_to_direction(v: Any) -> tuple[np.ndarray, np.ndarray]:
    """Azimuth and elevation in degrees of vectors ``[..., (x, y, z)]`` (any length)."""
    v = np.asarray(v, dtype=float)
    az = np.rad2deg(np.arctan2(v[..., 1], v[..., 0]))
    el = np.rad2deg(np.arctan2(v[..., 2], np.hypot(v[..., 0], v[..., 1])))
    return wrap_azimuth(az), el


def angular_distance(az1: Any, el1: Any, az2: Any, el2: Any) -> Any:
    """Great-circle angle in degrees between two directions (degrees)."""
    a = direction_to_vector(az1, el1)
    b = direction_to_vector(az2, el2)
    c = np.clip(np.sum(a * b, axis=-1), -1.0, 1.0)
    return np.rad2deg(np.arccos(c))


def encode_plane_wave(s: Any, az_deg: Any, el_deg: Any) -> np.ndarray:
    """Encode mono signal(s) as ambiX plane waves.

    Parameters
    ----------
    s : ndarray [shape=(n,)]
        Source signal.
    az_deg, el_deg : float or ndarray [shape=(n,)]
        Direction in degrees; arrays give a moving source (one direction per sample).

    Returns
    -------
    ndarray [shape=(4, n)]
        W, Y, Z, X (ACN/SN3D).
    """
    s = np.asarray(s, dtype=float)
    v = direction_to_vector(az_deg, el_deg)
    if v.ndim == 1:
        v = np.broadcast_to(v, (s.shape[-1], 3))
    return np.stack([s, s * v[..., 1], s * v[..., 2], s * v[..., 0]])
