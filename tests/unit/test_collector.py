"""The collector is off while a large answer is built, and only then."""

import gc
import threading

import pytest

from placer import collector


@pytest.fixture(autouse=True)
def restore_collector():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_paused_turns_the_collector_off_for_the_block():
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_in_the_block_turns_it_back_on():
    with pytest.raises(ValueError), collector.paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_as_a_decorator_the_functions_locals_are_freed_while_it_is_off():
    freed_with_collector = []

    class Answer:
        def __del__(self):
            freed_with_collector.append(gc.isenabled())

    @collector.paused()
    def handler():
        answer = Answer()
        assert not gc.isenabled()
        return len([answer])

    assert handler() == 1
    assert handler() == 1  # a new pause on each call
    assert freed_with_collector == [False, False]
    assert gc.isenabled()


def test_nested_blocks_keep_it_off_until_the_outer_one_ends():
    with collector.paused():
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_threads_keep_it_off_until_the_last_one_ends():
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with collector.paused():
            first_in.set()
            second_in.wait(5)
        seen["after first"] = gc.isenabled()
        first_out.set()

    def second():
        first_in.wait(5)
        with collector.paused():
            second_in.set()
            first_out.wait(5)
            seen["second still inside"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {"after first": False, "second still inside": False}
    assert gc.isenabled()


def test_tune_freezes_what_is_loaded_and_raises_the_young_threshold():
    before = gc.get_threshold()
    try:
        collector.tune()
        assert gc.get_threshold()[0] == 50_000
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
