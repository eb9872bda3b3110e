"""Reading and revising an owner's participant instructions (see models). An owner is a listening test, a
verification project or a KMMAU set; each app passes its own default text and its own answers."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from datetime import datetime

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Model, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.errors import InvalidInput
from apps.instructions.models import InstructionVersion


def versions_of(owner: Model) -> QuerySet[InstructionVersion]:
    return InstructionVersion.objects.filter(owner_type=ContentType.objects.get_for_model(owner), owner_id=owner.pk)


def current(owner: Model, *, default: tuple[str, str]) -> InstructionVersion:
    """The version in force: the newest stored, or (nothing stored yet) version 1 with the default text,
    unsaved; `pin` stores it when something must point at it."""
    latest = versions_of(owner).order_by("-number").first()
    if latest is not None:
        return latest
    text_ko, text_en = default
    return InstructionVersion(owner_type=ContentType.objects.get_for_model(owner), owner_id=owner.pk, number=1,
                              text_ko=text_ko, text_en=text_en)


def pin(owner: Model, *, default: tuple[str, str]) -> InstructionVersion:
    """The version in force, stored (a consent points at the text agreed to)."""
    version = current(owner, default=default)
    if version.pk is None:
        with transaction.atomic():
            version, _ = InstructionVersion.objects.get_or_create(
                owner_type=version.owner_type, owner_id=version.owner_id, number=1,
                defaults={"text_ko": version.text_ko, "text_en": version.text_en})
    return version


def revise(*, owner: Model, text_ko: str, text_en: str = "", acting_user=None, default: tuple[str, str],
           answers: QuerySet, answered_at: str) -> InstructionVersion:
    """Set the owner's instructions. A version that someone agreed to (a consent points at it) or that an answer
    was given under (`answers`, the owner's ratings or reviews, timed by their `answered_at` field) is kept and
    the text becomes a new version; otherwise the version in force is edited in place."""
    text_ko, text_en = text_ko.strip(), text_en.strip()
    if not text_ko:
        raise InvalidInput(_("Write the instructions in Korean (English is optional)."), field="text_ko")
    with transaction.atomic():
        version = current(owner, default=default)
        if version.pk is None and answers.exists():
            version.save()  # the default was in force for the answers given so far: it is version 1
        if version.pk is not None:
            version = InstructionVersion.objects.select_for_update().get(pk=version.pk)
            if (version.text_ko, version.text_en) == (text_ko, text_en):
                return version
            if _in_use(version, answers, answered_at):
                return InstructionVersion.objects.create(
                    owner_type=version.owner_type, owner_id=version.owner_id, number=version.number + 1,
                    text_ko=text_ko, text_en=text_en, created_by=acting_user)
        version.text_ko, version.text_en, version.created_by = text_ko, text_en, acting_user
        version.save()
        return version


def _in_use(version: InstructionVersion, answers: QuerySet, answered_at: str) -> bool:
    agreed = any(rel.related_model._base_manager.filter(**{rel.field.name: version}).exists()
                 for rel in InstructionVersion._meta.related_objects)
    # Answers from before the first stored version were given under it (the default text): version_at agrees.
    since = {} if version.number == 1 else {f"{answered_at}__gte": version.created_at}
    return agreed or answers.filter(**since).exists()


def version_at(owner: Model) -> Callable[[datetime], int]:
    """For an export: the number of the version in force at a time (version 1 for anything before the first
    stored version, which is the default text it was given under)."""
    versions = list(versions_of(owner).order_by("number").values_list("created_at", "number"))
    starts = [at for at, _n in versions]
    numbers = [n for _at, n in versions]

    def number_at(when: datetime) -> int:
        index = bisect_right(starts, when or timezone.now()) - 1
        return numbers[index] if index >= 0 else 1

    return number_at
