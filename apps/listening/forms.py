from django import forms
from django.utils.translation import gettext_lazy as _


class ImportForm(forms.Form):
    name = forms.CharField(max_length=200, help_text=_("a unique name for the new test"))
    bundle = forms.FileField(help_text=_("a .zip holding one manifest (.csv or .jsonl) and the audio files it names"))


class SplitForm(forms.Form):
    train = forms.FloatField(min_value=0, max_value=1, initial=0.81)
    validation = forms.FloatField(min_value=0, max_value=1, initial=0.09)
    test = forms.FloatField(min_value=0, max_value=1, initial=0.10)
    seed = forms.IntegerField(min_value=0, initial=0)
    hold_out_speakers = forms.IntegerField(
        min_value=0, initial=0, required=False, label=_("Held-out speakers"),
        help_text=_("every clip of this many random speakers goes to test first (speaker-disjoint subset)"),
    )
    hold_out_texts = forms.IntegerField(
        min_value=0, initial=0, required=False, label=_("Held-out texts"),
        help_text=_("every clip of this many random texts goes to test first (text-disjoint subset)"),
    )

    def clean(self):
        data = super().clean()
        ratios = [data.get(k) for k in ("train", "validation", "test")]
        if None not in ratios and abs(sum(ratios) - 1) > 1e-6:
            raise forms.ValidationError("the three ratios must add up to 1")
        for field in ("hold_out_speakers", "hold_out_texts"):
            data[field] = data.get(field) or 0  # left empty: hold out none
        return data


class PredictionsForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, help_text=_("the predictor's name (unless the CSV has a predictor column)"))
    file = forms.FileField(help_text=_("CSV with columns clip_id, score (and optionally predictor)"))
