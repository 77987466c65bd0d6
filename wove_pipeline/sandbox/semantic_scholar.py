"""Sandbox Semantic Scholar Graph API v1, answering like ``api.semanticscholar.org/graph/v1``.

Wire format follows the recorded payloads in ``shared/upstream-samples/semanticscholar/`` and
``shared/research/upstream.md`` §2: batch arrays aligned with the request and ``null`` in
place, ``offset``/``next`` paging with no ``next`` on the last page, 400/404 JSON error
bodies, 403 for a wrong ``x-api-key`` and 429 with S2's body and *no* ``Retry-After``.

This module shares no code with the pipeline's S2 client or parsers (DESIGN.md): a fake
built from the code under test would only test that code against itself.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
import time
import uuid
from collections import Counter, defaultdict
from typing import Callable
from urllib.parse import unquote

from wove_pipeline.sandbox.endpoint import Request, Response
from wove_pipeline.sandbox.world import Paper, S2Author, World

# Paper fields in the order S2 serialises them (sample paper_batch_with_null.json), whatever
# order the request lists them in.
PAPER_FIELDS = [
    "paperId", "externalIds", "corpusId", "publicationVenue", "url", "title", "abstract",
    "venue", "year", "referenceCount", "citationCount", "influentialCitationCount",
    "isOpenAccess", "openAccessPdf", "fieldsOfStudy", "s2FieldsOfStudy", "publicationTypes",
    "publicationDate", "journal", "citationStyles", "authors", "citations", "references",
    "tldr", "embedding",
]
# Author fields in S2's order (sample author_detail_with_papers.json).
AUTHOR_FIELDS = [
    "authorId", "externalIds", "url", "name", "affiliations", "homepage", "paperCount",
    "citationCount", "hIndex", "papers",
]
# Fields that take a dotted sub-field list, and which sub-fields they accept.
_PAPER_LIST_FIELDS = {"citations", "references"}
_PAPER_SCALAR_FIELDS = [f for f in PAPER_FIELDS if f not in _PAPER_LIST_FIELDS]
_CITATION_EXTRA_FIELDS = ["contexts", "intents", "contextsWithIntent", "isInfluential"]

TOO_MANY_REQUESTS = {
    "message": "Too Many Requests. Please wait and try again or apply for a key for higher "
    "rate limits. https://www.semanticscholar.org/product/api#api-key-form",
    "code": "429",
}
# arXiv's venue record as S2 serves it for arXiv-only papers.
_ARXIV_VENUE = {
    "id": "1901e811-ee72-4b20-8f7e-de08cd395a10",
    "name": "arXiv.org",
    "alternate_names": ["ArXiv"],
    "issn": "2331-8422",
    "url": "https://arxiv.org",
}

PAPER_BATCH_MAX = 500
AUTHOR_BATCH_MAX = 1000
PAGE_LIMIT_MAX = 1000
PAGE_LIMIT_DEFAULT = 100

_HEX40 = re.compile(r"^[0-9a-fA-F]{40}$")


class _BadRequest(Exception):
    """Raised while parsing a request; becomes a 400 with S2's ``{"error": ...}`` body."""


def _json(status: int, obj: object, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    return Response(status, body, {"Content-Type": "application/json", **(headers or {})})


def _error(status: int, message: str) -> Response:
    return _json(status, {"error": message})


class _TokenBucket:
    """Per-client token bucket: ``rate`` requests per second, bursts up to ``max(1, rate)``."""

    def __init__(self, rate: float, clock: Callable[[], float]):
        self.rate = rate
        self.capacity = max(1.0, rate)
        self.clock = clock
        self.state: dict[tuple[str, str | None], tuple[float, float]] = {}

    def allow(self, key: tuple[str, str | None]) -> bool:
        now = self.clock()
        tokens, last = self.state.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - last) * self.rate)
        if tokens < 1.0:
            # A refused request does not consume a token, so a client that backs off recovers.
            self.state[key] = (tokens, now)
            return False
        self.state[key] = (tokens - 1.0, now)
        return True


