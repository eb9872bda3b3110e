from django.apps import AppConfig
from django.urls import reverse

from apps.accounts.navigation import NavLink, Panel


# The imports left inside the methods wait for the app registry: this module loads before any model does.
class TransferConfig(AppConfig):
    name = "apps.transfer"
    label = "transfer"
    verbose_name = "Spoken-QA benchmark transfer"

    def ready(self):
        from apps.consultations import hooks
        from apps.transfer import jobs, rules  # noqa: F401  (register job handlers and permission rules)
        from apps.transfer.ground_truth.services import on_ground_truth_decided
        from apps.transfer.selectors import effective_answer

        # Consultations is below transfer and imports nothing of it: transfer pushes corrections for an expert
        # into its inbox, and fills the two hooks through which the inbox reaches back up (a decided question
        # resolves its correction; prompts show a sample's effective answer).
        hooks.ground_truth_decided.connect(on_ground_truth_decided, dispatch_uid="transfer.ground_truth")
        hooks.provide_answers(effective_answer)

    def nav_links(self, user):
        links = []
        if getattr(user, "is_sori_admin", False):
            links.append(NavLink("Source benchmarks", reverse("transfer:home")))
        if getattr(user, "is_sori_admin", False) or (hasattr(user, "has_role") and user.has_role("expert")):
            links += [NavLink("Hypertranslation", reverse("transfer:translation_runs")),
                      NavLink("Normalization", reverse("transfer:normalize"))]
        return links

    def home_panels(self, user):
        if not getattr(user, "is_sori_admin", False):
            return []
        from apps.transfer.models import Correction, CorrectionStatus, GroundTruthReview, ReviewOutcome

        attention = (Correction.objects.filter(status=CorrectionStatus.NEEDS_ATTENTION).count()
                     + GroundTruthReview.objects.filter(outcome=ReviewOutcome.NEEDS_ATTENTION).count())
        return [
            Panel("Ground-truth correction", reverse("transfer:ground_truth"),
                  description="Reviewer and meta-reviewer agents audit source answers; progress, cost and report.",
                  role="admin"),
            Panel("Ground-truth items needing attention", reverse("transfer:corrections") + "?status=needs_attention",
                  description="Reviews whose agent answer stayed invalid or whose provider kept failing.",
                  count=attention, role="admin"),
        ]

    def seed_demo(self, stdout):
        from apps.transfer.demo import seed

        seed(stdout)
