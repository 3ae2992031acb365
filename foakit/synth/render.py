"""Render a :class:`~foakit.synth.scene.Scene` to ambiX FOA (W, Y, Z, X; SN3D).

Model
-----
* **Direct sound**: each source is a plane wave from its direction
  (:func:`foakit.conventions.encode_plane_wave`) with amplitude ``10**(level_db/20) /
  distance_m`` (1 at 1 m).  It starts exactly at ``onset_s``: no propagation delay is applied
  (reflections follow it with their delays *relative* to the direct sound).  A moving source
  gets one azimuth per sample, moving linearly along the shorter arc.
* **Reverberation** (``scene.rt60_s`` set): a 4-channel FOA room impulse response (RIR) of a
  shoebox room (:func:`foakit.synth.scene.room_geometry`) is convolved with the source
  signal, with the direct path removed (it is rendered as above).  A moving source is
  reverberated from the stationary mid-point of its path.  Engines:

  - ``"ism"`` (built in, NumPy): image sources up to order 3, each a plane wave from its own
    direction with gain ``beta**order / r`` and delay ``(r - distance) / c``, where
    ``beta = sqrt(1 - alpha)`` and ``alpha`` is the Sabine absorption of ``rt60_s``; plus a
    late isotropic diffuse tail (independent Gaussian noise, X/Y/Z each with 1/3 of the W
    power) decaying by 60 dB per ``rt60_s``, faded in between the first reflection and the
    last order-3 image, scaled so that the direct-to-reverberant ratio on W is
    ``(r_c / distance)**2`` with the critical distance ``r_c = 0.057 sqrt(V / rt60)``.
  - ``"pyroomacoustics"`` (extra ``sim``): pyroomacoustics' image-source model (order capped
    at :data:`PRA_MAX_ORDER`) with an omni W and three signed figure-of-eight microphones
    X, Y, Z (orientations +x, +y, +z) at the W position; the RIR is shifted so that its direct
    path sits at sample 0 and scaled so that it has amplitude ``1 / distance``.  When the
    cap cuts the image order that ``pra.inverse_sabine`` asks for, the RIR is cross-faded,
    from the time the missing images would start, into the ``"ism"`` diffuse tail
    level-matched to the RIR there, so ``rt60_s`` holds for both engines.
  - ``"pyroomacoustics-bands"`` (extra ``sim``): octave-band walls, air absorption, a
    directional late tail, the direct sound from the room model and moving sources moved
    through the room (:mod:`foakit.synth.bands`): a room model the analysis is measured on,
    not tuned on.
  - ``"ism-surfaces"``, ``"pyroomacoustics-surfaces"``: the same with floor and ceiling
    unlike the walls, one hard and one soft (:mod:`foakit.synth.surfaces`).
  - ``"auto"``: pyroomacoustics when importable, else ``"ism"``.

* **Background noise** (``scene.snr_db`` set): an isotropic diffuse field
  (:func:`diffuse_noise`) scaled so that the mean W power of the summed direct sounds over
  the union of the events' active periods is ``snr_db`` above the W power of the noise.
* **Directional interferer** (``interferer=`` an :class:`Interferer`): a steady sound that is
  not a labelled source (a fan: low-pass noise plus a blade-pass hum) from one direction
  for the whole clip, its direct sound ``snr_db`` below the sources' summed direct sounds
  (on W, over their active periods); in a room it is reverberated from its position like
  a source (moved nearer the microphone when the room cannot hold it 0.5 m from the walls).
* **Microphone yaw** (``mic_yaw_deg``): the microphone turned by that much about the
  vertical axis (counter-clockwise seen from above), so every direction it reports has its
  azimuth lowered by ``mic_yaw_deg`` (:func:`yawed_truth` turns the truth the same way).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import signal as sps

from ..conventions import direction_to_vector, encode_plane_wave
from ..errors import BackendUnavailable, ParameterError
from .bands import band_rir, fibonacci_sphere, foa_rir, foa_shoebox, render_source
from .scene import SPEED_OF_SOUND, Scene, Source, room_geometry, sabine_absorption
from .signals import fit_dry_signal, source_signal
from .surfaces import Surfaces, base_engine, image_gains

__all__ = [
    "ENGINES",
    "Interferer",
    "ISM_MAX_ORDER",
    "PRA_MAX_ORDER",
    "diffuse_noise",
    "direct_snr_db",
    "draw_interferer_and_yaw",
    "render_scene",
    "resolve_engine",
    "room_impulse_response",
    "fan_signal",
    "yawed_truth",
    "yawed_scene",
]

ENGINES = ("auto", "ism", "pyroomacoustics", "pyroomacoustics-bands", "ism-surfaces",
           "pyroomacoustics-surfaces")
#: Image-source order of the built-in engine (the late tail follows).
ISM_MAX_ORDER = 3
#: Cap on pyroomacoustics' image-source order (keeps it fast; a diffuse tail continues it).
PRA_MAX_ORDER = 20
_LN1000 = math.log(1000.0)  # 60 dB of amplitude decay


@dataclass(frozen=True)
class Interferer:
    """A steady directional sound through the whole clip that is not a labelled source.

    Parameters
    ----------
    azimuth_deg, elevation_deg : float
        Its direction (degrees; azimuth counter-clockwise from the front).
    snr_db : float
        Mean W power of the sources' summed direct sounds over their active periods above
        the W power of the interferer's direct sound.
    distance_m : float
        Its distance from the microphone (m); only its reverberation depends on it.
    """

    azimuth_deg: float
    elevation_deg: float
    snr_db: float = 10.0
    distance_m: float = 2.0

    def __post_init__(self) -> None:
        for name in ("azimuth_deg", "elevation_deg", "snr_db", "distance_m"):
            v = getattr(self, name)
            if not math.isfinite(v):
                raise ParameterError(f"Interferer {name}={v!r} must be finite")
        if not -90.0 <= self.elevation_deg <= 90.0:
            raise ParameterError(
                f"Interferer elevation_deg={self.elevation_deg!r} must be in [-90, 90]")
        if not self.distance_m > 0:
            raise ParameterError(f"Interferer distance_m={self.distance_m!r} must be positive")

    def to_dict(self) -> dict:
        return {"azimuth_deg": self.azimuth_deg, "elevation_deg": self.elevation_deg,
                "snr_db": self.snr_db, "distance_m": self.distance_m}


def draw_interferer_and_yaw(rng: np.random.Generator, *, fan: float = 0.0,
                            yaw: bool = False) -> tuple[Interferer | None, float]:
    """A clip's steady directional interferer and microphone yaw, in that order from ``rng``.

    Parameters
    ----------
    rng : numpy.random.Generator
    fan : float
        Probability of an interferer: a fan 5-15 dB below the sources, 1-3 m away, from any
        azimuth at an elevation within 30 deg of the horizon.
    yaw : bool
        Draw the yaw uniformly over the circle; otherwise it is 0.

    Returns
    -------
    Interferer or None, float
        The interferer and the yaw (degrees), for :func:`render_scene`.
    """
    if not 0.0 <= fan <= 1.0:
        raise ParameterError(f"{fan=!r} must be in [0, 1]")
    itf = None
    # one uniform draw whatever ``fan`` is, so the yaw does not depend on it
    if rng.random() < fan:
        itf = Interferer(round(float(rng.uniform(-180, 180)), 1),
                         round(float(rng.uniform(-30, 30)), 1),
                         snr_db=round(float(rng.uniform(5.0, 15.0)), 1),
                         distance_m=round(float(rng.uniform(1.0, 3.0)), 2))
    mic_yaw = round(float(rng.uniform(-180, 180)), 1) if yaw else 0.0
    return itf, mic_yaw


def fan_signal(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """A fan: low-pass (500 Hz corner) noise, a tenth of white noise above it and a
    blade-pass hum (60-140 Hz and its next three harmonics), slowly wobbling by about
    1 dB; unit mean square.

    Returns
    -------
    ndarray [shape=(n,)]
    """
    if n < 1:
        raise ParameterError(f"{n=} must be >= 1")
    sr = float(sample_rate)
    white = rng.standard_normal(n)
    b, a = sps.butter(1, 500.0 / (sr / 2.0))
    x = sps.lfilter(b, a, white) + 0.1 * rng.standard_normal(n)
    t = np.arange(n) / sr
    f0 = float(rng.uniform(60.0, 140.0))
    x = x / np.sqrt(np.mean(x**2))
    for k in range(1, 5):
        x += (0.5 / k) * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 2 * np.pi))
    x *= 1.0 + 0.1 * np.sin(2 * np.pi * float(rng.uniform(0.2, 0.5)) * t)
    return x / np.sqrt(np.mean(x**2))


def yawed_truth(source: dict, mic_yaw_deg: float) -> dict:
    """A source's truth dict (``Source.to_dict()``) as a microphone turned by
    ``mic_yaw_deg`` sees it: ``azimuth_deg`` and ``azimuth_end_deg`` lowered by the yaw
    and wrapped to [-180, 180); the motion label does not change."""
    from ..conventions import wrap_azimuth

    out = dict(source)
    for key in ("azimuth_deg", "azimuth_end_deg"):
        if out.get(key) is not None:
            out[key] = float(wrap_azimuth(out[key] - mic_yaw_deg))
    return out


def yawed_scene(scene: Scene, mic_yaw_deg: float) -> Scene:
    """The scene with its sources as a microphone turned by ``mic_yaw_deg`` hears them: the
    labels of ``render_scene(scene, mic_yaw_deg=mic_yaw_deg)`` (room and timing unchanged)."""
    return dataclasses.replace(scene, sources=[
        Source.from_dict(yawed_truth(s.to_dict(), mic_yaw_deg)) for s in scene.sources])


def _yaw(x: np.ndarray, mic_yaw_deg: float) -> np.ndarray:
    """Turn an ambiX (W, Y, Z, X) signal into the frame of a microphone turned by
    ``mic_yaw_deg`` (in place): azimuth a becomes a - yaw."""
    c, s = math.cos(math.radians(mic_yaw_deg)), math.sin(math.radians(mic_yaw_deg))
    y, xx = x[1].copy(), x[3].copy()
    x[1] = c * y - s * xx
    x[3] = c * xx + s * y
    return x


@lru_cache(maxsize=1)
def _have_pyroomacoustics() -> bool:
    try:
        import pyroomacoustics  # noqa: F401
    except Exception:  # pragma: no cover - depends on the environment
        return False
    return True


def resolve_engine(engine: str = "auto") -> str:
    """The engine ``render_scene`` would use: ``"auto"`` resolved to ``"ism"`` or
    ``"pyroomacoustics"``, any other engine itself."""
    if engine not in ENGINES:
        raise ParameterError(f"{engine=!r} must be one of {ENGINES}")
    if engine == "auto":
        return "pyroomacoustics" if _have_pyroomacoustics() else "ism"
    if engine.startswith("pyroomacoustics") and not _have_pyroomacoustics():
        raise BackendUnavailable(
            f"{engine=!r} needs pyroomacoustics (pip install 'foakit[sim]'); "
            "engine='ism' needs nothing extra"
        )
    return engine


def _fibonacci_sphere(n: int, rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))  # random rotation
    return fibonacci_sphere(n) @ q.T


def diffuse_noise(
    n: int,
    sample_rate: int,
    rng: np.random.Generator,
    *,
    n_directions: int = 64,
    color: str = "pink",
) -> np.ndarray:
    """Isotropic diffuse FOA noise: independent noise plane waves from all around.

    The field is the sum of ``n_directions`` independent Gaussian noise plane waves from a
    randomly rotated Fibonacci lattice (near-uniform on the sphere).  Because the sum of
    independent Gaussian plane waves is itself Gaussian, it is drawn exactly (in
    distribution) as 4 channels with the covariance that sum has, at the cost of 4 noises.
    DirAC diffuseness is about 1; X, Y and Z each carry about 1/3 of the W power (SN3D).

    Parameters
    ----------
    n : int
        Number of samples.
    sample_rate : int
        Rate (Hz); only used by the colouring filter design.
    rng : numpy.random.Generator
        Source of randomness.
    n_directions : int
        Number of plane waves (>= 4).
    color : {"pink", "white"}
        Spectrum of each plane wave.

    Returns
    -------
    ndarray [shape=(4, n)]
        W, Y, Z, X with mean W power exactly 1.
    """
    if int(n_directions) != n_directions or n_directions < 4:
        raise ParameterError(f"{n_directions=!r} must be an integer >= 4")
    if color not in ("pink", "white"):
        raise ParameterError(f"{color=!r} must be 'pink' or 'white'")
    if int(n) != n or n < 1:
        raise ParameterError(f"{n=!r} must be a positive integer")
    u = _fibonacci_sphere(int(n_directions), rng)
    gains = np.column_stack([np.ones(len(u)), u[:, 1], u[:, 2], u[:, 0]])  # W, Y, Z, X
    cov = gains.T @ gains / len(u)
    chol = np.linalg.cholesky(cov + 1e-12 * np.eye(4))
    x = chol @ rng.standard_normal((4, int(n)))
    if color == "pink":  # Kellet's 3-pole approximation of a -3 dB/octave slope
        b = [0.049922035, -0.095993537, 0.050612699, -0.004408786]
        a = [1.0, -2.494956002, 2.017265875, -0.522189400]
        x = sps.lfilter(b, a, x, axis=1)
    x -= x.mean(axis=1, keepdims=True)
    return x / np.sqrt(np.mean(x[0] ** 2))


def _ism_rir(
    offset: np.ndarray,
    mic: np.ndarray,
    room: np.ndarray,
    rt60: float,
    sr: int,
    rng: np.random.Generator,
    include_direct: bool,
    surfaces: Surfaces | None = None,
) -> np.ndarray:
    alpha = sabine_absorption(rt60, room)
    beta = math.sqrt(1.0 - alpha)
    nmax = ISM_MAX_ORDER
    src = mic + offset
    dist = float(np.linalg.norm(offset))
    # per axis: image coordinate (1 - 2q) p + 2 n L and its number of wall reflections
    nn = np.arange(-nmax, nmax + 1)
    coords, orders = [], []
    for k in range(3):
        c = np.concatenate([src[k] + 2 * nn * room[k], -src[k] + 2 * nn * room[k]])
        o = np.concatenate([2 * np.abs(nn), np.abs(nn - 1) + np.abs(nn)])
        coords.append(c)
        orders.append(o)
    cx, cy, cz = np.meshgrid(*coords, indexing="ij")
    ox, oy, oz = np.meshgrid(*orders, indexing="ij")
    order = (ox + oy + oz).ravel()
    keep = order <= nmax if include_direct else (order <= nmax) & (order > 0)
    img = np.stack([cx.ravel(), cy.ravel(), cz.ravel()], axis=1)[keep]
    order = order[keep]
    v = img - mic
    r = np.linalg.norm(v, axis=1)
    u = v / r[:, None]
    if surfaces is None:
        gain = beta**order / r
    else:
        gain = image_gains(nmax, surfaces.absorption(room, alpha))[keep] / r
    delay = np.maximum((r - dist) / SPEED_OF_SOUND * sr, 0.0)
    refl = order > 0
    t_a = float(delay[refl].min()) / sr
    t_b = max(float(delay[refl].max()) / sr, t_a + 0.005)

    length = int(math.ceil(max(delay.max() + 2, rt60 * sr)))
    rir = np.zeros((4, length))
    i0 = np.floor(delay).astype(int)
    frac = delay - i0
    chans = np.stack([gain, gain * u[:, 1], gain * u[:, 2], gain * u[:, 0]])  # W, Y, Z, X
    for ch in range(4):
        np.add.at(rir[ch], i0, chans[ch] * (1 - frac))
        np.add.at(rir[ch], i0 + 1, chans[ch] * frac)

    # late diffuse tail: energy tops the early reflections up to 1 / r_c**2 on W
    vol = float(np.prod(room))
    r_c = 0.057 * math.sqrt(vol / rt60)
    target = 1.0 / r_c**2
    e_early = float(np.sum(rir[0] ** 2)) - (1.0 / dist**2 if include_direct else 0.0)
    e_tail = max(target - e_early, 0.25 * target)
    t = np.arange(length) / sr
    ramp = np.clip((t - t_a) / (t_b - t_a), 0.0, 1.0)
    env = np.exp(-_LN1000 * t / rt60) * (0.5 - 0.5 * np.cos(np.pi * ramp))
    tail = rng.standard_normal((4, length)) * env
    tail[1:] *= math.sqrt(1.0 / 3.0)
    tail *= math.sqrt(e_tail / max(float(np.sum(tail[0] ** 2)), 1e-30))
    return rir + tail


def _pra_run(room, mic, src, order, e_abs, sr, surfaces=None):
    import pyroomacoustics as pra

    mats = pra.Material(e_abs)
    if surfaces is not None:
        walls = ("west", "east", "south", "north", "floor", "ceiling")
        mats = {w: pra.Material(a) for w, a in zip(walls, surfaces.absorption(room, e_abs),
                                                    strict=True)}
    return foa_rir(foa_shoebox(room, mic, src, order, mats, sr, air_absorption=False))


def _pra_rir(
    offset: np.ndarray, mic: np.ndarray, room: np.ndarray, rt60: float, sr: int,
    rng: np.random.Generator, include_direct: bool, surfaces: Surfaces | None = None,
) -> np.ndarray:
    import pyroomacoustics as pra

    try:
        e_abs, max_order = pra.inverse_sabine(rt60, list(room))
    except ValueError as err:
        raise ParameterError(
            f"rt60_s={rt60!r} is not reachable in a room of {tuple(room)} m: {err}"
        ) from err
    src = mic + offset
    order = min(int(max_order), PRA_MAX_ORDER)
    full = _pra_run(room, mic, src, order, e_abs, sr, surfaces)
    direct = _pra_run(room, mic, src, 0, e_abs, sr, surfaces)
    dist = float(np.linalg.norm(offset))
    c = float(pra.constants.get("c"))
    shift = int(round(dist / c * sr + pra.constants.get("frac_delay_length") // 2))
    scale = (1.0 / dist) / max(float(np.linalg.norm(direct[0])), 1e-30)
    if not include_direct:
        m = min(direct.shape[1], full.shape[1])
        full[:, :m] -= direct[:, :m]
    h = full[:, shift:] * scale
    if order < int(max_order):
        # images of order > `order` are missing beyond t_c: continue with a diffuse tail
        room = np.asarray(room, dtype=float)
        d_c = (order + 1) / math.sqrt(float(np.sum(1.0 / room**2))) - float(np.linalg.norm(room))
        h = _continue_tail(h, rt60, sr, max(d_c - dist, 0.0) / c, rng)
    return h


def _continue_tail(
    h: np.ndarray, rt60: float, sr: int, t_c: float, rng: np.random.Generator
) -> np.ndarray:
    """Cross-fade an RIR that is complete up to ``t_c`` into a level-matched diffuse tail."""
    n_c = min(int(t_c * sr), h.shape[1])
    n_a = int(0.6 * n_c)
    if n_c - n_a < int(0.005 * sr):
        n_a, n_c = min(int(0.005 * sr), h.shape[1] - 1), min(int(0.05 * sr), h.shape[1])
    t = np.arange(n_a, n_c) / sr
    level2 = float(np.mean(h[0, n_a:n_c] ** 2 * np.exp(2 * _LN1000 * t / rt60)))
    length = max(h.shape[1], int(math.ceil(rt60 * sr)))
    tt = np.arange(length) / sr
    t0 = 0.8 * n_c / sr
    ramp = np.clip((tt - t0) / max(n_c / sr - t0, 1.0 / sr), 0.0, 1.0)
    ramp = 0.5 - 0.5 * np.cos(np.pi * ramp)
    tail = rng.standard_normal((4, length)) * (math.sqrt(level2) * np.exp(-_LN1000 * tt / rt60)
                                              * ramp)
    tail[1:] *= math.sqrt(1.0 / 3.0)
    tail[:, : h.shape[1]] += h * (1.0 - ramp[: h.shape[1]])
    return tail


def room_impulse_response(
    scene: Scene,
    source_index: int,
    *,
    engine: str = "auto",
    include_direct: bool = True,
) -> np.ndarray:
    """FOA room impulse response of one source of a reverberant scene.

    Parameters
    ----------
    scene : Scene
        Must have ``rt60_s`` set.
    source_index : int
        Which source; a moving source is taken at the mid-point of its path.
    engine : str
        One of :data:`ENGINES`; see the module docstring.
    include_direct : bool
        Keep the direct path (at sample 0, amplitude ``1 / distance_m``, ambiX gains of the
        source direction).

    Returns
    -------
    ndarray [shape=(4, L)]
        W, Y, Z, X; sample 0 is the arrival of the direct sound.  Source level is not
        included.
    """
    if scene.rt60_s is None:
        raise ParameterError("scene.rt60_s=None: an anechoic scene has no room response")
    if not 0 <= source_index < len(scene.sources):
        raise ParameterError(f"{source_index=!r} out of range for {len(scene.sources)} sources")
    eng = resolve_engine(engine)
    room, mic = room_geometry(scene)
    room_a, mic_a = np.asarray(room), np.asarray(mic)
    alpha = sabine_absorption(scene.rt60_s, room)
    if alpha >= 1.0:
        raise ParameterError(
            f"rt60_s={scene.rt60_s!r} is too short for a room of {room} m (Sabine absorption "
            f"{alpha:.2f} > 1); use a longer rt60_s or a smaller room"
        )
    src: Source = scene.sources[source_index]
    offset = src.distance_m * direction_to_vector(src.mid_azimuth_deg, src.elevation_deg)
    rng = np.random.default_rng([scene.seed, source_index, 2])
    if eng == "pyroomacoustics-bands":
        return band_rir(scene, offset, include_direct=include_direct, seed=source_index)
    base, surfaces = base_engine(eng, scene)
    rir_fn = _pra_rir if base == "pyroomacoustics" else _ism_rir
    return rir_fn(offset, mic_a, room_a, scene.rt60_s, scene.sample_rate, rng, include_direct,
                  surfaces)


def _source_signals(scene: Scene, signals: Sequence[Any] | None = None):
    """(index, source, first sample, end sample, signal at its level) of each source that
    lasts at least a sample: the dry signals :func:`render_scene` places (seeded per source,
    or ``signals[i]`` where given)."""
    sr, n = scene.sample_rate, scene.n_samples
    if signals is not None and len(signals) != len(scene.sources):
        raise ParameterError(f"signals has {len(signals)} entries for "
                             f"{len(scene.sources)} sources")
    for i, src in enumerate(scene.sources):
        a = int(round(src.onset_s * sr))
        b = min(int(round(src.offset_s * sr)), n)
        if b <= a:
            continue
        if signals is not None and signals[i] is not None:
            s = fit_dry_signal(signals[i], b - a, sr, index=i)
        else:
            s = source_signal(src.kind, b - a, sr, np.random.default_rng([scene.seed, i, 1]))
        yield i, src, a, b, s * 10.0 ** (src.level_db / 20.0)


def _noise_power(direct_w: np.ndarray, active: np.ndarray, snr_db: float) -> float:
    """W power of the background noise: ``snr_db`` below the mean W power of the summed
    direct sounds over the union of the events' active periods."""
    p_sig = float(np.mean(direct_w[active] ** 2)) if active.any() else 1.0
    return p_sig / 10.0 ** (snr_db / 10.0)


