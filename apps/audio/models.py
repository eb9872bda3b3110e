import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.audio.wavcheck import content_folder


def _asset_path(asset: "AudioAsset", filename: str) -> str:
    # Content-addressed and opaque: the stored name reveals nothing about the clip (no transcript, speaker
    # or system in a URL a listener could read).
    ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    return f"{content_folder(asset.sha256)}/{asset.sha256}.{ext}"


class AudioAsset(models.Model):
    """One audio file, stored once however often it is imported (sha256 is unique)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    file = models.FileField(upload_to=_asset_path, max_length=300)
    sha256 = models.CharField(max_length=64, unique=True)
    original_name = models.CharField(max_length=300, blank=True)
    format = models.CharField(max_length=20, help_text="container format as ffprobe names it, e.g. wav, mp3")
    duration_seconds = models.FloatField()
    sample_rate = models.PositiveIntegerField()
    channels = models.PositiveSmallIntegerField()
    size_bytes = models.PositiveBigIntegerField()
    converted_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="conversions",
        help_text="the original, when this asset is a 16 kHz mono conversion of it",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(duration_seconds__gt=0), name="audio_duration_positive"),
        ]

    def __str__(self) -> str:
        return self.original_name or self.sha256[:12]

    def get_absolute_url(self) -> str:
        return reverse("audio:serve", kwargs={"public_id": self.public_id})

    @property
    def content_type(self) -> str:
        return {
            "wav": "audio/wav", "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg",
            "m4a": "audio/mp4", "mp4": "audio/mp4", "webm": "audio/webm", "opus": "audio/ogg",
        }.get(self.format, "application/octet-stream")


class AudioServing(models.Model):
    """When a person was first sent an asset's bytes (apps.audio.playback): a playback end reported sooner
    than the clip's length after it cannot be true."""

    asset = models.ForeignKey(AudioAsset, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    first_served_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["asset", "user"], name="audio_served_once")]

    def __str__(self) -> str:
        return f"{self.asset} to {self.user_id}"


class AudioPlayback(models.Model):
    """A person's player reported that this audio played to its end (apps.audio.playback.report_playback):
    when it first did, the last time, and how often. The one record for every workflow: a listening test's
    rating page, KMMAU authoring, blind answers and reviews read it."""

    asset = models.ForeignKey(AudioAsset, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    first_ended_at = models.DateTimeField()
    # A listening test believes an end reported since the clip was leased to the listener, not one from an
    # earlier test that used the same audio.
    last_ended_at = models.DateTimeField()
    plays = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["asset", "user"], name="audio_played_once")]

    def __str__(self) -> str:
        return f"{self.asset} played to its end by {self.user_id}"
