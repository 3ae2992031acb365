"""Reading and validating audio files.

Every problem with a file raises :class:`~foakit.errors.AudioError` whose message is one line
naming the file and the problem, so a corpus run can record it and go on.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .conventions import check_channel_order, resolve_normalisation, to_internal
from .errors import AudioError

__all__ = ["Clip", "AUDIO_EXTENSIONS", "read_audio", "audio_info", "iter_audio_files"]

#: File extensions a corpus walk picks up (soundfile reads them all).
AUDIO_EXTENSIONS = (".wav", ".flac")

# 16-bit PCM WAV is read as int16 and scaled here: libsndfile's int -> float conversion took
# 1.3 ms of a 10 s 4-channel clip, the int16 read 0.1 ms.  The result is the same float32
# (s / 32768 is exact in float32).  FLAC and 24-bit decode no faster as integers.
_INT16_CONTAINERS = ("WAV", "WAVEX", "RF64")


@dataclass
class Clip:
    """One decoded clip.

    Attributes
    ----------
    samples : ndarray [shape=(channels, n), dtype=float32]
        Contiguous rows for 16-bit PCM files, possibly a strided view of the decoded
        interleaved frames for others.
        For 4 channels: ambiX (ACN W, Y, Z, X; SN3D) whatever the file's order and
        normalisation.  For 1 or 2 channels: the file's channels as they are.
    sample_rate : int
    path : str
    channel_order : str
        The order the file was declared to use (converted from).
    normalisation : str
        The normalisation the file was declared to use (converted from): ``sn3d``, ``n3d``
        or ``fuma``.
    """

    samples: np.ndarray
    sample_rate: int
    path: str
    channel_order: str = "ambix"
    normalisation: str = "sn3d"

    @property
    def channels(self) -> int:
        return int(self.samples.shape[0])

    @property
    def n_samples(self) -> int:
        return int(self.samples.shape[1])

    @property
    def duration_s(self) -> float:
        return self.n_samples / float(self.sample_rate)

    @property
    def is_foa(self) -> bool:
        return self.channels == 4


def _wav_data_shortfall(path: str) -> int | None:
    """Bytes missing from a RIFF/WAVE ``data`` chunk (0 when complete, None if unknown).

    libsndfile silently shortens a truncated WAV; comparing the declared ``data`` size with
    the bytes actually present catches it.
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            head = fh.read(12)
            if len(head) < 12 or head[:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
                return None
            if head[:4] == b"RF64":
                return None  # 64-bit sizes live in ds64; trust libsndfile
            pos = 12
            while pos + 8 <= size:
                fh.seek(pos)
                cid, csize = struct.unpack("<4sI", fh.read(8))
                if cid == b"data":
                    if csize in (0, 0xFFFFFFFF):  # streaming writers leave it unset
                        return None
                    return max(0, pos + 8 + csize - size)
                pos += 8 + csize + (csize & 1)
    except OSError:
        return None
    return None


def audio_info(path: str | os.PathLike) -> tuple[int, int, int]:
    """``(sample_rate, channels, frames)`` from the header, or :class:`AudioError`."""
    import soundfile as sf

    p = os.fspath(path)
    try:
        info = sf.info(p)
    except Exception as exc:  # LibsndfileError, RuntimeError, OSError
        raise AudioError(p, f"not readable as audio ({_short(exc)})") from None
    return int(info.samplerate), int(info.channels), int(info.frames)


def read_audio(path: str | os.PathLike, *, channel_order: str = "ambix",
               normalisation: str | None = None) -> Clip:
    """Read and validate one audio file.

    Parameters
    ----------
    path : str or PathLike
        wav or flac (anything libsndfile reads), any sample rate, int16 / int24 / float.
    channel_order : {"ambix", "fuma"}
        Order of 4-channel files; converted to ambiX (ACN/SN3D).  Ignored for 1 or 2 channels.
    normalisation : {"sn3d", "n3d", "fuma"}, optional
        Normalisation of 4-channel files, converted to SN3D here so that energy,
        diffuseness and every threshold see SN3D; None: the order's own (SN3D for ambiX,
        FuMa for FuMa).  Ignored for 1 or 2 channels.

    Returns
    -------
    Clip

    Raises
    ------
    AudioError
        Not audio, empty, truncated or corrupt, zero frames, a channel count other than
        1, 2 or 4, or NaN / Inf samples.
    ParameterError
        ``channel_order`` or ``normalisation`` is not one of those named.
    """
    p = os.fspath(path)
    order = check_channel_order(channel_order)
    norm = resolve_normalisation(order, normalisation)
    if not os.path.isfile(p):
        raise AudioError(p, "no such file")
    if os.path.getsize(p) == 0:
        raise AudioError(p, "empty file (0 bytes)")
    plain = _read_plain_pcm16_wav(p)
    if plain is not None:
        sr, data = plain
        return _pcm16_clip(data, sr, p, order, norm)
    import soundfile as sf  # here: a corpus of plain 16-bit WAV never loads it

    try:
        with sf.SoundFile(p) as fh:
            sr, channels, declared = int(fh.samplerate), int(fh.channels), int(fh.frames)
            if channels not in (1, 2, 4):
                raise AudioError(p, f"{channels} channels; expected 1, 2 or 4 (FOA)")
            if declared <= 0:
                raise AudioError(p, "zero audio frames")
            pcm16 = fh.subtype == "PCM_16" and fh.format in _INT16_CONTAINERS
            data = fh.read(dtype="int16" if pcm16 else "float32", always_2d=True)
    except AudioError:
        raise
    except Exception as exc:
        raise AudioError(p, f"not readable as audio ({_short(exc)})") from None
    if data.shape[0] == 0:
        raise AudioError(p, "zero audio frames")
    if data.shape[0] < declared:
        raise AudioError(p, f"truncated or corrupt: header declares {declared} frames, "
                         f"{data.shape[0]} decoded")
    shortfall = _wav_data_shortfall(p)
    if shortfall:
        raise AudioError(p, f"truncated: the data chunk is {shortfall} bytes short")
    if pcm16:  # integers: always finite
        return _pcm16_clip(data, sr, p, order, norm)
    samples = data.T  # a view: the STFT reads strided rows, no copy needed
    finite = np.isfinite(samples)
    if not finite.all():
        bad = np.argwhere(~finite)[0]
        kind = "NaN" if np.isnan(samples[tuple(bad)]) else "Inf"
        n_bad = int(samples.size - np.count_nonzero(finite))
        raise AudioError(p, f"{n_bad} non-finite samples ({kind} first at channel "
                         f"{bad[0]}, frame {bad[1]})")
    if channels == 4:
        samples = to_internal(samples, order, normalisation=norm)
    return Clip(samples=samples, sample_rate=sr, path=p, channel_order=order,
                normalisation=norm)


def _pcm16_clip(data: np.ndarray, sr: int, p: str, order: str, norm: str) -> Clip:
    """The Clip of int16 frames ``(n, channels)``: float32 ``s / 32768`` (exact), as
    contiguous rows (one Numba pass: converted, scaled and de-interleaved)."""
    from .kernels.stft import pcm16_rows

    data = np.ascontiguousarray(data)
    samples = np.empty((data.shape[1], data.shape[0]), np.float32)
    pcm16_rows(data, samples)
    if samples.shape[0] == 4:
        samples = to_internal(samples, order, normalisation=norm)
    return Clip(samples=samples, sample_rate=sr, path=p, channel_order=order,
                normalisation=norm)


# WAVE_FORMAT_EXTENSIBLE's sub-format GUID for integer PCM
_KSDATAFORMAT_SUBTYPE_PCM = bytes.fromhex("0100000000001000800000aa00389b71")


def _read_plain_pcm16_wav(p: str) -> tuple[int, np.ndarray] | None:
    """``(sample_rate, int16 frames (n, channels))`` of a plain, complete 16-bit PCM
    RIFF/WAVE file of 1, 2 or 4 channels, read without libsndfile; None for anything else
    (libsndfile then reads it, and judges it, as before).

    The samples are the data chunk's bytes, as libsndfile's int16 read of such a file gives
    them; opening a SoundFile costs more than the read (~0.1 ms of a 10 s clip) and the
    truncation check here comes free.
    """
    try:
        with open(p, "rb") as fh:
            head = fh.read(12)
            if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
                return None
            size = os.fstat(fh.fileno()).st_size
            pos = 12
            fmt = None
            while pos + 8 <= size:
                fh.seek(pos)
                cid, csize = struct.unpack("<4sI", fh.read(8))
                if cid == b"fmt " and fmt is None:
                    fmt = fh.read(min(csize, 40))
                    if csize < 16 or len(fmt) < 16:
                        return None
                elif cid == b"data":
                    if fmt is None:
                        return None
                    tag, channels, sr, byte_rate, align, bits = struct.unpack("<HHIIHH", fmt[:16])
                    if tag == 0xFFFE:  # WAVE_FORMAT_EXTENSIBLE: 16 valid bits of integer PCM
                        if (len(fmt) < 40 or struct.unpack("<HH", fmt[16:20]) != (22, 16)
                                or fmt[24:40] != _KSDATAFORMAT_SUBTYPE_PCM):
                            return None
                    elif tag != 1:
                        return None
                    if (channels not in (1, 2, 4) or bits != 16 or align != 2 * channels
                            or not 1000 <= sr <= 1_000_000 or byte_rate != sr * align
                            or csize == 0 or csize % align or pos + 8 + csize > size):
                        return None
                    data = np.fromfile(fh, dtype="<i2", count=csize // 2)
                    if data.size != csize // 2:
                        return None
                    return sr, data.reshape(-1, channels)
                pos += 8 + csize + (csize & 1)
    except (OSError, struct.error, ValueError):
        return None
    return None


def iter_audio_files(root: str | os.PathLike) -> list[str]:
    """Audio files under ``root`` (recursive, following symlinks), as sorted POSIX paths
    relative to ``root``.  Symlink loops are visited once."""
    rootp = Path(root)
    out: list[str] = []
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(rootp, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames.sort()
        for name in filenames:
            if name.lower().endswith(AUDIO_EXTENSIONS) and not name.startswith("."):
                out.append(Path(dirpath, name).relative_to(rootp).as_posix())
    return sorted(out)


def _short(exc: BaseException) -> str:
    msg = " ".join(str(exc).split())
    return msg[:200] if msg else type(exc).__name__