def direct_snr_db(scene: Scene, *, signals: Sequence[Any] | None = None
                  ) -> list[float | None]:
    """Each source's own direct-sound SNR (dB): the mean W power of its direct sound over its
    own span against the background noise's W power.

    ``scene.snr_db`` is set against the *summed* direct sounds (see :func:`render_scene`),
    so in a scene of several sources a far, quiet one sits well below it; this tells how
    audible each source is on its own (benchmarks break accuracy down by it).

    Parameters
    ----------
    scene : Scene
        The scene.
    signals : sequence, optional
        The dry signals given to :func:`render_scene`, if any.

    Returns
    -------
    list of float or None
        One per source, in ``scene.sources`` order; None when the scene has no noise
        (``snr_db`` None) or the source has no samples.
    """
    if not isinstance(scene, Scene):
        raise ParameterError(f"scene must be a Scene, got {type(scene).__name__}")
    out: list[float | None] = [None] * len(scene.sources)
    if scene.snr_db is None:
        return out
    n = scene.n_samples
    direct_w = np.zeros(n)
    active = np.zeros(n, dtype=bool)
    own = {}
    for i, src, a, b, s in _source_signals(scene, signals):
        d = (1.0 / src.distance_m) * s  # as render_scene scales it
        direct_w[a:b] += d
        active[a:b] = True
        own[i] = float(np.mean(d ** 2))
    p_noise = _noise_power(direct_w, active, scene.snr_db)
    for i, p in own.items():
        out[i] = 10.0 * math.log10(max(p, 1e-300) / p_noise)
    return out


