"""The harness every concurrency test races its threads with."""

import threading

from django.db import connection


def run_threads(targets, *, timeout: float = 120) -> list[BaseException]:
    """Start every target at the same moment (a barrier); return what they raised. Each thread closes its
    own database connection at the end, so PostgreSQL can drop the test database afterwards."""
    barrier = threading.Barrier(len(targets))
    errors: list[BaseException] = []

    def wrap(target):
        try:
            barrier.wait()
            target()
        except BaseException as exc:  # collected and asserted by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a racing thread hung"
    return errors
