from django.apps import AppConfig
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.accounts.navigation import NavLink, Panel, Stage, Todo
from apps.accounts.permissions import can


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
        if can(user, "transfer.manage"):
            links += [NavLink(_("Source benchmarks"), reverse("transfer:home"), group="spoken_qa", order=10),
                      NavLink(_("Ground truth"), reverse("transfer:ground_truth"), group="spoken_qa", order=20)]
        if can(user, "transfer.review"):
            links += [NavLink(_("Hypertranslation"), reverse("transfer:translation_runs"), group="spoken_qa", order=30),
                      NavLink(_("Normalization"), reverse("transfer:normalize"), group="spoken_qa", order=40)]
        return links

    def home_panels(self, user):
        if not can(user, "transfer.manage"):
            return []
        # What needs attention is on the home page's to-do list (todos below), only when there is some.
        return [
            Panel(_("Ground-truth correction"), reverse("transfer:ground_truth"),
                  description=_("Reviewer and meta-reviewer agents audit source answers; progress, cost and report."),
                  role="admin"),
        ]

    def pipeline_stages(self, user):
        if not can(user, "transfer.manage"):
            return []
        from apps.transfer.selectors import pipeline_counts

        counts = pipeline_counts()
        undecided = gettext("%(n)s undecided under the rulebook") % {"n": counts["undecided"]} if counts["undecided"] else ""
        return [
            Stage("spoken_qa", 10, _("Source"), counts["samples"], reverse("transfer:home"), _("samples")),
            Stage("spoken_qa", 20, _("Ground truth"), counts["reviewed"], reverse("transfer:ground_truth"), _("reviewed")),
            Stage("spoken_qa", 30, _("Hypertranslation"), counts["translated"], reverse("transfer:translation_runs"),
                  _("translated"), undecided),
            Stage("spoken_qa", 40, _("Normalization"), counts["normalized"], reverse("transfer:normalize"),
                  _("ready for speech")),
        ]

    def todos(self, user):
        if not can(user, "transfer.manage"):
            return []
        from apps.transfer.selectors import attention_counts

        counts = attention_counts()
        todos = []
        if counts["review"]:
            todos.append(Todo(_("Ground-truth reviews or corrections needing attention (the agent's answer stayed "
                                "invalid or its provider kept failing)"),
                              reverse("transfer:corrections") + "?status=needs_attention", counts["review"],
                              "spoken_qa"))
        if counts["translation"]:
            todos.append(Todo(_("Samples with no usable translation: the translator agent failed on them"),
                              reverse("transfer:translation_runs"), counts["translation"], "spoken_qa"))
        if counts["normalization"]:
            todos.append(Todo(_("Normalized texts needing attention before speech"), reverse("transfer:normalize"),
                              counts["normalization"], "spoken_qa"))
        return todos

    def seed_demo(self, stdout):
        from apps.transfer.demo import seed

        seed(stdout)
