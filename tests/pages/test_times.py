"""Times are shown as people read them, in the site's time zone and naming it (issue 20: provenance and diff
pages showed raw ISO strings)."""

from datetime import UTC, datetime

from apps.pages.templatetags.sori_format import when


def test_an_iso_time_from_a_provenance_file_reads_in_the_site_time_zone(settings):
    settings.TIME_ZONE = "Asia/Seoul"
    assert when("2026-01-05T09:00:00+00:00") == "2026-01-05 18:00 KST"
    assert when(datetime(2026, 1, 5, 9, 0, tzinfo=UTC)) == "2026-01-05 18:00 KST"


def test_anything_else_is_shown_as_it_is():
    assert when("not a time") == "not a time" and when(None) == ""
