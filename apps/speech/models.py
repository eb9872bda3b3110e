"""Speech stage of the spoken-QA transfer: reference voices, the speech call log and cache, and synthesis
runs with their per-sample syntheses, attempts and human decisions. Every audio file can be traced to its
text, voice, backend and ASR check."""

from decimal import Decimal

from django.conf import settings
from django.db import models


class Gender(models.TextChoices):
    FEMALE = "female", "Female"
    MALE = "male", "Male"


class ReferenceVoice(models.Model):
    """A Korean reference voice: a clip and its exact transcript (voice-cloning servers condition on both)."""

    name = models.CharField(max_length=100, unique=True)
    gender = models.CharField(max_length=10, choices=Gender.choices)
    clip = models.ForeignKey("audio.AudioAsset", on_delete=models.PROTECT, related_name="+")
    transcript = models.TextField(help_text="exactly what the clip says (sent as ref_text)")
    vendor_voice = models.CharField(
        max_length=100, blank=True,
        help_text="the `voice` sent to an OpenAI-compatible server (an OpenAI preset, a vLLM-Omni speaker); "
                  "blank sends SORI_TTS_VOICE or this voice's name",
    )
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["gender", "name"]
        constraints = [models.CheckConstraint(condition=~models.Q(transcript=""), name="voice_has_transcript")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_gender_display().lower()})"


class CallKind(models.TextChoices):
    TTS = "tts", "Speech synthesis"
    ASR = "asr", "Transcription"


class CallStatus(models.TextChoices):
    OK = "ok", "Answered"
    CACHED = "cached", "From cache (no request)"
    FAILED = "failed", "Failed"


class SpeechCallQuerySet(models.QuerySet):
    def total_cost(self):
        return self.aggregate(total=models.Sum("cost_usd"))["total"] or Decimal("0")


class SpeechCall(models.Model):
    """One TTS or ASR request (or cache hit), logged like an agent call."""

    kind = models.CharField(max_length=5, choices=CallKind.choices, db_index=True)
    backend = models.CharField(max_length=30)
    model = models.CharField(max_length=200, blank=True)
    voice = models.CharField(max_length=100, blank=True)
    input_hash = models.CharField(max_length=64, db_index=True, help_text="sha256 of everything that decides the output")
    input_chars = models.PositiveIntegerField(default=0)
    audio_seconds = models.FloatField(default=0, help_text="synthesized (TTS) or transcribed (ASR) audio")
    http_attempts = models.PositiveSmallIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    priced = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=CallStatus.choices, db_index=True)
    error = models.TextField(blank=True)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="speech_calls")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = SpeechCallQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.backend}:{self.model} ({self.status})"


class SpeechCache(models.Model):
    """A successful answer by input hash: TTS audio (a file in storage) or an ASR transcript. A re-run with
    the same input makes no request."""

    input_hash = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=5, choices=CallKind.choices)
    audio = models.FileField(upload_to="speech/cache/", max_length=300, blank=True)
    audio_format = models.CharField(max_length=10, blank=True)
    transcript = models.TextField(blank=True)
    source_call = models.ForeignKey(SpeechCall, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    hits = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.kind} {self.input_hash[:12]}"


