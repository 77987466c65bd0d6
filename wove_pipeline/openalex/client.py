"""OpenAlex client: OR-filters of 50 values, cursor paging, free singletons, a daily budget.

Built on the shared HTTP layer (wove_pipeline.upstream.http), which retries 429/5xx, timeouts,
dropped connections and bodies that fail to parse, and follows the 301 that merged ids
answer. Here:

- arXiv works by DataCite DOI, 50 DOIs per call (`filter=doi:10.48550/arxiv.X|...`,
  `per_page=100` >= the number of values), cursor paging that stops as soon as `meta.count`
  results are in (so 50 DOIs cost one call, not two);
- a work whose authorships are truncated (`is_authors_truncated`) is fetched again as a
  singleton (free) for the full list;
- authors and institutions by id, 50 per call; ids the filter does not return (merged
  ids) are fetched as singletons, whose 301 leads to the surviving id;
- budget: list calls cost money (2026: $0.10 per 1,000), singletons are free. The client
  keeps its own count (every list request sent, retries included) on top of what earlier
  runs spent today, reads `X-RateLimit-*`, and raises BudgetExhausted *before* a call that
  would go over the configured daily budget;
- a few filter calls in flight at once (`concurrency`, 4), each with its singletons, through
  the HTTP layer's `fetch_in_order`: answers come back in the order asked, and the budget
  counts a call when it lets it go, so calls in flight together cannot overshoot it;
- the key travels only as the `api_key` query parameter; it is redacted by the HTTP layer
  and never part of the `request` string kept in the raw layer;
- every call, list or singleton, asks only for the root-level fields the parser reads
  (`select=`, the *_FIELDS tuples beside the parser): fewer bytes on the network and less
  JSON to decode (the real 2026 samples keep 48% of a work, 47% of an author, 3% of an
  institution). research/upstream.md §3 records that `select` takes root-level fields
  only (docs `select-fields.md`); that it applies to singletons and to filtered,
  cursor-paged lists alike, and that an unknown field is a 400, is how the OpenAlex docs
  describe it and what the sandbox does (no recorded sample shows a selected answer).
  Pricing counts calls, not fields: a selected list call costs what a full one does and singletons stay free, so the budget is unchanged. The query string,
  `select` included, rides along the 301 of a merged id (the sandbox's `Location` keeps it;
  were the real one to drop it, the full record parses the same).
- upstream drift: a `select` field the API refuses (400 "X is not a valid select field") is
  dropped from every later call of this client, the call is sent once more without it, a
  warning is logged once, and `dropped_fields` names it (the assets put it in the
  materialization metadata and a warning check). The rows are the same apart from that
  field. Without `is_authors_truncated`, a work listing exactly the 100 authorships a list
  result holds is taken as truncated and completed from its singleton. A refused `id` /
  `doi` (which the matching needs), or any other 4xx, fails fast (UpstreamRefused).
- merged preprints: OpenAlex merges a preprint into its published version, whose DOI is
  then the work's; the arXiv DOI finds nothing. `works_by_published_dois` looks such papers
  up by the published DOI arXiv or S2 know (50 per OR-filter).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from wove_pipeline.openalex.parser import (
    AUTHOR_FIELDS,
    INSTITUTION_FIELDS,
    WORK_FIELDS,
    OpenAlexParseError,
    parse_author,
    parse_authors_page,
    parse_institution,
    parse_institutions_page,
    parse_work,
    parse_works_page,
)
from wove_pipeline.upstream.batching import chunks
from wove_pipeline.upstream.http import (
    DroppedFields,
    HttpClient,
    InvalidBody,
    RetrySettings,
    UpstreamClient,
    UpstreamError,
    UpstreamRefused,
    fetch_in_order,
)

OR_VALUES_MAX = 50  # docs say 100 in one place and 50 in two others: 50 is safe
PER_PAGE = 100  # the 2026 maximum, >= OR_VALUES_MAX so one page holds one filter's answer
LIST_CALL_USD = 0.0001  # $0.10 per 1,000 list/filter calls (2026 pricing; configurable)
ARXIV_DOI_PREFIX = "10.48550/arxiv."
FIELDS = {"works": WORK_FIELDS, "authors": AUTHOR_FIELDS, "institutions": INSTITUTION_FIELDS}
SELECT = {entity: ",".join(fields) for entity, fields in FIELDS.items()}  # `select=` per entity path
# What a refused select field may never take away: the ids (and the DOI a work is matched by).
REQUIRED_FIELDS = {"works": ("id", "doi"), "authors": ("id",), "institutions": ("id",)}
LIST_AUTHORSHIPS_MAX = 100  # a list result holds at most this many authorships

log = logging.getLogger(__name__)
_NOT_VALID_SELECT = re.compile(r"([\w.]+) is not a valid select field", re.IGNORECASE)


def refused_select_fields(message: str, asked: Sequence[str]) -> list[str]:
    """The select fields a 400's message refuses, among those asked: OpenAlex names one
    ("X is not a valid select field. Valid fields for select are: ..."); other wordings
    count when they mention select and name asked fields before any list of valid ones."""
    named = [m.group(1) for m in _NOT_VALID_SELECT.finditer(message)]
    if not named and "select" in message.lower():
        head = re.split(r"(?i)valid (?:fields|select)", message)[0]
        named = [f for f in asked if re.search(rf"(?<![\w.]){re.escape(f)}(?![\w.])", head)]
    return [f for f in dict.fromkeys(named) if f in asked]


def maybe_truncated(record, flag_asked: bool) -> bool:
    """Whether a list result's authorships may be cut: its flag says so or, when the flag was
    not asked (refused in select), it holds the most authorships a list result holds."""
    return record.is_authors_truncated or (not flag_asked and len(record.authorships) >= LIST_AUTHORSHIPS_MAX)


class BudgetExhausted(RuntimeError):
    """The next list call would go over the daily budget (ours or the upstream's)."""


@dataclass
class OpenAlexBudget:
    """Daily cost accounting. `spent_before_usd` is what earlier runs spent today (from
    wove.api_usage); `list_calls` / `spent_usd` are this client's own count.

    Thread-safe: list calls may be in flight side by side. A call is counted when it is let
    go (so concurrent calls cannot overshoot the budget together), each retry when it is
    sent; the upstream's X-RateLimit-Remaining is read minus the calls still in flight, and
    the first call goes alone, as its answer is the first word on what is left."""

    daily_usd: float | None = 1.0  # None: no limit of ours (the upstream's still applies)
    list_call_usd: float = LIST_CALL_USD
    spent_before_usd: float = 0.0
    list_calls: int = 0
    singleton_calls: int = 0
    upstream_limit: str | None = None
    upstream_remaining: str | None = None
    upstream_credits_used: int = 0
    exhausted: bool = False
    reason: str | None = None
    in_flight: int = 0
    answered: bool = False
    _lock: threading.Condition = field(default_factory=threading.Condition, repr=False, compare=False)

    @property
    def spent_usd(self) -> float:
        return self.list_calls * self.list_call_usd

    @property
    def remaining_usd(self) -> float | None:
        if self.daily_usd is None:
            return None
        return max(0.0, self.daily_usd - self.spent_before_usd - self.spent_usd)

    def before_list_call(self) -> None:
        """Let one list call go and count it, or raise BudgetExhausted."""
        with self._lock:
            self._lock.wait_for(lambda: self.answered or not self.in_flight)
            if not self.exhausted and self.daily_usd is not None and (
                self.spent_before_usd + self.spent_usd + self.list_call_usd > self.daily_usd + 1e-9
            ):
                self._exhaust(f"daily budget ${self.daily_usd:.4f} reached "
                              f"(spent ${self.spent_before_usd + self.spent_usd:.4f} today)")
            left = self._upstream_left()
            if not self.exhausted and left is not None and left < 1:
                self._exhaust(f"upstream reports X-RateLimit-Remaining={self.upstream_remaining}"
                              + (f" with {self.in_flight} calls in flight" if self.in_flight else ""))
            if self.exhausted:
                raise BudgetExhausted(self.reason or "daily budget exhausted")
            self.list_calls += 1
            self.in_flight += 1

    def list_call_retried(self) -> None:
        with self._lock:
            self.list_calls += 1

    def after_list_call(self, headers: httpx.Headers | None) -> None:
        """A list call let go by before_list_call came back (headers None: it failed)."""
        with self._lock:
            self.in_flight -= 1
            if headers is not None:
                self.answered = True
                self.observe(headers)
            self._lock.notify_all()  # the calls waiting for the first answer

    def singleton_sent(self) -> None:
        with self._lock:
            self.singleton_calls += 1

    def _upstream_left(self) -> float | None:
        try:
            return float(self.upstream_remaining) - self.in_flight if self.upstream_remaining is not None else None
        except ValueError:
            return None  # "unlimited"

    def _exhaust(self, reason: str) -> None:
        self.exhausted, self.reason = True, reason

    def observe(self, headers: httpx.Headers) -> None:
        limit, remaining = headers.get("x-ratelimit-limit"), headers.get("x-ratelimit-remaining")
        with self._lock:
            if limit is not None:
                self.upstream_limit = limit
            if remaining is not None:
                self.upstream_remaining = remaining
            try:
                self.upstream_credits_used += int(headers.get("x-ratelimit-credits-used") or 0)
            except ValueError:
                pass

    def summary(self) -> dict[str, Any]:
        return {
            "list_calls": self.list_calls,
            "singleton_calls": self.singleton_calls,
            "spent_usd": round(self.spent_usd, 6),
            "spent_today_usd": round(self.spent_before_usd + self.spent_usd, 6),
            "daily_budget_usd": self.daily_usd,
            "remaining_usd": None if self.remaining_usd is None else round(self.remaining_usd, 6),
            "upstream_limit": self.upstream_limit,
            "upstream_remaining": self.upstream_remaining,
            "exhausted": self.exhausted,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Fetched:
    kind: str  # works_filter | work_singleton | authors_filter | author_singleton | institutions_filter | ...
    ids: list[str]  # what was asked (arXiv ids for works, OpenAlex ids for authors/institutions)
    request: str  # JSON description without secrets (kept in the raw layer)
    body: bytes
    records: list = field(default_factory=list)
    bad: list = field(default_factory=list)  # records of the body set aside (quarantined when derived)


def arxiv_doi(arxiv_id: str) -> str:
    return ARXIV_DOI_PREFIX + arxiv_id.lower()


def describe(path: str, params: dict[str, Any], ids: Sequence[str], **extra: object) -> str:
    safe = {k: v for k, v in params.items() if k != "api_key"}
    return json.dumps({"method": "GET", "path": path, "params": safe, "ids": list(ids), **extra},
                      separators=(",", ":"))


def _validator(parse: Callable[..., Any], *, lenient: bool = False) -> Callable[[httpx.Response], Any]:
    """Parse a body, turning truncated or malformed ones into a retry. `lenient` (list pages)
    sets unparseable records aside: they are quarantined when tables are derived. Returns
    (what parse returned, the records set aside)."""

    def validate(response: httpx.Response) -> tuple[Any, list]:
        bad: list = []
        try:
            payload = orjson.loads(response.content)
            return (parse(payload, bad=bad) if lenient else parse(payload)), bad
        except (ValueError, OpenAlexParseError) as exc:  # truncated or malformed body
            raise InvalidBody(str(exc)) from None

    return validate


class OpenAlexClient(UpstreamClient):
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        budget: OpenAlexBudget | None = None,
        min_interval_s: float = 0.01,  # 100 requests/s on every plan
        timeout_s: float = 60.0,
        retry: RetrySettings = RetrySettings(),
        or_values: int = OR_VALUES_MAX,
        concurrency: int = 4,
    ):
        if not 1 <= or_values <= OR_VALUES_MAX:
            raise ValueError(f"or_values must be 1..{OR_VALUES_MAX}")
        self.api_key = api_key
        self.budget = budget or OpenAlexBudget()
        self.or_values = or_values
        self.concurrency = concurrency  # filter calls (with their singletons) in flight at once
        self.http = HttpClient(
            base_url, min_interval_s=min_interval_s, timeout_s=timeout_s, retry=retry,
            secrets=(api_key,) if api_key else (), max_connections=concurrency,
        )
        self._dropped = DroppedFields(  # entity path -> select fields refused so far
            FIELDS, REQUIRED_FIELDS, refused_select_fields, log,
            "OpenAlex refuses select field %r on /%s (%s); asking without it from now on")
        self._refused_lock = threading.Lock()
        self._refused: UpstreamRefused | None = None  # a refusal no dropped field answers: send no more

    # -- select, and what the upstream refuses of it ---------------------------------------

    @property
    def dropped_fields(self) -> dict[str, list[str]]:
        """Select fields the upstream refused during this client's life, per entity path."""
        return self._dropped.dropped

    def select(self, entity: str) -> str:
        return self._dropped.asked(entity)

    def _get(self, entity: str, path: str, params: dict[str, Any], validate, on_retry,
             before=None, after=None) -> tuple[httpx.Response, Any, dict[str, Any]]:
        """One GET through the HTTP layer; a refused optional select field is dropped and
        the call sent once more without it. Returns (response, parsed, params as sent)."""
        while True:
            self._raise_if_refused()
            if before is not None:
                before()  # may wait for a call in flight, which may be refused meanwhile
            headers, refused, ask_again = None, None, False
            try:
                if self._refused is None:
                    response, parsed = self.http.request("GET", path, params=self._params(params),
                                                         validate=validate, on_retry=on_retry)
                    headers = response.headers
                    return response, parsed, params
            except UpstreamRefused as exc:
                refused = exc
                # 404: an unknown id (a singleton), not a refusal of the request itself.
                ask_again = exc.status != 404 and self._dropped.drop(entity, exc, params.get("select"))
                if exc.status != 404 and not ask_again:
                    with self._refused_lock:  # set before `after` lets a waiting call go
                        self._refused = self._refused or exc
            finally:
                if after is not None:
                    after(headers)
            if refused is not None and not ask_again:
                raise refused
            if refused is not None:
                params = {**params, "select": self.select(entity)}
            # else not sent (an earlier call was refused meanwhile): raised at the loop's top

    def _raise_if_refused(self) -> None:
        first = self._refused
        if first is not None:
            raise UpstreamRefused(f"not sent: an earlier call was refused: {first}", first.status,
                                  first.upstream_message)

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "api_key": self.api_key} if self.api_key else dict(params)

    def _list_call(self, path: str, params: dict[str, Any], parse) -> tuple[httpx.Response, Any, list, dict]:
        # Our own count: every request sent, retries included (conservative).
        response, (parsed, bad), params = self._get(
            path.strip("/"), path, params, _validator(parse, lenient=True), self.budget.list_call_retried,
            before=self.budget.before_list_call, after=self.budget.after_list_call)
        return response, parsed, bad, params

    def _singleton(self, path: str, params: dict[str, Any], parse) -> tuple[httpx.Response, Any, dict] | None:
        entity = path.strip("/").split("/")[0]
        try:
            response, (parsed, _), params = self._get(entity, path, params, _validator(parse),
                                                      self.budget.singleton_sent, before=self.budget.singleton_sent)
        except UpstreamError as exc:
            if exc.status == 404:
                return None
            raise
        self.budget.observe(response.headers)
        return response, parsed, params

    def _filtered(self, kind: str, path: str, field_name: str, values: list[str], ids: list[str], parse_page,
                  extra: dict) -> Iterator[Fetched]:
        params: dict[str, Any] = {"filter": f"{field_name}:{'|'.join(values)}", "per_page": PER_PAGE, "cursor": "*",
                                  "select": self.select(path.strip("/"))}
        seen = 0
        while True:
            response, (records, next_cursor, count), bad, params = self._list_call(path, params, parse_page)
            yield Fetched(kind, ids, describe(path, params, ids, **extra), response.content, records, bad)
            seen += len(records)
            # Stop on the count: with <= 50 values and per_page 100 that is one call, where
            # "until next_cursor is null" would always cost a second, empty one.
            if not records or not next_cursor or (count is not None and seen >= count):
                return
            params = {**params, "cursor": next_cursor}

    def _maybe_truncated(self, record) -> bool:
        return maybe_truncated(record, flag_asked=not self._dropped.is_dropped("works", "is_authors_truncated"))

    def _complete(self, truncated: list[tuple[str, str | None]], extra: dict) -> Iterator[Fetched]:
        for work_id, arxiv_id in truncated:
            got = self._singleton(f"/works/{work_id}", {"select": self.select("works")}, parse_work)
            if got is not None:
                response, record, params = got
                ids_ = [arxiv_id] if arxiv_id else []
                yield Fetched("work_singleton", ids_,
                              describe(f"/works/{work_id}", params, ids_, work_id=work_id, **extra),
                              response.content, [record])

    def works_by_arxiv_ids(self, arxiv_ids: Sequence[str], **extra: object) -> Iterator[Fetched]:
        """Works for arXiv ids through their DataCite DOIs; truncated author lists are
        completed by a singleton fetch (yielded right after the page that had them)."""

        def fetch_chunk(ids: list[str]) -> Iterator[Fetched]:
            truncated = []
            for page in self._filtered("works_filter", "/works", "doi", [arxiv_doi(i) for i in ids], ids,
                                       parse_works_page, extra):
                truncated += [(r.work_id, r.arxiv_id) for r in page.records if self._maybe_truncated(r)]
                yield page
            yield from self._complete(truncated, extra)

        return fetch_in_order(fetch_chunk, chunks(list(arxiv_ids), self.or_values), self.concurrency)

    def works_by_published_dois(self, pairs: Sequence[tuple[str, str]], **extra: object) -> Iterator[Fetched]:
        """Works of arXiv papers by the DOI of their published version, for (arxiv_id, doi)
        pairs: a preprint OpenAlex merged into its published version carries that DOI, and
        its arXiv DOI finds nothing. 50 DOIs per OR-filter; the request kept in the raw layer
        pairs each DOI with its arXiv id (`dois`), which is how a result is matched back."""
        by_doi: dict[str, str] = {}
        for arxiv_id, doi in pairs:
            if doi and not any(c in doi for c in ",|"):  # the filter's own separators
                by_doi.setdefault(doi.strip().lower(), arxiv_id)
        items = list(by_doi.items())

        def fetch_chunk(chunk: list[tuple[str, str]]) -> Iterator[Fetched]:
            dois, ids, wanted = [d for d, _ in chunk], [a for _, a in chunk], dict(chunk)
            truncated = []
            for page in self._filtered("works_doi_filter", "/works", "doi", dois, ids, parse_works_page,
                                       {**extra, "dois": dois}):
                truncated += [(r.work_id, wanted.get(r.doi or "")) for r in page.records if self._maybe_truncated(r)]
                yield page
            yield from self._complete(truncated, extra)

        return fetch_in_order(fetch_chunk, chunks(items, self.or_values), self.concurrency)

    def _entities(self, entity: str, ids: Sequence[str], parse_page, parse_one, extra: dict) -> Iterator[Fetched]:
        kind = entity.rstrip("s")

        def fetch_chunk(chunk: list[str]) -> Iterator[Fetched]:
            returned: set[str] = set()
            for page in self._filtered(f"{entity}_filter", f"/{entity}", "id", chunk, chunk, parse_page, extra):
                returned |= {getattr(r, f"{kind}_id") for r in page.records}
                yield page
            # Merged ids are not listed under their old id; the singleton answers 301 to the
            # survivor (followed by the HTTP layer). Singletons are free.
            for missing in (i for i in chunk if i not in returned):
                path = f"/{entity}/{missing}"
                got = self._singleton(path, {"select": self.select(entity)}, parse_one)
                if got is not None:
                    response, record, params = got
                    yield Fetched(f"{kind}_singleton", [missing], describe(path, params, [missing], **extra),
                                  response.content, [record])

        return fetch_in_order(fetch_chunk, chunks(list(dict.fromkeys(ids)), self.or_values), self.concurrency)

    def authors_by_ids(self, author_ids: Sequence[str], **extra: object) -> Iterator[Fetched]:
        return self._entities("authors", author_ids, parse_authors_page, parse_author, extra)

    def institutions_by_ids(self, institution_ids: Sequence[str], **extra: object) -> Iterator[Fetched]:
        return self._entities("institutions", institution_ids, parse_institutions_page, parse_institution, extra)
