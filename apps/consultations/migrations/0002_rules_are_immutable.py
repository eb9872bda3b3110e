"""Published rulebook versions never change: the database itself refuses an UPDATE of a rule or a version
row, whatever code path tries it (the models refuse too, this catches queryset.update() and raw SQL)."""

from django.db import migrations

TABLES = ["consultations_rule", "consultations_rulebookversion"]


def create_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "postgresql":
            schema_editor.execute(
                f"""
                CREATE OR REPLACE FUNCTION {table}_immutable() RETURNS trigger AS $$
                BEGIN
                  RAISE EXCEPTION 'published rulebook versions are immutable ({table} row %%)', OLD.id;
                END;
                $$ LANGUAGE plpgsql;
                CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
                  FOR EACH ROW EXECUTE FUNCTION {table}_immutable();
                """
            )
        elif vendor == "sqlite":
            schema_editor.execute(
                f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'published rulebook versions are immutable ({table})'); END;"
            )


def drop_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "postgresql":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_update ON {table}; DROP FUNCTION IF EXISTS {table}_immutable();")
        elif vendor == "sqlite":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_update;")


class Migration(migrations.Migration):
    dependencies = [("consultations", "0001_rulebooks")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
