"""The evaluation API (paths in urls.py): models under evaluation, runs, importing a run's responses, starting
the collection and the evaluation (jobs: 202 with the job), and reading a run's per-item scores with the judge
calls behind them. Who reads what is apps.evaluation.rules (as on the pages): every signed-in user reads models,
runs and scores; items, responses, judge calls, endpoints and attention reasons are for admins, who also write.
The same services as the pages and commands."""

from collections.abc import Mapping

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can, can
from apps.core.api import StrictInput, error_responses
from apps.core.errors import InvalidInput, NotFound
from apps.core.tabular import INTEGER_RANGE
from apps.evaluation import references, responses, selectors, services
from apps.evaluation.models import EvalItem, EvaluatedModel, EvaluationRun
from apps.evaluation.scoring import PROFILES

_READ_OR_MANAGE = Can("evaluation.view", write="evaluation.manage")  # reads for every signed-in user, writes for admins
_INSPECT = Can("evaluation.inspect", write="evaluation.manage")  # items, responses and judge calls: admins
_MANAGE = Can("evaluation.manage")  # writes only: admins


# --- serializers -------------------------------------------------------------------------------------------
class _InspectOnly:
    """A serializer whose `inspect_only` fields are blank for a reader who may not inspect runs (the rule
    evaluation.inspect): they stay in the answer, as the schema says, with nothing in them. Without a request
    in the context they are blank too (fail closed)."""

    inspect_only: tuple[str, ...] = ()

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if request is None or not can(request.user, "evaluation.inspect"):
            data.update(dict.fromkeys(self.inspect_only, ""))
        return data


class EvalDecoding(StrictInput):
    max_tokens = serializers.IntegerField(required=False, min_value=1, max_value=131072)
    temperature = serializers.FloatField(required=False, min_value=0, max_value=2)
    top_p = serializers.FloatField(required=False, min_value=0, max_value=1)


class EvalModelInput(StrictInput):
    name = serializers.CharField(max_length=100)
    version = serializers.CharField(max_length=100, required=False, allow_blank=True)
    endpoint = serializers.RegexField(services.ENDPOINT_PATTERN, max_length=300, required=False, allow_blank=True,
                                    help_text="base URL of an OpenAI-compatible server, e.g. http://gpu-1:8000/v1; "
                                              "without one the model's responses are imported")
    served_model = serializers.CharField(max_length=200, required=False, allow_blank=True)
    api_key_env = serializers.RegexField(services.KEY_ENV_PATTERN, max_length=100, required=False, allow_blank=True,
                                         write_only=True,
                                         help_text="write-only: the NAME of the environment variable holding the "
                                                   "endpoint's key (SORI_MODEL_KEY_<NAME>); the key itself is never sent to Sori")
    decoding = EvalDecoding(required=False, help_text="default: max_tokens 4096, temperature 0.7, top_p 0.95")
    description = serializers.CharField(required=False, allow_blank=True)


class EvalModelOut(_InspectOnly, serializers.Serializer):
    inspect_only = ("endpoint", "served_model")
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    answer_source = serializers.CharField()
    endpoint = serializers.CharField(help_text="blank unless you may inspect runs (admins)")
    served_model = serializers.CharField(help_text="blank unless you may inspect runs (admins)")
    has_key = serializers.SerializerMethodField(help_text="whether the endpoint's key is set (the key never is shown)")
    decoding = serializers.JSONField()
    description = serializers.CharField()
    is_demo = serializers.BooleanField()
    created_at = serializers.DateTimeField()


    def get_has_key(self, model) -> bool:
        return bool(model.api_key_env)


class EvalRunInput(StrictInput):
    model = serializers.IntegerField(min_value=1, max_value=INTEGER_RANGE[1], help_text="the model under evaluation")
    benchmark = serializers.RegexField(references.PATTERN, help_text=(
        "release:<id> (a built spoken-QA or KMMAU release) or source:<id> (an imported English source benchmark); "
        "by name: release:<name>[@<version>] or source:<name>"))
    decoding = EvalDecoding(required=False, help_text="default: the model's")


