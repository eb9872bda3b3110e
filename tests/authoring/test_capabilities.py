"""KMMAU difficulty labels come from seed 000 Appendix Table 6 by the rule the docstring states: easy when
the eight models' mean accuracy is over 80 %, hard under 35 %, medium between."""

import pytest

from apps.authoring.capabilities import SPECS, TABLE6_ACCURACY, Capability, difficulty_for

# Seed 000 Table 6, row "Average": each model's mean over the nine capabilities, as printed (one decimal).
TABLE6_MODEL_AVERAGES = (71.8, 62.9, 45.2, 64.8, 30.7, 70.4, 31.6, 62.9)


def test_the_transcribed_table_gives_the_papers_model_averages():
    for model, printed in enumerate(TABLE6_MODEL_AVERAGES):
        mean = sum(acc[model] for acc in TABLE6_ACCURACY.values()) / len(TABLE6_ACCURACY)
        assert mean == pytest.approx(printed, abs=0.05)


@pytest.mark.parametrize(("capability", "label"), [
    (Capability.AGE, "medium"),               # 40.7 %
    (Capability.GENDER, "medium"),            # 74.2 %: not over 80 %, so not easy
    (Capability.NUM_SPEAKERS, "hard"),        # 28.2 %
    (Capability.WORD_ORDER, "medium"),        # 65.4 %
    (Capability.WORD_FREQUENCY, "hard"),      # 28.1 %
    (Capability.FACT_EXTRACTION, "medium"),   # 69.8 %
    (Capability.TOPIC_SUMMARY, "medium"),     # 79.0 %: not over 80 %, so not easy
    (Capability.ROLE_PROFESSION, "medium"),   # 66.9 %
    (Capability.GENERAL_COUNTING, "medium"),  # 43.0 %: not under 35 %, so not hard
])
def test_each_capability_is_labelled_by_its_table6_mean(capability, label):
    assert SPECS[capability].difficulty == label


def test_the_rule_bounds_are_strict():
    assert difficulty_for(80.0) == "medium" and difficulty_for(80.1) == "easy"
    assert difficulty_for(35.0) == "medium" and difficulty_for(34.9) == "hard"
