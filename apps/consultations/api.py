"""API of consultations (contract paths kept as the issue gives them):

GET  /api/consultations/questions/?status=open    the questions waiting for this expert
POST /api/consultations/questions/{id}/answers/   {"option": ID or key} or {"text": "..."}, + comment, confidence
GET  /api/rulebooks/{slug}/versions/{n}/          a version with its rules
"""

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can, can, fetch
from apps.consultations import selectors, services
from apps.consultations.models import DecisionQuestion, QuestionStatus, RulebookVersion
from apps.core import limits
from apps.core.api import StrictInput, error_responses
from apps.core.errors import InvalidInput, NotFound


class OptionOut(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    label = serializers.CharField()
    effect = serializers.CharField()


class QuestionOut(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id", allow_null=True)
    rulebook = serializers.SerializerMethodField()
    origin = serializers.CharField()
    title = serializers.CharField()
    decision_needed = serializers.CharField()
    options = OptionOut(many=True, source="options.all")
    recommendation = serializers.CharField()
    recommendation_why = serializers.CharField()
    rules_touched = serializers.ListField(child=serializers.CharField())
    affected_sample_ids = serializers.SerializerMethodField()
    examples = serializers.SerializerMethodField()
    required_experts = serializers.IntegerField()
    status = serializers.CharField()

    def get_rulebook(self, q) -> str | None:
        return q.round.rulebook.slug if q.round else None

    def get_affected_sample_ids(self, q) -> list[int]:
        return sorted(q.affected_samples.values_list("pk", flat=True))

    def get_examples(self, q) -> list[dict]:
        return [selectors.sample_fields(s) for s in q.example_samples.all()]


class QuestionList(ListAPIView):
    """Questions for the caller. `status=open` (the default for experts): those still waiting for their answer."""

    permission_classes = [Can("consultations.answer")]
    serializer_class = QuestionOut

    @extend_schema(parameters=[OpenApiParameter("status", str, enum=[s.value for s in QuestionStatus])])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        user, wanted = self.request.user, self.request.query_params.get("status", QuestionStatus.OPEN)
        if wanted not in QuestionStatus.values:
            raise InvalidInput(gettext(
                "status must be one of %(values)s"
            ) % {"values": ', '.join(QuestionStatus.values)}, field="status")
        if wanted == QuestionStatus.OPEN:
            qs = selectors.open_questions_for(user)
        elif can(user, "consultations.manage"):
            qs = DecisionQuestion.objects.filter(status=wanted)
        else:
            qs = DecisionQuestion.objects.filter(status=wanted, answers__expert=user, answers__submitted_at__isnull=False)
        return qs.select_related("round__rulebook").prefetch_related("options").order_by("pk")


class OptionRef(serializers.Field):
    """An option named by its id (a number) or its key (text)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | str):
            raise ValidationError("must be an option id (a number) or key (text)")
        return str(data)


class AnswerIn(StrictInput):
    option = OptionRef(required=False, allow_null=True, help_text="option id or key")
    text = serializers.CharField(required=False, allow_blank=True, allow_null=True, default="", max_length=limits.COMMENT)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=limits.COMMENT)
    confidence = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=5)

    def validate(self, data):
        if bool(data.get("option")) == bool((data.get("text") or "").strip()):
            raise ValidationError({"option": ["give either an option or your own text, not both"]})
        return data


class AnswerOut(serializers.Serializer):
    id = serializers.IntegerField()
    question = serializers.IntegerField(source="question_id")
    option = serializers.CharField(source="option.key", allow_null=True, default=None)
    text = serializers.CharField()
    comment = serializers.CharField()
    confidence = serializers.IntegerField(allow_null=True)
    submitted_at = serializers.DateTimeField()
    question_status = serializers.CharField(source="question.status")


def _answer_schema() -> dict:
    """AnswerIn as the schema states it: exactly one of an option (id or key) and your own text."""
    common = {
        "comment": {"type": "string", "maxLength": limits.COMMENT},
        "confidence": {"type": "integer", "minimum": 1, "maximum": 5, "nullable": True},
    }
    blank = {"type": "string", "pattern": r"^\s*$", "maxLength": limits.COMMENT, "nullable": True}
    return {"anyOf": [
        {"type": "object", "required": ["option"], "properties": {
            "option": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]}, "text": blank, **common}},
        {"type": "object", "required": ["text"], "properties": {
            "option": {"type": "string", "maxLength": 0, "nullable": True},
            "text": {"type": "string", "pattern": r"\S", "maxLength": limits.COMMENT}, **common}},
    ]}


class AnswerCreate(APIView):
    permission_classes = [Can("consultations.answer")]

    @extend_schema(request={"application/json": _answer_schema()}, responses={
        201: AnswerOut,
        **error_responses(409, s409="The question is closed, you answered it differently already, or it has no such "
                                    "option (code no_such_option)."),
    })
    def post(self, request, pk: int):
        question = fetch(request, DecisionQuestion, pk, "consultations.view_question")
        data = AnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.submit_answer(question=question, acting_user=request.user, **data.validated_data)
        answer.question.refresh_from_db()
        return Response(AnswerOut(answer).data, status=status.HTTP_201_CREATED)


class RuleOut(serializers.Serializer):
    id = serializers.CharField(source="rule_id")
    category = serializers.CharField()
    statement = serializers.CharField()
    examples = serializers.JSONField()
    scope = serializers.JSONField()
    provenance = serializers.JSONField()


class VersionOut(serializers.Serializer):
    rulebook = serializers.CharField(source="rulebook.slug")
    language = serializers.CharField(source="rulebook.language")
    kind = serializers.CharField(source="rulebook.kind")
    title = serializers.CharField(source="rulebook.title")
    version = serializers.IntegerField(source="number")
    notes = serializers.CharField()
    source = serializers.CharField()
    created_at = serializers.DateTimeField()
    rules = RuleOut(many=True, source="rules.all")


class VersionDetail(APIView):
    permission_classes = [Can("consultations.read_rulebooks")]

    @extend_schema(responses=VersionOut)
    def get(self, request, slug: str, number: int):
        version = RulebookVersion.objects.select_related("rulebook").filter(rulebook__slug=slug, number=number).first()
        if version is None:
            raise NotFound(gettext(
                "rulebook %(slug)r has no version %(number)s"
            ) % {"slug": slug, "number": number})
        return Response(VersionOut(version).data)
