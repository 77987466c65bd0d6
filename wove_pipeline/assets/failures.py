"""How an asset step fails on an upstream's refusal: at once, with its message, not retried."""
# (no `from __future__ import annotations` here: Dagster reads annotations at definition time)

import contextlib

import dagster as dg

from wove_pipeline.upstream.http import UpstreamRefused


@contextlib.contextmanager
def refusals_fail_fast():
    """A refused request fails the step now, with the upstream's message, and is not retried
    by the retry policy (asking again gets the same refusal)."""
    try:
        yield
    except UpstreamRefused as exc:
        raise dg.Failure(
            description=f"the upstream refused the request (HTTP {exc.status}, not retried): {exc}",
            metadata={"status": exc.status, "upstream_message": exc.upstream_message},
            allow_retries=False,
        ) from exc
