"""A time x direction energy map of one clip: the signal evidence label audits query.

For each block of ``block_s`` (0.1 s, the STARSS label grid) and each cell of an azimuth x
elevation grid (``az_step_deg`` x ``el_step_deg``), the map holds the energy of the STFT bins
of the analysis band whose DirAC diffuseness is at most ``psi_max`` and whose intensity points
into the cell (the same votes as the DOA histograms of :mod:`foakit.analysis`, at a fixed
time resolution).  Any direction or time range can then be asked about after the analysis:

* :meth:`DoaMap.cone_series`: energy per block inside a cone (or an azimuth wedge);
* :meth:`DoaMap.share`: the cone's part of the directional energy in a time range;
* :meth:`DoaMap.prominence`: that part relative to the strongest direction of the range;
* :meth:`DoaMap.presence`: per block, is the direction sounding (level above the cone's
  noise floor and a fair share of the block's energy)?
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..params import AnalysisParams
from .preset import AUDIT_PARAMS

__all__ = ["DoaMap", "doa_map"]


@dataclass
class DoaMap:
    """Directional energy per time block and direction cell.

    Attributes
    ----------
    block_s : float
        Block length (s); block ``b`` covers ``[b * block_s, (b + 1) * block_s)``.
    az_step_deg, el_step_deg : float
        Cell size; azimuth cells start at -180, elevation cells at -90.
    energy : ndarray [shape=(n_blocks, n_az, n_el), dtype=float32]
        Non-diffuse votes (bin magnitudes) per block and cell.
    total : ndarray [shape=(n_blocks,), dtype=float32]
        All energy of the band per block (diffuse bins included).
    """

    block_s: float
    az_step_deg: float
    el_step_deg: float
    energy: np.ndarray
    total: np.ndarray
    _adj: dict = field(default_factory=dict, repr=False)
    _quiet: list = field(default_factory=list, repr=False)

    @property
    def n_blocks(self) -> int:
        return int(self.energy.shape[0])

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """Azimuth and elevation of the cell centres (degrees), each ``(n_az, n_el)``."""
        n_az, n_el = self.energy.shape[1:]
        az = -180.0 + (np.arange(n_az) + 0.5) * self.az_step_deg
        el = -90.0 + (np.arange(n_el) + 0.5) * self.el_step_deg
        return np.meshgrid(az, el, indexing="ij")

    def mask(self, az: float | None, el: float | None, tol_deg: float) -> np.ndarray:
        """Cells within ``tol_deg`` of a direction.

        ``el=None``: an azimuth wedge (all elevations); ``az=None``: an elevation band.
        """
        caz, cel = self.centres()
        if az is None and el is None:
            return np.ones_like(caz, dtype=bool)
        if el is None:
            d = np.abs((caz - az + 180.0) % 360.0 - 180.0)
            return d <= tol_deg
        if az is None:
            return np.abs(cel - el) <= tol_deg
        a1, e1 = np.deg2rad(caz), np.deg2rad(cel)
        a0, e0 = np.deg2rad(az), np.deg2rad(el)
        c = np.sin(e1) * np.sin(e0) + np.cos(e1) * np.cos(e0) * np.cos(a1 - a0)
        return np.rad2deg(np.arccos(np.clip(c, -1.0, 1.0))) <= tol_deg

    def blocks(self, t0: float, t1: float) -> slice:
        """Blocks whose centre lies in ``[t0, t1)``."""
        a = int(np.ceil(t0 / self.block_s - 0.5 - 1e-9))
        b = int(np.ceil(t1 / self.block_s - 0.5 - 1e-9))
        a, b = max(0, a), min(self.n_blocks, b)
        return slice(a, max(a, b))

    def cone_series(self, az: float | None, el: float | None, tol_deg: float) -> np.ndarray:
        """Energy per block inside the cone (or wedge / band)."""
        m = self.mask(az, el, tol_deg)
        return self.energy[:, m].sum(axis=1)

    def _hist(self, t0: float, t1: float, exclude: list | None) -> np.ndarray:
        h = self.energy[self.blocks(t0, t1)].sum(axis=0)
        for ex in exclude or ():
            h = np.where(self.mask(*ex), 0.0, h)
        return h

    def share(self, az: float | None, el: float | None, t0: float, t1: float,
              tol_deg: float, *, exclude: list | None = None) -> float:
        """The cone's part of the directional energy of ``[t0, t1)`` (NaN when none).

        ``exclude``: cones ``(az, el, tol_deg)`` removed first (energy other labels explain).
        """
        h = self._hist(t0, t1, exclude)
        tot = float(h.sum())
        if tot <= 0:
            return float("nan")
        return float(h[self.mask(az, el, tol_deg)].sum() / tot)

    def _adjacency(self, mode: str, tol_deg: float) -> np.ndarray:
        key = (mode, round(tol_deg, 3))
        if key not in self._adj:
            caz, cel = self.centres()
            if mode == "az":
                az = caz[:, 0]
                d = np.abs((az[:, None] - az[None, :] + 180.0) % 360.0 - 180.0)
                self._adj[key] = (d <= tol_deg).astype(np.float32)
            elif mode == "el":
                el = cel[0]
                self._adj[key] = (np.abs(el[:, None] - el[None, :]) <= tol_deg).astype(np.float32)
            else:
                v = np.stack([np.cos(np.deg2rad(cel)) * np.cos(np.deg2rad(caz)),
                              np.cos(np.deg2rad(cel)) * np.sin(np.deg2rad(caz)),
                              np.sin(np.deg2rad(cel))], axis=-1).reshape(-1, 3)
                ang = np.rad2deg(np.arccos(np.clip(v @ v.T, -1.0, 1.0)))
                self._adj[key] = (ang <= tol_deg).astype(np.float32)
        return self._adj[key]

    def strongest(self, t0: float, t1: float, tol_deg: float, *, mode: str = "dir",
                  exclude: list | None = None) -> tuple[float, float | None, float]:
        """The direction whose cone holds the most energy in ``[t0, t1)``.

        Parameters
        ----------
        mode : {"dir", "az", "el"}
            Cones, azimuth wedges or elevation bands.
        exclude : list of (az, el, tol_deg), optional
            Cones removed first.

        Returns
        -------
        az, el, share : float, float or None, float
            ``az`` is None in mode "el", ``el`` None in mode "az".
        """
        h = self._hist(t0, t1, exclude)
        tot = float(h.sum())
        caz, cel = self.centres()
        if tot <= 0:
            return float("nan"), None, float("nan")
        if mode == "az":
            s = self._adjacency("az", tol_deg) @ h.sum(axis=1)
            i = int(np.argmax(s))
            return float(caz[i, 0]), None, float(s[i] / tot)
        if mode == "el":
            s = self._adjacency("el", tol_deg) @ h.sum(axis=0)
            i = int(np.argmax(s))
            return float("nan"), float(cel[0, i]), float(s[i] / tot)
        s = self._adjacency("dir", tol_deg) @ h.reshape(-1)
        i = int(np.argmax(s))
        return float(caz.reshape(-1)[i]), float(cel.reshape(-1)[i]), float(s[i] / tot)

    def prominence(self, az: float | None, el: float | None, t0: float, t1: float,
                   tol_deg: float, *, exclude: list | None = None) -> float:
        """:meth:`share` of the direction divided by that of the strongest direction (0-1).

        ``exclude``: cones ``(az, el, tol_deg)`` removed first, e.g. the labelled directions
        of other sources active at the same time, so that what is left is what this label
        has to explain.
        """
        mode = "az" if el is None else ("el" if az is None else "dir")
        s = self.share(az, el, t0, t1, tol_deg, exclude=exclude)
        _, _, top = self.strongest(t0, t1, tol_deg, mode=mode, exclude=exclude)
        if not np.isfinite(s) or not np.isfinite(top) or top <= 0:
            return float("nan")
        return float(min(1.0, s / top))

    def presence(self, az: float | None, el: float | None, tol_deg: float, *,
                 rise_db: float = 5.0, min_share: float = 0.2, smooth: int = 3) -> np.ndarray:
        """Per block: is the direction sounding?

        A block counts when the cone's level (smoothed over ``smooth`` blocks) is
        ``rise_db`` above the cone's noise floor and the cone holds at least ``min_share`` of
        the block's directional energy.  The noise floor is the cone's 15th percentile over
        the clip, or, when the clip has noise-only stretches (blocks within 3 dB of its
        15th-percentile band level, which its 90th percentile exceeds by 10 dB), the cone's
        median level there if higher: while another source plays, a cone is masked below
        the noise, and in noise-only blocks, where few bins pass the diffuseness gate, a
        cone's share of them is often above ``min_share`` by chance.
        """
        e = self.cone_series(az, el, tol_deg).astype(np.float64)
        tot = self.energy.reshape(self.n_blocks, -1).sum(axis=1).astype(np.float64)
        if smooth > 1:
            k = np.ones(smooth) / smooth
            e = np.convolve(e, k, mode="same")
            tot = np.convolve(tot, k, mode="same")
        lev = 10.0 * np.log10(np.maximum(e, 1e-20))
        floor = float(np.percentile(lev, 15)) if len(lev) else 0.0
        quiet = self.quiet_blocks()
        if quiet is not None:
            floor = max(floor, float(np.median(lev[quiet])))
        share = np.where(tot > 0, e / np.maximum(tot, 1e-30), 0.0)
        return (lev >= floor + rise_db) & (share >= min_share)


    def quiet_blocks(self) -> np.ndarray | None:
        """The clip's noise-only stretches for :meth:`presence`: blocks within 3 dB of its
        15th-percentile band level when its 90th percentile is 10 dB above that (at least
        three blocks), else None.  Made once per map (it does not depend on the cone)."""
        if not self._quiet:
            quiet = None
            if self.n_blocks >= 3:
                band = 20.0 * np.log10(np.maximum(self.total.astype(np.float64), 1e-20))
                low = np.percentile(band, 15)
                mask = band <= low + 3.0
                if np.percentile(band, 90) - low >= 10.0 and mask.sum() >= 3:
                    quiet = mask
            self._quiet.append(quiet)
        return self._quiet[0]


def doa_map(
    samples: np.ndarray, sample_rate: int, *, params: AnalysisParams | None = None,
    block_s: float = 0.1, az_step_deg: float = 10.0, el_step_deg: float = 10.0,
) -> DoaMap:
    """Build the :class:`DoaMap` of an ambiX clip.

    Parameters
    ----------
    samples : ndarray [shape=(4, n)]
        ambiX (W, Y, Z, X; SN3D).
    sample_rate : int
    params : AnalysisParams, optional
        STFT grid, band, diffuseness smoothing and ``psi_max``; default
        :data:`foakit.audit.preset.AUDIT_PARAMS`.
    block_s, az_step_deg, el_step_deg : float
        Map resolution.
    """
    from ..kernels.spatial import diffuseness_from_smoothed, intensity_energy, smooth_frames
    from ..kernels.stft import stft

    params = params or AUDIT_PARAMS
    x = np.ascontiguousarray(samples, dtype=np.float32)
    grid = params.grid(sample_rate)
    spec = stft(x, win_length=grid.win_length, hop_length=grid.hop_length, n_fft=grid.n_fft)
    n_frames = spec.shape[-2]
    lo, hi = grid.band(params.fmin_hz, params.fmax_hz)
    # the array code of foakit.kernels.spatial, on the analysis band only
    intensity, energy = intensity_energy(spec[..., lo:hi])
    psi = diffuseness_from_smoothed(smooth_frames(intensity, params.smooth_frames, axis=-2),
                                    smooth_frames(energy, params.smooth_frames, axis=-2))
    i_b = intensity
    e_b = energy
    ok = (psi <= params.psi_max) & (np.abs(i_b).sum(axis=0) > 0)
    n_az = int(round(360.0 / az_step_deg))
    n_el = int(round(180.0 / el_step_deg))
    az = np.rad2deg(np.arctan2(i_b[1], i_b[0]))
    el = np.rad2deg(np.arctan2(i_b[2], np.hypot(i_b[0], i_b[1])))
    ia = np.clip(((az + 180.0) / az_step_deg).astype(np.int64), 0, n_az - 1)
    ie = np.clip(((el + 90.0) / el_step_deg).astype(np.int64), 0, n_el - 1)
    t = np.arange(n_frames) * grid.hop_length / grid.sample_rate
    n_blocks = max(1, int(np.ceil(x.shape[1] / sample_rate / block_s - 1e-9)))
    blk = np.minimum((t / block_s).astype(np.int64), n_blocks - 1)
    idx = (blk[:, None] * n_az + ia) * n_el + ie
    # votes weighted by bin magnitude (sqrt of energy): a quieter source overlapping a louder
    # one keeps a visible share of the map
    emap = np.bincount(idx[ok], weights=np.sqrt(e_b[ok].astype(np.float64)),
                       minlength=n_blocks * n_az * n_el).reshape(n_blocks, n_az, n_el)
    total = np.bincount(blk, weights=np.sqrt(e_b.astype(np.float64)).sum(axis=1),
                        minlength=n_blocks)
    return DoaMap(block_s=block_s, az_step_deg=az_step_deg, el_step_deg=el_step_deg,
                  energy=emap.astype(np.float32), total=total.astype(np.float32))
