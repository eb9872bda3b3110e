"""The one playback gate: "played to the end" is believed only when the clip has had time to play since its
audio was handed to the person. A script (or a skip to the end) that reports the end at once is refused.

Listening counts from when the clip was leased to the listener (its ClipServing); everything else (manual
authoring and blind answers) from the first time the audio file was served to the person, which serve_audio
records here. Both use require_time_to_play, with LISTENING_PLAYBACK_TOLERANCE_SECONDS of slack for
a player's clock and buffering."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from apps.audio.models import AudioAsset, AudioServing
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


def require_time_to_play(*, duration_seconds: float, served_at: datetime | None, now: datetime) -> None:
    """Refuse (409 playback_too_early) a playback end reported before the clip could have played through."""
    slack = settings.LISTENING_PLAYBACK_TOLERANCE_SECONDS
    if served_at is None or now < served_at + timedelta(seconds=max(0.0, duration_seconds - slack)):
        raise Conflict(
            gettext("The clip is %(seconds).1f s long and has not had time to play to its end; listen to all of it.")
            % {"seconds": duration_seconds},
            code="playback_too_early",
        )


def require_played_through(asset: AudioAsset, user, now: datetime | None = None) -> None:
    """The gate for audio served through serve_audio: fetched, and long enough ago to have played."""
    require_time_to_play(duration_seconds=asset.duration_seconds, served_at=first_served(asset, user),
                         now=now or timezone.now())
