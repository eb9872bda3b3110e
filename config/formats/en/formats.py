"""Sori's English date formats, over Django's own (django/conf/locale/en/formats.py): a time reads the same
on every page and in every export, 2026-01-05 18:00 (a date alone 2026-01-05)."""

SHORT_DATETIME_FORMAT = "Y-m-d H:i"
SHORT_DATE_FORMAT = "Y-m-d"
