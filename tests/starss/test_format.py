"""STARSS / DCASE label CSVs: reading, writing, tracks, and clear errors naming file:line."""

import numpy as np
import pytest

from foakit.bench.starss.format import (
    LabelRow,
    SourceTrack,
    metadata_files,
    read_label_csv,
    rows_to_tracks,
    tracks_to_rows,
    write_label_csv,
)
from foakit.errors import FoakitError, FormatError


def write(path, text):
    path.write_text(text)
    return path


def test_six_columns_distance_and_unknown(tmp_path):
    p = write(tmp_path / "a.csv", "0,3,0,-30,10,150\n0,5,0,90,-20,-1\n\n1,3,0,-31,10,151\n")
    rows = read_label_csv(p)
    assert [(r.frame, r.class_idx, r.source) for r in rows] == [(0, 3, 0), (0, 5, 0), (1, 3, 0)]
    assert rows[0].azimuth_deg == -30 and rows[0].elevation_deg == 10
    assert rows[0].distance_cm == 150 and rows[1].distance_cm is None
    assert [r.line for r in rows] == [1, 2, 4]


def test_five_columns_and_header_tolerated(tmp_path):
    p = write(tmp_path / "b.csv", "frame,class,source,azimuth,elevation\n3,1,0,45,0\n")
    rows = read_label_csv(p)
    assert len(rows) == 1 and rows[0].distance_cm is None and rows[0].line == 2


@pytest.mark.parametrize("text, where, words", [
    ("0,1,0,30\n", ":1:", "4 columns"),
    ("0,1,0,30,0\n1,1,0,30,0,100\n", ":2:", "earlier rows have 5"),
    ("0,1,0,thirty,0\n", ":1:", "azimuth 'thirty' is not a number"),
    ("0.5,1,0,30,0\n", ":1:", "frame '0.5' must be an integer"),
    ("0,1,0,200,0\n", ":1:", "azimuth 200 outside"),
    ("0,1,0,20,95\n", ":1:", "elevation 95 outside"),
    ("-1,1,0,20,5\n", ":1:", ">= 0"),
    ("0,1,0,20,5,-5\n", ":1:", "distance_cm"),
    ("0,1,0,20,5\n2,2,0,1,1\n0,1,0,21,5\n", ":3:", "repeats line 1"),
    ("0,1,0,nan,5\n", ":1:", "not finite"),
])
def test_bad_rows_name_file_and_line(tmp_path, text, where, words):
    p = write(tmp_path / "bad.csv", text)
    with pytest.raises(FormatError) as err:
        read_label_csv(p)
    msg = str(err.value)
    assert str(p) + where in msg and words in msg
    assert isinstance(err.value, FoakitError)


def test_unreadable_files(tmp_path):
    with pytest.raises(FormatError, match="cannot read"):
        read_label_csv(tmp_path / "missing.csv")
    p = tmp_path / "latin.csv"
    p.write_bytes(b"0,1,0,\xe930,0\n")
    with pytest.raises(FormatError, match="not UTF-8"):
        read_label_csv(p)


def test_write_read_round_trip_and_sorting(tmp_path):
    rows = [LabelRow(2, 1, 0, 10.4, -5.6, None), LabelRow(0, 3, 1, -179.6, 0.0, 120.0),
            LabelRow(0, 1, 0, 12.0, -5.0, None)]
    p = write_label_csv(tmp_path / "out" / "x.csv", rows)
    lines = p.read_text().splitlines()
    assert lines == ["0,1,0,12,-5,-1", "0,3,1,-180,0,120", "2,1,0,10,-6,-1"]
    back = read_label_csv(p)
    assert [(r.frame, r.class_idx, r.source) for r in back] == [(0, 1, 0), (0, 3, 1), (2, 1, 0)]
    p5 = write_label_csv(tmp_path / "y.csv", rows, distance=False, integer_angles=False)
    assert p5.read_text().splitlines()[0] == "0,1,0,12,-5"
    assert read_label_csv(p5)[2].azimuth_deg == pytest.approx(10.4)


def test_tracks_group_sort_and_invert(tmp_path):
    p = write(tmp_path / "t.csv", "5,1,0,10,0\n3,1,0,12,0\n4,1,0,11,0\n4,2,0,-90,20\n"
              "9,1,0,13,0\n")
    tracks = rows_to_tracks(read_label_csv(p))
    assert set(tracks) == {(1, 0), (2, 0)}
    tr = tracks[(1, 0)]
    assert tr.frames.tolist() == [3, 4, 5, 9]
    assert tr.azimuth_deg.tolist() == [12, 11, 10, 13]
    assert tr.spans() == [(3, 5), (9, 9)]
    assert tr.lines.tolist() == [2, 3, 1, 5]
    rows = tracks_to_rows(tracks)
    assert [(r.frame, r.class_idx) for r in rows] == [(3, 1), (4, 1), (4, 2), (5, 1), (9, 1)]
    assert SourceTrack(0, 0, np.zeros(0, int), np.zeros(0), np.zeros(0)).spans() == []


def test_metadata_files_pairs_by_stem(tmp_path):
    write(tmp_path / "fold1_a.csv", "0,1,0,1,1\n")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "fold2_b.csv", "0,1,0,1,1\n")
    assert sorted(metadata_files(tmp_path)) == ["fold1_a", "fold2_b"]
    write(tmp_path / "sub" / "fold1_a.csv", "0,1,0,1,1\n")
    with pytest.raises(FormatError, match="repeats"):
        metadata_files(tmp_path)
    with pytest.raises(FormatError, match="no such metadata folder"):
        metadata_files(tmp_path / "nope")


def test_label_frames_counts_whole_hops_of_every_wav_under_the_folder(tmp_path):
    import soundfile as sf

    from foakit.bench.starss.inject import label_frames
    from foakit.errors import AudioError, ParameterError

    (tmp_path / "dev-train").mkdir()
    for name, rate, n in (("a.wav", 24000, 240000),  # 10.0 s
                          ("dev-train/b.wav", 16000, 159200),  # 9.95 s
                          ("c.wav", 24000, 2399)):  # just under 0.1 s
        sf.write(tmp_path / name, np.zeros((n, 4), np.float32), rate)
    (tmp_path / "notes.txt").write_text("not audio")
    assert label_frames(tmp_path) == {"a": 100, "b": 99, "c": 0}
    with pytest.raises(ParameterError, match="is not a folder"):
        label_frames(tmp_path / "missing")
    (tmp_path / "d.wav").write_bytes(b"RIFF not a wave file")
    with pytest.raises(AudioError, match=r"d\.wav: cannot read its length"):
        label_frames(tmp_path)
