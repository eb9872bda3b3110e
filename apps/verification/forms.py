from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core import limits
from apps.verification.models import Reason


class ImportForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Project name"), help_text=_("A new name creates a project; an existing one adds items to it."))
    file = forms.FileField(label=_("Items file (HPSU JSON array or JSONL)"))
    media = forms.FileField(label=_("Media (a .zip whose paths match audio_path)"))
    settle_on_first_rejection = forms.BooleanField(required=False, label=_("Settle an item at its first rejection (saves work; agreement statistics then lack those items)"))


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    reasons = forms.MultipleChoiceField(choices=Reason.choices, required=False)
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=limits.COMMENT)
    seconds_spent = forms.FloatField(required=False, min_value=0)


class BaselineForm(forms.Form):
    name = forms.CharField(max_length=200)
    size = forms.IntegerField(min_value=1, max_value=100000, initial=300, label=_("Sample size (stratified by task)"))


class PredictionsForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Model name"))
    file = forms.FileField(label=_("Predictions (CSV or JSON/JSONL with id, prediction[, variant])"))


class SettingsForm(forms.Form):
    settle_on_first_rejection = forms.BooleanField(required=False)
