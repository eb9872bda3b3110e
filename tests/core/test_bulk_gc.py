"""apps.core.bulk.cycle_collection_paused: the collector pauses for a bulk import and resumes after the last
paused block, in whatever order blocks in different threads end."""

import gc
import threading

import pytest

from apps.core.bulk import cycle_collection_paused


@pytest.fixture(autouse=True)
def collector_on():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_pauses_inside_and_resumes_after():
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_resumes_after_an_exception():
    with pytest.raises(ValueError), cycle_collection_paused():
        raise ValueError("the import failed")
    assert gc.isenabled()


def test_overlapping_blocks_in_two_threads_resume_it_only_when_the_last_one_ends():
    first_in, first_may_leave, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with cycle_collection_paused():
            first_in.set()
            first_may_leave.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(5)
    with cycle_collection_paused():
        first_may_leave.set()
        assert first_out.wait(5)
        assert not gc.isenabled()  # the first block ended, this one still runs
    thread.join(5)
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off():
    gc.disable()
    with cycle_collection_paused():
        pass
    assert not gc.isenabled()


def test_it_decorates_a_function():
    @cycle_collection_paused()
    def bulk():
        return gc.isenabled()

    assert bulk() is False and gc.isenabled()
