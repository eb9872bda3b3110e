"""The nine KMMAU capabilities (seed 000, section 4.3; DESIGN.md 2.3): their category, construction method,
option count, the label the export writes, and the difficulty Sori gives them.

Difficulty follows how hard each capability was for the eight models of seed 000 Appendix Table 6: easy
when their mean accuracy is over 80 %, hard under 35 %, medium between (`difficulty_for`). By that rule no
capability is easy (gender 74.2 %, topic summary 79.0 %), number of speakers (28.2 %) and word frequency
(28.1 %) are hard, and the rest medium. MMAU's evaluation script only accepts easy, medium and hard."""

from dataclasses import dataclass

from django.db import models


class Capability(models.TextChoices):
    AGE = "age", "Age"
    GENDER = "gender", "Gender"
    NUM_SPEAKERS = "num_speakers", "Number of Speakers"
    WORD_ORDER = "word_order", "Word Order"
    WORD_FREQUENCY = "word_frequency", "Word Frequency"
    FACT_EXTRACTION = "fact_extraction", "Fact Extraction"
    TOPIC_SUMMARY = "topic_summary", "Topic Summary"
    ROLE_PROFESSION = "role_profession", "Role/Profession"
    GENERAL_COUNTING = "general_counting", "General Counting"


def capability_label(code) -> str:
    """A capability as people read it ("fact_extraction" -> "Fact Extraction", the words the export writes):
    the one mapping every page that shows a KMMAU capability uses (authoring's pages through the `capability`
    filter of the kmmau template tags, the evaluation pages too). An unknown code is shown as it is."""
    try:
        return str(Capability(code).label)
    except ValueError:
        return "" if code is None else str(code)


class Method(models.TextChoices):
    METADATA = "metadata", "Rule-based from metadata"
    TRANSCRIPT = "transcript", "Rule-based from transcripts"
    AGENT = "agent", "Agent-generated with human review"
    MANUAL = "manual", "Fully manual"


# Seed 000 Appendix Table 6: accuracy (%) of the eight models (Raon-Speech, Qwen2.5-Omni, Audio Flamingo3,
# Step-Audio 2 Mini, Interactive Omni, Fun-Audio Chat, HyperCLOVA X 8B Omni, MiniCPM-o 4.5) per capability.
TABLE6_ACCURACY: dict[str, tuple[float, ...]] = {
    Capability.AGE: (62.0, 41.3, 21.0, 52.2, 29.0, 47.5, 21.0, 51.8),
    Capability.GENDER: (93.7, 98.9, 57.0, 88.9, 46.3, 87.8, 30.0, 91.1),
    Capability.NUM_SPEAKERS: (30.0, 29.0, 26.0, 28.0, 23.0, 33.0, 21.0, 36.0),
    Capability.WORD_ORDER: (98.7, 80.4, 54.1, 94.0, 52.6, 74.1, 15.0, 54.3),
    Capability.WORD_FREQUENCY: (42.8, 34.4, 13.9, 25.6, 21.1, 42.2, 18.9, 26.1),
    Capability.FACT_EXTRACTION: (86.9, 81.8, 59.6, 79.8, 33.3, 91.9, 36.4, 88.9),
    Capability.TOPIC_SUMMARY: (92.0, 82.0, 72.0, 91.0, 32.0, 96.0, 69.0, 98.0),
    Capability.ROLE_PROFESSION: (75.0, 80.0, 69.0, 83.0, 14.0, 92.0, 44.0, 78.0),
    Capability.GENERAL_COUNTING: (65.4, 38.5, 34.6, 40.4, 25.0, 69.2, 28.8, 42.3),
}
EASY_ABOVE, HARD_BELOW = 80.0, 35.0  # mean accuracy (%) bounds of the difficulty labels


def difficulty_for(mean_accuracy: float) -> str:
    """MMAU's difficulty label for a capability the models answer with this mean accuracy (%)."""
    if mean_accuracy > EASY_ABOVE:
        return "easy"
    return "hard" if mean_accuracy < HARD_BELOW else "medium"


