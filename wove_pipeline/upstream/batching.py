"""Cutting a stream of items into batches of an upstream's size (ids per call, records per page)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` items (the last one shorter), in order; lazily, so a
    stream of records is never held whole."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
