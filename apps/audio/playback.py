"""The one playback gate and the one record of "played to the end".

"Played to the end" is believed only when the clip has had time to play since its audio was handed to the
person: a script (or a skip to the end) that reports the end at once is refused. Listening counts from when
the clip was leased to the listener (its ClipServing); everything else (manual authoring, blind answers,
reviews) from the first time the audio file was served to the person, which serve_audio records here. Both
use the same rule, with LISTENING_PLAYBACK_TOLERANCE_SECONDS of slack for a player's clock and buffering.

`report_playback` stores what a player reports in AudioPlayback, one row per (audio, person).

The rule comes in two forms that must agree: Python (`had_time_to_play`, `played_through`) for the careful
paths, and SQL (`had_time_to_play_sql`, `played_through_sql`) for the statements that check it inside a
write, such as a listening rating in one statement (apps/listening/sql.py). tests/audio/test_playback_rule.py
runs both on the same cases."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from apps.audio.models import AudioAsset, AudioPlayback, AudioServing
from apps.core.errors import Conflict


def note_served(asset: AudioAsset, user, now: datetime | None = None) -> None:
    """Remember the first time this person was sent this audio (later requests, Range ones too, keep it)."""
    if AudioServing.objects.filter(asset=asset, user=user).exists():
        return
    try:
        with transaction.atomic():
            AudioServing.objects.create(asset=asset, user=user, first_served_at=now or timezone.now())
    except IntegrityError:
        pass  # two requests of one player at once: the other one recorded it


def first_served(asset: AudioAsset, user) -> datetime | None:
    return AudioServing.objects.filter(asset=asset, user=user).values_list("first_served_at", flat=True).first()


# ---- the rule, in Python and in SQL ------------------------------------------------------------------------


def had_time_to_play(*, duration_seconds: float, served_at: datetime | None, now: datetime) -> bool:
    """The clip's length, less the slack, has passed since it was served (never, if it was not served)."""
    slack = settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS
    return served_at is not None and now >= served_at + timedelta(seconds=max(0.0, duration_seconds - slack))


def played_through(*, duration_seconds: float, served_at: datetime | None, now: datetime,
                   last_reported_end: datetime | None) -> bool:
    """had_time_to_play, or an end the person's player reported since the clip was served (that report met
    the gate when it was made)."""
    reported = served_at is not None and last_reported_end is not None and last_reported_end >= served_at
    return reported or had_time_to_play(duration_seconds=duration_seconds, served_at=served_at, now=now)


def had_time_to_play_sql(*, served_at: str, duration_seconds: str) -> str:
    """had_time_to_play as a PostgreSQL condition on the two column expressions given; its values are named
    %(playback_slack)s and %(now)s (see rule_params). A NULL served_at is not true, as None is not."""
    return (f"{served_at} + make_interval(secs => GREATEST(0, {duration_seconds} - %(playback_slack)s))"
            " <= %(now)s")


def played_through_sql(*, asset_id: str, user_id: str, served_at: str, duration_seconds: str) -> str:
    """played_through as a PostgreSQL condition: the reported end is the AudioPlayback row of (asset, user)."""
    return f"""(EXISTS (SELECT 1 FROM {AudioPlayback._meta.db_table} played
                        WHERE played.asset_id = {asset_id} AND played.user_id = {user_id}
                          AND played.last_ended_at >= {served_at})
               OR {had_time_to_play_sql(served_at=served_at, duration_seconds=duration_seconds)})"""


def rule_params(now: datetime) -> dict:
    """The values the SQL forms name."""
    return {"playback_slack": settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS, "now": now}


# ---- the gate and the record ----------------------------------------------------------------------------


def require_time_to_play(*, duration_seconds: float, served_at: datetime | None, now: datetime) -> None:
    """Refuse (409 playback_too_early) a playback end reported before the clip could have played through."""
    if not had_time_to_play(duration_seconds=duration_seconds, served_at=served_at, now=now):
        raise Conflict(
            gettext("The clip is %(seconds).1f s long and has not had time to play to its end; listen to all of it.")
            % {"seconds": duration_seconds},
            code="playback_too_early",
        )


def require_played(*, duration_seconds: float, served_at: datetime | None, now: datetime,
                   last_reported_end: datetime | None) -> None:
    """Refuse (409 playback_too_early) an answer that needs the clip played through (played_through) when it
    was not."""
    if not played_through(duration_seconds=duration_seconds, served_at=served_at, now=now,
                          last_reported_end=last_reported_end):
        require_time_to_play(duration_seconds=duration_seconds, served_at=served_at, now=now)


def require_played_through(asset: AudioAsset, user, now: datetime | None = None) -> None:
    """The gate for audio served through serve_audio: fetched, and long enough ago to have played."""
    require_time_to_play(duration_seconds=asset.duration_seconds, served_at=first_served(asset, user),
                         now=now or timezone.now())


def report_playback(*, asset: AudioAsset, acting_user, now: datetime | None = None,
                    served_at: datetime | None = None) -> AudioPlayback:
    """The person's player says the audio played to its end. Believed (else 409 playback_too_early) only if
    it has had time to play since it was handed over: `served_at`, when the caller knows it (a listening
    test: when the clip was leased), by default the first time serve_audio sent the file to them. Stored
    once per (audio, person); a report again counts one more play and moves its last end."""
    now = now or timezone.now()
    if served_at is None:
        require_played_through(asset, acting_user, now=now)
    else:
        require_time_to_play(duration_seconds=asset.duration_seconds, served_at=served_at, now=now)
    record, created = AudioPlayback.objects.get_or_create(
        asset=asset, user=acting_user, defaults={"first_ended_at": now, "last_ended_at": now})
    if not created:
        AudioPlayback.objects.filter(pk=record.pk).update(plays=F("plays") + 1, last_ended_at=now)
    return record


def has_played(asset_id: int, user) -> bool:
    """The person's player reported this audio's end at least once (and the gate believed it)."""
    return AudioPlayback.objects.filter(asset_id=asset_id, user=user).exists()
