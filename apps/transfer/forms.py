import json

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core import limits
from apps.sources.catalogue import SourceFormat
from apps.sources.models import SourceBenchmark
from apps.transfer.models import CorrectionStatus, UnresolvedPolicy
from apps.transfer.normalizer import MAX_CHARS


def preselected(form_class, query, *names: str) -> dict:
    """Initial values of a stage's start form from the page's query string: the previous stage's "Next" link
    names the benchmark (?benchmark=voicebench). Each value is cleaned by its field exactly as a submitted one
    would be, and one that does not validate (a benchmark that does not exist) is left out."""
    initial = {}
    for name in names:
        if name in query:
            try:
                initial[name] = form_class.base_fields[name].clean(query[name])
            except forms.ValidationError:
                pass
    return initial


def budget(value):
    """A form's budget cap (a Decimal or None) as a stage's start function takes it."""
    return float(value) if value is not None else None


class ImportForm(forms.Form):
    format = forms.ChoiceField(choices=SourceFormat.choices)
    subset = forms.CharField(max_length=100, help_text=_("e.g. sd-qa, mmsu, openbookqa, bbh, web_questions, trivia_qa"))
    benchmark = forms.SlugField(max_length=100, required=False, help_text=_("default: the format name"))
    file = forms.FileField(help_text=_("VoiceBench .jsonl or .parquet; OpenAudioBench .csv"))


class AudioImportForm(forms.Form):
    benchmark = forms.ModelChoiceField(queryset=SourceBenchmark.objects.all(), to_field_name="name")
    file = forms.FileField(label=_("Audio (zip)"), help_text="the benchmark's audio files, named as its records name them or "
                                                          "SUBSET/SOURCE_ID.wav (e.g. sd-qa/sd-qa-00001.wav)")


class StartReviewForm(forms.Form):
    benchmark = forms.ModelChoiceField(queryset=SourceBenchmark.objects.all(), to_field_name="name")
    subset = forms.CharField(max_length=100, required=False, help_text=_("empty: every subset"))
    limit = forms.IntegerField(min_value=1, required=False, help_text=_("only the first N deterministic samples"))
    on_unresolved = forms.ChoiceField(choices=UnresolvedPolicy.choices, initial=UnresolvedPolicy.EXCLUDE,
                                      label=_("A rejected or unresolved correction"))
    budget_usd = forms.DecimalField(min_value=0, decimal_places=2, required=False, label=_("Budget cap (USD)"),
                                    help_text=_("the job stops before its cost would pass this"))


class OverturnForm(forms.Form):
    to_status = forms.ChoiceField(choices=[(CorrectionStatus.CONFIRMED, "Confirm (apply)"),
                                           (CorrectionStatus.REJECTED, "Reject (exclude)")])
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


class StartTranslationForm(forms.Form):
    benchmark = forms.ModelChoiceField(queryset=SourceBenchmark.objects.all(), to_field_name="name")
    subset = forms.CharField(max_length=100, required=False, help_text=_("empty: every subset"))
    limit = forms.IntegerField(min_value=1, required=False, help_text=_("only the first N included samples"))
    version = forms.IntegerField(min_value=1, required=False, label=_("Rulebook version"),
                                 help_text=_("a published hypertranslation version; empty: the latest"))
    budget_usd = forms.DecimalField(min_value=0, decimal_places=2, required=False, label=_("Budget cap (USD)"))


class CorrectTranslationForm(forms.Form):
    transcription_ko = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), label=_("Korean transcription"),
                                       max_length=limits.SAMPLE_TEXT)
    answer_ko = forms.CharField(required=False, label=_("Korean answer"), max_length=limits.SAMPLE_TEXT)
    aliases_ko = forms.CharField(required=False, label=_("Korean aliases"), help_text=_("one per line"),
                                 widget=forms.Textarea(attrs={"rows": 3}), max_length=limits.SAMPLE_TEXT)
    checker = forms.CharField(
        required=False, label=_("Korean checker data (JSON)"), widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        max_length=limits.SAMPLE_TEXT,
        help_text='IFEval: {"instruction_id_list": [...], "kwargs": [{...}, ...], "removed_instructions": '
                  '[{"instruction_id": ..., "rule": ...}]}; BBH: {"task": ..., "choices": [...]}')
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label=_("Why"), max_length=limits.NOTE)

    def __init__(self, *args, checker: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not checker:  # only IFEval and BBH items carry checker data
            del self.fields["checker"]

    def clean_checker(self):
        text = self.cleaned_data["checker"].strip()
        if not text:
            return None
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("write a JSON object")
        return value

    def aliases(self) -> list[str]:
        return [a.strip() for a in self.cleaned_data["aliases_ko"].splitlines() if a.strip()]


class NormalizeTextForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_CHARS, label=_("Korean text"))
    preserve = forms.CharField(required=False, label=_("Keep as written"), help_text=_("English terms, comma-separated"))
    use_agent = forms.BooleanField(required=False, initial=True, label=_("Ask the normalizer agent for context-dependent spans"))


class StartNormalizationForm(forms.Form):
    benchmark = forms.ModelChoiceField(queryset=SourceBenchmark.objects.all(), to_field_name="name")
    subset = forms.CharField(max_length=100, required=False, help_text=_("empty: every subset"))
    limit = forms.IntegerField(min_value=1, required=False)
    version = forms.IntegerField(min_value=1, required=False, label=_("Rulebook version"),
                                 help_text=_("a published normalization version; empty: the latest"))
    budget_usd = forms.DecimalField(min_value=0, decimal_places=2, required=False, label=_("Budget cap (USD)"))
