"""How long text a person types may be, by what it is for, and the one refusal for text over its bound.
A service checks every free-text field it stores (pages and API reach it the same way), so a 2,000,000-
character transcript or comment is refused with the field named, not stored and shown on every page."""

from django.utils.translation import gettext

from apps.core.errors import InvalidInput

NOTE = 2_000  # a note, a reason, a rationale for a decision
COMMENT = 5_000  # a review comment, an expert's comment or own answer
TRANSCRIPT = 2_000  # what one clip says (a reference voice's clip is seconds long)
QUESTION = 2_000  # a question or a statement put to people
SAMPLE_TEXT = 10_000  # a sample's text an admin edits (what is synthesized, a translation)
DESCRIPTION = 5_000  # a project's or a release's description


def bounded(value: str | None, *, field: str, limit: int) -> str | None:
    """`value` unchanged when it is at most `limit` characters; otherwise InvalidInput naming the field."""
    if value is not None and len(value) > limit:
        raise InvalidInput(gettext(
            "%(field)s: at most %(limit)s characters, not %(value_count)s"
        ) % {"field": field, "limit": f"{limit:,}", "value_count": f"{len(value):,}"}, field=field)
    return value