def render_scene(scene: Scene, *, engine: str = "auto", interferer: Interferer | None = None,
                 mic_yaw_deg: float = 0.0, signals: Sequence[Any] | None = None
                 ) -> np.ndarray:
    """Render a scene to ambiX FOA.

    Parameters
    ----------
    scene : Scene
        What to render; signals, tail and noise are seeded from ``scene.seed``.
    engine : str
        One of :data:`ENGINES`: the room model of reverberant scenes (ignored for anechoic
        ones).
    interferer : Interferer, optional
        A steady directional sound through the whole clip, not among ``scene.sources``
        (seeded from ``scene.seed`` too).
    mic_yaw_deg : float
        The microphone's yaw: every rendered direction's azimuth is lowered by it
        (:func:`yawed_truth` gives the truth it then hears).
    signals : sequence, optional
        One entry per source: None (the source's synthetic family, seeded from
        ``scene.seed``) or its dry signal, a 1-D array at ``scene.sample_rate`` (a
        recording), cut or zero-padded to the source's span, faded and scaled to unit RMS
        over it like the synthetic ones, so ``level_db`` and ``snr_db`` keep their meaning.

    Returns
    -------
    ndarray [shape=(4, n)]
        float32, W, Y, Z, X (ACN/SN3D), ``n = round(duration_s * sample_rate)``.
    """
    if not isinstance(scene, Scene):
        raise ParameterError(f"scene must be a Scene, got {type(scene).__name__}")
    reverberant = scene.rt60_s is not None
    if reverberant:
        resolve_engine(engine)
    elif engine not in ENGINES:
        raise ParameterError(f"{engine=!r} must be one of {ENGINES}")
    sr, n = scene.sample_rate, scene.n_samples
    out = np.zeros((4, n))
    direct_w = np.zeros(n)
    active = np.zeros(n, dtype=bool)
    bands = reverberant and resolve_engine(engine) == "pyroomacoustics-bands"
    for i, src, a, b, s in _source_signals(scene, signals):
        g = 1.0 / src.distance_m
        direct_w[a:b] += g * s
        active[a:b] = True
        if bands:  # the room model renders the direct sound too
            out[:, a:] += render_source(scene, i, s, a, n - a)
            continue
        if src.is_moving:  # conventions.direction_to_vector needs equal shapes
            az = src.azimuth_at((a + np.arange(b - a)) / sr)
            el = np.full_like(az, src.elevation_deg)
        else:
            az, el = src.azimuth_deg, src.elevation_deg
        out[:, a:b] += encode_plane_wave(g * s, az, el)
        if reverberant:
            rir = room_impulse_response(scene, i, engine=engine, include_direct=False)
            rev = sps.oaconvolve(s[None, :], rir[:, : n - a], axes=1)[:, : n - a]
            out[:, a : a + rev.shape[1]] += rev
    if interferer is not None:
        if not isinstance(interferer, Interferer):
            raise ParameterError(
                f"interferer must be an Interferer, got {type(interferer).__name__}")
        out += _render_interferer(scene, interferer, engine, direct_w, active)
    if scene.snr_db is not None:
        noise = diffuse_noise(n, sr, np.random.default_rng([scene.seed, 7, 3]))
        out += noise * math.sqrt(_noise_power(direct_w, active, scene.snr_db))
    if not math.isfinite(mic_yaw_deg):
        raise ParameterError(f"{mic_yaw_deg=!r} must be finite")
    if mic_yaw_deg:
        _yaw(out, mic_yaw_deg)
    return out.astype(np.float32)