class EvalSubsetScoreOut(serializers.Serializer):
    subset = serializers.CharField()
    metric = serializers.CharField()
    method = serializers.CharField(help_text="rule, judge, or combined: (rule + judge) / 2, SD-QA as VoiceBench reports it")
    profile = serializers.CharField(help_text="the reading profile: sori (corrected) or voicebench (VoiceBench's code)")
    version = serializers.CharField(help_text="the reader (and judge) versions behind the score")
    score = serializers.FloatField(help_text="0-100")
    n = serializers.IntegerField()
    unscored = serializers.IntegerField()
    primary = serializers.BooleanField()
    detail = serializers.JSONField()


class EvalRunOut(_InspectOnly, serializers.Serializer):
    inspect_only = ("attention_reason",)
    id = serializers.IntegerField()
    model = EvalModelOut()
    benchmark_name = serializers.CharField()
    family = serializers.CharField()
    language = serializers.CharField()
    release = serializers.IntegerField(source="release_id", allow_null=True)
    source_benchmark = serializers.IntegerField(source="source_benchmark_id", allow_null=True)
    answer_source = serializers.CharField()
    decoding = serializers.JSONField()
    status = serializers.CharField()
    attention_reason = serializers.CharField(help_text="blank unless you may inspect runs (admins)")
    item_count = serializers.IntegerField()
    answered = serializers.IntegerField()
    scored = serializers.IntegerField()
    collect_job = serializers.IntegerField(source="collect_job_id", allow_null=True)
    evaluate_job = serializers.IntegerField(source="evaluate_job_id", allow_null=True)
    judge_model = serializers.CharField()
    judge_sampling = serializers.JSONField(help_text="how the judge was asked: n, temperature, top_p, requests, and "
                                                     "the settings the judge model refused")
    evaluated_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class EvalRunDetailOut(EvalRunOut):
    subset_scores = EvalSubsetScoreOut(many=True, help_text="the current scores, under each reading profile")
    replaced_subset_scores = EvalSubsetScoreOut(many=True, help_text="scores a re-scoring with another version replaced")


class EvalJudgeCallOut(serializers.Serializer):
    sample = serializers.IntegerField()
    value = serializers.CharField(help_text="the score 1-5, or yes/no")
    raw_answer = serializers.CharField()
    prompt_name = serializers.CharField()
    prompt_version = serializers.IntegerField()
    agent_call = serializers.IntegerField(source="agent_call_id", allow_null=True)


class EvalItemScoreOut(serializers.Serializer):
    method = serializers.CharField()
    profile = serializers.CharField(help_text="the reading profile of a rule-based score; blank for the judge")
    current = serializers.BooleanField(help_text="false for a score a newer version replaced (kept beside it)")
    score = serializers.FloatField(allow_null=True, help_text="0..1")
    detail = serializers.JSONField()
    evaluator = serializers.CharField()
    version = serializers.CharField()
    judge_model = serializers.CharField(help_text="provider:model of the judge (judge scores)")
    judge_model_version = serializers.CharField(help_text="the dated model snapshot the provider reported")
    judge_prompt_version = serializers.CharField(help_text="the judge prompt and its version, e.g. judge_open v1")
    judge_calls = EvalJudgeCallOut(many=True, source="judge_calls.all")


class EvalItemOut(serializers.Serializer):
    id = serializers.IntegerField()
    item_id = serializers.CharField()
    subset = serializers.CharField()
    metric = serializers.CharField()
    question = serializers.CharField()
    answer = serializers.CharField()
    aliases = serializers.JSONField()
    response = serializers.CharField(allow_null=True)
    response_meta = serializers.JSONField()
    scores = EvalItemScoreOut(many=True, source="scores.all")


class EvalJobOut(serializers.Serializer):
    job = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    title = serializers.CharField()


