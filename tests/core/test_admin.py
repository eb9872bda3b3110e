"""The records the admin only looks at: one ReadOnlyAdmin (apps.core.admin) for every app that needs one."""

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin

from apps.consultations.models import Rulebook
from apps.core.admin import ReadOnlyAdmin
from apps.queues.models import WorkPool

ROOT = Path(settings.BASE_DIR)


def test_no_app_defines_a_read_only_admin_of_its_own():
    for path in (ROOT / "apps").rglob("admin.py"):
        if path != ROOT / "apps/core/admin.py":
            names = {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)}
            assert "ReadOnlyAdmin" not in names, path


@pytest.mark.parametrize("model", [Rulebook, WorkPool])
def test_a_superuser_may_look_at_a_record_but_not_add_change_or_delete_it(model, make_user, client, db):
    boss = make_user("bea_superuser", "admin")
    boss.is_superuser = boss.is_staff = True
    boss.save()
    client.force_login(boss)
    assert isinstance(admin.site._registry[model], ReadOnlyAdmin)
    url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
    assert client.get(url).status_code == 200
    assert client.get(url + "add/").status_code == 403
