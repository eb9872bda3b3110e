"""A job kind for tests of the job runner whose items leave rows that can be counted: each item done inserts
(job, item, process id) into the table `test_job_items` (made by the test), so an item done twice or never
shows. Resumes from its last saved point: items with a row are skipped."""

import os
import time

from django.db import connection

from apps.jobs.services import job_handler

KIND = "tests.counted_items"
TABLE = "test_job_items"


def create_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (job_id bigint NOT NULL, item integer NOT NULL, pid integer NOT NULL)")


def drop_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")


def rows(job_id: int) -> list[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT item, pid FROM {TABLE} WHERE job_id = %s ORDER BY item", [job_id])
        return list(cursor.fetchall())


@job_handler(KIND)
def counted_items(job, progress):
    done = {item for item, _ in rows(job.pk)}
    count = job.params["items"]
    progress.set_total(count)
    progress.set_done(len(done))
    for item in range(count):
        if item in done:
            continue
        time.sleep(job.params.get("pause", 0))
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {TABLE} (job_id, item, pid) VALUES (%s, %s, %s)", [job.pk, item, os.getpid()])
        progress.advance(message=f"item {item}")
    return {"items": count}