class EvalCollectInput(StrictInput):
    """No request names a server path: the audio sent is the release's, or the source benchmark's stored audio."""

    limit = serializers.IntegerField(required=False, min_value=1, help_text="ask for at most this many items")

    def to_internal_value(self, data):
        if isinstance(data, Mapping) and "audio_dir" in data:  # an older client's server folder: refused by name rather than silently ignored
            raise serializers.ValidationError({"audio_dir": [
                "no server folder is read: import the source benchmark's audio into Sori first "
                "(the Source benchmarks page, or python manage.py import_source_audio)"]})
        return super().to_internal_value(data)


class RescoreInput(StrictInput):
    profile = serializers.ChoiceField(choices=PROFILES, help_text="the reading profile to score with")


class EvaluateInput(StrictInput):
    budget_usd = serializers.FloatField(required=False, min_value=0, help_text="the judge's budget cap for this job")


def _run(pk: int) -> EvaluationRun:
    return get_object_or_404(selectors.runs(), pk=pk)


def _run_detail(pk: int, request) -> dict:
    run = _run(pk)
    return {**EvalRunOut(run, context={"request": request}).data,
            "subset_scores": EvalSubsetScoreOut(selectors.subset_scores(run), many=True).data,
            "replaced_subset_scores": EvalSubsetScoreOut(selectors.subset_scores(run, current=False), many=True).data}


def _existing(model, pk, what):
    obj = model.objects.filter(pk=pk).first()
    if obj is None:
        raise NotFound(gettext("no %(what)s with id %(pk)s") % {"what": what, "pk": pk})
    return obj


# --- views -------------------------------------------------------------------------------------------------
class ModelListView(generics.ListAPIView):
    permission_classes = [_READ_OR_MANAGE]
    serializer_class = EvalModelOut

    def get_queryset(self):
        return selectors.models()

    @extend_schema(request=EvalModelInput, responses={201: EvalModelOut, **error_responses(400, 403, 409)})
    def post(self, request):
        """Add a model under evaluation (409 `model_exists` when its name and version exist)."""
        data = EvalModelInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        model = services.create_model(
            name=fields["name"], version=fields.get("version", ""),
            endpoint=fields.get("endpoint", ""),
            served_model=fields.get("served_model", ""), api_key_env=fields.get("api_key_env", ""),
            decoding=fields.get("decoding"),
            description=fields.get("description", ""), acting_user=request.user)
        return Response(EvalModelOut(model, context={"request": request}).data, status=status.HTTP_201_CREATED)


class ModelDetailView(APIView):
    permission_classes = [_READ_OR_MANAGE]

    @extend_schema(responses={200: EvalModelOut, **error_responses(403, 404)})
    def get(self, request, pk):
        return Response(EvalModelOut(get_object_or_404(EvaluatedModel, pk=pk), context={"request": request}).data)


class RunListView(generics.ListAPIView):
    permission_classes = [_READ_OR_MANAGE]
    serializer_class = EvalRunOut

    def get_queryset(self):
        return selectors.runs()

    @extend_schema(request=EvalRunInput, responses={201: EvalRunOut, **error_responses(400, 403, 404, 409)})
    def post(self, request):
        """One model on one benchmark: a release (built or published) or a source benchmark; the run copies the
        benchmark's items. 404 when the model or benchmark does not exist; 409 when the release is not built or
        has no items."""
        data = EvalRunInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        model = _existing(EvaluatedModel, fields["model"], "model")
        release, source = references.find_benchmark(references.parse_benchmark(fields["benchmark"]))
        run = services.create_run(model=model, release=release, source_benchmark=source,
                                  decoding=fields.get("decoding"), acting_user=request.user)
        return Response(EvalRunOut(_run(run.pk), context={"request": request}).data, status=status.HTTP_201_CREATED)


class RunDetailView(APIView):
    permission_classes = [_READ_OR_MANAGE]

    @extend_schema(responses={200: EvalRunDetailOut, **error_responses(403, 404)})
    def get(self, request, pk):
        return Response(_run_detail(pk, request))


