"""The API's side of the refusal hierarchy: the one error body, as a serializer the schema can name, and
the responses an endpoint declares for the refusals it can answer."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


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
