"""The four roles of Sori. A role is a Django group of the same name, so a person may hold several and
admins assign them in the Django admin like any other group."""

from django.db import models


class Role(models.TextChoices):
    ADMIN = "admin", "Admin"
    EXPERT = "expert", "Expert"
    LISTENER = "listener", "Listener"
    ANNOTATOR = "annotator", "Annotator"


# The people who do the work of a test or a rulebook (as opposed to running Sori): they read Sori in Korean.
PARTICIPANT_ROLES = frozenset({Role.LISTENER.value, Role.ANNOTATOR.value, Role.EXPERT.value})
