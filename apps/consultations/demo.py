"""Demo data for consultations (seed_demo): the rulebooks from the repository files, and one open round with
two decision questions for the demo expert. The questions are written here, labelled as demo data (origin
"demo"); no agent ran. They are modelled on decision points the paper names (time-sensitive answers,
culture-specific content). Idempotent and offline."""

from django.apps import apps

from apps.consultations import services
from apps.consultations.models import QuestionOrigin, Round, RoundStatus, Rulebook
from apps.consultations.rulebooks import load_rulebooks

DEMO_QUESTIONS = [
    {
        "title": "Time-sensitive answers: what to do when the source answer is out of date",
        "decision_needed": (
            "Some short-answer questions ask about facts that change (office holders, records, capitals that moved). "
            "The rulebook has no rule for them. Decide how a Korean sample treats an answer that may be out of date."
        ),
        "options": [
            {"key": "A", "label": "Keep the question; accept the source answer and the current one as aliases",
             "effect": "The samples stay; their Korean aliases include both answers."},
            {"key": "B", "label": "Rewrite the question with an explicit year",
             "effect": "The samples are redesigned (equivalent replacement): '... in 2019?'."},
            {"key": "C", "label": "Delete the samples",
             "effect": "The samples are removed from the Korean benchmark."},
        ],
        "recommendation": "B",
        "recommendation_why": "A year keeps one correct answer without discarding the sample.",
        "rules_touched": ["ht-aliases"],
        "task_type": "short_answer",
    },
    {
        "title": "Culture-specific content: US-only facts in general-knowledge questions",
        "decision_needed": (
            "Questions about US-specific customs or local facts may be unfair to Korean listeners, but they test the "
            "same knowledge retrieval. Decide whether to translate, localise or drop them."
        ),
        "options": [
            {"key": "A", "label": "Translate directly; the fact stays American",
             "effect": "Direct translation; proper nouns follow ht-proper-nouns."},
            {"key": "B", "label": "Replace with an equivalent Korean fact",
             "effect": "Equivalent replacement; the answer changes with the question."},
        ],
        "recommendation": "A",
        "recommendation_why": "The benchmark measures retrieval of the same facts across languages; localising changes the item.",
        "rules_touched": ["ht-proper-nouns"],
        "task_type": "multiple_choice",
    },
]


def seed_demo(stdout) -> None:
    load_rulebooks()
    if Round.objects.filter(is_demo=True).exists():
        stdout.write("consultations: demo round exists")
        return
    rulebook = Rulebook.objects.get(slug="ko-hypertranslation")
    User = apps.get_model("accounts", "User")
    admin = User.objects.filter(username="admin").first()
    expert = User.objects.filter(username="expert").first()
    if rulebook.rounds.exclude(status=RoundStatus.CLOSED).exists():
        stdout.write("consultations: a round is already in progress; no demo round added")
        return
    round = services.create_round(rulebook=rulebook, user=admin, max_questions=4, lead_expert=expert, is_demo=True)
    Sample = apps.get_model("transfer", "SourceSample")
    for spec in DEMO_QUESTIONS:
        samples = list(Sample.objects.filter(task_type=spec["task_type"]).order_by("pk")[:3])
        services.create_question(
            round=round, title=spec["title"], decision_needed=spec["decision_needed"], options=spec["options"],
            recommendation=spec["recommendation"], recommendation_why=spec["recommendation_why"],
            rules_touched=spec["rules_touched"], samples=samples, origin=QuestionOrigin.DEMO, actor=admin,
        )
    services.set_round_status(round, RoundStatus.ANSWERING, actor=admin,
                              message="Demo questions written by seed_demo (no agent ran); open for the demo expert")
    stdout.write(f"consultations: {round} with {len(DEMO_QUESTIONS)} demo questions for the expert")
