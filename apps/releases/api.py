"""The releases API, for admins and their scripts (paths in urls.py): list and start builds, read one release
with its files and checksums, publish it, download its archive, and diff two versions. The same services as
the pages and the commands, so the same refusals."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import Can
from apps.core import limits
from apps.core.api import StrictInput, error_responses
from apps.releases import licences, selectors, services, views
from apps.releases.models import Release, ReleaseKind


class SourceLicence(StrictInput):
    name = serializers.CharField()
    license = serializers.RegexField(licences.SPDX_PATTERN, help_text="SPDX identifier")


class ReleaseInput(StrictInput):
    kind = serializers.ChoiceField(choices=ReleaseKind.choices)
    source_id = serializers.IntegerField(help_text="the listening test, verification project, benchmark or question set")
    name = serializers.RegexField(services.NAME_PATTERN, help_text="lower-case letters, digits and hyphens")
    version = serializers.RegexField(services.VERSION_PATTERN, max_length=services.VERSION_MAX_LENGTH, help_text="semantic (1.2.0) or a whole number; it must increase")
    license = serializers.RegexField(licences.SPDX_PATTERN, required=False, help_text="SPDX; default: the source's own")
    sources = SourceLicence(many=True, required=False, help_text="default: the sources the kind can tell")
    description = serializers.CharField(required=False, allow_blank=True, max_length=limits.DESCRIPTION)


class ReleaseFileOut(serializers.Serializer):
    path = serializers.CharField()
    sha256 = serializers.CharField()
    size = serializers.IntegerField()


class ReleaseOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    selection = serializers.JSONField()
    license = serializers.CharField()
    sources = serializers.JSONField()
    description = serializers.CharField()
    item_count = serializers.IntegerField()
    archive_sha256 = serializers.CharField()
    archive_bytes = serializers.IntegerField()
    job = serializers.IntegerField(source="job_id", allow_null=True)
    built_by = serializers.CharField(source="built_by.username")
    built_at = serializers.DateTimeField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)


class ReleaseDetailOut(ReleaseOut):
    manifest = serializers.JSONField()
    files = ReleaseFileOut(many=True, source="files.all")


class ChangeOut(serializers.Serializer):
    item_id = serializers.CharField()
    fields = serializers.ListField(child=serializers.CharField())
    reason = serializers.CharField()


class DiffOut(serializers.Serializer):
    added = ChangeOut(many=True)
    removed = ChangeOut(many=True)
    changed = ChangeOut(many=True)


def _release(pk: int) -> Release:
    return get_object_or_404(Release.objects.select_related("built_by"), pk=pk)


class ReleaseListView(generics.ListAPIView):
    permission_classes = [Can("releases.manage")]
    serializer_class = ReleaseOut

    def get_queryset(self):
        return selectors.releases()

    @extend_schema(request=ReleaseInput, responses={202: ReleaseOut, **error_responses(400, 403, 404, 409)})
    def post(self, request):
        """Check the request (kind, source, name, version, licence against the sources) and start the build
        job; the release is `building` until the job ends (poll it or the job)."""
        data = ReleaseInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        release = services.create_release(
            acting_user=request.user, kind=fields["kind"], source_id=fields["source_id"], name=fields["name"],
            version=fields["version"], license=fields.get("license") or None, sources=fields.get("sources"),
            description=fields.get("description", ""))
        return Response(ReleaseOut(_release(release.pk)).data, status=status.HTTP_202_ACCEPTED)


class ReleaseDetailView(APIView):
    permission_classes = [Can("releases.manage")]

    @extend_schema(responses={200: ReleaseDetailOut, **error_responses(403, 404)})
    def get(self, request, pk):
        return Response(ReleaseDetailOut(_release(pk)).data)


class PublishView(APIView):
    permission_classes = [Can("releases.manage")]

    @extend_schema(request=None, responses={200: ReleaseOut, **error_responses(403, 404, 409)})
    def post(self, request, pk):
        """Freeze a built release for good (its archive is checked against its checksums first)."""
        release = services.publish_release(release=_release(pk), acting_user=request.user)
        return Response(ReleaseOut(_release(release.pk)).data)


class ArchiveView(APIView):
    permission_classes = [Can("releases.manage")]

    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY), **error_responses(403, 404)})
    def get(self, request, pk):
        return views.archive_response(pk)


class DiffView(APIView):
    permission_classes = [Can("releases.manage")]

    @extend_schema(responses={200: DiffOut, **error_responses(403, 404)})
    def get(self, request, old_pk, new_pk):
        return Response(DiffOut(selectors.diff(_release(old_pk), _release(new_pk))).data)
