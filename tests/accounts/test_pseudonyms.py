"""The one pseudonym scheme: a person's stable random name per scope, created once even under a race, and the
names the three old schemes gave kept by the migration that replaced them."""

import hashlib
import hmac
import secrets
import time

import pytest
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader

from apps.accounts.models import Pseudonym
from apps.accounts.pseudonyms import LISTENING, RELEASES, pseudonyms_for, verification_scope
from tests.race import run_threads


def pseudonym_for(user, scope: str) -> str:
    return pseudonyms_for([user.pk], scope)[user.pk]


@pytest.mark.django_db
def test_a_person_keeps_one_pseudonym_per_scope_in_the_look_of_that_scope(make_user):
    alice, bob = make_user("alice_listener", "listener"), make_user("bob_listener", "listener")
    first = pseudonym_for(alice, LISTENING)
    assert pseudonym_for(alice, LISTENING) == first
    assert pseudonyms_for([alice.pk, bob.pk], LISTENING)[alice.pk] == first
    names = {scope: pseudonym_for(alice, scope) for scope in (LISTENING, RELEASES, verification_scope(7))}
    assert names[LISTENING][0] == "L" and names[RELEASES][0] == "P"
    assert names[verification_scope(7)].startswith("annotator-")
    assert len(set(names.values())) == 3 and Pseudonym.objects.filter(user=alice).count() == 3
    assert "alice" not in "".join(names.values())


@pytest.mark.django_db
def test_a_drawn_value_already_taken_in_the_scope_is_drawn_again(make_user, monkeypatch):
    alice, bob = make_user("alice_listener", "listener"), make_user("bob_listener", "listener")
    draws = iter(["0badc0de", "0badc0de", "feedface"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(draws))
    assert pseudonym_for(alice, LISTENING) == "L0BADC0DE"
    assert pseudonym_for(bob, LISTENING) == "LFEEDFACE"  # the first draw collided with alice's
    assert pseudonym_for(alice, LISTENING) == "L0BADC0DE"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_requests_create_one_pseudonym_per_person(make_user):
    people = [make_user(f"racer{i}", "listener") for i in range(6)]
    ids = [p.pk for p in people]
    seen = []

    def ask(order):
        with transaction.atomic():
            seen.append(pseudonyms_for(order, RELEASES))
            time.sleep(0.05)  # hold the new rows uncommitted while the others insert the same people

    errors = run_threads([lambda o=(ids if i % 2 else ids[::-1]): ask(o) for i in range(8)])
    assert not errors, errors
    assert len(seen) == 8 and all(names == seen[0] for names in seen)
    assert Pseudonym.objects.filter(scope=RELEASES).count() == len(people)
    assert sorted(Pseudonym.objects.filter(scope=RELEASES).values_list("value", flat=True)) == sorted(seen[0].values())


# Where the three data migrations run: accounts.Pseudonym exists, the old tables and key still do.
WHILE_MOVING = [("accounts", "0003_scoped_pseudonyms"), ("listening", "0003_import_in_batches"),
                ("releases", "0002_published_releases_are_immutable"), ("verification", "0002_pseudonym_key")]
MOVES = [("listening", "0004_listener_pseudonyms_move_to_accounts"),
         ("releases", "0003_release_pseudonyms_move_to_accounts"),
         ("verification", "0003_annotator_pseudonyms_move_to_accounts")]


@pytest.mark.django_db
def test_the_migrations_keep_every_name_the_old_schemes_gave(make_user):
    """The moves' data functions run on the old tables, recreated inside the test's transaction (PostgreSQL
    rolls the DDL back with it); migrating the whole schema back and forth would take seconds more."""
    listener, expert, annotator = make_user("lee", "listener"), make_user("erin", "expert"), make_user("ann", "annotator")
    loader = MigrationLoader(connection)
    old = loader.project_state(WHILE_MOVING).apps
    with connection.schema_editor(atomic=False) as editor:
        editor.create_model(old.get_model("listening", "ListenerPseudonym"))
        editor.create_model(old.get_model("releases", "Pseudonym"))
        project_model = old.get_model("verification", "VerificationProject")
        editor.add_field(project_model, project_model._meta.get_field("pseudonym_key"))
    old.get_model("listening", "ListenerPseudonym").objects.create(listener_id=listener.pk, pseudonym="L12AB34CD")
    old.get_model("releases", "Pseudonym").objects.create(user_id=expert.pk, code="P0A1B2C3D")
    project = _old_project_with_a_review(old, annotator)
    # VerificationProject.pseudonym as it was:
    digest = hmac.new(project.pseudonym_key.encode(), f"verification:{project.pk}:{annotator.pk}".encode(), hashlib.sha256)
    was = f"annotator-{digest.hexdigest()[:8]}"

    with connection.schema_editor(atomic=False) as editor:
        for key in MOVES:
            move = loader.get_migration(*key).operations[0]
            move.code(old, editor)

    assert pseudonym_for(listener, LISTENING) == "L12AB34CD"
    assert pseudonym_for(expert, RELEASES) == "P0A1B2C3D"
    assert pseudonym_for(annotator, verification_scope(project.pk)) == was
    assert Pseudonym.objects.count() == 3


def _old_project_with_a_review(old, annotator):
    """A verification project as the old schema held it (with its pseudonym_key), reviewed once by `annotator`."""
    pool = old.get_model("queues", "WorkPool").objects.create(name="old", kind="verification", required_per_item=3)
    project = old.get_model("verification", "VerificationProject").objects.create(name="Old", pool=pool,
                                                                                  pseudonym_key="k" * 64)
    asset = old.get_model("audio", "AudioAsset").objects.create(
        file="a.wav", sha256="0" * 64, format="wav", duration_seconds=1, sample_rate=16000, channels=1, size_bytes=44)
    batch = old.get_model("verification", "ItemImport").objects.create(project=project, file_name="i.json",
                                                                       file_sha256="1" * 64)
    item = old.get_model("verification", "VerificationItem").objects.create(
        project=project, work_item=old.get_model("queues", "WorkItem").objects.create(pool=pool, capacity=3, order_key=1),
        external_id="x1", position=1, audio=asset, audio_path="a.wav", task="emotion", domain="paralinguistic",
        format="single", language="en", question="?", options=["a", "b"], answers=["a"], record="{}", item_import=batch)
    old.get_model("verification", "Review").objects.create(item=item, annotator_id=annotator.pk, decision="approve")
    return project
