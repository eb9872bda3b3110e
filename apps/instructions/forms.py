from django import forms


class InstructionsForm(forms.Form):
    text_ko = forms.CharField(label="Instructions in Korean", widget=forms.Textarea(attrs={"rows": 6, "lang": "ko"}))
    text_en = forms.CharField(label="Instructions in English (optional)", required=False,
                              widget=forms.Textarea(attrs={"rows": 6, "lang": "en"}))
