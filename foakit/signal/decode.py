"""Decoding audio from bytes or files into ``[channels, n]`` float32 (soundfile).

wav, flac, ogg and mp3 (libsndfile >= 1.1 decodes MP3: :func:`mp3_support` says whether this
install can), any rate and channel count.  Every problem raises
:class:`~foakit.errors.AudioError` naming the item and the problem in one line, with an
``kind`` attribute among :data:`ERROR_KINDS` so audits can count failures by kind.
"""

from __future__ import annotations

import io
import os
import re
import struct

import numpy as np

from ..errors import AudioError

__all__ = ["ERROR_KINDS", "decode_bytes", "read_any", "mp3_support", "error_kind"]

#: What went wrong, as audits count it.
ERROR_KINDS = ("missing", "empty", "not_audio", "truncated", "no_frames", "non_finite",
               "unsupported")


def _fail(name: str, kind: str, problem: str) -> AudioError:
    err = AudioError(name, problem)
    err.kind = kind  # type: ignore[attr-defined]
    return err


def error_kind(exc: BaseException) -> str:
    """The :data:`ERROR_KINDS` entry of an error from this module ("not_audio" otherwise)."""
    return getattr(exc, "kind", None) or _kind_from_text(str(exc))


def _kind_from_text(text: str) -> str:
    # AudioError is rebuilt from (path, problem) across process boundaries, so the kind is
    # recovered from the problem's wording
    for kind, words in (("missing", "no such file"), ("empty", "empty file"),
                        ("truncated", "truncated"), ("no_frames", "zero audio frames"),
                        ("non_finite", "NaN or Inf"), ("unsupported", "cannot decode MP3")):
        if words in text:
            return kind
    return "not_audio"


def mp3_support() -> dict:
    """Whether this soundfile / libsndfile decodes MP3: ``{"libsndfile": version,
    "mp3": bool, "reason": str | None}``."""
    try:
        import soundfile as sf
    except Exception as exc:  # pragma: no cover - soundfile is a core dependency
        return {"libsndfile": None, "mp3": False, "reason": f"soundfile: {exc}"}
    ver = str(getattr(sf, "__libsndfile_version__", "0"))
    parts = tuple(int(p) for p in ver.split(".")[:2] if p.isdigit())
    has = "MP3" in sf.available_formats()
    ok = parts >= (1, 1) and has
    reason = None if ok else (f"libsndfile {ver} < 1.1 has no MP3 decoder" if parts < (1, 1)
                              else "this libsndfile was built without MP3")
    return {"libsndfile": ver, "mp3": ok, "reason": reason}


def _wav_shortfall(data: bytes) -> int | None:
    """Bytes missing from a RIFF/WAVE ``data`` chunk (0 when complete, None if unknown);
    libsndfile silently shortens a truncated WAV."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(data):
        cid, csize = struct.unpack("<4sI", data[pos:pos + 8])
        if cid == b"data":
            if csize in (0, 0xFFFFFFFF):
                return None
            return max(0, pos + 8 + csize - len(data))
        pos += 8 + csize + (csize & 1)
    return None


def _short(exc: BaseException) -> str:
    text = " ".join(re.sub(r"<_io\.BytesIO object at 0x[0-9a-f]+>", "the data",
                           str(exc)).split())
    return text[:160] if text else type(exc).__name__


def decode_bytes(data: bytes, *, name: str) -> tuple[np.ndarray, int]:
    """Decode an encoded audio file held in memory.

    Parameters
    ----------
    data : bytes
        The file's bytes (wav, flac, ogg, mp3).
    name : str
        What to call it in errors (a path, an id).

    Returns
    -------
    samples : ndarray [shape=(channels, n), dtype=float32]
    sr : int

    Raises
    ------
    AudioError
        Empty, not audio, truncated WAV, zero frames, NaN / Inf samples, or MP3 on a
        libsndfile without MP3 (``err.kind`` says which).
    """
    import soundfile as sf

    if not data:
        raise _fail(name, "empty", "empty file (0 bytes)")
    short = _wav_shortfall(data)
    if short:
        raise _fail(name, "truncated", f"truncated WAV: {short} bytes of its data chunk are "
                    "missing")
    is_mp3 = data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF
                                    and (data[1] & 0xE0) == 0xE0)
    if is_mp3 and not mp3_support()["mp3"]:
        raise _fail(name, "unsupported", f"cannot decode MP3 here ({mp3_support()['reason']})")
    try:
        with sf.SoundFile(io.BytesIO(data)) as fh:
            sr = int(fh.samplerate)
            declared = int(fh.frames)
            x = fh.read(dtype="float32", always_2d=True)
    except Exception as exc:  # LibsndfileError, RuntimeError
        raise _fail(name, "not_audio", f"not readable as audio ({_short(exc)})") from None
    if x.shape[0] == 0:
        raise _fail(name, "no_frames", "zero audio frames")
    # a cut MP3 keeps its header's (Xing) frame count and decodes fewer frames; a few
    # hundred frames of decoder padding are normal
    if declared > 0 and x.shape[0] < declared - 576 - declared // 1000:
        raise _fail(name, "truncated", f"truncated: {x.shape[0]} of the {declared} frames "
                    "its header declares decode")
    if not np.all(np.isfinite(x)):
        raise _fail(name, "non_finite", "NaN or Inf samples")
    return np.ascontiguousarray(x.T), sr


def read_any(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """Read an audio file (wav, flac, ogg, mp3): see :func:`decode_bytes`.

    Raises
    ------
    AudioError
        Also ``missing`` (no such file) and unreadable files.
    """
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise _fail(p, "missing", "no such file")
    try:
        with open(p, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise _fail(p, "not_audio", f"cannot read ({_short(exc)})") from None
    return decode_bytes(data, name=p)
