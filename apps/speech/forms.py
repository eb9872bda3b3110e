from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.core import limits
from apps.sources.models import SourceBenchmark


class StartRunForm(forms.Form):
    benchmark = forms.ModelChoiceField(queryset=SourceBenchmark.objects.all(), to_field_name="name")
    subset = forms.CharField(required=False, max_length=100)
    limit = forms.IntegerField(required=False, min_value=1)
    cer_threshold = forms.FloatField(min_value=0, initial=lambda: settings.SPEECH_CER_THRESHOLD,
                                     help_text=_("a sample passes at or under this character error rate"))
    max_attempts = forms.IntegerField(min_value=1, max_value=10, initial=lambda: settings.SPEECH_MAX_ATTEMPTS)
    seed = forms.IntegerField(min_value=0, initial=0, help_text=_("decides the voice assignment and attempt seeds"))


class EditTextForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=limits.SAMPLE_TEXT)
    note = forms.CharField(required=False, max_length=500)


class AcceptForm(forms.Form):
    attempt = forms.IntegerField()
    note = forms.CharField(required=False, max_length=500)
