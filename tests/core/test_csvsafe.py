"""The one CSV writer: a text cell that a spreadsheet would run as a formula is neutralised (OWASP: a leading
'), numbers stay numbers, and the csv module reads back exactly what was written."""

import csv
import io

import pandas as pd

from apps.core import csvsafe

FORMULAS = ["=1+1", "+cmd", "-cmd", "@SUM(1)", "\tx", "\rx", '=HYPERLINK("http://x","y")']


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_it_neutralises_every_formula_trigger_and_leaves_plain_text_alone():
    out = io.StringIO(newline="")
    csvsafe.writer(out).writerows([FORMULAS, ["plain", "a=b", "", "'quoted", "3-1"]])
    formulas, plain = _read(out.getvalue())
    assert formulas == ["'" + cell for cell in FORMULAS]
    assert plain == ["plain", "a=b", "", "'quoted", "3-1"]


def test_numbers_stay_numbers_even_when_negative():
    out = io.StringIO(newline="")
    csvsafe.writer(out).writerow([-3, -0.5, 4, True, None, "-3"])
    assert _read(out.getvalue()) == [["-3", "-0.5", "4", "True", "", "'-3"]]  # the text "-3" is text


def test_the_dict_writer_neutralises_values_but_not_the_header():
    out = io.StringIO(newline="")
    writer = csvsafe.DictWriter(out, fieldnames=["-name", "n"])
    writer.writeheader()
    writer.writerow({"-name": "@SUM(1)", "n": -2})
    assert _read(out.getvalue()) == [["'-name", "n"], ["'@SUM(1)", "-2"]]


def test_a_frame_keeps_its_numeric_columns_and_neutralises_text_cell_by_cell(tmp_path):
    frame = pd.DataFrame({"text": ["=1+1", "ok", None], "score": [-3, 2, 5], "mean": [-1.5, None, 2.0],
                          "mixed": ["-cmd", -4, None]})
    csvsafe.write_frame(frame, tmp_path / "t.csv")
    back = pd.read_csv(tmp_path / "t.csv")
    assert back["text"].tolist()[:2] == ["'=1+1", "ok"] and pd.isna(back["text"][2])
    assert back["score"].tolist() == [-3, 2, 5] and back["score"].dtype.kind == "i"
    assert back["mean"].tolist()[0] == -1.5
    assert back["mixed"].tolist()[:2] == ["'-cmd", "-4"]
    assert frame["text"][0] == "=1+1"  # the caller's frame is not changed