class SemanticScholarEndpoint:
    """The S2 Graph API over a :class:`World`. ``calls`` counts requests by route."""

    name = "s2"
    prefix = "/s2/graph/v1"

    def __init__(
        self,
        world: World,
        rate_per_second: float | None = None,
        api_key: str | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.world = world
        self.api_key = api_key
        # Upstream drift: `fields` entries this API no longer accepts (e.g. "venue", or a
        # dotted "authors.name"), refused with S2's 400 like any unknown field.
        self.refused_fields: set[str] = set()
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._bucket = _TokenBucket(rate_per_second, clock) if rate_per_second else None
        self._index()

    # ------------------------------------------------------------------ indexes

    def _index(self) -> None:
        self.by_paper_id: dict[str, Paper] = {}
        self.by_corpus_id: dict[int, Paper] = {}
        self.by_arxiv: dict[str, Paper] = {}
        self.by_doi: dict[str, Paper] = {}
        self.papers_of_author: dict[str, list[Paper]] = defaultdict(list)
        self.references_of: dict[str, list[str]] = defaultdict(list)  # inverse of citing_paper_ids
        for p in self.world.papers:
            s2 = p.s2
            if s2 is None:
                continue
            self.by_paper_id[s2.paper_id.lower()] = p
            self.by_corpus_id[s2.corpus_id] = p
            self.by_arxiv[p.arxiv_id.lower()] = p
            if s2.doi:
                self.by_doi[s2.doi.lower()] = p
            for author_id, _name in s2.authors:
                if author_id is None:
                    continue
                papers = self.papers_of_author[author_id]
                # papers come one at a time: p can only be there as the last (an id twice on it);
                # `p not in papers` compared dataclasses, quadratic in a collaboration member's papers
                if not papers or papers[-1] is not p:
                    papers.append(p)
            for citing in s2.citing_paper_ids:
                self.references_of[citing.lower()].append(s2.paper_id)
        for papers in self.papers_of_author.values():
            papers.sort(key=lambda p: (p.s2.publication_date or dt.date.min, p.arxiv_id), reverse=True)

    def _visible(self, p: Paper | None, today: dt.date) -> bool:
        # Coverage lag: S2 does not know a paper before its available_from day.
        return p is not None and p.s2 is not None and p.s2.available_from <= today

    def find_paper(self, ident: str, today: dt.date) -> Paper | None:
        """Resolve any S2 paper id form; None if unknown or not yet covered."""
        ident = ident.strip()
        head, sep, rest = ident.partition(":")
        kind = head.upper() if sep else ""
        p: Paper | None = None
        if not sep and _HEX40.match(ident):
            p = self.by_paper_id.get(ident.lower())
        elif not sep and ident.startswith("10."):  # a bare DOI works in batch (sample cassette)
            p = self.by_doi.get(ident.lower())
        elif kind == "CORPUSID" and rest.isdigit():
            p = self.by_corpus_id.get(int(rest))
        elif kind == "ARXIV":
            p = self.by_arxiv.get(rest.lower())  # no version stripping: S2 wants bare ids
        elif kind == "DOI":
            p = self.by_doi.get(rest.lower())
        elif kind == "URL":
            m = re.search(r"arxiv\.org/abs/(.+?)/?$", rest)
            if m:
                p = self.by_arxiv.get(m.group(1).lower())
            m = re.search(r"semanticscholar\.org/paper/(?:.*/)?([0-9a-fA-F]{40})", rest)
            if m:
                p = self.by_paper_id.get(m.group(1).lower())
        return p if self._visible(p, today) else None

    def find_author(self, ident: str, today: dt.date) -> S2Author | None:
        a = self.world.s2_authors.get(ident.strip())
        if a is None:
            return None
        papers = self.papers_of_author.get(a.author_id, [])
        # An author S2 only knows through papers it has not ingested yet does not exist yet.
        if papers and not any(self._visible(p, today) for p in papers):
            return None
        return a

    # ------------------------------------------------------------------ fields

    def parse_paper_fields(self, raw: str | None, extra: list[str] = ()) -> dict[str, set[str] | None]:
        """``fields`` for a paper (or a citation when ``extra`` is given) -> {field: sub-fields}."""
        if raw is None:
            return {"title": None}
        spec: dict[str, set[str] | None] = {}
        bad: list[str] = []
        for f in (x.strip() for x in raw.split(",")):
            if not f:
                continue
            head, dot, sub = f.partition(".")
            if f in self.refused_fields:
                bad.append(f)
            elif not dot and (head in PAPER_FIELDS or head in extra):
                spec.setdefault(head, None)
            elif (dot and head == "authors" and sub in AUTHOR_FIELDS and sub != "papers") or (
                dot and head in _PAPER_LIST_FIELDS and sub in _PAPER_SCALAR_FIELDS
            ):
                if spec.get(head) is None:  # "authors" plus "authors.hIndex" = the dotted form
                    spec[head] = set()
                spec[head].add(sub)
            elif dot and head == "embedding" and sub in ("specter_v1", "specter_v2"):
                spec["embedding"] = None
            else:
                bad.append(f)
        if bad:
            raise _BadRequest(f"Unrecognized or unsupported fields: [{', '.join(bad)}]")
        return spec

    def parse_author_fields(self, raw: str | None) -> dict[str, set[str] | None]:
        if raw is None:
            return {"name": None}
        spec: dict[str, set[str] | None] = {}
        bad: list[str] = []
        for f in (x.strip() for x in raw.split(",")):
            if not f:
                continue
            head, dot, sub = f.partition(".")
            if f in self.refused_fields:
                bad.append(f)
            elif not dot and head in AUTHOR_FIELDS:
                spec.setdefault(head, None)
            elif dot and head == "papers" and sub in _PAPER_SCALAR_FIELDS:
                if spec.get(head) is None:
                    spec[head] = set()
                spec[head].add(sub)
            else:
                bad.append(f)
        if bad:
            raise _BadRequest(f"Unrecognized or unsupported fields: [{', '.join(bad)}]")
        return spec

    # ------------------------------------------------------------------ rendering

    def render_paper(self, p: Paper, spec: dict[str, set[str] | None], today: dt.date) -> dict:
        s2 = p.s2
        assert s2 is not None
        out: dict = {"paperId": s2.paper_id}  # S2 always returns paperId
        for f in PAPER_FIELDS:
            if f not in spec or f == "paperId":
                continue
            out[f] = self._paper_value(p, f, spec[f], today)
        return out

    def _paper_value(self, p: Paper, f: str, subs: set[str] | None, today: dt.date):
        s2 = p.s2
        if f == "externalIds":
            ext: dict = {"ArXiv": p.arxiv_id}
            if s2.doi:
                ext["DOI"] = s2.doi
            ext["CorpusId"] = s2.corpus_id
            return ext
        if f == "corpusId":
            return s2.corpus_id
        if f == "publicationVenue":
            if s2.venue in ("arXiv.org", "ArXiv", ""):
                return dict(_ARXIV_VENUE, alternate_names=list(_ARXIV_VENUE["alternate_names"]))
            return {
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "s2venue:" + s2.venue)),
                "name": s2.venue,
                "type": "journal",
                "alternate_names": [],
            }
        if f == "url":
            return f"https://www.semanticscholar.org/paper/{s2.paper_id}"
        if f == "title":
            return s2.title
        if f == "abstract":
            return s2.abstract
        if f == "venue":
            return s2.venue
        if f == "year":
            return s2.year
        if f == "referenceCount":
            return s2.reference_count
        if f == "citationCount":
            return s2.citation_count
        if f == "influentialCitationCount":
            return s2.influential_citation_count
        if f == "isOpenAccess":
            return True  # every arXiv paper has a green OA copy
        if f == "openAccessPdf":
            return {"url": f"https://arxiv.org/pdf/{p.arxiv_id}", "status": "GREEN"}
        if f == "fieldsOfStudy":
            return list(s2.fields_of_study) if s2.fields_of_study is not None else None
        if f == "s2FieldsOfStudy":
            fos = s2.fields_of_study or []
            out = [{"category": c, "source": "external"} for c in fos]
            if fos:
                out.append({"category": fos[0], "source": "s2-fos-model"})
            return out
        if f == "publicationTypes":
            return ["JournalArticle"] if s2.doi else None
        if f == "publicationDate":
            return s2.publication_date.isoformat() if s2.publication_date else None
        if f == "journal":
            if s2.doi:
                return {"name": s2.venue}
            # What S2 shows for arXiv-only papers.
            return {"name": "arXiv.org", "volume": f"abs/{p.arxiv_id}"}
        if f == "citationStyles":
            return {"bibtex": self._bibtex(p)}
        if f == "authors":
            return [self._nested_author(aid, name, subs, today) for aid, name in s2.authors]
        if f == "citations":
            return [self._nested_paper(pid, subs, today) for pid in self._citing(p, today)]
        if f == "references":
            refs = self.references_of.get(s2.paper_id.lower(), [])
            return [
                self.render_paper(r, {k: None for k in (subs or {"title"})}, today)
                for r in (self.by_paper_id.get(x.lower()) for x in refs)
                if self._visible(r, today)
            ]
        if f in ("tldr", "embedding"):
            return None  # the sandbox computes neither
        raise AssertionError(f)

    def _bibtex(self, p: Paper) -> str:
        s2 = p.s2
        names = " and ".join(name for _aid, name in s2.authors)
        key = re.sub(r"\W", "", (s2.authors[0][1].split()[-1] if s2.authors else "Anon")) + str(s2.year or "")
        return (
            f"@Article{{{key},\n author = {{{names}}},\n journal = {{ArXiv}},\n"
            f" title = {{{s2.title}}},\n volume = {{abs/{p.arxiv_id}}},\n year = {{{s2.year}}}\n}}\n"
        )

    def _nested_author(self, author_id: str | None, name: str, subs: set[str] | None, today: dt.date) -> dict:
        out: dict = {"authorId": author_id}
        subs = subs or {"name"}
        a = self.world.s2_authors.get(author_id) if author_id else None
        for f in AUTHOR_FIELDS:
            if f in subs and f != "authorId":
                # The paper's own spelling wins for ``name``; a missing profile gives nulls.
                out[f] = name if f == "name" else (self._author_value(a, f, None, today) if a else None)
        return out

    def _citing(self, p: Paper, today: dt.date) -> list[str]:
        out = []
        for pid in p.s2.citing_paper_ids:
            q = self.by_paper_id.get(pid.lower())
            if q is None or self._visible(q, today):  # a lagging citer is not known yet
                out.append(pid)
        return out

    def _nested_paper(self, paper_id: str, subs: set[str] | None, today: dt.date) -> dict:
        spec = {k: None for k in (subs or {"title"})}
        q = self.by_paper_id.get(paper_id.lower())
        if q is not None:
            return self.render_paper(q, spec, today)
        # A citer outside the world: S2 knows it, the sandbox only knows its id.
        return {"paperId": paper_id, **{f: None for f in PAPER_FIELDS if f in spec and f != "paperId"}}

    def render_author(self, a: S2Author, spec: dict[str, set[str] | None], today: dt.date) -> dict:
        out: dict = {"authorId": a.author_id}
        for f in AUTHOR_FIELDS:
            if f in spec and f != "authorId":
                out[f] = self._author_value(a, f, spec[f], today)
        return out

    def _author_value(self, a: S2Author, f: str, subs: set[str] | None, today: dt.date):
        if f == "externalIds":
            ext: dict = {}
            if a.dblp_names:
                ext["DBLP"] = list(a.dblp_names)
            if a.orcid:
                ext["ORCID"] = a.orcid.removeprefix("https://orcid.org/")
            return ext
        if f == "url":
            return f"https://www.semanticscholar.org/author/{a.author_id}"
        if f == "name":
            return a.name
        if f == "affiliations":
            return list(a.affiliations)
        if f == "homepage":
            return a.homepage
        if f == "paperCount":
            return a.paper_count
        if f == "citationCount":
            return a.citation_count
        if f == "hIndex":
            return a.h_index
        if f == "papers":
            spec = {k: None for k in (subs or {"title"})}
            return [self.render_paper(p, spec, today) for p in self._author_papers(a, today)]
        raise AssertionError(f)

    def _author_papers(self, a: S2Author, today: dt.date) -> list[Paper]:
        return [p for p in self.papers_of_author.get(a.author_id, []) if self._visible(p, today)]

    # ------------------------------------------------------------------ HTTP

    def handle(self, request: Request, today: dt.date) -> Response:
        route = self._route_name(request)
        with self._lock:
            self.calls[route] += 1
            key = request.headers.get("x-api-key")
            if self.api_key is not None and key != self.api_key:
                # API Gateway's answer to a wrong or missing key.
                return _json(403, {"message": "Forbidden"})
            if self._bucket is not None and not self._bucket.allow((request.client, key)):
                return _json(429, TOO_MANY_REQUESTS)  # deliberately no Retry-After, like S2
        try:
            return self._dispatch(request, today)
        except _BadRequest as e:
            return _error(400, str(e))

    @staticmethod
    def _route_name(request: Request) -> str:
        path = request.path
        for base in ("/paper", "/author"):
            if path in (base + "/batch",):
                return f"{request.method} {path}"
            if path.startswith(base + "/"):
                for sub in ("/citations", "/references", "/authors", "/papers"):
                    if path.endswith(sub):
                        return f"{request.method} {base}/{{id}}{sub}"
                return f"{request.method} {base}/{{id}}"
        return f"{request.method} {path}"

    def _dispatch(self, request: Request, today: dt.date) -> Response:
        path, method = request.path, request.method
        fields = request.query.get("fields", [None])[-1]
        if path == "/paper/batch" and method == "POST":
            spec = self.parse_paper_fields(fields)
            ids = self._batch_ids(request.body, PAPER_BATCH_MAX)
            out = []
            for ident in ids:
                p = self.find_paper(ident, today) if isinstance(ident, str) else None
                out.append(self.render_paper(p, spec, today) if p else None)
            return _json(200, out)
        if path == "/author/batch" and method == "POST":
            spec = self.parse_author_fields(fields)
            ids = self._batch_ids(request.body, AUTHOR_BATCH_MAX)
            out = []
            for ident in ids:
                a = self.find_author(ident, today) if isinstance(ident, str) else None
                out.append(self.render_author(a, spec, today) if a else None)
            return _json(200, out)
        if method != "GET":
            return _json(403, {"message": "Missing Authentication Token"})  # API Gateway, unknown route
        if path.startswith("/paper/"):
            rest = unquote(path[len("/paper/"):])
            for sub in ("citations", "references", "authors"):
                if rest.endswith("/" + sub):
                    return self._paper_sublist(rest[: -len(sub) - 1], sub, request, today)
            spec = self.parse_paper_fields(fields)
            p = self.find_paper(rest, today)
            if p is None:
                return _error(404, f"Paper with id {rest} not found")
            return _json(200, self.render_paper(p, spec, today))
        if path.startswith("/author/"):
            rest = unquote(path[len("/author/"):])
            if rest.endswith("/papers"):
                ident = rest[: -len("/papers")]
                spec = self.parse_paper_fields(fields)
                a = self.find_author(ident, today)
                if a is None:
                    return _error(404, f"Author with id {ident} not found")
                items = [self.render_paper(p, spec, today) for p in self._author_papers(a, today)]
                return _json(200, self._page(items, request))
            spec = self.parse_author_fields(fields)
            a = self.find_author(rest, today)
            if a is None:
                return _error(404, f"Author with id {rest} not found")
            return _json(200, self.render_author(a, spec, today))
        return _json(403, {"message": "Missing Authentication Token"})

    @staticmethod
    def _batch_ids(body: bytes, maximum: int) -> list:
        try:
            data = json.loads(body or b"null")
        except ValueError:
            raise _BadRequest("Unable to parse request body as JSON") from None
        ids = data.get("ids") if isinstance(data, dict) else None
        if not isinstance(ids, list):
            raise _BadRequest('Request body must be a JSON object with an "ids" list')
        if not ids:
            raise _BadRequest("ids must contain at least 1 id")
        if len(ids) > maximum:
            raise _BadRequest(f"Cannot process more than {maximum} ids at once")
        return ids

    def _paper_sublist(self, ident: str, sub: str, request: Request, today: dt.date) -> Response:
        fields = request.query.get("fields", [None])[-1]
        if sub == "authors":
            spec = self.parse_author_fields(fields)
        else:
            spec = self.parse_paper_fields(fields, extra=_CITATION_EXTRA_FIELDS)
        p = self.find_paper(ident, today)
        if p is None:
            return _error(404, f"Paper with id {ident} not found")
        # Parse paging before building items so a bad limit is a 400 even on empty lists.
        offset, limit = self._paging(request)
        if sub == "authors":
            items = []
            for aid, name in p.s2.authors:
                a = self.world.s2_authors.get(aid) if aid else None
                if a is not None:
                    item = self.render_author(a, spec, today)
                else:
                    item = {"authorId": aid, **{f: (name if f == "name" else None)
                                                for f in AUTHOR_FIELDS if f in spec and f != "authorId"}}
                items.append(item)
        else:
            key = "citingPaper" if sub == "citations" else "citedPaper"
            paper_spec = {k: v for k, v in spec.items() if k not in _CITATION_EXTRA_FIELDS} or {"title": None}
            if sub == "citations":
                ids = self._citing(p, today)
            else:
                ids = [x for x in self.references_of.get(p.s2.paper_id.lower(), [])
                       if self._visible(self.by_paper_id.get(x.lower()), today)]
            items = []
            for pid in ids:
                item: dict = {}
                # Citation context fields: the sandbox has no full text, so they are empty.
                if "contexts" in spec:
                    item["contexts"] = []
                if "intents" in spec:
                    item["intents"] = []
                if "contextsWithIntent" in spec:
                    item["contextsWithIntent"] = []
                if "isInfluential" in spec:
                    item["isInfluential"] = False
                item[key] = self._nested_paper(pid, set(paper_spec), today)
                items.append(item)
        return _json(200, self._page(items, request, offset, limit))

    @staticmethod
    def _paging(request: Request) -> tuple[int, int]:
        try:
            offset = int(request.query.get("offset", ["0"])[-1])
            limit = int(request.query.get("limit", [str(PAGE_LIMIT_DEFAULT)])[-1])
        except ValueError:
            raise _BadRequest("offset and limit must be integers") from None
        if offset < 0 or limit < 1:
            raise _BadRequest("offset must be >= 0 and limit must be >= 1")
        if limit > PAGE_LIMIT_MAX:
            raise _BadRequest(f"Requested limit {limit} exceeds maximum of {PAGE_LIMIT_MAX}")
        return offset, limit

    def _page(self, items: list, request: Request, offset: int | None = None, limit: int | None = None) -> dict:
        if offset is None or limit is None:
            offset, limit = self._paging(request)
        out: dict = {"offset": offset}
        if offset + limit < len(items):
            out["next"] = offset + limit  # absent on the last page, as S2 does
        out["data"] = items[offset: offset + limit]
        return out
