"""Checks a question must pass whoever wrote it (no database here): the option count of its capability,
exactly one correct option, options distinct after normalising spaces, and distinct as MMAU's matcher sees
them (its word-token sets), so that the exported file can be scored unchanged."""

import re
import unicodedata

from django.utils.translation import gettext

from apps.authoring.capabilities import SPECS
from apps.core import limits
from apps.core.errors import InvalidInput
from apps.core.limits import bounded

_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFC", str(text))).strip()


def match_tokens(text: str) -> frozenset[str]:
    """The word tokens MMAU's evaluation script compares (lower-cased \\w+ runs)."""
    return frozenset(re.findall(r"\b\w+\b", text.lower()))


OPTION_LENGTH = 200  # an answer option: a few words (the API's KmmauAuthorInput says the same)


def clean_question(capability: str, text: str, options: list, correct_index) -> tuple[str, list[str], int]:
    """The normalised (text, options, correct_index), or InvalidInput naming the field."""
    if capability not in SPECS:
        raise InvalidInput(gettext(
            "unknown capability %(capability)r; expected one of %(specs)s"
        ) % {"capability": capability, "specs": ', '.join(SPECS)}, field="capability")
    text = normalise(text or "")
    if not text:
        raise InvalidInput(gettext("the question text is empty"), field="text")
    bounded(text, field="text", limit=limits.QUESTION)
    if not isinstance(options, list | tuple):
        raise InvalidInput(gettext("options must be a list of texts"), field="options")
    options = [bounded(normalise(o), field="options", limit=OPTION_LENGTH) for o in options]
    wanted = SPECS[capability].options
    if len(options) != wanted:
        raise InvalidInput(gettext(
            "a %(capability)s question has %(wanted)s options, not %(options_count)s"
        ) % {"capability": capability, "wanted": wanted, "options_count": len(options)}, field="options")
    if any(not o for o in options):
        raise InvalidInput(gettext("an option is empty"), field="options")
    if len(set(options)) != len(options):
        raise InvalidInput(gettext("two options are the same after normalising spaces"), field="options")
    tokens = [match_tokens(o) for o in options]
    if any(not t for t in tokens) or len(set(tokens)) != len(tokens):
        raise InvalidInput(gettext("two options have the same words (MMAU's matcher could not tell them apart)"), field="options")
    if isinstance(correct_index, bool) or not isinstance(correct_index, int) or not 0 <= correct_index < wanted:
        raise InvalidInput(gettext(
            "correct_index must be a whole number from 0 to %(wanted)s"
        ) % {"wanted": wanted - 1}, field="correct_index")
    return text, options, correct_index
