"""Versioned dataset releases (issue 12). A release is built once by a job into one archive whose every file
is listed with its sha256 (ReleaseFile) and whose every item keeps its row and provenance (ReleaseItem).
Once published nothing of it changes: the models refuse here, and triggers refuse in the database (migration
0002) whatever code path tries; a correction is a new version."""


from django.conf import settings
from django.db import models
from django.utils.translation import gettext

from apps.core.errors import Conflict


class ReleaseKind(models.TextChoices):
    SPOKEN_QA = "spoken-qa", "Spoken-QA transfer"
    KMMAU = "kmmau", "KMMAU questions"
    HPSU = "hpsu", "HPSU verification"
    MOS = "mos", "MOS ratings"


class ReleaseStatus(models.TextChoices):
    BUILDING = "building", "Building"
    BUILT = "built", "Built (not published)"
    FAILED = "failed", "Build failed"
    PUBLISHED = "published", "Published"


class ImmutableRelease(Conflict):
    """Raised when code tries to change a published release, its files or its items."""


class Release(models.Model):
    name = models.SlugField(max_length=100, help_text="the dataset's name, e.g. kvoicebench")
    version = models.CharField(max_length=40, help_text="semantic (1.2.0) or a whole number (3)")
    kind = models.CharField(max_length=20, choices=ReleaseKind.choices)
    selection = models.JSONField(default=dict, help_text="what it was built from: source object, its id, statuses")
    license = models.CharField(max_length=60, help_text="SPDX identifier, e.g. Apache-2.0, CC-BY-NC-SA-4.0")
    sources = models.JSONField(default=list, help_text='[{"name": "KSS", "license": "CC-BY-NC-SA-4.0"}, ...]')
    description = models.TextField(blank=True)
    status = models.CharField(max_length=20, choices=ReleaseStatus.choices, default=ReleaseStatus.BUILDING, db_index=True)
    # PROTECT: deleting the person or the job would have to rewrite a published row, which the trigger refuses.
    built_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    built_at = models.DateTimeField(null=True, blank=True)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    archive = models.CharField(max_length=300, blank=True, help_text="storage name of the zip")
    archive_sha256 = models.CharField(max_length=64, blank=True)
    archive_bytes = models.PositiveBigIntegerField(default=0)
    item_count = models.PositiveIntegerField(default=0)
    manifest = models.JSONField(default=dict, blank=True, help_text="counts, configs, writer versions, exclusions")
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)


    class Meta:
        ordering = ["name", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="release_version_once"),
            models.CheckConstraint(
                condition=~models.Q(status=ReleaseStatus.PUBLISHED)
                | models.Q(published_at__isnull=False, archive_sha256__regex=r"^[0-9a-f]{64}$"),
                name="release_published_has_archive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"

    def save(self, *args, **kwargs):
        if self._stored_status() == ReleaseStatus.PUBLISHED:
            raise ImmutableRelease(gettext(
                "%(release)s is published and cannot be changed; build a new version instead"
            ) % {"release": self})
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self._stored_status() == ReleaseStatus.PUBLISHED:
            raise ImmutableRelease(gettext("%(release)s is published and cannot be deleted") % {"release": self})
        return super().delete(*args, **kwargs)

    def _stored_status(self) -> str | None:
        if self.pk is None:
            return None
        return Release.objects.filter(pk=self.pk).values_list("status", flat=True).first()

    @property
    def is_published(self) -> bool:
        return self.status == ReleaseStatus.PUBLISHED

    @property
    def folder(self) -> str:
        """The archive's top folder, and the name of the downloaded file without .zip."""
        return f"{self.name}-{self.version}"


class _PartOfRelease(models.Model):
    """A row that belongs to a release: frozen once the release is published."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self._refuse_if_published()
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self._refuse_if_published()
        return super().delete(*args, **kwargs)

    def _refuse_if_published(self) -> None:
        if Release.objects.filter(pk=self.release_id, status=ReleaseStatus.PUBLISHED).exists():
            raise ImmutableRelease(gettext(
                "release %(release_id)s is published; its %(verbose_name)ss cannot change"
            ) % {"release_id": self.release_id, "verbose_name": self._meta.verbose_name})


class ReleaseFile(_PartOfRelease):
    """One file of the archive (path relative to its top folder), as SHA256SUMS lists it."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["release", "path"]
        constraints = [models.UniqueConstraint(fields=["release", "path"], name="release_file_once")]

    def __str__(self) -> str:
        return self.path


class ReleaseItem(_PartOfRelease):
    """One released item: its dataset row (without audio bytes), a hash of that row and of its audio (what a
    diff compares), where it came from, and the provenance behind it. `people` maps each pseudonym in the
    provenance to the user id, so admins can see the person; it never leaves the database."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="items")
    item_id = models.CharField(max_length=300)
    config = models.CharField(max_length=100)
    split = models.CharField(max_length=100)
    row = models.JSONField()
    content_sha256 = models.CharField(max_length=64)
    reason = models.TextField(blank=True, help_text="what the source records about this item's state, e.g. a correction")
    provenance = models.JSONField(default=dict)
    people = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["release", "item_id"]
        constraints = [models.UniqueConstraint(fields=["release", "item_id"], name="release_item_once")]

    def __str__(self) -> str:
        return self.item_id


class HubUpload(models.Model):
    """A published release uploaded to a Hugging Face dataset repository (the release row itself is frozen)."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="hub_uploads")
    repo_id = models.CharField(max_length=200)
    commit_url = models.CharField(max_length=500, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-uploaded_at", "-id"]

    def __str__(self) -> str:
        return f"{self.release} -> {self.repo_id}"
