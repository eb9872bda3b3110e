"""The API for automated clients (issue 4 contract; paths in urls.py):
POST projects/{id}/next/, POST items/{id}/reviews/, GET items/{id}/, GET projects/{id}/summary/.
A review's answer carries `next` (the item `next` would answer, or null), so after the first `next` an
item takes one call."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can, can, fetch
from apps.core.api import StrictInput, error_responses
from apps.verification import selectors, services
from apps.verification.models import Decision, Reason, VerificationItem, VerificationProject


class ItemOptionOut(serializers.Serializer):
    text = serializers.CharField()
    correct = serializers.BooleanField()
    tier = serializers.CharField()
    key = serializers.CharField()


class ReviewOut(serializers.Serializer):
    decision = serializers.CharField()
    reasons = serializers.ListField(child=serializers.CharField())
    comment = serializers.CharField(allow_blank=True)
    seconds_spent = serializers.FloatField()
    changes = serializers.IntegerField()
    updated_at = serializers.CharField()


class OthersReviewOut(ReviewOut):
    annotator = serializers.CharField()


class EventOut(serializers.Serializer):
    kind = serializers.CharField()
    decision = serializers.CharField()
    reasons = serializers.ListField(child=serializers.CharField())
    comment = serializers.CharField(allow_blank=True)
    at = serializers.CharField()


class ItemOut(serializers.Serializer):
    """An item as a reviewer sees it; `reviews` (everyone's) only once it is settled, or for an admin."""

    id = serializers.IntegerField()
    external_id = serializers.CharField()
    project = serializers.IntegerField()
    task = serializers.CharField()
    domain = serializers.CharField()
    format = serializers.CharField()
    format_label = serializers.CharField()
    language = serializers.CharField()
    question = serializers.CharField()
    statement = serializers.CharField(allow_blank=True)
    expected_yes = serializers.BooleanField(allow_null=True)
    options = ItemOptionOut(many=True)
    prompts = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    transcript = serializers.CharField(allow_blank=True)
    audio_url = serializers.CharField()
    visual_url = serializers.CharField(allow_blank=True)
    visual_kind = serializers.CharField(allow_blank=True)
    source = serializers.CharField(allow_blank=True)
    status = serializers.CharField()
    settled = serializers.BooleanField()
    your_review = ReviewOut(allow_null=True)
    your_history = EventOut(many=True)
    reviews = OthersReviewOut(many=True, required=False)


class NextView(APIView):
    permission_classes = [Can("verification.review")]

    @extend_schema(request=None, responses={
        200: ItemOut, 204: OpenApiResponse(description="Nothing left for you in this project."),
    })
    def post(self, request, pk):
        project = get_object_or_404(VerificationProject.objects.select_related("pool"), pk=pk)
        item = services.next_item(project=project, acting_user=request.user)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(ItemOut(selectors.item_for_reviewer(item, request.user, leased=True)).data)


class ReviewIn(StrictInput):
    decision = serializers.ChoiceField(choices=Decision.choices)
    reasons = serializers.ListField(child=serializers.ChoiceField(choices=Reason.choices), required=False, default=list)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    seconds_spent = serializers.FloatField(required=False, min_value=0, allow_null=True, default=None)


def _review_schema() -> dict:
    """The review rules as the schema states them: an approval takes no reasons; a rejection takes at
    least one; reason "other" needs a comment (a non-blank one)."""
    reasons = [r for r in Reason.values if r != Reason.OTHER]
    common = {
        "comment": {"type": "string", "maxLength": 5000},
        "seconds_spent": {"type": "number", "minimum": 0, "nullable": True},
    }
    return {"anyOf": [
        {"type": "object", "required": ["decision"], "properties": {
            "decision": {"type": "string", "enum": [Decision.APPROVE]},
            "reasons": {"type": "array", "maxItems": 0, "items": {"type": "string", "enum": list(Reason.values)}},
            **common}},
        {"type": "object", "required": ["decision", "reasons"], "properties": {
            "decision": {"type": "string", "enum": [Decision.REJECT]},
            "reasons": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": reasons}},
            **common}},
        {"type": "object", "required": ["decision", "reasons", "comment"], "properties": {
            "decision": {"type": "string", "enum": [Decision.REJECT]},
            "reasons": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": list(Reason.values)}},
            **common, "comment": {"type": "string", "maxLength": 5000, "pattern": r"\S"}}},
    ]}


class ReviewCreatedOut(serializers.Serializer):
    item = serializers.IntegerField()
    external_id = serializers.CharField()
    created = serializers.BooleanField()
    settled = serializers.BooleanField()
    your_review = ReviewOut()
    next = ItemOut(allow_null=True, help_text="Your next item in this project, leased to you as `next` would "
                                              "answer it; null when nothing is left for you.")


class ReviewView(APIView):
    permission_classes = [Can("verification.review")]

    @extend_schema(request={"application/json": _review_schema()}, responses={
        201: ReviewCreatedOut,
        200: OpenApiResponse(ReviewCreatedOut, description="Your review of this item, changed, or sent again (also after it settled the item)."),
        **error_responses(403, 409, s403="Not your item (code no_lease), or not an annotator.",
                          s409="The item is settled and this is not the review you sent (code settled), or its slot went to someone else (slot_taken)."),
    })
    def post(self, request, pk):
        item = get_object_or_404(VerificationItem.objects.select_related("project__pool", "work_item"), pk=pk)
        data = ReviewIn(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        review, created = services.submit_review(
            item=item, acting_user=request.user, decision=v["decision"], reasons=v["reasons"], comment=v["comment"],
            seconds=v["seconds_spent"],
        )
        # Compact on purpose: the reviewer's own review and whether the item is settled (GET the item for more).
        settled = review.item.status  # as the service left it (read again only for a review sent before)
        following = services.next_item(project=item.project, acting_user=request.user)
        body = {"item": item.pk, "external_id": item.external_id, "created": created,
                "settled": settled != "pending", "your_review": selectors.review_dict(review),
                "next": selectors.item_for_reviewer(following, request.user, leased=True) if following else None}
        return Response(ReviewCreatedOut(body).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ItemView(APIView):
    @extend_schema(responses=ItemOut)
    def get(self, request, pk):
        item = fetch(request, VerificationItem.objects.select_related("audio", "project"), pk, "verification.view_item")
        reveal_all = can(request.user, "verification.manage")  # who runs verification reads every review
        return Response(ItemOut(selectors.item_for_reviewer(item, request.user, reveal_all=reveal_all)).data)


class TaskCountsOut(serializers.Serializer):
    domain = serializers.CharField()
    items = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()
    pending = serializers.IntegerField()
    acceptance_rate = serializers.FloatField(allow_null=True)


class ProjectSummaryOut(serializers.Serializer):
    project = serializers.IntegerField()
    name = serializers.CharField()
    settle_on_first_rejection = serializers.BooleanField()
    items = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()
    pending = serializers.IntegerField()
    acceptance_rate = serializers.FloatField(allow_null=True)
    paper_acceptance_rate = serializers.FloatField()
    per_task = serializers.DictField(child=TaskCountsOut())


class SummaryView(APIView):
    permission_classes = [Can("verification.manage")]

    @extend_schema(responses=ProjectSummaryOut)
    def get(self, request, pk):
        project = get_object_or_404(VerificationProject, pk=pk)
        return Response(ProjectSummaryOut(selectors.project_summary(project)).data)
