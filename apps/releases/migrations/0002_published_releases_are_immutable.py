"""A published release never changes: the database refuses an UPDATE or DELETE of a published release row,
and any INSERT, UPDATE or DELETE of the files and items of a published release, whatever code path tries
(the models refuse too; this catches queryset.update(), bulk writes and raw SQL)."""

from django.db import migrations

PARTS = ["releases_releasefile", "releases_releaseitem"]

POSTGRES = """
CREATE OR REPLACE FUNCTION releases_release_immutable() RETURNS trigger AS $$
BEGIN
  IF OLD.status = 'published' THEN
    RAISE EXCEPTION 'release %% is published and immutable', OLD.id;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER releases_release_frozen BEFORE UPDATE OR DELETE ON releases_release
  FOR EACH ROW EXECUTE FUNCTION releases_release_immutable();

CREATE OR REPLACE FUNCTION releases_part_immutable() RETURNS trigger AS $$
DECLARE rid bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN rid := NEW.release_id; ELSE rid := OLD.release_id; END IF;
  IF EXISTS (SELECT 1 FROM releases_release WHERE id = rid AND status = 'published')
     OR (TG_OP = 'UPDATE' AND EXISTS (SELECT 1 FROM releases_release WHERE id = NEW.release_id AND status = 'published')) THEN
    RAISE EXCEPTION 'release %% is published; its %% rows are immutable', rid, TG_TABLE_NAME;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""


def create_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES)
        for table in PARTS:
            schema_editor.execute(
                f"CREATE TRIGGER {table}_frozen BEFORE INSERT OR UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION releases_part_immutable();")
    elif vendor == "sqlite":
        for op in ("UPDATE", "DELETE"):
            schema_editor.execute(
                f"CREATE TRIGGER releases_release_no_{op.lower()} BEFORE {op} ON releases_release "
                f"WHEN OLD.status = 'published' BEGIN SELECT RAISE(ABORT, 'release is published and immutable'); END;")
        for table in PARTS:
            for op, row in (("INSERT", "NEW"), ("UPDATE", "OLD"), ("DELETE", "OLD")):
                schema_editor.execute(
                    f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
                    f"WHEN EXISTS (SELECT 1 FROM releases_release WHERE id = {row}.release_id AND status = 'published') "
                    f"BEGIN SELECT RAISE(ABORT, 'the release is published; its files and items are immutable'); END;")


def drop_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER IF EXISTS releases_release_frozen ON releases_release;")
        for table in PARTS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_frozen ON {table};")
        schema_editor.execute("DROP FUNCTION IF EXISTS releases_release_immutable(); DROP FUNCTION IF EXISTS releases_part_immutable();")
    elif vendor == "sqlite":
        for op in ("update", "delete"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS releases_release_no_{op};")
        for table in PARTS:
            for op in ("insert", "update", "delete"):
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op};")


class Migration(migrations.Migration):
    dependencies = [("releases", "0001_initial")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
