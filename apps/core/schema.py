"""How /api/schema/ is generated (settings: REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]).

Each endpoint declares its request body and its own answers with extend_schema (In/Out serializers that
really parse the request and render the response, plus error_responses(409, ...) for its refusals); this
AutoSchema adds the answers every endpoint shares, all in the one error shape (apps.core.api.ErrorOut):
400 when it takes a body or query parameters, 401/403 unless anyone may call it, 404 when its path names
an object (or a paginated list, for a page past its end). Request bodies are documented as JSON only, the one format clients are expected to send."""

from drf_spectacular.contrib.pydantic import PydanticExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from pydantic.json_schema import GenerateJsonSchema, model_json_schema
from rest_framework.permissions import AllowAny

from apps.core.api import error_responses


class AutoSchema(SpectacularAutoSchema):
    def map_parsers(self):
        return ["application/json"]

    def _get_request_body(self, direction="request"):
        body = super()._get_request_body(direction)
        if body and self.method in ("POST", "PUT", "PATCH"):
            body["required"] = True  # every body our endpoints take is needed (raw schemas are not marked)
        return body

    def _get_response_bodies(self, direction="response"):
        bodies = super()._get_response_bodies(direction)
        shared = []
        if self.method in ("POST", "PUT", "PATCH") or self._is_list_view() or self._has_query_parameters():
            shared.append(400)
        if not all(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            shared += [401, 403]
        if "{" in self.path or self._is_list_view():  # a list answers 404 for a page past its end
            shared.append(404)
        for status, response in error_responses(*shared).items():
            bodies.setdefault(str(status), self._get_response_for_code(response, str(status), direction=direction))
        return bodies

    def _has_query_parameters(self) -> bool:
        return any(p.get("in") == "query" for p in self._get_parameters())


def forbid_nul_in_request_text(result, generator, request, public):
    """Postprocessing hook: request text may not hold NUL characters. DRF's CharField refuses them and
    PostgreSQL cannot store them, so the schema says so (`not: {pattern: \\x00}` composes with any pattern a
    field already has); otherwise a client that follows the schema sends text the API answers with 400."""

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "string" and not {"enum", "format"} & node.keys():
                node.setdefault("not", {"pattern": r"\x00"})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                walk(operation["requestBody"])
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):  # COMPONENT_SPLIT_REQUEST names the request side so
            walk(schema)
    return result


class _OpenApi30JsonSchema(GenerateJsonSchema):
    """pydantic writes "may be null" as JSON Schema does (anyOf with {"type": "null"}, OpenAPI 3.1); Sori's
    schema is OpenAPI 3.0, which says `nullable: true`."""

    def nullable_schema(self, schema):
        inner = self.generate_inner(schema["schema"])
        return {"allOf": [inner], "nullable": True} if "$ref" in inner else {**inner, "nullable": True}


class PydanticResponses(PydanticExtension):
    """A response that is a pydantic model (e.g. apps.evaluation.leaderboard.board.Board) documented by the
    model itself, in OpenAPI 3.0's words (drf_spectacular.contrib.pydantic, with the generator above)."""

    priority = 1

    def map_serializer(self, auto_schema, direction):
        schema = model_json_schema(self.target, ref_template="#/components/schemas/{model}", mode="serialization",
                                   schema_generator=_OpenApi30JsonSchema)
        for name, sub_schema in schema.pop("$defs", {}).items():
            auto_schema.registry.register_on_missing(
                ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=sub_schema))
        return schema
