"""Evaluation of SpeechLMs on the benchmarks Sori builds (issue 19, seed 000 section 5).

A model under evaluation (EvaluatedModel) answers a benchmark in a run (EvaluationRun): one model on one
benchmark, which is either a release (a spoken-QA release: Korean once translated; a KMMAU release) or an
imported English source benchmark (apps.transfer SourceBenchmark), so both sides of a language pair are
measured in Sori. A run's items (EvalItem) are copied from the benchmark when the run is made: question,
reference answer, aliases, checker kwargs and audio, so a later correction of the benchmark never changes
what a finished run was scored against. Each item holds the model's response; each of its scores
(ItemScore, one per method: the rule-based evaluator, the LLM judge) keeps what produced it (extracted answer
or matched alias, evaluator and version) and its judge calls (JudgeCall, linking the AgentCall rows).
SubsetScore holds a run's score per subset and method as the evaluation computed it (0-100, with n)."""

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q

from apps.jobs.models import UNFINISHED, Job

# The paper's decoding settings (seed 000, Appendix E): one run, max 4,096 tokens, temperature 0.7, top-p 0.95.
DEFAULT_DECODING = {"max_tokens": 4096, "temperature": 0.7, "top_p": 0.95}


def default_decoding() -> dict:
    return dict(DEFAULT_DECODING)


class AnswerSource(models.TextChoices):
    IMPORTED = "imported", "Imported responses (a file)"
    ENDPOINT = "endpoint", "Collected from an OpenAI-compatible endpoint"
    DEMO = "demo", "Demo answers (scripted, not a real model)"


class EvaluatedModel(models.Model):
    """A SpeechLM under evaluation: its name and version, where its answers come from and how it decodes."""

    name = models.CharField(max_length=100, help_text="e.g. Qwen2.5-Omni")
    version = models.CharField(max_length=100, blank=True, help_text="a checkpoint, date or revision, e.g. 7B")
    answer_source = models.CharField(max_length=20, choices=AnswerSource.choices, default=AnswerSource.IMPORTED)
    endpoint = models.URLField(max_length=300, blank=True,
                               help_text="base URL of an OpenAI-compatible server, e.g. http://gpu-1:8000/v1")
    served_model = models.CharField(max_length=200, blank=True, help_text="the model name the endpoint serves")
    # Write-only: the NAME of an environment variable (SORI_MODEL_KEY_...) holding the endpoint's key, so the
    # key itself is never in the database, a page, the API or a log; only whether one is set is shown.
    api_key_env = models.CharField(max_length=100, blank=True,
                                   help_text="the environment variable holding the endpoint's key, e.g. SORI_MODEL_KEY_QWEN")
    decoding = models.JSONField(default=default_decoding, blank=True,
                                help_text="max_tokens, temperature, top_p (defaults: the paper's)")
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="evaluated_model_once")]

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()

    @property
    def is_demo(self) -> bool:
        return self.answer_source == AnswerSource.DEMO


class Language(models.TextChoices):
    ENGLISH = "en", "English"
    KOREAN = "ko", "Korean"


class RunStatus(models.TextChoices):
    WAITING = "waiting", "Waiting for responses"
    COLLECTING = "collecting", "Collecting responses"
    READY = "ready", "Responses complete (not scored)"
    EVALUATING = "evaluating", "Evaluating"
    EVALUATED = "evaluated", "Evaluated"
    NEEDS_ATTENTION = "needs_attention", "Needs attention"


# Shown while an unfinished job sits in the run's link, never stored: the job decides, so a job that ends
# (succeeds, fails, is cancelled, is deleted) can never leave a run "evaluating". Collection first, as its order.
SHOWN_BY_JOB = {"collect_job": RunStatus.COLLECTING, "evaluate_job": RunStatus.EVALUATING}
SETTLED = [(value, label) for value, label in RunStatus.choices if value not in SHOWN_BY_JOB.values()]


def _busy(field: str) -> Exists:
    return Exists(Job.objects.filter(pk=OuterRef(field), status__in=UNFINISHED))


def showing(status: str) -> Q:
    """The SQL form of EvaluationRun.status, for filters and counts: the runs a page would show as `status`."""
    if status == RunStatus.COLLECTING:
        return Q(_busy("collect_job"))
    if status == RunStatus.EVALUATING:
        return Q(_busy("evaluate_job")) & ~Q(_busy("collect_job"))
    return Q(state=status) & ~Q(_busy("collect_job")) & ~Q(_busy("evaluate_job"))


