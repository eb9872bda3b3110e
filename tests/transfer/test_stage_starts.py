"""A stage run started on a benchmark that does not exist is refused with a NotFound naming it, before any
rulebook or provider is looked at."""

import pytest

from apps.core.errors import NotFound
from apps.transfer.hypertranslation.services import start_translation_run
from apps.transfer.normalization.services import start_normalization_run


@pytest.mark.django_db
@pytest.mark.parametrize("start", [start_translation_run, start_normalization_run])
def test_a_run_on_an_unknown_benchmark_is_refused_naming_it(start):
    with pytest.raises(NotFound, match="no source benchmark named 'nope'"):
        start(benchmark="nope")
