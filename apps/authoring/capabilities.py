"""The nine KMMAU capabilities (seed 000, section 4.3; DESIGN.md 2.3): their category, construction method,
option count, the label the export writes, and the difficulty Sori gives them.

Difficulty follows how hard each capability was for the eight models of seed 000 Appendix Table 6 (mean
accuracy): gender and topic summary easy (over 80 %), number of speakers and word frequency hard (under
35 %), the rest medium. MMAU's evaluation script only accepts easy, medium and hard."""

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


class Method(models.TextChoices):
    METADATA = "metadata", "Rule-based from metadata"
    TRANSCRIPT = "transcript", "Rule-based from transcripts"
    AGENT = "agent", "Agent-generated with human review"
    MANUAL = "manual", "Fully manual"


@dataclass(frozen=True)
class Spec:
    category: str  # "Acoustic" or "Contextual", as seed 000 Table 6 writes them
    method: str
    options: int
    difficulty: str


SPECS: dict[str, Spec] = {
    Capability.AGE: Spec("Acoustic", Method.METADATA, 3, "medium"),
    Capability.GENDER: Spec("Acoustic", Method.METADATA, 2, "easy"),
    Capability.NUM_SPEAKERS: Spec("Acoustic", Method.METADATA, 4, "hard"),
    Capability.WORD_ORDER: Spec("Contextual", Method.TRANSCRIPT, 4, "medium"),
    Capability.WORD_FREQUENCY: Spec("Contextual", Method.TRANSCRIPT, 4, "hard"),
    Capability.FACT_EXTRACTION: Spec("Contextual", Method.AGENT, 4, "medium"),
    Capability.TOPIC_SUMMARY: Spec("Contextual", Method.AGENT, 4, "easy"),
    Capability.ROLE_PROFESSION: Spec("Contextual", Method.MANUAL, 4, "medium"),
    Capability.GENERAL_COUNTING: Spec("Contextual", Method.MANUAL, 4, "hard"),
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
