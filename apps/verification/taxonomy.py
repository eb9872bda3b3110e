"""The HPSU task taxonomy (seed 003, Table 1): 16 tasks in 5 domains, the three answer formats, the three
distractor tiers and the three prompt variants. Names are the release's `category` / `sub-category` values."""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


@dataclass(frozen=True)
class Task:
    name: str
    abbr: str
    domain: str


DOMAINS = [
    "Social Attributes",
    "Emotion Recognition",
    "Emotion Reasoning",
    "Nonverbal Behavior",
    "Discourse Context",
]

TASKS = [
    Task("Age", "Age", "Social Attributes"),
    Task("Gender", "Gen", "Social Attributes"),
    Task("Accent", "Acc", "Social Attributes"),
    Task("Main Emotion", "MEmo", "Emotion Recognition"),
    Task("Emotions", "Emos", "Emotion Recognition"),
    Task("Emotion Intensity", "EIns", "Emotion Recognition"),
    Task("Emotion Shift Easy", "SE", "Emotion Reasoning"),
    Task("Emotion Shift Hard", "SH", "Emotion Reasoning"),
    Task("Mismatch Easy", "ME", "Emotion Reasoning"),
    Task("Mismatch Hard", "MH", "Emotion Reasoning"),
    Task("Speech Style", "Style", "Nonverbal Behavior"),
    Task("Visual", "Vis", "Nonverbal Behavior"),
    Task("Description", "Desc", "Nonverbal Behavior"),
    Task("Intent", "Intent", "Discourse Context"),
    Task("Scene", "Scn", "Discourse Context"),
    Task("Subtext", "Subt", "Discourse Context"),
]
TASKS_BY_NAME = {t.name: t for t in TASKS}
# Lenient lookup: the release spells tasks by full name; abbreviations and case differences are accepted.
_LOOKUP = {key.casefold(): t for t in TASKS for key in (t.name, t.abbr)}


def find_task(value) -> Task | None:
    if not isinstance(value, str):
        return None
    return _LOOKUP.get(value.strip().casefold())


TASK_CHOICES = [(t.name, t.name) for t in TASKS]
DOMAIN_CHOICES = [(d, d) for d in DOMAINS]

# The release's `type` values and the format each names.
SINGLE, MULTIPLE, YES_NO = "single", "multiple", "yes_no"
FORMAT_CHOICES = [(SINGLE, _("Single choice")), (MULTIPLE, _("Multiple choice")), (YES_NO, _("Yes/no"))]
TYPE_TO_FORMAT = {"Single-Choice": SINGLE, "Multiple-Choice": MULTIPLE, "Judgment/Binary": YES_NO}
METRICS = {"SC_type_eval", "SC_notype_eval", "MC_eval", "JB_eval"}

TIERS = ["similar", "middle", "opposite"]  # a distractor's distance from the true answer
# What each tier means to an annotator checking a distractor (the codes above are the release's words).
TIER_LABELS = {
    "similar": "close to the answer (a plausible confusion)",
    "middle": "somewhat related",
    "opposite": "clearly wrong (opposite of the answer)",
}
# The same on pages, in the reader's language (the API and exports keep TIER_LABELS' English).
TIER_NAMES = {
    "similar": _("close to the answer (a plausible confusion)"),
    "middle": _("somewhat related"),
    "opposite": _("clearly wrong (opposite of the answer)"),
}
PROMPT_VARIANTS = ["standard", "positive", "negative"]
PROMPT_VARIANT_LABELS = {
    "standard": pgettext_lazy("prompt variant", "standard"),
    "positive": pgettext_lazy("prompt variant", "positive (hints the answer)"),
    "negative": pgettext_lazy("prompt variant", "negative (misleads)"),
}
LANGUAGES = {"en": _("English"), "zh": _("Chinese"), "ko": _("Korean")}
# The task and domain names as a reviewer reads them; the codes above stay the release's English words.
TASK_LABELS = {
    "Age": _("Age"), "Gender": _("Gender"), "Accent": _("Accent"), "Main Emotion": _("Main Emotion"),
    "Emotions": _("Emotions"), "Emotion Intensity": _("Emotion Intensity"), "Emotion Shift Easy": _("Emotion Shift Easy"),
    "Emotion Shift Hard": _("Emotion Shift Hard"), "Mismatch Easy": _("Mismatch Easy"), "Mismatch Hard": _("Mismatch Hard"),
    "Speech Style": _("Speech Style"), "Visual": _("Visual"), "Description": _("Description"), "Intent": _("Intent"),
    "Scene": _("Scene"), "Subtext": _("Subtext"),
}
DOMAIN_LABELS = {
    "Social Attributes": _("Social Attributes"), "Emotion Recognition": _("Emotion Recognition"),
    "Emotion Reasoning": _("Emotion Reasoning"), "Nonverbal Behavior": _("Nonverbal Behavior"),
    "Discourse Context": _("Discourse Context"),
}

# Yes/no answers as people and models write them, in the three languages.
YES_WORDS = {"yes", "y", "true", "correct", "예", "네", "맞다", "맞아요", "是", "对", "是的", "正确"}
NO_WORDS = {"no", "n", "false", "incorrect", "아니요", "아니오", "아니다", "否", "不是", "不对", "错误"}
