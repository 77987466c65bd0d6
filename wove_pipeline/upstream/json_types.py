"""Typed getters for decoded JSON, one set for every upstream parser.

Missing or ``null`` gives None (or an empty list); a value of the wrong JSON type raises the
parser's own error (``S2ParseError``, ``OpenAlexParseError``), with the path to it in the
message, so a bad record is set aside with a reason that says where it went wrong
(wove_pipeline.upstream.lenient).
"""

from __future__ import annotations

from typing import Any


class JsonTypes:
    """The guards, raising ``error``. ``numeric_strings``: a number sent as a string
    (``"0.4473064"``: OpenAlex's 2023 shape does) is read as that number."""

    def __init__(self, error: type[Exception], *, numeric_strings: bool = False) -> None:
        self.error = error
        self.numeric_strings = numeric_strings

    def object(self, x: Any, what: str) -> dict:
        if not isinstance(x, dict):
            raise self.error(f"{what}: expected an object, got {type(x).__name__}")
        return x

    def array(self, x: Any, what: str) -> list:
        if not isinstance(x, list):
            raise self.error(f"{what}: expected an array, got {type(x).__name__}")
        return x

    def opt_object(self, d: dict, key: str, what: str) -> dict | None:
        v = d.get(key)
        return None if v is None else self.object(v, f"{what}.{key}")

    def opt_array(self, d: dict, key: str, what: str) -> list:
        """``d[key]`` as a list; missing or null: []."""
        v = d.get(key)
        return [] if v is None else self.array(v, f"{what}.{key}")

    def opt_str(self, d: dict, key: str, what: str) -> str | None:
        v = d.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            raise self.error(f"{what}.{key}: expected a string, got {type(v).__name__}")
        return v

    def opt_num(self, d: dict, key: str, what: str) -> float | None:
        v = d.get(key)
        if v is None:
            return None
        if isinstance(v, str) and self.numeric_strings:
            try:
                return float(v)
            except ValueError:
                raise self.error(f"{what}.{key}: not a number: {v!r}") from None
        # bool is an int subclass in Python but never a count in JSON.
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"{what}.{key}: expected a number, got {type(v).__name__}")
        return float(v)

    def opt_int(self, d: dict, key: str, what: str) -> int | None:
        raw = d.get(key)
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw  # exact, even beyond float precision
        v = self.opt_num(d, key, what)
        if v is None:
            return None
        if not v.is_integer():
            raise self.error(f"{what}.{key}: expected an integer, got {raw!r}")
        return int(v)

    def strs(self, items: list, what: str) -> tuple[str, ...]:
        for x in items:
            if not isinstance(x, str):
                raise self.error(f"{what}: expected strings, got {type(x).__name__}")
        return tuple(items)