def _render_interferer(scene: Scene, itf: Interferer, engine: str, direct_w: np.ndarray,
                       active: np.ndarray) -> np.ndarray:
    sr, n = scene.sample_rate, scene.n_samples
    s = fan_signal(n, sr, np.random.default_rng([scene.seed, 11, 5]))
    s *= math.sqrt(_noise_power(direct_w, active, itf.snr_db))
    if scene.rt60_s is None:
        return encode_plane_wave(s, itf.azimuth_deg, itf.elevation_deg)
    room, mic = (np.asarray(v) for v in room_geometry(scene))
    u = direction_to_vector(itf.azimuth_deg, itf.elevation_deg)
    # the farthest the room lets it be along its direction, 0.5 m from the walls
    with np.errstate(divide="ignore"):
        reach = np.where(u > 0, (room - 0.5 - mic) / u, np.where(u < 0, (0.5 - mic) / u, np.inf))
    dist = float(min(itf.distance_m, max(float(reach.min()), 0.3)))
    rng = np.random.default_rng([scene.seed, 11, 2])
    eng = resolve_engine(engine)
    # the direct sound is a plane wave at 1 / 1 m; the room's part scales with it
    if eng == "pyroomacoustics-bands":
        out = np.zeros((4, n))
        rir = band_rir(scene, dist * u, seed=11) * dist
    else:
        out = encode_plane_wave(s, itf.azimuth_deg, itf.elevation_deg)
        base, surfaces = base_engine(eng, scene)
        rir_fn = _pra_rir if base == "pyroomacoustics" else _ism_rir
        rir = rir_fn(dist * u, mic, room, scene.rt60_s, sr, rng, False, surfaces) * dist
    rev = sps.oaconvolve(s[None, :], rir[:, :n], axes=1)[:, :n]
    out[:, : rev.shape[1]] += rev
    return out
