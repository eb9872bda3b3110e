"""Fixtures for the page tests: the verification and listening fixtures, reused as they are."""

from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.verification.conftest import hpsu, make_project  # noqa: F401