class ResponsesView(APIView):
    upload_limit = "responses"  # apps.core.uploads: a model's responses file
    permission_classes = [_MANAGE]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": inline_serializer("ResponsesUpload", {"file": serializers.FileField(
            help_text="CSV, JSONL or Parquet with columns id and response")})},
        responses={200: inline_serializer("ResponsesImported", {"imported": serializers.IntegerField()}),
                   **error_responses(400, 403, 404, 409, s400="The file was refused; `fields` names each bad row.")})
    def post(self, request, pk):
        """Import the run's responses, all or nothing: every unknown, repeated or missing id is named (400
        `file_refused`) and nothing is written. Replaces earlier responses and their scores."""
        upload = request.FILES.get("file")
        if upload is None:
            raise InvalidInput(gettext("attach the responses as `file`"), field="file")
        count = responses.import_responses(run=_run(pk), source=upload.read(), name=upload.name, acting_user=request.user)
        return Response({"imported": count})


class CollectView(APIView):
    permission_classes = [_MANAGE]

    @extend_schema(request=EvalCollectInput, responses={202: EvalJobOut, **error_responses(400, 403, 404, 409, 503)})
    def post(self, request, pk):
        """Start collecting the responses from the model's endpoint (a job; 409 `no_endpoint`, or `run_busy`
        naming the run's unfinished job; 503 `queue_unavailable` when the job queue is down, nothing started).
        Running it again resumes with the items left."""
        data = EvalCollectInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = services.start_collection(run=_run(pk), acting_user=request.user, **data.validated_data)
        return Response(EvalJobOut(job).data, status=status.HTTP_202_ACCEPTED)


class EvaluateView(APIView):
    permission_classes = [_MANAGE]

    @extend_schema(request=EvaluateInput, responses={202: EvalJobOut, **error_responses(400, 403, 404, 409, 503)})
    def post(self, request, pk):
        """Start scoring the run (a job: rules, then the judge, then subset scores; 409 `no_responses`, or
        `run_busy` naming the run's unfinished job; 503 `queue_unavailable` when the job queue is down, nothing
        started). Running it again scores only what is not scored yet."""
        data = EvaluateInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = services.start_evaluation(run=_run(pk), acting_user=request.user, budget_usd=data.validated_data.get("budget_usd"))
        return Response(EvalJobOut(job).data, status=status.HTTP_202_ACCEPTED)


class RescoreView(APIView):
    permission_classes = [_MANAGE]

    @extend_schema(request=RescoreInput, responses={202: EvalJobOut, **error_responses(400, 403, 404, 409)})
    def post(self, request, pk):
        """Score the run's responses again by rule under a reading profile with the readers' current versions (a
        job; the judge is not asked again). Scores of another version stay beside the new ones."""
        data = RescoreInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = services.start_rescoring(run=_run(pk), profile=data.validated_data["profile"], acting_user=request.user)
        return Response(EvalJobOut(job).data, status=status.HTTP_202_ACCEPTED)


class ItemListView(generics.ListAPIView):
    """A run's items with their responses and scores (and each score's judge calls), 50 a page; `?subset=`.
    Admins only (evaluation.inspect)."""

    permission_classes = [_INSPECT]
    serializer_class = EvalItemOut

    def get_queryset(self):
        return selectors.items(_run(self.kwargs["pk"]), subset=self.request.query_params.get("subset", ""))


class ItemDetailView(APIView):
    permission_classes = [_INSPECT]

    @extend_schema(responses={200: EvalItemOut, **error_responses(403, 404)})
    def get(self, request, pk, item_pk):
        run = _run(pk)
        try:
            item = selectors.item(run, item_pk)
        except EvalItem.DoesNotExist:
            raise NotFound(gettext("the run has no item with id %(item_pk)s") % {"item_pk": item_pk}) from None
        return Response(EvalItemOut(item).data)
