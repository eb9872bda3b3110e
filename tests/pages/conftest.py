"""Fixtures for the page tests: the verification, listening, consultation, transfer and KMMAU fixtures,
reused as they are."""

from tests.authoring.conftest import corpus_folder, kss_corpus  # noqa: F401
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.transfer.conftest import _one_sample_at_a_time  # noqa: F401  (worker threads cannot see a test's rows)
from tests.verification.conftest import hpsu, make_project  # noqa: F401
