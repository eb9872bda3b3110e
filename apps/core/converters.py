"""Path converters. `<id:pk>` is `<int:pk>` bounded to what a database id can be (18 digits), so a huge
number in an API path is a 404 rather than a database overflow error."""

from django.urls import register_converter


class ObjectIdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(ObjectIdConverter, "id")
