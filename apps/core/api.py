"""The API's side of the refusal hierarchy: the one error body, as a serializer the schema can name, the
exception handler that writes it (settings REST_FRAMEWORK["EXCEPTION_HANDLER"]), and the responses an
endpoint declares for the refusals it can answer; and the API's input layer: StrictInput
(the base of In serializers) and JSONInput (the JSON parser), which refuse hostile input with a 400."""

import codecs
import json

from django.http import QueryDict
from drf_spectacular.utils import OpenApiResponse
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.utils import json as drf_json
from rest_framework.views import exception_handler as drf_exception_handler

from apps.core.errors import ApplicationError
from apps.core.tabular import hostile, json_number


class ErrorOut(serializers.Serializer):
    """Every 4xx body (exception_handler below writes it)."""

    detail = serializers.CharField(help_text="What was refused and why, for a person.")
    code = serializers.CharField(help_text="A short machine-readable reason, e.g. no_lease, not_found, invalid.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Each request field to blame, with its messages; empty when no field is to blame.",
    )


def exception_handler(exc, context):
    """Every 4xx/5xx body has the same shape (apps.core.api.ErrorOut):
    {"detail": "...", "code": "...", "fields": {"field": ["message", ...]}}; `fields` names each bad field.
    A refusal from apps.core.errors answers with its own status and code."""
    if isinstance(exc, ApplicationError):
        return Response({"detail": exc.message, "code": exc.code, "fields": exc.fields}, status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    codes = exc.get_codes() if hasattr(exc, "get_codes") else None
    if isinstance(data, dict) and set(data) <= {"detail"}:
        body = {
            "detail": str(data.get("detail", "")),
            "code": codes if isinstance(codes, str) else "error",
            "fields": {},
        }
    else:
        fields = data if isinstance(data, dict) else {"non_field_errors": data}
        fields = {name: _messages(value) for name, value in fields.items()}
        summary = "; ".join(f"{name}: {' '.join(msgs)}" for name, msgs in fields.items())
        body = {"detail": summary, "code": "invalid", "fields": fields}
    response.data = body
    return response


def _messages(value) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, dict):
        return [f"{k}: {' '.join(_messages(v))}" for k, v in value.items()]
    return [str(value)]


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


def _refuse_hostile(serializer, data) -> None:
    """Each field the serializer reads is checked as an imported file's value is (apps.core.tabular.hostile):
    a NUL character in a text or a key (PostgreSQL cannot store it: a DataError, a 500), nesting past 32
    levels, a text over 131,072 characters, a number of more than 40 digits or one no bigint holds. Keys
    the serializer does not read are dropped unread, as the schema allows (schemathesis sends them)."""
    if not isinstance(data, dict):
        return
    errors = {}
    for name, field in serializer.fields.items():
        if field.read_only or name not in data or isinstance(field, serializers.BaseSerializer):
            continue  # a nested StrictInput checks its own fields (and drops keys it does not read)
        value = data.getlist(name) if isinstance(data, QueryDict) else data[name]
        if found := hostile(value):
            errors[name] = [found[1]]
    if errors:
        raise serializers.ValidationError(errors)


# Base for In serializers: in a JSON body a value of the wrong type is refused, not coerced (DRF would read
# "3" as 3 and 3 as "3"), so what the schema calls invalid the API refuses. Form bodies, where every value is
# text, are left to the fields' own parsing. (A comment, not a docstring: the schema would show it on every
# request body.)
class StrictInput(serializers.Serializer):
    def to_internal_value(self, data):
        _refuse_hostile(self, data)
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
# The JSON parser every endpoint uses (settings.REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]): a body nested
# past Python's recursion limit is a 400, not a RecursionError (a 500), and a number of thousands of digits
# is read as a marker that StrictInput refuses by name instead of a ValueError from int().
class JSONInput(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = parsers.get_encoding(parser_context or {})
        try:  # DRF's JSONParser.parse, with numbers read as an imported file reads them
            return json.load(codecs.getreader(encoding)(stream), parse_int=json_number, parse_float=json_number,
                             parse_constant=drf_json.strict_constant if self.strict else None)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