class EvaluationRunQuerySet(models.QuerySet):
    def showing(self, status: str):
        return self.filter(showing(status))


class BenchmarkKind(models.TextChoices):
    """Which benchmark a run measures, as the leaderboard groups and averages it (seed 000 Tables 1, 5 and 6)."""

    VOICEBENCH = "voicebench", "VoiceBench"
    OPENAUDIOBENCH = "openaudiobench", "OpenAudioBench"
    KMMAU = "kmmau", "KMMAU"


class EvaluationRun(models.Model):
    """One model on one benchmark. `benchmark_name` is the name the leaderboard groups by (e.g. kvoicebench,
    voicebench, kmmau); `family` says which benchmark family it is (spoken-qa or kmmau)."""

    model = models.ForeignKey(EvaluatedModel, on_delete=models.CASCADE, related_name="runs")
    release = models.ForeignKey("releases.Release", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    source_benchmark = models.ForeignKey("sources.SourceBenchmark", null=True, blank=True, on_delete=models.PROTECT,
                                         related_name="+")
    # What create_run knows, stored so no reader has to work it out again: the English source benchmark the
    # items come from (the run's own source benchmark, or the one a release was built from), so an English and
    # a Korean run pair up subset by subset; and the benchmark's kind.
    english_source = models.ForeignKey("sources.SourceBenchmark", null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+", help_text="the English source benchmark of its items; empty for KMMAU")
    kind = models.CharField(max_length=20, choices=BenchmarkKind.choices, blank=True)
    benchmark_name = models.CharField(max_length=120, db_index=True,
                                      help_text="the release's name and version, or the source benchmark's name")
    family = models.CharField(max_length=20, help_text="spoken-qa or kmmau")
    language = models.CharField(max_length=2, choices=Language.choices)
    answer_source = models.CharField(max_length=20, choices=AnswerSource.choices, default=AnswerSource.IMPORTED)
    decoding = models.JSONField(default=default_decoding, blank=True, help_text="the decoding settings used")
    # The settled state, written only by apps.evaluation.status; `status` is what a reader shows.
    state = models.CharField(max_length=20, choices=SETTLED, default=RunStatus.WAITING, db_index=True,
                             db_column="status")
    attention_reason = models.TextField(blank=True)
    item_count = models.PositiveIntegerField(default=0)
    collect_job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    evaluate_job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    judge_model = models.CharField(max_length=250, blank=True, help_text="provider:model of the judge that scored it")
    judge_sampling = models.JSONField(default=dict, blank=True, help_text=(
        "how the judge was asked: temperature, top_p, n, requests per item, and the settings the model refused"))
    evaluated_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EvaluationRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(state__in=[status for status in SHOWN_BY_JOB.values()]),
                                   name="evaluation_run_stores_a_settled_state"),
            models.CheckConstraint(
                condition=(models.Q(release__isnull=False, source_benchmark__isnull=True)
                           | models.Q(release__isnull=True, source_benchmark__isnull=False)),
                name="evaluation_run_one_benchmark",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.benchmark_name}"

    @property
    def status(self) -> str:
        """Collecting or evaluating while the run's job of that kind is unfinished, read from the job (select
        the jobs with the run to read a list without a query per run); else the settled state. `showing` is
        the same rule in SQL."""
        for field, shown in SHOWN_BY_JOB.items():
            if getattr(self, f"{field}_id") is not None and getattr(self, field).status in UNFINISHED:
                return shown
        return self.state

    def get_status_display(self) -> str:
        return RunStatus(self.status).label

    @property
    def request_template(self) -> dict | None:
        """The versioned text request a KMMAU (or MMAU) run's items are collected with, for the run page:
        {"name", "version", "example"}; None for a spoken-QA run (its question is the audio)."""
        # Imported here: collection imports this module.
        from apps.evaluation.collection import describe_request

        return describe_request(self.language) if self.family == "kmmau" else None

    @property
    def judge_refused(self) -> list[str]:
        return list((self.judge_sampling or {}).get("refused") or [])


class Metric(models.TextChoices):
    """How an item is scored (apps.evaluation.scoring.METRICS, a test keeps the two the same)."""

    MCQ = "mcq", "Multiple choice"
    QA = "qa", "Short answer"
    OPEN = "open", "Open-ended (LLM judge)"
    IFEVAL = "ifeval", "Instruction following (IFEval)"
    REFUSAL = "refusal", "Refusal (AdvBench)"
    BBH = "bbh", "BIG-Bench Hard"
    KMMAU = "kmmau", "KMMAU multiple choice"


class EvalItemQuerySet(models.QuerySet):
    """null response = not answered yet; "" is a real (empty) answer, so it counts as answered."""

    def answered(self):
        return self.filter(response__isnull=False)

    def unanswered(self):
        return self.filter(response__isnull=True)


class EvalItem(models.Model):
    """One benchmark item as the run scores it, and the model's response to it.

    `item_id` is the benchmark's id: a release item's id (`<subset>/<source id>`), or for a source benchmark
    `<subset>/<source_id>` too, so the English and Korean runs of one source share ids. `extra` holds what
    a checker needs besides the answer (IFEval's instruction_id_list and kwargs, KMMAU's choices)."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="items")
    item_id = models.CharField(max_length=300)
    subset = models.CharField(max_length=100, db_index=True)
    metric = models.CharField(max_length=20, choices=Metric.choices)
    question = models.TextField(help_text="what the spoken question says")
    answer = models.TextField(blank=True)
    aliases = models.JSONField(default=list, blank=True)
    extra = models.JSONField(default=dict, blank=True)
    audio = models.CharField(max_length=500, blank=True,
                             help_text="the audio's path in the release archive, or the source's audio file name")
    audio_sha256 = models.CharField(max_length=64, blank=True)
    release_item = models.ForeignKey("releases.ReleaseItem", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source_sample = models.ForeignKey("sources.SourceSample", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # null = no response yet; "" = the model answered with nothing (a real, wrong answer)
    response = models.TextField(null=True, blank=True, help_text="the model's answer; null until imported or collected")  # noqa: DJ001
    response_hash = models.CharField(max_length=64, blank=True, help_text="sha256 of the request sent when collected")
    response_meta = models.JSONField(default=dict, blank=True,
                                     help_text="file and line it was imported from, or tokens, latency and attempts")
    responded_at = models.DateTimeField(null=True, blank=True)

    objects = EvalItemQuerySet.as_manager()

    class Meta:
        ordering = ["run", "subset", "item_id"]
        constraints = [models.UniqueConstraint(fields=["run", "item_id"], name="eval_item_once")]
        indexes = [
            models.Index(fields=["run", "subset"], name="eval_item_run_subset"),
            # the collection's cache: an answered request is looked up by its hash
            models.Index(fields=["response_hash"], name="eval_item_response_hash", condition=~models.Q(response_hash="")),
        ]

    def __str__(self) -> str:
        return self.item_id


class ScoreMethod(models.TextChoices):
    RULE = "rule", "Rule-based"
    JUDGE = "judge", "LLM judge"
    # SD-QA as VoiceBench reports it: (rule + judge) / 2 (its maintainers, VoiceBench issues #2 and #11)
    RULE_AND_JUDGE = "combined", "(rule + judge) / 2"


class Profile(models.TextChoices):
    """How a rule-based score read the response (apps.evaluation.scoring.PROFILES)."""

    SORI = "sori", "Sori (corrected, one reader for both languages)"
    VOICEBENCH = "voicebench", "VoiceBench (its code's reading, for published comparisons)"


class ItemScore(models.Model):
    """One item's score by one method (0..1; the open-ended judge's mean of 1-5 scores is stored as mean/5
    so that x100 is the paper's mean x 20). `detail` keeps what produced it: the extracted option or matched
    alias, the judge's sampled scores or votes; `evaluator` and `version` name the code or prompt version.

    A rule-based score names its reading `profile`; a judge score has none (the judge reads the same for both).
    Re-scoring with another reader version keeps the old score beside the new one: only one score per item,
    method and profile is `current`, and the others stay as they were for comparison."""

    item = models.ForeignKey(EvalItem, on_delete=models.CASCADE, related_name="scores")
    method = models.CharField(max_length=10, choices=ScoreMethod.choices)
    profile = models.CharField(max_length=20, choices=Profile.choices, blank=True, default="",
                               help_text="the reading profile of a rule-based score; blank for the judge")
    current = models.BooleanField(default=True, help_text="false for a score an evaluation with a newer version replaced")
    score = models.FloatField(null=True, blank=True, help_text="null when it could not be scored (see detail)")
    detail = models.JSONField(default=dict, blank=True)
    evaluator = models.CharField(max_length=100)
    version = models.CharField(max_length=40)
    # A judge score names its judge: the model as configured, the model the vendor says answered (a dated
    # snapshot where an alias was asked), and the prompt with its version. Blank on rule scores.
    judge_model = models.CharField(max_length=250, blank=True, help_text="provider:model, e.g. openai:gpt-4o-mini")
    judge_model_version = models.CharField(max_length=200, blank=True,
                                           help_text="the model that answered, as the vendor names it")
    judge_prompt_version = models.CharField(max_length=120, blank=True, help_text="e.g. judge_open v1")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "method", "profile", "-current"]
        constraints = [
            models.UniqueConstraint(fields=["item", "method", "profile"], condition=models.Q(current=True),
                                    name="item_score_current_once"),
            models.UniqueConstraint(fields=["item", "method", "profile", "version"], name="item_score_once_per_version"),
            models.CheckConstraint(condition=models.Q(score__isnull=True) | models.Q(score__gte=0, score__lte=1),
                                   name="item_score_in_unit_range"),
        ]

    def __str__(self) -> str:
        return f"{self.item} {self.method}{' ' + self.profile if self.profile else ''}: {self.score}"


class JudgeCall(models.Model):
    """One sample of the LLM judge on one item: the AgentCall behind it, its raw answer and what was read
    from it (a 1-5 score, or yes/no)."""

    score = models.ForeignKey(ItemScore, on_delete=models.CASCADE, related_name="judge_calls")
    sample = models.PositiveSmallIntegerField(help_text="0, 1, 2: the three samples")
    agent_call = models.ForeignKey("agents.AgentCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    prompt_name = models.CharField(max_length=100)
    prompt_version = models.PositiveIntegerField()
    raw_answer = models.TextField(blank=True)
    value = models.CharField(max_length=20, help_text="the score 1-5, or yes/no")

    class Meta:
        ordering = ["score", "sample"]
        constraints = [models.UniqueConstraint(fields=["score", "sample"], name="judge_call_once_per_sample")]

    def __str__(self) -> str:
        return f"{self.score} sample {self.sample}: {self.value}"


class SubsetScore(models.Model):
    """A run's score on one subset by one method under one reading profile, 0-100, over `n` scored items, as
    the evaluation computed it (apps.evaluation.aggregate.subset_score). `primary` marks the one the leaderboard
    reports: the judge for open-ended and short-answer subsets (as VoiceBench and OpenAudioBench report them),
    (rule + judge) / 2 for SD-QA (as VoiceBench reports it), the rule otherwise. `version` names the reader or
    judge versions behind it; a re-scoring with another version keeps this row beside the new one (not current)."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="subset_scores")
    subset = models.CharField(max_length=100)
    metric = models.CharField(max_length=20)
    method = models.CharField(max_length=10, choices=ScoreMethod.choices)
    profile = models.CharField(max_length=20, choices=Profile.choices, default=Profile.SORI)
    version = models.CharField(max_length=200, blank=True, help_text="the reader (and judge) versions of its item scores")
    current = models.BooleanField(default=True)
    score = models.FloatField()
    n = models.PositiveIntegerField()
    unscored = models.PositiveIntegerField(default=0, help_text="items left without a score (see their detail)")
    primary = models.BooleanField(default=True)
    detail = models.JSONField(default=dict, blank=True, help_text="e.g. IFEval's prompt- and instruction-level accuracy")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "profile", "subset", "method"]
        constraints = [
            models.UniqueConstraint(fields=["run", "subset", "method", "profile"], condition=models.Q(current=True),
                                    name="subset_score_current_once"),
            models.UniqueConstraint(fields=["run", "subset", "method", "profile", "version"],
                                    name="subset_score_once_per_version"),
        ]

    def __str__(self) -> str:
        return f"{self.run} {self.subset} {self.method} ({self.profile}): {self.score:.1f} (n={self.n})"
