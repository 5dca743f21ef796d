"""Machine-wide DLM training slots: a training beyond the limit waits until a slot is free."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from relreason_dagster.benchmarks.relational.dlm.slots import training_slot

WAIT_S = 60.0  # generous: only an absent release could take this long


def _hold(directory: Path, entered: threading.Event, release: threading.Event, numbers: list) -> None:
    with training_slot(2, directory) as number:
        numbers.append(number)
        entered.set()
        release.wait(WAIT_S)


def test_a_third_training_waits_for_one_of_two_slots(tmp_path):
    events = [(threading.Event(), threading.Event()) for _ in range(3)]
    numbers: list[int] = []
    threads = [threading.Thread(target=_hold, args=(tmp_path, *pair, numbers)) for pair in events]
    for thread, (entered, _release) in zip(threads[:2], events[:2], strict=True):
        thread.start()
        assert entered.wait(WAIT_S)
    threads[2].start()
    assert not events[2][0].wait(1.0)  # both slots are held: the third is still waiting
    events[0][1].set()  # the first training ends
    assert events[2][0].wait(WAIT_S)  # so the third starts, in the slot that was freed
    assert sorted(numbers[:2]) == [0, 1] and numbers[2] == numbers[0]
    for _entered, release in events:
        release.set()
    for thread in threads:
        thread.join(WAIT_S)


def test_a_slot_is_released_when_its_holder_process_dies(tmp_path):
    """The kernel drops a dead process's flock, so a crashed worker never keeps a slot."""
    code = (
        "import os, sys; from pathlib import Path\n"
        "from relreason_dagster.benchmarks.relational.dlm.slots import training_slot\n"
        "with training_slot(2, Path(sys.argv[1])) as n:\n    assert n == 0\n    os._exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], timeout=WAIT_S)
    assert done.returncode == 3
    entered, release, numbers = threading.Event(), threading.Event(), []
    release.set()
    _hold_one = threading.Thread(target=_hold, args=(tmp_path, entered, release, numbers))
    _hold_one.start()
    assert entered.wait(WAIT_S)  # would wait forever if the dead process still held slot 0
    _hold_one.join(WAIT_S)
    assert numbers == [0]


def test_no_limit_below_one_slot(tmp_path):
    with training_slot(0, tmp_path) as number:
        assert number is None
