"""The one HTTP layer every upstream client is built on: politeness, retries, backoff.

- Rate limiting: a minimum interval between requests per client (arXiv asks for one
  request every 3 s over one connection; S2 keys get 1 request/s). Thread-safe.
- Retries (tenacity): 408, 429, 5xx, timeouts, dropped connections and bodies that fail
  validation are retried with exponential backoff and jitter; a Retry-After header, when
  present, sets the wait instead (arXiv's 503).
- Refusals: any other 4xx is deterministic (the same request gets the same answer) and
  fails fast as `UpstreamRefused`, carrying the upstream's own message (`{"message": ...}`
  or `{"error": ...}`): no retry here, and the assets turn it into a failure Dagster's
  retry policy does not retry either (a refused `select` field used to cost 4 step
  attempts with backoff, 5-6.5 minutes a day, for the same 400 each time). Clients whose
  refused thing is optional (a `select` / `fields` entry) drop it and ask again.
- Secrets: query parameters and headers named like keys are redacted from every error
  message and log line this layer produces.
- Concurrency (`fetch_in_order`): a client may have a few requests in flight (their start
  times still spaced by the rate limit); answers come back in the order asked. Waiting on
  one answer at a time left us idle for most of a batch's round trip.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import tenacity

log = logging.getLogger(__name__)

RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}
_SECRET_PARAM = re.compile(r"(?i)((?:api[_-]?key|x-api-key|token|secret)=)[^&\s]+")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Remove secrets from a URL or message (by parameter name and by value)."""
    text = _SECRET_PARAM.sub(r"\1<redacted>", text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<redacted>")
    return text


class _RedactHttpxLog(logging.Filter):
    """httpx logs every request URL at INFO, query string included (OpenAlex's api_key)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        safe = redact(message)
        if safe != message:
            record.msg, record.args = safe, None
        return True


logging.getLogger("httpx").addFilter(_RedactHttpxLog())


class UpstreamError(RuntimeError):
    """An upstream answered with an error we do not retry, or retries ran out."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class UpstreamRefused(UpstreamError):
    """A 4xx other than 408/429: the upstream refused the request itself (a bad parameter, a
    field it no longer serves, a wrong key). Asking again gets the same answer, so it is
    never retried. `upstream_message` is what the upstream said (redacted)."""

    def __init__(self, message: str, status: int, upstream_message: str):
        super().__init__(message, status=status)
        self.upstream_message = upstream_message


def upstream_message(response: httpx.Response, limit: int = 2000) -> str:
    """The message an error body carries: OpenAlex `{"error", "message"}`, S2 `{"error"}` or
    `{"message"}`, else the text itself."""
    text = response.text
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        parts = [payload.get(k) for k in ("message", "error")]
        parts = [p for p in parts if isinstance(p, str) and p.strip()]
        if parts:
            text = parts[0]
    return text.strip()[:limit]


class DroppedFields:
    """The optional request fields (OpenAlex `select`, S2 `fields`) an upstream refused
    during a client's life, per kind of record; thread-safe. `find_refused(message, asked)`
    names the fields a 400's message refuses; `warning` is logged once per dropped field with
    (field, kind, upstream message)."""

    def __init__(self, fields: Mapping[str, Sequence[str]], required: Mapping[str, Sequence[str]],
                 find_refused: Callable[[str, Sequence[str]], list[str]], logger: logging.Logger, warning: str):
        self._fields, self._required, self._find = fields, required, find_refused
        self._log, self._warning = logger, warning
        self._dropped: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    @property
    def dropped(self) -> dict[str, list[str]]:
        with self._lock:
            return {kind: list(fields) for kind, fields in self._dropped.items() if fields}

    def is_dropped(self, kind: str, field: str) -> bool:
        with self._lock:
            return field in self._dropped.get(kind, ())

    def asked(self, kind: str) -> str:
        """The comma-separated fields to ask for now: all of them but those refused."""
        with self._lock:
            dropped = self._dropped.get(kind, ())
        return ",".join(f for f in self._fields[kind] if f not in dropped)

    def drop(self, kind: str, exc: UpstreamRefused, sent: str | None) -> bool:
        """Drop the optional fields a 400 refuses; True when asking again without them makes
        sense (every refused field was in what was sent, none is required)."""
        if exc.status != 400 or not sent:
            return False
        refused = self._find(exc.upstream_message, sent.split(","))
        if not refused or any(f in self._required[kind] for f in refused):
            return False
        with self._lock:
            dropped = self._dropped.setdefault(kind, [])
            new = [f for f in refused if f not in dropped]
            dropped += new
        for f in new:  # once per field and client (a run): later calls no longer ask for it
            self._log.warning(self._warning, f, kind, exc.upstream_message[:200])
        return True


def _short_url(url: str, limit: int = 240) -> str:
    """A URL for a message: 50 OR-ed DOIs make a 3 kB query string that buries the message."""
    return url if len(url) <= limit else url[:limit] + "..."


class RetryableResponse(Exception):
    def __init__(self, status: int, retry_after: float | None, message: str):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class InvalidBody(Exception):
    """The body arrived but failed validation (truncated or malformed): retry it."""


@dataclass(frozen=True)
class RetrySettings:
    attempts: int = 8
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    max_retry_after_s: float = 300.0


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # HTTP-date form: fall back to exponential backoff


@functools.cache
def _tls_context():
    """One TLS context for every client: httpx builds one per client otherwise, loading the
    CA bundle each time (25 ms; six clients a run)."""
    return httpx.create_ssl_context()


class _MinInterval:
    """Start requests no closer together than `interval` seconds (shared across threads)."""

    def __init__(self, interval: float):
        self.interval = interval
        self._lock = threading.Lock()
        self._next = 0.0

    def wait(self) -> None:
        if self.interval <= 0:
            return
        with self._lock:
            now = time.monotonic()
            delay = self._next - now
            self._next = max(now, self._next) + self.interval
        if delay > 0:
            time.sleep(delay)


class HttpClient:
    """A polite, retrying wrapper around one httpx.Client (one connection pool per upstream)."""

    def __init__(
        self,
        base_url: str,
        *,
        min_interval_s: float = 0.0,
        timeout_s: float = 30.0,
        retry: RetrySettings = RetrySettings(),
        headers: Mapping[str, str] | None = None,
        secrets: tuple[str, ...] = (),
        max_connections: int = 1,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.base_url = base_url.rstrip("/")
        self._secrets = secrets
        self._retry = retry
        self._sleep = sleep
        self._interval = _MinInterval(min_interval_s)
        self._client = httpx.Client(
            timeout=timeout_s,
            verify=_tls_context(),
            headers=dict(headers or {}),
            follow_redirects=True,  # OpenAlex answers merged ids with 301
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )
        self.requests_sent = 0
        self.retries = 0
        self._count_lock = threading.Lock()  # requests may be sent from several threads

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "HttpClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wait_before_retry(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableResponse) and exc.retry_after is not None:
            return min(exc.retry_after, self._retry.max_retry_after_s)
        backoff = tenacity.wait_random_exponential(
            multiplier=self._retry.backoff_initial_s, max=self._retry.backoff_max_s
        )
        return backoff(state)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, Any] | None = None,
        validate: Callable[[httpx.Response], Any] | None = None,
        ok_statuses: tuple[int, ...] = (200,),
        on_retry: Callable[[], None] | None = None,
    ) -> tuple[httpx.Response, Any]:
        """Send with retries. `validate(response)` parses the body; raising InvalidBody
        (or any ValueError) there retries the request; `on_retry` is called before each
        retry is sent. Returns (response, validate's result)."""
        url = self.base_url + path

        def attempt() -> tuple[httpx.Response, Any]:
            self._interval.wait()
            with self._count_lock:
                self.requests_sent += 1
            try:
                response = self._client.request(method, url, params=params, json=json, data=data)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                # Timeouts, resets, dropped connections, incomplete bodies: all transient.
                raise RetryableResponse(0, None, f"{type(exc).__name__} on {method} {self._safe(url)}") from None
            if response.status_code in RETRYABLE_STATUS:
                raise RetryableResponse(
                    response.status_code,
                    _parse_retry_after(response.headers.get("retry-after")),
                    f"HTTP {response.status_code} on {method} {self._safe(str(response.request.url))}",
                )
            if 400 <= response.status_code < 500 and response.status_code not in ok_statuses:
                said = self._safe(upstream_message(response))
                raise UpstreamRefused(
                    f"HTTP {response.status_code} on {method} "
                    f"{_short_url(self._safe(str(response.request.url)))}: {said}",
                    status=response.status_code, upstream_message=said,
                )
            if response.status_code not in ok_statuses:
                raise UpstreamError(
                    f"HTTP {response.status_code} on {method} {self._safe(str(response.request.url))}: "
                    f"{self._safe(response.text[:300])}",
                    status=response.status_code,
                )
            if validate is None:
                return response, None
            try:
                return response, validate(response)
            except (InvalidBody, ValueError) as exc:
                raise RetryableResponse(
                    response.status_code, None, f"invalid body from {self._safe(url)}: {self._safe(str(exc))[:200]}"
                ) from None

        def before_sleep(state: tenacity.RetryCallState) -> None:
            with self._count_lock:
                self.retries += 1
            if on_retry is not None:
                on_retry()
            exc = state.outcome.exception() if state.outcome else None
            log.warning("retrying after %s (attempt %d)", exc, state.attempt_number)

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(RetryableResponse),
            stop=tenacity.stop_after_attempt(self._retry.attempts),
            wait=self._wait_before_retry,
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except RetryableResponse as exc:
            raise UpstreamError(f"gave up after {self._retry.attempts} attempts: {exc}", status=exc.status) from None

    def _safe(self, text: str) -> str:
        return redact(text, self._secrets)


