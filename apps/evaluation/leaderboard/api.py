"""The leaderboard API: GET /api/evaluation/leaderboard/ (Tables 1, 5 and 6 and the rank agreements: the typed
board of apps.evaluation.leaderboard.board, which is also its schema and the page's JSON export) and GET
/api/evaluation/compare/?a=<run>&b=<run> (two runs on the same items, a paired bootstrap interval per subset and
over all paired items). Reads only; any signed-in user."""

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can
from apps.core.api import StrictInput, error_responses
from apps.core.errors import NotFound
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.leaderboard.board import Board
from apps.evaluation.models import EvaluationRun
from apps.evaluation.scoring import DEFAULT_PROFILE, PROFILES


# --- serializers -------------------------------------------------------------------------------------------
class ProfileField(serializers.ChoiceField):
    """A reading profile in a query string; `?profile=` is refused (DRF would read a blank one as left out)."""

    def __init__(self, **kwargs):
        super().__init__(choices=PROFILES, required=False, default=DEFAULT_PROFILE, **kwargs)

    def get_value(self, dictionary):
        if dictionary.get(self.field_name, None) == "":
            return ""
        return super().get_value(dictionary)


class LeaderboardInput(StrictInput):
    profile = ProfileField(help_text="sori (the corrected reader, default) or voicebench (VoiceBench's code)")


class CompareInput(StrictInput):
    a = serializers.IntegerField(min_value=1, help_text="run A")
    b = serializers.IntegerField(min_value=1, help_text="run B")
    resamples = serializers.IntegerField(required=False, min_value=100, max_value=100000, default=10000)
    seed = serializers.IntegerField(required=False, min_value=0, default=0)
    profile = ProfileField(help_text="the reading profile both runs are compared under")


class CompareIntervalOut(serializers.Serializer):
    n = serializers.IntegerField(help_text="paired items")
    mean_a = serializers.FloatField()
    mean_b = serializers.FloatField()
    diff = serializers.FloatField(help_text="A minus B, points")
    ci_low = serializers.FloatField(allow_null=True, help_text="null with too few paired items")
    ci_high = serializers.FloatField(allow_null=True, help_text="null with too few paired items")
    p = serializers.FloatField(allow_null=True, help_text="two-sided p of the exact paired sign-flip test; null with too few paired items")
    verdict = serializers.ChoiceField(choices=["clear", "noise", "too_few"], help_text=(
        "clear: the test rejects equal means at 0.05 and the interval excludes 0; noise: it does not; too_few: fewer "
        "paired items than any outcome could tell apart"))
    clear = serializers.BooleanField(help_text="verdict is clear")


class CompareSubsetOut(CompareIntervalOut):
    subset = serializers.CharField()
    method = serializers.CharField(help_text="the subset's reported method (rule or judge)")


class CompareOut(serializers.Serializer):
    profile = serializers.CharField()
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    same_benchmark = serializers.BooleanField()
    only_in_one = serializers.IntegerField(help_text="scored items only one run has (left out)")
    overall = CompareIntervalOut(help_text="all paired items pooled")
    subsets = CompareSubsetOut(many=True)


# --- views -------------------------------------------------------------------------------------------------
class LeaderboardView(APIView):
    permission_classes = [Can("evaluation.view", write="evaluation.manage")]

    @extend_schema(parameters=[LeaderboardInput], responses={200: Board, **error_responses(400, 401, 403)})
    def get(self, request):
        """The leaderboard under one reading profile: each model's newest scored run per benchmark, benchmark
        means, subsets English and Korean with the gap, KMMAU by capability, and the rank agreements."""
        data = LeaderboardInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        return Response(leaderboard.leaderboard(profile=data.validated_data["profile"]).as_json())


class CompareView(APIView):
    permission_classes = [Can("evaluation.view", write="evaluation.manage")]

    @extend_schema(parameters=[CompareInput], responses={200: CompareOut, **error_responses(
        400, 401, 403, 404, 409, s409="The runs share no scored item (`no_common_items`).")})
    def get(self, request):
        """Two runs on the same items: the mean difference of the paired item scores (A minus B, points) with a
        paired bootstrap 95% interval, per subset (its reported method) and over all paired items."""
        data = CompareInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        runs = {}
        for key in ("a", "b"):
            runs[key] = EvaluationRun.objects.filter(pk=fields[key]).first()
            if runs[key] is None:
                raise NotFound(gettext("no run with id %(key)s") % {"key": fields[key]})
        result = leaderboard.compare(runs["a"], runs["b"], resamples=fields["resamples"], seed=fields["seed"],
                                     profile=fields["profile"])
        return Response(CompareOut(result).data)
