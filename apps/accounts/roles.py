"""The four roles of Sori. A role is a Django group of the same name, so a person may hold several and
admins assign them in the Django admin like any other group."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    ADMIN = "admin", _("Admin")
    EXPERT = "expert", _("Expert")
    LISTENER = "listener", _("Listener")
    ANNOTATOR = "annotator", _("Annotator")


# A role as a badge names it, in the reader's language ("listener", "청취자").
ROLE_NAMES = {
    Role.ADMIN.value: _("admin"), Role.EXPERT.value: _("expert"),
    Role.LISTENER.value: _("listener"), Role.ANNOTATOR.value: _("annotator"),
}


# The people who do the work of a test or a rulebook (as opposed to running Sori): they read Sori in Korean.
PARTICIPANT_ROLES = frozenset({Role.LISTENER.value, Role.ANNOTATOR.value, Role.EXPERT.value})
