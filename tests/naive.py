"""Slow, obviously-correct references that the kernels and their GPU twins are checked
against: loops over frames, bins and cells, written for reading, not for speed."""

from __future__ import annotations

import math

import numpy as np
import scipy.fft

from foakit.kernels.stft import frame_starts, hann


def naive_stft(x, win, hop, n_fft):
    """Obviously-correct reference: frame t covers samples t*hop - win//2 ... (zeros outside)."""
    n = x.shape[-1]
    w = hann(win, dtype=np.float64)
    out = []
    for start in frame_starts(n, win_length=win, hop_length=hop):
        frame = np.zeros(win)
        for i in range(win):
            if 0 <= start + i < n:
                frame[i] = x[start + i]
        out.append(scipy.fft.rfft(frame * w, n=n_fft))
    return np.array(out)


def slow_smooth(a, n):
    """Mean over frames ``[s, s + n)`` along axis 0, ``s = t - n // 2`` moved inside the signal
    (the whole signal when it is shorter than ``n``): the obviously-correct reference."""
    t = a.shape[0]
    out = np.empty(a.shape)
    for i in range(t):
        s = min(max(i - n // 2, 0), max(t - n, 0))
        out[i] = a[s:min(s + n, t)].mean(axis=0)
    return out


def ref_cell(v, n_az, n_el):
    az = math.atan2(v[1], v[0])
    el = math.atan2(v[2], math.hypot(v[0], v[1]))
    ia = int(math.floor((az + math.pi) / (2 * math.pi) * n_az)) % n_az
    ie = min(max(int(math.floor((el + math.pi / 2) / math.pi * n_el)), 0), n_el - 1)
    return ia, ie


def ref_histogram(intensity, energy, psi, frame_window, lo, hi, psi_max, n_win, n_az, n_el):
    hist = np.zeros((n_win, n_az, n_el))
    vsum = np.zeros((n_win, n_az, n_el, 3))
    frame_vec = np.zeros((energy.shape[0], 4))
    for t in range(energy.shape[0]):
        for f in range(lo, hi):
            v = intensity[:, t, f].astype(float)
            norm = math.sqrt(float(v @ v))
            if psi[t, f] > psi_max or norm == 0:
                continue
            u = v / norm
            wgt = float(energy[t, f])
            frame_vec[t] += [*(wgt * u), wgt]
            if frame_window[t] >= 0:
                ia, ie = ref_cell(u, n_az, n_el)
                hist[frame_window[t], ia, ie] += wgt
                vsum[frame_window[t], ia, ie] += wgt * u
    return hist, vsum, frame_vec


def ref_peaks(h, vs, centers, rel, cos_sep, cos_ref, max_peaks):
    n_az, n_el = h.shape
    k1 = {-1: 1.0, 0: 2.0, 1: 1.0}
    sm = np.zeros((n_az, n_el))
    for a in range(n_az):
        for e in range(n_el):
            sm[a, e] = sum(k1[da] * k1[de] * h[(a + da) % n_az, e + de]
                           for da in (-1, 0, 1) for de in (-1, 0, 1) if 0 <= e + de < n_el)
    out = np.zeros((max_peaks, 4))
    top = sm.max()
    if top <= 0:
        return out
    cands = []
    for a in range(n_az):
        for e in range(n_el):
            v = sm[a, e]
            nbrs = [((a + da) % n_az, e + de) for da in (-1, 0, 1) for de in (-1, 0, 1)
                    if (da or de) and 0 <= e + de < n_el]
            if v >= rel * top and all(
                    sm[x] < v or (sm[x] == v and x[0] * n_el + x[1] > a * n_el + e)
                    for x in nbrs):
                cands.append((-v, a * n_el + e, a, e))
    taken = []
    for _, _, a, e in sorted(cands):
        if len(taken) == max_peaks:
            break
        c = centers[a, e]
        if any(c @ p[:3] > cos_sep for p in taken):
            continue
        s = np.zeros(4)
        for a2 in range(n_az):
            for e2 in range(n_el):
                if h[a2, e2] > 0 and c @ centers[a2, e2] >= cos_ref:
                    s += [*vs[a2, e2], h[a2, e2]]
        n = np.linalg.norm(s[:3])
        if n > 0:
            taken.append(np.array([*(s[:3] / n), s[3]]).astype(np.float32))
    out[:len(taken)] = taken
    return out


def ref_runs(mask):
    """``[(start, stop), ...]`` of true runs."""
    runs, t = [], 0
    while t < len(mask):
        if mask[t]:
            s = t
            while t < len(mask) and mask[t]:
                t += 1
            runs.append((s, t))
        else:
            t += 1
    return runs


def ref_hysteresis(level, on, off, n):
    out = np.zeros(level.shape[0], np.uint8)
    for s, e in ref_runs(level[:n] > off):
        if np.any(level[s:e] >= on):
            out[s:e] = 1
    return out


def ref_clean(active, n, max_gap, min_len):
    a = active.copy()
    runs = ref_runs(a[:n].astype(bool))
    for (_, e1), (s2, _) in zip(runs, runs[1:], strict=False):
        if s2 - e1 <= max_gap:
            a[e1:s2] = 1
    for s, e in ref_runs(a[:n].astype(bool)):
        if e - s < min_len:
            a[s:e] = 0
    return a


def ref_cones(intensity, energy, votes, psi, lo, hi, psi_max, dirs, cos_cone, rise_ratio=0.0,
              n_prev=2, clip_frames=None):
    clip_frames = clip_frames or dirs.shape[1]
    out = np.zeros(dirs.shape[:2] + (10,))
    for k in range(dirs.shape[0]):
        for t in range(dirs.shape[1]):
            d = dirs[k, t].astype(float)
            if not d.any():
                continue
            for f in range(lo, hi):
                v = intensity[:, t, f].astype(float)
                norm = math.sqrt(float(v @ v))
                if psi[t, f] > psi_max or norm == 0 or (v / norm) @ d < cos_cone:
                    continue
                e = energy[t, f]
                onset = votes[t, f] >= e
                first = t - t % clip_frames  # the clip's first frame
                prev = 0.0  # newest first, as the kernels add them
                for p in range(t - 1, max(first, t - n_prev) - 1, -1):
                    prev += float(energy[p, f])
                rises = rise_ratio > 0 and e >= rise_ratio * (prev / n_prev)
                out[k, t] += [*(e * v / norm), e, e if onset else 0.0,
                              *((v / norm) if onset else np.zeros(3)), float(onset),
                              e if rises else 0.0]
    return out


def naive_exact_mentions(text, vocab):
    """Vocabulary terms spelled exactly in ``text`` (lower case, whole words), in text order;
    a character belongs to the first term of ``vocab`` that covers it."""
    import re

    low = " " + re.sub(r"[^a-z0-9' -]", " ", text.lower()) + " "
    taken = [False] * len(low)
    found = []
    for v in vocab:
        for m in re.finditer(rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])", low):
            if not any(taken[m.start():m.end()]):
                taken[m.start():m.end()] = [True] * (m.end() - m.start())
                found.append((m.start(), v))
    return [v for _, v in sorted(found)]
