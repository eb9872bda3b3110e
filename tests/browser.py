"""Browser-test helpers that work under Sori's Content-Security-Policy.

Playwright's wait_for_function polls its predicate with eval() inside the page, which the policy (no
'unsafe-eval') refuses; page.evaluate runs through the DevTools protocol, outside the policy. So waits
poll with page.evaluate, and browser tests see the pages exactly as users do, policy included."""

import time


def wait_until(page, expression: str, *, timeout: float = 15000, interval: float = 50) -> None:
    """Wait until the JavaScript `expression` (or "() => ..." function) is truthy in the page, like
    page.wait_for_function; raise TimeoutError after `timeout` milliseconds."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} ms for {expression}")
        page.wait_for_timeout(interval)
