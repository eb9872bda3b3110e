"""Rule categories as a person reads them on a page, in the active language. The rulebook files keep
rulebook_files.category_label's English, the language of the files under version control."""

from django.utils.translation import gettext_lazy as _

from apps.consultations.rulebook_files import category_label

CATEGORY_NAMES = {
    # normalization (seed 000, Appendix C and Table 4)
    "acronyms": _("Acronyms"), "chemical_formulas": _("Chemical formulas"), "consonant_labels": _("Consonant labels"),
    "context_dependent": _("Context dependent"), "counter_numerals": _("Counter numerals"), "currency": _("Currency"),
    "dates_and_times": _("Dates and times"), "english_proper_nouns": _("English proper nouns"),
    "math_science": _("Math and science notation"), "negatives_and_temperatures": _("Negatives and temperatures"),
    "numbers": _("Numbers"), "percent": _("Percent"), "punctuation": _("Punctuation"), "ranges": _("Ranges"),
    "units": _("Units"), "urls_and_files": _("URLs and file names"),
    # hypertranslation
    "aliases": _("Answer aliases"), "case_removal": _("Case removal"), "currency_and_units": _("Currency and units"),
    "dates": _("Dates"), "fixed_phrases": _("Fixed phrases"), "grammar_redesign": _("Grammar redesign"),
    "letter_mapping": _("Letter mapping"), "multiple_choice_labels": _("Multiple-choice labels"),
    "proper_nouns": _("Proper nouns"), "register": _("Register"), "terminology": _("Terminology"), "wordplay": _("Wordplay"),
}


def category_name(category: str) -> str:
    return str(CATEGORY_NAMES.get(category, category_label(category)))
