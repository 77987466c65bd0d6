"""gc_paused: the cyclic collector is off inside, back as it was after (errors, nesting)."""

import gc

import pytest

from wove_pipeline.upstream.gc_pause import gc_paused


def test_the_collector_is_paused_inside_and_restored_after_an_error_or_nesting():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner one does not switch it back on
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_as_a_decorator_each_call_pauses_and_a_disabled_collector_stays_disabled():
    @gc_paused()
    def state():
        return gc.isenabled()

    assert state() is False and state() is False and gc.isenabled()
    gc.disable()
    try:
        state()
        assert not gc.isenabled()
    finally:
        gc.enable()