T = TypeVar("T")
R = TypeVar("R")


def fetch_in_order(fetch_chunk: Callable[[T], Iterable[R]], chunks: Iterable[T], workers: int) -> Iterator[R]:
    """Everything `fetch_chunk(chunk)` yields, for each chunk in turn, with up to `workers`
    chunks fetched at once (one thread each) and the results in the chunks' order.

    When a chunk fails, no further chunk starts; what was fetched anyway is still yielded
    (the failing chunk's results before its error, then the chunks already running: a paid-for
    answer is never dropped) and then the first error is raised."""
    if workers <= 1:
        for chunk in chunks:
            yield from fetch_chunk(chunk)
        return

    def drain(chunk: T) -> tuple[list[R], BaseException | None]:
        got: list[R] = []
        try:
            for result in fetch_chunk(chunk):
                got.append(result)
        except BaseException as exc:  # handed to the consumer's thread, raised there
            return got, exc
        return got, None

    todo = iter(chunks)
    error: BaseException | None = None
    with ThreadPoolExecutor(workers, thread_name_prefix="fetch") as pool:
        running: deque[Future] = deque()

        def start_more() -> None:
            while error is None and len(running) < workers:
                chunk = next(todo, _END)
                if chunk is _END:
                    return
                running.append(pool.submit(drain, chunk))

        start_more()
        try:
            while running:
                got, failed = running.popleft().result()
                error = error or failed
                start_more()
                yield from got
        finally:
            for future in running:  # the consumer stopped early: start nothing new
                future.cancel()
    if error is not None:
        raise error


_END = object()


class UpstreamClient:
    """What every upstream client shares: one HttpClient (`self.http`), closing, counting."""

    http: HttpClient

    def close(self) -> None:
        self.http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def calls(self) -> int:
        """Requests sent so far, retries included."""
        return self.http.requests_sent
