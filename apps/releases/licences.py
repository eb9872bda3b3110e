"""Licence compatibility of a release with its sources (seed 000, Ethics Statement; DESIGN.md 2.5).

A source under a non-commercial term (NC) may only be released under a licence that keeps NC; a share-alike
source (SA) only under the same Creative Commons licence (same terms, same or later version); a no-derivatives
source (ND) not at all. Licences are SPDX identifiers; an unknown one is refused rather than guessed."""

import re
from dataclasses import dataclass

from django.utils.translation import gettext

from apps.core.errors import InvalidInput

PERMISSIVE = {"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "CC0-1.0", "CDLA-Permissive-2.0"}
_CC = re.compile(r"^CC-BY(?P<terms>(-NC)?(-ND|-SA)?)-(?P<version>[0-9]\.[0-9])$")
# Every licence terms() knows, as one pattern (the API's schema publishes it).
SPDX_PATTERN = ("^(" + "|".join(p.replace(".", r"\.") for p in sorted(PERMISSIVE))
                + r"|CC-BY(-NC)?(-ND|-SA)?-[0-9]\.[0-9])$")

# The papers' sources and their licences (seed 000, Ethics Statement), for defaults and the forms.
KNOWN_SOURCES = {
    "voicebench": ("VoiceBench", "Apache-2.0"),
    "openaudiobench": ("OpenAudioBench", "Apache-2.0"),
    "kss": ("KSS", "CC-BY-NC-SA-4.0"),
    "kmsav": ("KMSAV", "CC-BY-NC-SA-4.0"),
    "seoul-corpus": ("Seoul Corpus", "CC-BY-NC-2.0"),
}


@dataclass(frozen=True)
class Terms:
    spdx: str
    nc: bool = False
    sa: bool = False
    nd: bool = False
    version: tuple[int, int] | None = None

    @property
    def family(self) -> str:
        """The CC licence without its version, e.g. CC-BY-NC-SA."""
        return self.spdx.rsplit("-", 1)[0]


class LicenceRefused(InvalidInput):
    """A release licence that would drop a source's terms, or one Sori cannot read; `field` names the input."""

    def __init__(self, field: str, message: str):
        super().__init__(message, field=field)


def terms(spdx: str) -> Terms:
    spdx = (spdx or "").strip()
    if spdx in PERMISSIVE:
        return Terms(spdx)
    match = _CC.match(spdx)
    if match:
        parts = match["terms"]
        major, minor = (int(x) for x in match["version"].split("."))
        return Terms(spdx, nc="-NC" in parts, sa="-SA" in parts, nd="-ND" in parts, version=(major, minor))
    known = ", ".join(sorted(PERMISSIVE)) + ", CC-BY[-NC][-SA|-ND]-<version>"
    raise LicenceRefused("license", gettext(
        "unknown licence %(spdx)r; use an SPDX identifier (%(known)s)"
    ) % {"spdx": spdx, "known": known})


def check(license: str, sources: list[dict]) -> None:
    """Raise LicenceRefused naming the first source whose terms the release licence would drop."""
    release = terms(license)
    if not sources:
        raise LicenceRefused("sources", gettext("name at least one source and its licence"))
    for source in sources:
        name = source.get("name") or "(unnamed source)"
        try:
            src = terms(source.get("license", ""))
        except LicenceRefused as exc:
            raise LicenceRefused("sources", gettext("source %(name)s: %(exc)s") % {"name": name, "exc": exc}) from None
        if src.nd:
            raise LicenceRefused("sources", gettext(
                "source %(name)s is %(spdx)s (no derivatives): it cannot be released in a derived dataset"
            ) % {"name": name, "spdx": src.spdx})
        if src.nc and not release.nc:
            raise LicenceRefused(
                "license", gettext(
                    "source %(name)s is %(spdx)s (non-commercial); %(spdx2)s drops that term"
                ) % {"name": name, "spdx": src.spdx, "spdx2": release.spdx})
        if src.sa and not (release.sa and release.family == src.family and release.version >= src.version):
            raise LicenceRefused(
                "license", gettext(
                    "source %(name)s is %(spdx)s (share-alike); the release must use %(family)s %(version)s "
                    "or later, not %(spdx2)s"
                ) % {
                    "name": name,
                    "spdx": src.spdx,
                    "family": src.family,
                    "version": '.'.join(map(str, src.version)),
                    "spdx2": release.spdx,
                })


def parse_source(text: str) -> dict:
    """'KSS=CC-BY-NC-SA-4.0' -> {"name": "KSS", "license": "CC-BY-NC-SA-4.0"} (for forms and commands)."""
    name, sep, spdx = text.partition("=")
    if not sep or not name.strip() or not spdx.strip():
        raise LicenceRefused("sources", gettext(
            "%(text)r: write a source as NAME=LICENCE, e.g. KSS=CC-BY-NC-SA-4.0"
        ) % {"text": text})
    return {"name": name.strip(), "license": spdx.strip()}
