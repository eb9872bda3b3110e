"""MOS listening tests (KOMOS): a test is a queues.WorkPool with K = 5; each clip is one WorkItem.

Who rated what lives in `Rating` (unique per clip and listener, score 1..5 checked by the database); the
assignment engine guarantees the five distinct listeners. Clip metadata (text, speaker, source type, ...)
is for analysis only and never reaches a listener."""


from django.conf import settings
from django.db import models


class TestStatus(models.TextChoices):
    IMPORTING = "importing", "Import incomplete"
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class Audience(models.TextChoices):
    EVERYONE = "everyone", "everyone with the listener role"
    NAMED = "named", "named listeners"


class ListeningTestQuerySet(models.QuerySet):
    def open_to(self, listener):
        """Published tests this listener may rate: open to every listener, or naming them."""
        return self.filter(status=TestStatus.PUBLISHED).filter(
            models.Q(audience=Audience.EVERYONE) | models.Q(listeners=listener)
        ).distinct()


class ListeningTest(models.Model):
    """A test starts as a draft that no listener sees; an admin publishes it to every listener or to the
    listeners they name. An import job stores its clips in batches under an "importing" test first: no
    listener sees it and it cannot be published until the last clip is in (then it becomes a draft), and
    the admin sees it as an unfinished import to resume or discard."""

    name = models.CharField(max_length=200, unique=True)
    status = models.CharField(max_length=20, choices=TestStatus.choices, default=TestStatus.DRAFT)
    audience = models.CharField(max_length=20, choices=Audience.choices, default=Audience.EVERYONE)
    listeners = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="assigned_listening_tests")
    published_at = models.DateTimeField(null=True, blank=True)
    pool = models.OneToOneField("queues.WorkPool", on_delete=models.PROTECT, related_name="listening_test")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # The last split made for this test (ratios and seed), so the page can say how it was drawn.
    split_params = models.JSONField(default=dict, blank=True)
    # The job that imports (imported) it, and how many clips its manifest holds: while the status is
    # "importing", fewer are stored, and running the job again stores the rest.
    import_job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="listening_test"
    )
    clips_expected = models.PositiveIntegerField(default=0)

    objects = ListeningTestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_published(self) -> bool:
        return self.status == TestStatus.PUBLISHED

    @property
    def is_importing(self) -> bool:
        return self.status == TestStatus.IMPORTING

    def is_open_to(self, listener) -> bool:
        if not self.is_published:
            return False
        return self.audience == Audience.EVERYONE or self.listeners.filter(pk=listener.pk).exists()


class SourceType(models.TextChoices):
    REAL = "real", "real recording"
    TTS = "tts", "TTS"
    DEGRADED = "degraded", "degraded"


class Style(models.TextChoices):
    READ = "read", "read"
    SPONTANEOUS = "spontaneous", "spontaneous"


class Split(models.TextChoices):
    NONE = "", "not split"
    TRAIN = "train", "train"
    VALIDATION = "validation", "validation"
    TEST = "test", "test"


class ClipQuerySet(models.QuerySet):
    def regular(self):
        return self.filter(gold_min__isnull=True)

    def gold(self):
        return self.filter(gold_min__isnull=False)


class Clip(models.Model):
    test = models.ForeignKey(ListeningTest, on_delete=models.CASCADE, related_name="clips")
    work_item = models.OneToOneField("queues.WorkItem", on_delete=models.PROTECT, related_name="clip")
    clip_id = models.CharField(max_length=200, help_text="the manifest's id; never shown to listeners")
    asset = models.ForeignKey("audio.AudioAsset", on_delete=models.PROTECT, related_name="listening_clips")
    audio_name = models.CharField(max_length=500, help_text="the audio path as the manifest gave it")
    text = models.TextField()
    speaker = models.CharField(max_length=200)
    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    style = models.CharField(max_length=20, choices=Style.choices)
    category = models.CharField(max_length=100)
    system = models.CharField(max_length=200, blank=True)
    # Gold clips (quality control): the accepted score range. Null for regular clips.
    gold_min = models.PositiveSmallIntegerField(null=True, blank=True)
    gold_max = models.PositiveSmallIntegerField(null=True, blank=True)
    split = models.CharField(max_length=12, choices=Split.choices, blank=True, default="")
    speaker_disjoint = models.BooleanField(default=False)
    text_disjoint = models.BooleanField(default=False)

    objects = ClipQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["test", "clip_id"], name="listening_clip_id_unique_per_test"),
            models.CheckConstraint(
                condition=models.Q(gold_min__isnull=True, gold_max__isnull=True)
                | models.Q(gold_min__gte=1, gold_max__lte=5, gold_min__lte=models.F("gold_max")),
                name="listening_clip_gold_range_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.clip_id

    @property
    def is_gold(self) -> bool:
        return self.gold_min is not None


class Consent(models.Model):
    """The listener read the instructions and agreed, once per test."""

    test = models.ForeignKey(ListeningTest, on_delete=models.CASCADE, related_name="consents")
    listener = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agreed_at = models.DateTimeField(auto_now_add=True)
    # The version of the test's instructions agreed to (null for consents from before instructions were versioned).
    instructions = models.ForeignKey("instructions.InstructionVersion", null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="listening_consents")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["test", "listener"], name="listening_consent_once")]

    def __str__(self) -> str:
        return f"{self.listener_id} agreed to {self.test_id}"


class ClipServing(models.Model):
    """When a clip was first handed to a listener. A playback report earlier than the clip's duration after
    this is refused: the clip cannot have played to its end yet."""

    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="servings")
    listener = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    served_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["clip", "listener"], name="listening_serving_once")]

    def __str__(self) -> str:
        return f"clip {self.clip_id} served to {self.listener_id}"


class Rating(models.Model):
    clip = models.ForeignKey(Clip, on_delete=models.PROTECT, related_name="ratings")
    listener = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="listening_ratings")
    score = models.PositiveSmallIntegerField()
    rated_at = models.DateTimeField()
    # Seconds from the clip being served to this listener to the rating (null for ratings from before).
    listening_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["clip", "listener"], name="listening_one_rating_per_listener"),
            models.CheckConstraint(condition=models.Q(score__gte=1, score__lte=5), name="listening_score_1_to_5"),
        ]

    def __str__(self) -> str:
        return f"clip {self.clip_id}: {self.score}"


class Predictor(models.Model):
    """A named MOS predictor whose per-clip predictions were uploaded for a test."""

    test = models.ForeignKey(ListeningTest, on_delete=models.CASCADE, related_name="predictors")
    name = models.CharField(max_length=100)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["test", "name"], name="listening_predictor_name_unique")]

    def __str__(self) -> str:
        return self.name


class Prediction(models.Model):
    predictor = models.ForeignKey(Predictor, on_delete=models.CASCADE, related_name="predictions")
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="predictions")
    score = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["predictor", "clip"], name="listening_one_prediction_per_clip")]

    def __str__(self) -> str:
        return f"{self.predictor_id}/{self.clip_id}: {self.score}"
