"""Pausing Python's cyclic garbage collector while a step builds many objects.

A full collection walks every object the collector tracks. A step that builds hundreds of
thousands of them (author mentions, parsed upstream records) sets off collection after
collection as its heap grows, each walking all it has built so far: the matcher's load at
100k papers spent 40% of its time there. Those objects hold no reference cycles, so
reference counting frees them as usual with the collector paused; cycles made meanwhile
wait for the first collection after it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Use as ``with gc_paused():`` or as a decorator (``@gc_paused()``). Nests."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
