"""Participant instructions of a listening test, a verification project or a KMMAU set, written by the admin in
Korean and optionally English, kept as versions: once anyone has answered or agreed under a version, a change
makes a new one and the old stays, so an export can say which text each rating or review was given under."""

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone


class InstructionVersion(models.Model):
    owner_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    owner_id = models.PositiveBigIntegerField()
    owner = GenericForeignKey("owner_type", "owner_id")
    number = models.PositiveIntegerField()
    text_ko = models.TextField()
    text_en = models.TextField(blank=True)
    # When this version took effect: ratings and reviews from then on were given under it (an edit in place,
    # made before anyone answered, keeps it).
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["owner_type", "owner_id", "number"]
        constraints = [models.UniqueConstraint(fields=["owner_type", "owner_id", "number"], name="instructions_version_once")]

    def __str__(self) -> str:
        return f"instructions v{self.number} of {self.owner_type_id}:{self.owner_id}"
