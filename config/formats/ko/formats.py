"""Sori's Korean date formats, over Django's own (django/conf/locale/ko/formats.py): 2026년 1월 5일 18:00."""

SHORT_DATETIME_FORMAT = "Y년 n월 j일 H:i"
SHORT_DATE_FORMAT = "Y년 n월 j일"