class SynthesisRun(models.Model):
    """One start of the TTS stage over the ready normalized texts of a benchmark (optionally one subset,
    the first N). Its settings and the backends used are pinned here."""

    benchmark = models.ForeignKey("sources.SourceBenchmark", on_delete=models.CASCADE, related_name="synthesis_runs")
    subset = models.CharField(max_length=100, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    cer_threshold = models.FloatField(default=0.1)
    max_attempts = models.PositiveSmallIntegerField(default=3)
    pause_ms = models.PositiveIntegerField(default=300)
    sample_rate = models.PositiveIntegerField(default=24000)
    seed = models.PositiveIntegerField(default=0)
    tts_backend = models.CharField(max_length=30)
    tts_model = models.CharField(max_length=200, blank=True)
    asr_backend = models.CharField(max_length=30)
    asr_model = models.CharField(max_length=200, blank=True)
    job = models.OneToOneField("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="synthesis_run")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(cer_threshold__gte=0), name="run_threshold_not_negative"),
            models.CheckConstraint(condition=models.Q(max_attempts__gte=1), name="run_at_least_one_attempt"),
            models.CheckConstraint(condition=models.Q(sample_rate__in=[16000, 24000]), name="run_sample_rate_16k_or_24k"),
        ]

    def __str__(self) -> str:
        return f"Synthesis of {self.benchmark}{'/' + self.subset if self.subset else ''} #{self.pk}"


class SampleStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    PASSED = "passed", "Passed the ASR check"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"
    ACCEPTED = "accepted", "Accepted by ear"


FINAL_STATUSES = (SampleStatus.PASSED, SampleStatus.ACCEPTED)


class SampleSynthesis(models.Model):
    """One sample of a run: its text, its voice (assigned balanced and seeded), its attempts and outcome."""

    run = models.ForeignKey(SynthesisRun, on_delete=models.CASCADE, related_name="samples")
    sample = models.ForeignKey("sources.SourceSample", on_delete=models.CASCADE, related_name="syntheses")
    normalized = models.ForeignKey("transfer.NormalizedText", on_delete=models.PROTECT, related_name="syntheses")
    text = models.TextField(help_text="what is synthesized: the normalized text, or an admin's edit of it")
    gender = models.CharField(max_length=10, choices=Gender.choices)
    voice = models.ForeignKey(ReferenceVoice, on_delete=models.PROTECT, related_name="+", help_text="the first attempt's voice")
    voice_slot = models.PositiveIntegerField(default=0, help_text="position of the voice among its gender's voices")
    status = models.CharField(max_length=20, choices=SampleStatus.choices, default=SampleStatus.PENDING, db_index=True)
    attention_reason = models.TextField(blank=True)
    first_attempt_number = models.PositiveSmallIntegerField(default=1, help_text="an edit-and-rerun starts a new series")
    final_attempt = models.ForeignKey("SynthesisAttempt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "sample_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "sample"], name="synthesis_one_per_sample_per_run"),
            models.CheckConstraint(
                condition=~models.Q(status__in=["passed", "accepted"]) | models.Q(final_attempt__isnull=False),
                name="synthesis_final_has_attempt",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sample} in run {self.run_id}: {self.status}"


class SynthesisAttempt(models.Model):
    """One synthesis of a sample and its ASR check. The idempotency key (sample, rulebook version, voice,
    text hash, seed) makes a redelivered task overwrite its attempt instead of adding one."""

    synthesis = models.ForeignKey(SampleSynthesis, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    idempotency_key = models.CharField(max_length=64, unique=True)
    voice = models.ForeignKey(ReferenceVoice, on_delete=models.PROTECT, related_name="attempts")
    seed = models.PositiveIntegerField()
    text = models.TextField()
    text_sha256 = models.CharField(max_length=64)
    tts_backend = models.CharField(max_length=30)
    tts_model = models.CharField(max_length=200, blank=True)
    asr_model = models.CharField(max_length=200, blank=True)
    asset = models.ForeignKey("audio.AudioAsset", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    sentences = models.JSONField(default=list, blank=True, help_text="the pieces synthesized, in order")
    transcript = models.TextField(blank=True, help_text="what the ASR heard")
    compared_reference = models.TextField(blank=True, help_text="the text side as compared (after preparation)")
    compared_hypothesis = models.TextField(blank=True, help_text="the ASR side as compared")
    context_readings = models.JSONField(
        default=list, blank=True,
        help_text='context-dependent spans of the transcript compared as the text\'s reading: [{"span": "3번", "reading": "세 번"}]')
    cer = models.FloatField(null=True, blank=True)
    wer = models.FloatField(null=True, blank=True)
    passed = models.BooleanField(null=True, help_text="null until checked")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["synthesis", "number"]
        constraints = [
            models.UniqueConstraint(fields=["synthesis", "number"], name="attempt_number_unique"),
            models.CheckConstraint(condition=models.Q(cer__isnull=True) | models.Q(cer__gte=0), name="attempt_cer_not_negative"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.synthesis}"

    @property
    def checked(self) -> bool:
        return self.passed is not None


class DecisionAction(models.TextChoices):
    ACCEPT = "accept", "Accepted an attempt by ear"
    EDIT_RERUN = "edit_rerun", "Edited the text and re-ran"


class SynthesisDecision(models.Model):
    """An admin's decision on a sample (append-only)."""

    synthesis = models.ForeignKey(SampleSynthesis, on_delete=models.CASCADE, related_name="decisions")
    action = models.CharField(max_length=20, choices=DecisionAction.choices)
    attempt = models.ForeignKey(SynthesisAttempt, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    old_text = models.TextField(blank=True)
    new_text = models.TextField(blank=True)
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.decided_by}: {self.get_action_display()}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ValueError("decisions are never changed; record a new one")
        super().save(*args, **kwargs)