# Derived from the table, in one place: the export and the release read it through SPECS.
DIFFICULTY: dict[str, str] = {cap: difficulty_for(sum(acc) / len(acc)) for cap, acc in TABLE6_ACCURACY.items()}


@dataclass(frozen=True)
class Spec:
    category: str  # "Acoustic" or "Contextual", as seed 000 Table 6 writes them
    method: str
    options: int
    difficulty: str


def _spec(capability: str, category: str, method: str, options: int) -> Spec:
    return Spec(category, method, options, DIFFICULTY[capability])


SPECS: dict[str, Spec] = {
    Capability.AGE: _spec(Capability.AGE, "Acoustic", Method.METADATA, 3),
    Capability.GENDER: _spec(Capability.GENDER, "Acoustic", Method.METADATA, 2),
    Capability.NUM_SPEAKERS: _spec(Capability.NUM_SPEAKERS, "Acoustic", Method.METADATA, 4),
    Capability.WORD_ORDER: _spec(Capability.WORD_ORDER, "Contextual", Method.TRANSCRIPT, 4),
    Capability.WORD_FREQUENCY: _spec(Capability.WORD_FREQUENCY, "Contextual", Method.TRANSCRIPT, 4),
    Capability.FACT_EXTRACTION: _spec(Capability.FACT_EXTRACTION, "Contextual", Method.AGENT, 4),
    Capability.TOPIC_SUMMARY: _spec(Capability.TOPIC_SUMMARY, "Contextual", Method.AGENT, 4),
    Capability.ROLE_PROFESSION: _spec(Capability.ROLE_PROFESSION, "Contextual", Method.MANUAL, 4),
    Capability.GENERAL_COUNTING: _spec(Capability.GENERAL_COUNTING, "Contextual", Method.MANUAL, 4),
}

RULE_CAPABILITIES = [c for c, s in SPECS.items() if s.method in (Method.METADATA, Method.TRANSCRIPT)]
AGENT_CAPABILITIES = [c for c, s in SPECS.items() if s.method == Method.AGENT]
MANUAL_CAPABILITIES = [c for c, s in SPECS.items() if s.method == Method.MANUAL]


def default_targets() -> dict[str, int]:
    """The paper's counts: 646 acoustic and 1,558 contextual questions (2,204), split evenly over the
    capabilities of each category (the paper gives no per-capability counts); editable per set."""
    targets: dict[str, int] = {}
    for category, total in (("Acoustic", 646), ("Contextual", 1558)):
        caps = [c for c, s in SPECS.items() if s.category == category]
        share, extra = divmod(total, len(caps))
        for i, cap in enumerate(caps):
            targets[str(cap)] = share + (1 if i < extra else 0)
    return targets


class Gender(models.TextChoices):
    MALE = "male", "남성"
    FEMALE = "female", "여성"


class AgeGroup(models.TextChoices):
    YOUNG = "young", "청년"
    MIDDLE = "middle", "중년"
    SENIOR = "senior", "노년"


# Spellings a corpus or manifest may use for the values above.
GENDER_ALIASES = {
    "male": Gender.MALE, "m": Gender.MALE, "man": Gender.MALE, "남": Gender.MALE, "남성": Gender.MALE, "남자": Gender.MALE,
    "female": Gender.FEMALE, "f": Gender.FEMALE, "woman": Gender.FEMALE, "여": Gender.FEMALE, "여성": Gender.FEMALE,
    "여자": Gender.FEMALE,
}
AGE_ALIASES = {
    "young": AgeGroup.YOUNG, "youth": AgeGroup.YOUNG, "청년": AgeGroup.YOUNG, "20s": AgeGroup.YOUNG, "30s": AgeGroup.YOUNG,
    "middle": AgeGroup.MIDDLE, "middle-aged": AgeGroup.MIDDLE, "중년": AgeGroup.MIDDLE, "40s": AgeGroup.MIDDLE,
    "50s": AgeGroup.MIDDLE,
    "senior": AgeGroup.SENIOR, "old": AgeGroup.SENIOR, "elderly": AgeGroup.SENIOR, "노년": AgeGroup.SENIOR,
    "60s": AgeGroup.SENIOR, "70s": AgeGroup.SENIOR,
}
