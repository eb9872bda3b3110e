"""Release pages (admins only): list and build form, a release with its build progress, publish, download,
Hub upload, one item's provenance, and the diff between two versions."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import require
from apps.authoring.models import QuestionSet
from apps.core.errors import ApplicationError, InvalidInput, NotFound
from apps.listening.models import ListeningTest, TestStatus
from apps.releases import licences, selectors, services
from apps.releases.models import Release, ReleaseItem, ReleaseKind, ReleaseStatus
from apps.sources.models import SourceBenchmark
from apps.verification.models import VerificationProject


def _sources_for_form():
    """(kind, [("kind:id", label)]) for the build form's source list."""
    groups = [
        (ReleaseKind.MOS, ListeningTest.objects.exclude(status=TestStatus.IMPORTING).order_by("name")),
        (ReleaseKind.HPSU, VerificationProject.objects.order_by("name")),
        (ReleaseKind.SPOKEN_QA, SourceBenchmark.objects.order_by("name")),
        (ReleaseKind.KMMAU, QuestionSet.objects.order_by("name")),
    ]
    return [(kind, [(f"{kind.value}:{obj.pk}", f"{obj.name} (#{obj.pk})") for obj in objects]) for kind, objects in groups]


@login_required
def release_list(request):
    require(request.user, "releases.manage")
    sources = _sources_for_form()
    form = request.session.pop("release_form", {})
    # The speech stage's "Next" link chooses what to build from (?source=spoken-qa:3); only one of the
    # list's own choices is taken, as the build would refuse any other.
    chosen = request.GET.get("source", "")
    if not form and any(chosen == value for _, objects in sources for value, _ in objects):
        form = {"source": chosen}
    return render(request, "releases/list.html", {
        "releases": selectors.releases(), "sources": sources, "known_sources": licences.KNOWN_SOURCES.values(),
        "form": form,
    })


@login_required
@require_POST
def create(request):
    require(request.user, "releases.manage")
    form = request.POST
    kind, _, source_id = form.get("source", "").partition(":")
    try:
        sources = [licences.parse_source(line) for line in form.get("sources", "").splitlines() if line.strip()]
        if not source_id.isdigit():
            raise InvalidInput(gettext("choose what to build the release from"), field="source")
        release = services.create_release(
            acting_user=request.user, kind=kind, source_id=int(source_id), name=form.get("name", "").strip(),
            version=form.get("version", "").strip(), license=form.get("license", "").strip() or None,
            sources=sources, description=form.get("description", ""))
    except ApplicationError as exc:
        messages.error(request, gettext("Not built: %(exc)s") % {"exc": exc})
        request.session["release_form"] = {k: form.get(k, "") for k in ("source", "name", "version", "license", "sources", "description")}
        return redirect("releases:list")
    return redirect("releases:detail", pk=release.pk)


@login_required
def detail(request, pk: int):
    require(request.user, "releases.manage")
    release = get_object_or_404(Release.objects.select_related("built_by", "published_by", "job"), pk=pk)
    earlier = selectors.versions_of(release.name).exclude(pk=release.pk).filter(created_at__lt=release.created_at).order_by("-created_at").first()
    return render(request, "releases/detail.html", {
        "release": release, "files": release.files.all()[:200], "file_count": release.files.count(),
        "items": release.items.only("item_id", "config", "split", "release_id")[:100], "previous": earlier,
        "uploads": release.hub_uploads.select_related("uploaded_by"),
    })


@login_required
@require_POST
def publish(request, pk: int):
    require(request.user, "releases.manage")
    release = get_object_or_404(Release, pk=pk)
    try:
        services.publish_release(release=release, acting_user=request.user)
        messages.success(request, gettext(
            "%(release)s is published. It can no longer change; a correction is a new version."
        ) % {"release": release})
    except ApplicationError as exc:
        messages.error(request, gettext("Not published: %(exc)s") % {"exc": exc})
    return redirect("releases:detail", pk=pk)


def archive_response(pk: int) -> FileResponse:
    """The stored zip of a built or published release, as a download (the page's and the API's)."""
    release = get_object_or_404(Release, pk=pk, status__in=[ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED])
    if not release.archive or not default_storage.exists(release.archive):
        raise NotFound(gettext("the archive is not stored"))
    return FileResponse(default_storage.open(release.archive, "rb"), as_attachment=True,
                        filename=f"{release.folder}.zip", content_type="application/zip")


@login_required
def download(request, pk: int):
    require(request.user, "releases.manage")
    return archive_response(pk)


@login_required
@require_POST
def upload(request, pk: int):
    require(request.user, "releases.manage")
    release = get_object_or_404(Release, pk=pk)
    try:
        done = services.upload_to_hub(release=release, acting_user=request.user, repo_id=request.POST.get("repo_id", "").strip())
        messages.success(request, gettext("Uploaded to %(repo_id)s.") % {"repo_id": done.repo_id})
    except ApplicationError as exc:
        messages.error(request, gettext("Not uploaded: %(exc)s") % {"exc": exc})
    return redirect("releases:detail", pk=pk)


@login_required
def item(request, pk: int, item_id: str):
    require(request.user, "releases.manage")
    release = get_object_or_404(Release, pk=pk)
    try:
        provenance = selectors.item_provenance(release, item_id, viewer=request.user)
    except ReleaseItem.DoesNotExist:
        raise NotFound(gettext(
            "%(release)s has no item %(item_id)r"
        ) % {"release": release, "item_id": item_id}) from None
    return render(request, "releases/item.html", {"release": release, "p": provenance})


@login_required
def diff(request, old_pk: int, new_pk: int):
    require(request.user, "releases.manage")
    old, new = get_object_or_404(Release, pk=old_pk), get_object_or_404(Release, pk=new_pk)
    if old.name != new.name:
        raise NotFound(gettext("a diff compares two versions of one dataset"))
    return render(request, "releases/diff.html", {"diff": selectors.diff(old, new)})
