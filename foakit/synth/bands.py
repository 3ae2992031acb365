"""The ``"pyroomacoustics-bands"`` room engine: octave-band walls, air absorption, a
directional late tail and moving sources moved through the room.

It renders rooms unlike the other two engines (:mod:`foakit.synth.render`), so that the
analysis can be measured on a room model it was not tuned on:

* **Walls**: each of the six surfaces gets a material of pyroomacoustics' database (walls,
  floor and ceiling from lists of their own), its octave-band absorption scaled by one
  factor for the room so that Sabine's RT60, averaged over the 500 Hz and 1 kHz bands, is
  ``scene.rt60_s``, then each band's held within a factor 2 of it
  (:func:`room_materials`).  Air absorption is on.
* **Early part**: pyroomacoustics' image sources up to order :data:`BANDS_MAX_ORDER`
  (omni W and figure-of-eight X, Y, Z at one point), the direct path included: it is at
  sample 0 with amplitude ``1 / distance`` like the other engines' direct sound, but
  band-limited by the air and a fractional delay.
* **Late tail** (where the order cap cuts the image sources): plane waves from
  :data:`TAIL_DIRECTIONS` directions, each independent noise in octave bands whose energy
  decays at the rate a ray along that direction meets absorption in the room
  (``c * sum_i |u_i| * -ln(1 - alpha_i) / L_i`` over the three axes), half of it mixed
  with the mean over directions (:data:`TAIL_SCATTERING`), so the tail is directional
  (sound along the least absorbing axis lasts longest) and each band decays at its own
  rate; each band is level-matched to the image sources' W just before the cap.
* **Moving sources**: room responses at points along the path (at most
  :data:`PATH_STEP_DEG` apart), the dry signal cross-faded between them, so reflections
  move with the source (the other engines reverberate a moving source from its mid-point).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import signal as sps

from ..conventions import direction_to_vector
from ..errors import ParameterError
from .scene import SPEED_OF_SOUND, Scene, room_geometry

__all__ = ["BANDS_MAX_ORDER", "PATH_STEP_DEG", "TAIL_DIRECTIONS", "TAIL_SCATTERING", "band_rir",
           "fibonacci_sphere", "foa_rir", "foa_shoebox",
           "render_source", "room_materials"]

#: Image-source order cap of the engine (a directional tail continues it).
BANDS_MAX_ORDER = 30
#: Directions of the late tail's plane waves.
TAIL_DIRECTIONS = 64
#: Share of the late tail's decay rates that is the room's mean, not its direction's.
TAIL_SCATTERING = 0.5
#: Largest azimuth step between the room responses of a moving source's path.
PATH_STEP_DEG = 15.0
_OCTAVES = (125.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0)
# pyroomacoustics' wall names along x, y and z
_AXES = (("west", "east"), ("south", "north"), ("floor", "ceiling"))
_WALL = ("hard_surface", "brickwork", "rough_concrete", "plasterboard", "wooden_lining",
         "glass_window", "gypsum_board", "ceramic_tiles", "curtains_velvet",
         "panel_fabric_covered_6pcf")
_FLOOR = ("concrete_floor", "marble_floor", "linoleum_on_concrete", "carpet_cotton",
          "carpet_thin", "stage_floor", "audience_floor")
_CEILING = ("ceiling_plasterboard", "ceiling_fibre_absorber", "ceiling_fissured_tile",
            "ceiling_metal_panel", "ceiling_perforated_gypsum_board", "hard_surface")


def room_materials(scene: Scene) -> dict[str, np.ndarray]:
    """Octave-band energy absorption of the six surfaces of a scene's room.

    Returns
    -------
    dict of ndarray [shape=(7,)]
        pyroomacoustics wall name -> absorption at 125 Hz ... 8 kHz, in (0, 0.99].
    """
    import pyroomacoustics as pra

    if scene.rt60_s is None:
        raise ParameterError("scene.rt60_s=None: an anechoic scene has no room")
    rng = np.random.default_rng([scene.seed, 13])
    names = {w: str(rng.choice(_WALL)) for w in ("west", "east", "south", "north")}
    names["floor"] = str(rng.choice(_FLOOR))
    names["ceiling"] = str(rng.choice(_CEILING))
    base = {}
    for wall, name in names.items():
        ea = pra.Material(name).energy_absorption
        base[wall] = np.interp(np.log(_OCTAVES), np.log(ea["center_freqs"]), ea["coeffs"])
    room = np.asarray(room_geometry(scene)[0])
    area = {w: room[(a + 1) % 3] * room[(a + 2) % 3] for a, pair in enumerate(_AXES)
            for w in pair}
    vol = float(np.prod(room))

    def rt60(k: float) -> float:  # Sabine at 500 Hz and 1 kHz, averaged
        a = sum(area[w] * np.clip(k * base[w][2:4], 0.01, 0.99) for w in base)
        return float(np.mean(0.161 * vol / a))

    lo, hi = 1e-3, 1e3
    if not rt60(hi) <= scene.rt60_s <= rt60(lo):
        raise ParameterError(f"rt60_s={scene.rt60_s!r} is not reachable in a room of "
                             f"{tuple(room.round(2))} m with its materials")
    for _ in range(60):  # rt60 falls as k grows
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if rt60(mid) > scene.rt60_s else (lo, mid)
    k = math.sqrt(lo * hi)
    out = {w: np.clip(k * b, 0.01, 0.99) for w, b in base.items()}
    # each band's RT60 within [1/2, 2] of the mid bands' (a wall of pure glass or carpet
    # would otherwise ring for seconds at one end of the spectrum)
    total = sum(area[w] * out[w] for w in out)
    band_rt = 0.161 * vol / total
    fix = np.clip(band_rt / np.clip(band_rt, 0.5 * scene.rt60_s, 2.0 * scene.rt60_s), 0.0,
                  None)
    return {w: np.clip(a * fix, 0.01, 0.99) for w, a in out.items()}


def foa_shoebox(room, mic, src, order: int, materials, sr: int, *, air_absorption: bool):
    """A pyroomacoustics shoebox with one source at ``src`` and an FOA microphone at ``mic``:
    an omni W and figure-of-eight Y, Z, X (orientations +y, +z, +x) at one point, in that
    channel order (what both pyroomacoustics engines render through)."""
    import pyroomacoustics as pra
    from pyroomacoustics.directivities import FigureEight

    box = pra.ShoeBox(list(room), fs=sr, materials=materials, max_order=int(order),
                      air_absorption=air_absorption)
    box.add_source(list(src))
    dirs = [None, FigureEight([0, 1, 0]), FigureEight([0, 0, 1]), FigureEight([1, 0, 0])]
    box.add_microphone_array(np.tile(np.asarray(mic)[:, None], (1, 4)), directivity=dirs)
    return box


def foa_rir(box) -> np.ndarray:
    """:func:`foa_shoebox`'s computed responses as one (4, L) array, the shorter ones
    zero-padded."""
    box.compute_rir()
    rirs = [np.asarray(box.rir[m][0], dtype=float) for m in range(4)]
    out = np.zeros((4, max(len(x) for x in rirs)))
    for m, x in enumerate(rirs):
        out[m, : len(x)] = x
    return out


def _run(room, mic, src, order, materials, sr, include_direct):
    """(the response of the images ``include_direct`` keeps, the direct path alone), both
    through the same octave-band synthesis."""
    import pyroomacoustics as pra

    mats = {w: pra.Material({"coeffs": a.tolist(), "center_freqs": list(_OCTAVES)})
            for w, a in materials.items()}
    box = foa_shoebox(room, mic, src, order, mats, sr, air_absorption=True)
    box.image_source_model()
    source = box.sources[0]
    damping = source.damping.copy()
    out = []
    for keep in (source.orders >= (0 if include_direct else 1), source.orders == 0):
        source.damping = np.where(keep[None, :], damping, 0.0)
        out.append(foa_rir(box))
    return out


def band_rir(scene: Scene, offset: np.ndarray, *, include_direct: bool = True,
             seed: int = 0) -> np.ndarray:
    """FOA room response of a point ``offset`` (m, from the microphone) in a scene's room.

    Parameters
    ----------
    scene : Scene
        Must have ``rt60_s`` set.
    offset : ndarray [shape=(3,)]
    include_direct : bool
        Keep the direct path (at sample 0, amplitude ``1 / |offset|``).
    seed : int
        Seeds the late tail's noise with ``scene.seed``.

    Returns
    -------
    ndarray [shape=(4, L)]
        W, Y, Z, X (ACN/SN3D).
    """
    import pyroomacoustics as pra

    materials = room_materials(scene)
    room, mic = (np.asarray(v) for v in room_geometry(scene))
    sr = scene.sample_rate
    offset = np.asarray(offset, dtype=float)
    dist = float(np.linalg.norm(offset))
    full, direct = _run(room, mic, mic + offset, BANDS_MAX_ORDER, materials, sr,
                        include_direct)
    c = float(pra.constants.get("c"))
    shift = int(round(dist / c * sr + pra.constants.get("frac_delay_length") // 2))
    scale = (1.0 / dist) / max(float(np.linalg.norm(direct[0])), 1e-30)
    h = full[:, shift:] * scale
    # the first images of order BANDS_MAX_ORDER + 1 arrive after t_c
    d_c = (BANDS_MAX_ORDER + 1) / math.sqrt(float(np.sum(1.0 / room**2))) - float(
        np.linalg.norm(room))
    t_c = max(d_c - dist, 0.0) / c
    rng = np.random.default_rng([scene.seed, seed, 17])
    return _with_tail(h, materials, room, scene.rt60_s, sr, t_c, rng)


def _with_tail(h, materials, room, rt60, sr, t_c, rng):
    n_c = min(int(t_c * sr), h.shape[1])
    n_a = int(0.6 * n_c)
    if n_c - n_a < int(0.01 * sr):  # images too short to measure a level: skip the tail
        return h
    nyq = sr / 2.0
    bands = [f for f in _OCTAVES if f / math.sqrt(2.0) < nyq * 0.95]
    # decay rate of energy along each direction, per band (1/s)
    u = fibonacci_sphere(TAIL_DIRECTIONS)
    per_axis = np.array([[-np.log(1.0 - 0.5 * (materials[a][b] + materials[z][b]))
                          for b in range(len(bands))] for a, z in _AXES]) / room[:, None]
    per_axis *= SPEED_OF_SOUND
    rate = np.abs(u) @ per_axis  # (directions, bands)
    # scattering moves energy between directions: half of each rate is the room's mean
    rate = TAIL_SCATTERING * rate.mean(axis=0) + (1.0 - TAIL_SCATTERING) * rate
    length = max(h.shape[1], int(math.ceil(1.2 * rt60 * sr)))
    t = np.arange(length) / sr
    t0 = 0.8 * n_c / sr
    ramp = np.clip((t - t0) / max(n_c / sr - t0, 1.0 / sr), 0.0, 1.0)
    ramp = 0.5 - 0.5 * np.cos(np.pi * ramp)
    out = np.zeros((4, length))
    gains = np.stack([np.ones(len(u)), u[:, 1], u[:, 2], u[:, 0]])  # W, Y, Z, X
    noise = rng.standard_normal((len(u), length))
    for b, f in enumerate(bands):
        sos = _band_sos(f, sr, first=b == 0, last=b == len(bands) - 1)
        nb = sps.sosfilt(sos, noise, axis=1) * np.exp(-0.5 * rate[:, b : b + 1] * t)
        tail = gains @ nb
        ref = sps.sosfilt(sos, h[0])[n_a:n_c]
        have = float(np.mean(tail[0, n_a:n_c] ** 2))
        out += tail * math.sqrt(float(np.mean(ref**2)) / max(have, 1e-30))
    out *= ramp
    out[:, : h.shape[1]] += h * (1.0 - ramp[: h.shape[1]])
    return out


def _band_sos(f: float, sr: int, *, first: bool, last: bool) -> np.ndarray:
    lo, hi = f / math.sqrt(2.0), min(f * math.sqrt(2.0), 0.95 * sr / 2.0)
    if first:
        return sps.butter(4, hi, "lowpass", fs=sr, output="sos")
    if last:
        return sps.butter(4, lo, "highpass", fs=sr, output="sos")
    return sps.butter(4, [lo, hi], "bandpass", fs=sr, output="sos")


def fibonacci_sphere(n: int) -> np.ndarray:
    """``n`` nearly even unit vectors (a Fibonacci lattice), shape ``(n, 3)``."""
    k = np.arange(n) + 0.5
    z = 1.0 - 2.0 * k / n
    phi = math.pi * (1.0 + math.sqrt(5.0)) * k
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def render_source(scene: Scene, index: int, s: np.ndarray, a: int, n_out: int
                  ) -> np.ndarray:
    """Direct sound and room of source ``index`` (dry signal ``s`` at its level, from sample
    ``a``), moved through the room: the signal cross-faded over room responses at points of
    its path at most :data:`PATH_STEP_DEG` apart (one point for a stationary source).

    Returns
    -------
    ndarray [shape=(4, n_out)]
        From sample ``a`` of the clip on.
    """
    src = scene.sources[index]
    sr = scene.sample_rate
    span = len(s)
    change = abs(src.azimuth_change_deg)
    n_pts = max(2, int(math.ceil(change / PATH_STEP_DEG)) + 1) if change > 0 and span > 1 else 1
    out = np.zeros((4, n_out))
    pos = np.arange(span, dtype=float)
    for j in range(n_pts):
        if n_pts == 1:
            w, t_j = np.ones(span), src.onset_s
        else:
            c = j * (span - 1) / (n_pts - 1)
            w = np.clip(1.0 - np.abs(pos - c) / ((span - 1) / (n_pts - 1)), 0.0, 1.0)
            t_j = (a + c) / sr
        az = float(np.asarray(src.azimuth_at(t_j)))
        rir = band_rir(scene, src.distance_m * direction_to_vector(az, src.elevation_deg),
                       seed=index)
        nz = np.flatnonzero(w)
        lo, hi = int(nz[0]), int(nz[-1]) + 1
        y = sps.oaconvolve((w[lo:hi] * s[lo:hi])[None, :], rir[:, : max(n_out - lo, 1)],
                           axes=1)[:, : n_out - lo]
        out[:, lo : lo + y.shape[1]] += y
    return out
