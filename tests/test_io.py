import numpy as np
import pytest
import soundfile as sf

from foakit.conventions import from_internal
from foakit.errors import AudioError, FoakitError
from foakit.io import _read_plain_pcm16_wav, iter_audio_files, read_audio

from .scenes import plane_wave_scene


def write(path, x, sr=16000, subtype="PCM_16"):
    sf.write(path, np.asarray(x).T, sr, subtype=subtype)
    return path


@pytest.mark.parametrize("sr", [16000, 24000, 48000])
@pytest.mark.parametrize("subtype,tol", [("PCM_16", 2e-4), ("PCM_24", 1e-6), ("FLOAT", 0)])
def test_reads_rates_and_sample_formats(tmp_path, sr, subtype, tol):
    x = plane_wave_scene([(30, 10, 0.1, 0.5)], sr=sr, duration=0.6)
    clip = read_audio(write(tmp_path / "a.wav", x, sr, subtype))
    assert clip.sample_rate == sr and clip.channels == 4 and clip.samples.dtype == np.float32
    assert np.abs(clip.samples - x).max() <= tol


@pytest.mark.parametrize("name,subtype", [("a.wav", "PCM_16"), ("a.wav", "PCM_24"),
                                          ("a.flac", "PCM_16"), ("a.wav", "FLOAT")])
def test_samples_equal_libsndfile_float_decoding(tmp_path, name, subtype):
    """16-bit WAV is read as integers and scaled in foakit: the floats must be libsndfile's."""
    rng = np.random.default_rng(4)
    x = np.clip(rng.normal(size=(4, 3000)) * 0.4, -1, 1)
    x[:, :3] = [-1.0, 1.0, 0.99999]  # full scale both ways
    path = write(tmp_path / name, x, subtype=subtype)
    ref = sf.read(path, dtype="float32", always_2d=True)[0].T
    clip = read_audio(path)
    assert clip.samples.dtype == np.float32 and np.array_equal(clip.samples, ref)


def test_flac_and_fuma_are_converted_to_ambix(tmp_path):
    x = plane_wave_scene([(-70, 20, 0.1, 0.5)], duration=0.6)
    fuma = from_internal(x, "fuma")
    write(tmp_path / "f.flac", fuma, subtype="PCM_24")
    clip = read_audio(tmp_path / "f.flac", channel_order="fuma")
    assert np.allclose(clip.samples, x, atol=1e-5)
    assert clip.channel_order == "fuma"


def test_mono_and_stereo_are_kept(tmp_path):
    x = np.random.default_rng(0).normal(size=(2, 800)) * 0.1
    assert read_audio(write(tmp_path / "s.wav", x)).channels == 2
    assert read_audio(write(tmp_path / "m.wav", x[:1])).channels == 1


def bad_files(tmp_path):
    x = plane_wave_scene([(0, 0, 0.0, 0.5)], duration=0.5)
    good = write(tmp_path / "good.wav", x)
    raw = good.read_bytes()
    cases = {}
    (tmp_path / "text.wav").write_text("this is not audio at all " * 20)
    cases["text.wav"] = "not readable as audio"
    (tmp_path / "trunc.wav").write_bytes(raw[: len(raw) // 2])
    cases["trunc.wav"] = "truncated"
    (tmp_path / "header.wav").write_bytes(raw[:40])
    cases["header.wav"] = "not readable as audio"
    (tmp_path / "empty.wav").write_bytes(b"")
    cases["empty.wav"] = "empty file"
    write(tmp_path / "zero.wav", np.zeros((4, 0)))
    cases["zero.wav"] = "zero audio frames"
    write(tmp_path / "three.wav", x[:3])
    cases["three.wav"] = "3 channels; expected 1, 2 or 4"
    y = x.copy()
    y[2, 10] = np.nan
    write(tmp_path / "nan.wav", y, subtype="FLOAT")
    cases["nan.wav"] = "NaN first at channel 2, frame 10"
    y = x.copy()
    y[0, 3] = np.inf
    write(tmp_path / "inf.wav", y, subtype="FLOAT")
    cases["inf.wav"] = "Inf first at channel 0, frame 3"
    return cases


def test_every_bad_file_gets_a_one_line_error_naming_it(tmp_path):
    for name, problem in bad_files(tmp_path).items():
        with pytest.raises(AudioError) as info:
            read_audio(tmp_path / name)
        msg = str(info.value)
        assert name in msg and problem in msg and "\n" not in msg, msg
        assert isinstance(info.value, FoakitError)


def test_missing_file(tmp_path):
    with pytest.raises(AudioError, match="no such file"):
        read_audio(tmp_path / "nope.wav")


def test_silent_clip_is_not_an_error(tmp_path):
    clip = read_audio(write(tmp_path / "s.wav", np.zeros((4, 1600))))
    assert clip.duration_s == pytest.approx(0.1)


def test_walk_recurses_and_follows_symlinks(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    x = np.zeros((1, 100))
    write(tmp_path / "a" / "b" / "deep.wav", x)
    write(tmp_path / "top.flac", x)
    (tmp_path / "notes.txt").write_text("x")
    other = tmp_path.parent / (tmp_path.name + "_other")
    other.mkdir()
    write(other / "linked.wav", x)
    (tmp_path / "link").symlink_to(other, target_is_directory=True)
    (tmp_path / "a" / "loop").symlink_to(tmp_path, target_is_directory=True)
    files = iter_audio_files(tmp_path)
    assert files == ["a/b/deep.wav", "link/linked.wav", "top.flac"]


def test_errors_survive_pickling_across_processes():
    import pickle

    from foakit.errors import AudioError, FormatError

    for err in (AudioError("/data/a.wav", "truncated"), FormatError("qa.jsonl", "bad json", line=3),
                FormatError("x.csv", "no header")):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert back.path == err.path and back.problem == err.problem
    assert pickle.loads(pickle.dumps(FormatError("q", "p", line=7))).line == 7


@pytest.mark.parametrize("channels", [1, 2, 4])
@pytest.mark.parametrize("container", ["WAV", "WAVEX"])
def test_plain_pcm16_wav_read_directly_equals_libsndfile(tmp_path, channels, container):
    """The direct 16-bit WAV reader gives libsndfile's samples, for plain and extensible
    headers and with a chunk after the data; anything else is left to libsndfile."""
    rng = np.random.default_rng(channels)
    x = np.clip(rng.normal(size=(channels, 2001)) * 0.4, -1, 1)
    path = tmp_path / "a.wav"
    sf.write(path, x.T, 24000, subtype="PCM_16", format=container)
    raw = path.read_bytes()
    extra = tmp_path / "b.wav"  # a LIST chunk after the data (RIFF size patched)
    tail = b"LIST" + (4).to_bytes(4, "little") + b"INFO"
    body = raw + tail
    extra.write_bytes(body[:4] + (len(body) - 8).to_bytes(4, "little") + body[8:])
    for p in (path, extra):
        ref = sf.read(p, dtype="float32", always_2d=True)[0].T
        sr, data = _read_plain_pcm16_wav(str(p))
        assert sr == 24000 and np.array_equal(data, sf.read(p, dtype="int16", always_2d=True)[0])
        clip = read_audio(p)
        assert clip.sample_rate == 24000 and np.array_equal(clip.samples, ref)
    write(tmp_path / "c.wav", x, subtype="PCM_24")
    (tmp_path / "d.wav").write_bytes(raw[: len(raw) - 10])  # truncated: libsndfile's path
    assert _read_plain_pcm16_wav(str(tmp_path / "c.wav")) is None
    assert _read_plain_pcm16_wav(str(tmp_path / "d.wav")) is None
