"""A tiny hand-built World for the S2 and OpenAlex endpoint tests, and a way to serve it.

Hand-built (not generated) so each test knows exactly what is in it: a lagging paper, a
null S2 author id and a group author, a paper with 250 citers, a 120-author collaboration,
an author with 8 works (cursor paging), merged OpenAlex ids, ORCIDs on a minority.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from wove_pipeline.sandbox.endpoint import Request
from wove_pipeline.sandbox.world import (
    Authorship,
    Institution,
    OpenAlexAuthor,
    OpenAlexAuthorship,
    OpenAlexWork,
    Paper,
    Person,
    S2Author,
    S2Paper,
    Version,
    World,
)

TODAY = dt.date(2025, 8, 20)
LAGGING_ARXIV_ID = "2508.09999"  # known to S2 and OpenAlex only from TODAY + 3 days
CITED_ARXIV_ID = "2508.06001"  # 250 citers
COLLAB_ARXIV_ID = "2508.07777"  # 120 OpenAlex authorships
OLD_STYLE_ID = "hep-th/9901001"
RETIRED_WORK = "W4400000999"  # merged into the work of CITED_ARXIV_ID
RETIRED_AUTHOR = "A5000000099"  # merged into A5000000001
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SAMPLES = SHARED / "upstream-samples"

TOPIC = {
    "id": "https://openalex.org/T10048",
    "display_name": "Particle physics theoretical and experimental studies",
    "score": 0.99,
    "subfield": {"id": "https://openalex.org/subfields/3106", "display_name": "Nuclear and High Energy Physics"},
    "field": {"id": "https://openalex.org/fields/31", "display_name": "Physics and Astronomy"},
    "domain": {"id": "https://openalex.org/domains/3", "display_name": "Physical Sciences"},
}


def hex40(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def s2_id(arxiv_id: str) -> str:
    return hex40("s2:" + arxiv_id)


def work_id(n: int) -> str:
    return f"W44000{n:05d}"


def build_world() -> World:
    institutions = {
        "I100": Institution("I100", "https://ror.org/0abcdef10", "Peking University", "CN", aliases=["PKU"]),
        "I200": Institution("I200", "https://ror.org/0abcdef20", "European Organization for Nuclear Research",
                            "CH", type="facility", aliases=["CERN"]),
        "I300": Institution("I300", "https://ror.org/0abcdef30", "Technische Universität München", "DE",
                            aliases=["TUM", "Technical University of Munich"]),
    }
    persons = {
        1: Person(1, "Peng", "Wang", orcid="0000-0002-1825-0097", affiliations=[("I100", 2019, 2025)],
                  s2_author_ids=["1001"], openalex_author_ids=["A5000000001", RETIRED_AUTHOR]),
        2: Person(2, "Jörg", "Müller", affiliations=[("I300", 2020, 2025)],
                  s2_author_ids=["1002"], openalex_author_ids=["A5000000002"]),
        3: Person(3, "ATLAS", "Collaboration", is_collaboration=True),
        4: Person(4, "Ana", "Lopez", orcid="0000-0003-0000-0004", s2_author_ids=["1004"],
                  openalex_author_ids=["A5000000004"]),
    }
    s2_authors = {
        "1001": S2Author("1001", "P. Wang", [1], orcid="0000-0002-1825-0097", dblp_names=["Peng Wang 0001"],
                         paper_count=42, citation_count=1234, h_index=17),
        "1002": S2Author("1002", "J. Müller", [2], paper_count=8, citation_count=90, h_index=4),
        "1004": S2Author("1004", "Ana Lopez", [4], paper_count=3, citation_count=5, h_index=1),
        # Only known through the lagging paper: absent until it lands.
        "1005": S2Author("1005", "L. Late", [4], paper_count=1, citation_count=0, h_index=0),
    }
    openalex_authors = {
        "A5000000001": OpenAlexAuthor("A5000000001", "Peng Wang", [1], "https://orcid.org/0000-0002-1825-0097",
                                      display_name_alternatives=["P. Wang", "Wang Peng"], works_count=40,
                                      cited_by_count=1100, h_index=16, i10_index=20,
                                      two_year_mean_citedness=3.5, last_known_institution_ids=["I100"],
                                      affiliations=[("I100", [2025, 2024, 2023])]),
        "A5000000002": OpenAlexAuthor("A5000000002", "Jörg Müller", [2], None,
                                      display_name_alternatives=["J. Muller"], works_count=9,
                                      last_known_institution_ids=["I300"], affiliations=[("I300", [2025])]),
        # author id ending in 4: rendered with top-level orcid null while ids.orcid is set
        "A5000000004": OpenAlexAuthor("A5000000004", "Ana Lopez", [4], "0000-0003-0000-0004", works_count=3),
        RETIRED_AUTHOR: OpenAlexAuthor(RETIRED_AUTHOR, "P. Wang", [1], None, merged_into="A5000000001"),
    }

    papers: list[Paper] = []

    def add(n: int, arxiv_id: str, day: int, s2_authors_list, oa_authorships, available_shift: int = -20,
            citing: list[str] | None = None, doi: str | None = None, arxiv_authors: int = 2) -> Paper:
        submitted = dt.datetime(2025, 8, day, 14, 0, tzinfo=dt.timezone.utc)
        avail = TODAY + dt.timedelta(days=available_shift)
        title = f"On the sandbox paper number {n}"
        p = Paper(
            arxiv_id=arxiv_id,
            versions=[Version(1, submitted, 120)],
            datestamp=submitted.date(),
            title=title,
            abstract=f"We study $x^{n}$ in the sandbox. The sandbox is small.",
            authors=[Authorship(i, 1, "Wang", "Peng") for i in range(arxiv_authors)],
            categories=["hep-th"],
        )
        p.s2 = S2Paper(
            paper_id=s2_id(arxiv_id), corpus_id=900000 + n, available_from=avail, title=title,
            abstract=p.abstract, year=2025, publication_date=submitted.date(), venue="arXiv.org",
            citation_count=len(citing or []), influential_citation_count=0, reference_count=3,
            fields_of_study=["Physics"], doi=doi, authors=s2_authors_list, citing_paper_ids=citing or [],
        )
        p.openalex = OpenAlexWork(
            work_id=work_id(n), available_from=avail, doi=f"https://doi.org/10.48550/arxiv.{arxiv_id}",
            title=title, publication_date=submitted.date(), type="preprint",
            cited_by_count=len(citing or []) + 1, counts_by_year=[(2025, len(citing or []) + 1)],
            authorships=oa_authorships, primary_topic=TOPIC, topics=[TOPIC], abstract=p.abstract,
        )
        papers.append(p)
        return p

    def wang(orcid=True):
        return OpenAlexAuthorship("A5000000001", "Peng Wang", "Peng Wang",
                                  "0000-0002-1825-0097" if orcid else None, ["I100"], ["Peking University, Beijing"],
                                  is_corresponding=True)

    mueller = OpenAlexAuthorship("A5000000002", "Jörg Müller", "J. Müller", None, ["I300", "I200"],
                                 ["TUM, Munich", "CERN, Geneva"])
    group = OpenAlexAuthorship(None, "ATLAS Collaboration", "ATLAS Collaboration", None, [], [])

    # Eight works by Wang (cursor paging over authorships.author.id), day 1..8.
    citers = []
    for n in range(1, 9):
        p = add(n, f"2508.0{n:04d}", n, [("1001", "P. Wang"), ("1002", "J. Müller")], [wang(), mueller])
        citers.append(p.s2.paper_id)
    # 250 citers: the 8 above plus 242 papers S2 knows but the world does not.
    citing = citers + [hex40(f"external citer {i}") for i in range(242)]
    add(20, CITED_ARXIV_ID, 10, [("1001", "P. Wang"), (None, "ATLAS Collaboration"), ("1002", "J. Müller")],
        [wang(), group, mueller], citing=citing)
    add(21, OLD_STYLE_ID, 11, [("1004", "Ana Lopez")],
        [OpenAlexAuthorship("A5000000004", "Ana Lopez", "A. Lopez", "0000-0003-0000-0004")],
        doi="10.1103/PhysRevD.59.000001")
    add(22, LAGGING_ARXIV_ID, 12, [("1005", "L. Late"), ("1001", "P. Wang")], [wang(orcid=False)],
        available_shift=3)
    collab = [wang()] + [
        OpenAlexAuthorship(f"A51000{i:05d}", f"Member {i}", f"M. Member{i}", None, ["I200"], ["CERN"])
        for i in range(118)
    ] + [wang()]  # Wang again at position 119: beyond the 100 a list response shows
    collab[0] = mueller
    add(23, COLLAB_ARXIV_ID, 13, [("1002", "J. Müller")], collab)

    return World(
        seed=0, size=len(papers), start_day=dt.date(2025, 8, 1), end_day=dt.date(2025, 8, 13), papers=papers,
        persons=persons, institutions=institutions, s2_authors=s2_authors, openalex_authors=openalex_authors,
        openalex_redirects={RETIRED_WORK: work_id(20)},
    )


# ---------------------------------------------------------------------------- serving


class MiniServer:
    """Stand-in for ``wove_pipeline.sandbox.server.SandboxServer`` (no faults): routes by
    prefix to the endpoints over real HTTP on 127.0.0.1. ``today`` may be moved."""

    def __init__(self, world: World, endpoints: list, today: dt.date):
        self.world, self.endpoints, self.today = world, endpoints, today
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output quiet
                pass

            def _serve(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                for ep in outer.endpoints:
                    if parts.path == ep.prefix or parts.path.startswith(ep.prefix + "/"):
                        req = Request(self.command, parts.path[len(ep.prefix):] or "/",
                                      parse_qs(parts.query, keep_blank_values=True),
                                      {k.lower(): v for k, v in self.headers.items()}, body,
                                      self.client_address[0])
                        resp = ep.handle(req, outer.today)
                        break
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                self.wfile.write(resp.body)

            do_GET = do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def start(self) -> "MiniServer":
        self.thread.start()
        return self

    def url_for(self, name: str) -> str:
        ep = next(e for e in self.endpoints if e.name == name)
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{ep.prefix}"

    def set_today(self, today: dt.date) -> None:
        self.today = today

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(world: World, endpoints: list, today: dt.date = TODAY):
    """Serve over real HTTP: the project's SandboxServer once it exists, else MiniServer."""
    try:
        from wove_pipeline.sandbox.server import SandboxServer
    except ImportError:
        return MiniServer(world, endpoints, today).start()
    server = SandboxServer(world, endpoints=endpoints, today=today)
    server.start()
    return server


def move_clock(server, today: dt.date) -> None:
    """Move the sandbox clock of either server kind."""
    if hasattr(server, "set_today"):
        server.set_today(today)
    else:
        server.today = today


def key_paths(obj, prefix: str = "") -> set[str]:
    """All key paths in a JSON value ("authorships[].author.id"), to compare shapes."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else k
            out.add(path)
            out |= key_paths(v, path)
    elif isinstance(obj, list):
        for v in obj:
            out |= key_paths(v, prefix + "[]")
    return out
