"""The API for automated clients (issue 4 contract; paths in urls.py):
POST projects/{id}/next/, POST items/{id}/reviews/, GET items/{id}/, GET projects/{id}/summary/."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, IsSoriAdmin, can
from apps.accounts.roles import Role
from apps.verification import selectors, services
from apps.verification.models import Decision, Reason, VerificationItem, VerificationProject


class NextView(APIView):
    permission_classes = [HasRole.of(Role.ANNOTATOR)]

    @extend_schema(request=None, responses={200: dict, 204: None})
    def post(self, request, pk):
        project = get_object_or_404(VerificationProject, pk=pk)
        item = services.next_item(project=project, acting_user=request.user)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(selectors.item_for_reviewer(item, request.user))


class ReviewInput(serializers.Serializer):
    decision = serializers.ChoiceField(choices=Decision.choices)
    reasons = serializers.ListField(child=serializers.ChoiceField(choices=Reason.choices), required=False, default=list)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    seconds_spent = serializers.FloatField(required=False, min_value=0, allow_null=True, default=None)


class ReviewView(APIView):
    permission_classes = [HasRole.of(Role.ANNOTATOR)]

    @extend_schema(request=ReviewInput, responses={200: dict, 201: dict})
    def post(self, request, pk):
        item = get_object_or_404(VerificationItem.objects.select_related("project", "work_item"), pk=pk)
        data = ReviewInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        review, created = services.submit_review(
            item=item, acting_user=request.user, decision=v["decision"], reasons=v["reasons"], comment=v["comment"],
            seconds=v["seconds_spent"],
        )
        # Compact on purpose: the reviewer's own review and whether the item is settled (GET the item for more).
        settled = VerificationItem.objects.filter(pk=item.pk).values_list("status", flat=True).get()
        body = {"item": item.pk, "external_id": item.external_id, "created": created,
                "settled": settled != "pending", "your_review": selectors.review_dict(review)}
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ItemView(APIView):
    @extend_schema(responses=dict)
    def get(self, request, pk):
        item = VerificationItem.objects.select_related("audio", "project").filter(pk=pk).first()
        if item is None:
            raise NotFound("no such item")
        if request.user.is_sori_admin:
            return Response(selectors.item_for_reviewer(item, request.user, reveal_all=True))
        if not can(request.user, "verification.view_item", item):
            raise PermissionDenied("Only a reviewer of this item (or an admin) may read it.")
        return Response(selectors.item_for_reviewer(item, request.user))


class SummaryView(APIView):
    permission_classes = [IsSoriAdmin]

    @extend_schema(responses=dict)
    def get(self, request, pk):
        project = get_object_or_404(VerificationProject, pk=pk)
        return Response(selectors.project_summary(project))
