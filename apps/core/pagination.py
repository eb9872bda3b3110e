"""The API's pagination (settings REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"]). A module of its own: DRF imports it
while its own views module loads, so it may not import rest_framework.views (apps.core.api does)."""

from django.utils.translation import gettext
from rest_framework import pagination

from apps.core.errors import InvalidInput


class Pages(pagination.PageNumberPagination):
    """DRF's page numbers, except that a `page` that is sent must be a whole number from 1 (or "last"), as the
    schema says: DRF reads `?page=` as the first page."""

    def paginate_queryset(self, queryset, request, view=None):
        page = request.query_params.get(self.page_query_param)
        if page is not None and page not in self.last_page_strings and not (
                page.isascii() and page.isdigit() and int(page) >= 1):
            raise InvalidInput(gettext("page must be a whole number from 1."), field=self.page_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters
