"""Reading a number from a submitted form (request.POST or request.GET), the same way on every page."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from apps.core.errors import InvalidInput


def number(data, name: str, *, whole: bool = False) -> int | float | None:
    """The number in field `name`, or None when the field is missing or empty. Django's own form field reads
    it (IntegerField for a whole number, else FloatField: surrounding spaces are ignored, NaN and infinity
    refused); anything else is refused as InvalidInput naming the field."""
    field = forms.IntegerField(required=False) if whole else forms.FloatField(required=False)
    try:
        return field.clean(data.get(name))
    except ValidationError:
        raise InvalidInput((
            gettext("%(name)s must be a whole number") if whole else gettext("%(name)s must be a number")
        ) % {"name": name}, field=name) from None
