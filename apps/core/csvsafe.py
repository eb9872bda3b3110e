"""The one CSV writer for every export. A cell someone typed (a review comment, a question's option, a clip's
system name) may start like a spreadsheet formula: `=HYPERLINK(...)`, `+cmd`, `@SUM(1)`. Opened in Excel or
LibreOffice such a cell runs. OWASP's CSV-injection advice is followed: a text cell starting with `=`, `+`,
`-`, `@`, a tab or a carriage return gets a leading `'` (quotes inside are doubled by the csv module), so
the spreadsheet shows it as text. Whether a cell is text is decided by its type, not its look: the number
-3 stays -3, the text "-cmd" becomes "'-cmd". Parquet and JSON keep the exact text; only CSV is written here.

    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csvsafe.writer(fh)                         # or csvsafe.DictWriter(fh, fieldnames=...)
        writer.writerows(rows)
    csvsafe.write_frame(frame, path)                        # a pandas DataFrame, for the pandas exports
"""

import csv
from pathlib import Path
from typing import Any

__all__ = ["TRIGGERS", "neutralise", "writer", "DictWriter", "write_frame"]

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """The cell as a spreadsheet reads it as text: text starting with a trigger gets a leading `'`; anything
    that is not text (numbers, booleans, None, dates) is returned as it is."""
    if isinstance(value, str) and value.startswith(TRIGGERS):
        return "'" + value
    return value


class _Writer:
    """csv.writer whose every row is neutralised cell by cell."""

    def __init__(self, fh, **options):
        self._writer = csv.writer(fh, **options)
        self.dialect = self._writer.dialect

    def writerow(self, row):
        return self._writer.writerow([neutralise(cell) for cell in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(fh, **options) -> _Writer:
    """csv.writer(fh, **options) that neutralises formula cells."""
    return _Writer(fh, **options)


class DictWriter(csv.DictWriter):
    """csv.DictWriter that neutralises formula cells (the header is the caller's own column names)."""

    def __init__(self, fh, fieldnames, **options):
        super().__init__(fh, fieldnames, **options)
        self.writer = _Writer(fh, dialect=self.writer.dialect)


def write_frame(frame, path: Path | str, **options) -> None:
    """frame.to_csv(path, index=False) with formula cells neutralised; numeric columns are left alone, and in
    a column of mixed values only the text cells change."""
    # Imported here: pandas takes about half a second to import, and only the writers of frames need it.
    from pandas.api.types import is_object_dtype, is_string_dtype

    safe = frame.copy()
    for column in safe.columns:
        if is_object_dtype(safe[column]) or is_string_dtype(safe[column]):
            safe[column] = safe[column].map(neutralise, na_action="ignore")
    safe.to_csv(path, index=False, **options)
