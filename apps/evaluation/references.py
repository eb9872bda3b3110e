"""A benchmark named in text, the one grammar the run form, the API and the commands read:

    release:<id>     source:<id>        by id (what the form and the API send)
    release:<name>   source:<name>      by name; a release's newest by name, or
    release:<name>@<version>            one version of it (what a person types to a command)

A value of digits only is an id. `parse_benchmark` reads the text (InvalidInput when it is not this grammar) and
`find_benchmark` finds what it names (NotFound when nothing is)."""

import re
from dataclasses import dataclass

from django.utils.translation import gettext

from apps.core.errors import InvalidInput, NotFound
from apps.releases.models import Release
from apps.sources.models import SourceBenchmark

# The grammar above as one expression, also the API's schema pattern (so the schema states what is accepted).
_NAME = r"(?![0-9]+(?:@|$))[^@\s][^@]{0,99}"  # not digits only: those are an id
PATTERN = rf"^(?:release:(?:[0-9]{{1,18}}|{_NAME}(?:@[^@\s]{{1,40}})?)|source:(?:[0-9]{{1,18}}|{_NAME}))$"
_PARTS = re.compile(r"(?P<kind>release|source):(?:(?P<pk>[0-9]{1,18})|(?P<name>[^@]+?)(?:@(?P<version>[^@]+))?)")
USAGE = "release:<id>, release:<name>[@<version>], source:<id> or source:<name>"


@dataclass(frozen=True)
class BenchmarkRef:
    kind: str  # "release" or "source"
    pk: int | None = None
    name: str = ""
    version: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.pk if self.pk is not None else self.name}" + (f"@{self.version}" if self.version else "")


def parse_benchmark(text: str, *, field: str = "benchmark") -> BenchmarkRef:
    if not re.fullmatch(PATTERN, text or ""):
        raise InvalidInput(gettext(
            "name a benchmark as %(usage)s, not %(text)r"
        ) % {"usage": USAGE, "text": text}, field=field)
    parts = _PARTS.fullmatch(text)
    pk = parts["pk"]
    return BenchmarkRef(parts["kind"], int(pk) if pk else None, parts["name"] or "", parts["version"] or "")


def find_benchmark(ref: BenchmarkRef) -> tuple[Release | None, SourceBenchmark | None]:
    """(release, None) or (None, source benchmark) as `ref` names it; NotFound when it names nothing."""
    if ref.kind == "source":
        found = SourceBenchmark.objects.filter(**({"pk": ref.pk} if ref.pk is not None else {"name": ref.name})).first()
        if found is None:
            raise NotFound(gettext("no source benchmark %(ref)s") % {"ref": ref})
        return None, found
    releases = Release.objects.filter(**({"pk": ref.pk} if ref.pk is not None else {"name": ref.name}))
    if ref.version:
        releases = releases.filter(version=ref.version)
    found = releases.order_by("-created_at", "-id").first()
    if found is None:
        raise NotFound(gettext("no release %(ref)s") % {"ref": ref})
    return found, None
