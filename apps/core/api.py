"""The API's side of the refusal hierarchy: the one error body, as a serializer the schema can name, and
the responses an endpoint declares for the refusals it can answer."""

from django.http import QueryDict
from drf_spectacular.utils import OpenApiResponse
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError, ValidationError


class ErrorOut(serializers.Serializer):
    """Every 4xx body (apps.accounts.api.exception_handler writes it)."""

    detail = serializers.CharField(help_text="What was refused and why, for a person.")
    code = serializers.CharField(help_text="A short machine-readable reason, e.g. no_lease, not_found, invalid.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Each request field to blame, with its messages; empty when no field is to blame.",
    )


_MEANING = {
    400: "Invalid input; `fields` names each bad field.",
    401: "Not logged in.",
    403: "Not allowed.",
    404: "Not found.",
    409: "Refused in the current state; `code` says why.",
    429: "Too many requests; try again later.",
}


def error_responses(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """`extend_schema(responses={201: ThingOut, **error_responses(400, 409)})`. A keyword `s409="..."`
    replaces the default description of that status."""
    return {
        status: OpenApiResponse(ErrorOut, description=descriptions.get(f"s{status}", _MEANING.get(status, "Refused.")))
        for status in statuses
    }


_JSON_TYPES = [
    # (field class, accepted JSON types, how to name them); the first match wins, so subclasses come first.
    (serializers.BooleanField, (bool,), "true or false"),
    (serializers.IntegerField, (int,), "a whole number"),
    (serializers.FloatField, (int, float), "a number"),
    (serializers.DecimalField, (int, float), "a number"),
    (serializers.MultipleChoiceField, (list,), "a list"),
    (serializers.ChoiceField, (str,), "text"),
    (serializers.CharField, (str,), "text"),
    (serializers.ListField, (list,), "a list"),
    (serializers.DictField, (dict,), "an object"),
    (serializers.Serializer, (dict,), "an object"),
]


# Base for In serializers: in a JSON body a value of the wrong type is refused, not coerced (DRF would read
# "3" as 3 and 3 as "3"), so what the schema calls invalid the API refuses. Form bodies, where every value is
# text, are left to the fields' own parsing. (A comment, not a docstring: the schema would show it on every
# request body.)
class StrictInput(serializers.Serializer):
    def to_internal_value(self, data):
        if isinstance(data, dict) and not isinstance(data, QueryDict):
            errors = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if field.read_only or value is None:
                    continue
                for kind, types, label in _JSON_TYPES:
                    if isinstance(field, kind):
                        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
                            errors[name] = [f"must be {label}"]
                        break
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


# --- request bodies ---------------------------------------------------------------------------------------
# The parsers every endpoint uses (settings.REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]). A body is checked once,
# before any view or serializer sees it, with the same rules as an imported file (apps.core.tabular.hostile):
# nesting past 32 levels (json would end in a RecursionError, a 500), a NUL character in a value or a key
# (PostgreSQL refuses it with a DataError, a 500), a text over 131,072 characters, a whole number no
# database integer holds. Each answers 400 in the usual error shape, naming the field.
def _refuse_hostile(data):
    from apps.core.tabular import hostile

    found = hostile(dict(data.lists()) if isinstance(data, QueryDict) else data)
    if found:
        field, reason = found
        raise ValidationError({field or "non_field_errors": [reason]})
    return data


class JSONInput(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        return _refuse_hostile(data)


class FormInput(parsers.FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        return _refuse_hostile(super().parse(stream, media_type, parser_context))


class MultiPartInput(parsers.MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _refuse_hostile(parsed.data)
        return parsed
