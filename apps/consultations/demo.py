"""Demo data for consultations (seed_demo): the rulebooks from the repository files, and one open round with
two decision questions for the demo expert. The questions are written here, labelled as demo data (origin
"demo"); no agent ran. They are modelled on decision points the paper names (answer aliases, units and
notation) and attach the demo source samples they fit. Idempotent and offline."""

from django.apps import apps
from django.db.models import Q

from apps.consultations import services
from apps.consultations.models import QuestionOrigin, Round, RoundStatus, Rulebook
from apps.consultations.rulebooks import load_rulebooks
from apps.sources.models import SourceSample

DEMO_QUESTIONS = [
    {
        "title": "Answer aliases: which Korean forms a short answer accepts",
        "decision_needed": (
            "Short answers such as a language, a currency or an author's name have several correct Korean forms "
            "(일본 엔, 엔화, 엔; 톨킨, J. R. R. 톨킨). ht-aliases says to reconstruct Korean aliases, but not how far: "
            "decide which forms count as correct."
        ),
        "options": [
            {"key": "A", "label": "Every established Korean form, deduplicated",
             "effect": "Aliases list all common Korean forms; forms that collapse into one are kept once."},
            {"key": "B", "label": "Only the standard Korean form",
             "effect": "One alias per answer; models answering with a common variant are marked wrong."},
            {"key": "C", "label": "Korean forms plus the English original",
             "effect": "Aliases also accept the English answer as spoken."},
        ],
        "recommendation": "A",
        "recommendation_why": "The paper reconstructs Korean aliases to avoid both under-accepting valid variants and over-counting.",
        "rules_touched": ["ht-aliases"],
        "match": ["language do they speak", "currency", "author of"],
    },
    {
        "title": "Numbers and symbols as answers: digits, Korean numerals, or the symbol itself",
        "decision_needed": (
            "Some answers are a number or a scientific symbol (eight, Au). Decide whether the Korean answer is written "
            "with digits, Korean numerals or the original symbol, and which of them the aliases accept."
        ),
        "options": [
            {"key": "A", "label": "Digits and the symbol as written; Korean readings as aliases",
             "effect": "Answer 8 with aliases 여덟, 팔; Au stays Au with alias 금."},
            {"key": "B", "label": "Korean words only",
             "effect": "Answer 여덟; Au becomes 금."},
        ],
        "recommendation": "A",
        "recommendation_why": "ht-terminology keeps notation verbatim, and spoken answers may use either reading.",
        "rules_touched": ["ht-terminology", "ht-aliases"],
        "match": ["how many legs", "chemical symbol"],
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
    round = services.create_round(rulebook=rulebook, acting_user=admin, max_questions=4, lead_expert=expert, is_demo=True)
    for spec in DEMO_QUESTIONS:
        # The demo benchmarks' samples that fit the question, if transfer's demo data is there.
        matches = Q()
        for text in spec["match"]:
            matches |= Q(transcription__icontains=text)
        samples = list(SourceSample.objects.filter(matches).order_by("pk")[:5])
        services.create_question(
            round=round, title=spec["title"], decision_needed=spec["decision_needed"], options=spec["options"],
            recommendation=spec["recommendation"], recommendation_why=spec["recommendation_why"],
            rules_touched=spec["rules_touched"], samples=samples, origin=QuestionOrigin.DEMO, acting_user=admin,
        )
    services.set_round_status(round=round, status=RoundStatus.ANSWERING, acting_user=admin,
                              message="Demo questions written by seed_demo (no agent ran); open for the demo expert")
    stdout.write(f"consultations: {round} with {len(DEMO_QUESTIONS)} demo questions for the expert")
