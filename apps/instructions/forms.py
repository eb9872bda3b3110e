from django import forms
from django.utils.translation import gettext_lazy as _


class InstructionsForm(forms.Form):
    text_ko = forms.CharField(label=_("Instructions in Korean"), widget=forms.Textarea(attrs={"rows": 6, "lang": "ko"}))
    text_en = forms.CharField(label=_("Instructions in English (optional)"), required=False,
                              widget=forms.Textarea(attrs={"rows": 6, "lang": "en"}))
