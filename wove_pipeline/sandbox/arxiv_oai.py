"""Sandbox arXiv OAI-PMH endpoint, answering like the current server (oaipmh.arxiv.org/oai,
the Feb 2025 rewrite; research/upstream.md §1).

What it reproduces:
* verbs Identify, ListRecords, ListIdentifiers, GetRecord, ListSets, ListMetadataFormats;
  GET and POST (form body); repeated or unknown arguments -> badArgument.
* metadataPrefix arXiv, arXivRaw, oai_dc (arXivOld -> cannotDisseminateFormat: not served here).
* from/until: exactly YYYY-MM-DD, inclusive, UTC days over the record datestamp; until at most
  "tomorrow" by the sandbox clock; from >= 2005-09-16.
* sets at group, archive and category level ("cs", "physics:hep-th", "cs:cs:LG",
  "physics:astro-ph:CO"); an unknown set -> badArgument "Set does not exist"; header
  setSpec one per category.
* 2,500 records (20,000 headers) a page; stateless resumption tokens = url-quoted
  urlencode(params + skip=N) with `from` moved to the last day shown, an expirationDate at the
  next UTC midnight, and an empty <resumptionToken/> on the last page. A token with any other
  argument -> badArgument; an undecodable token -> badResumptionToken.
* every OAI error in an HTTP 200 body; an empty range -> noRecordsMatch.

Deliberate choices (documented deviations):
* `arXiv` format emits <affiliation> per author, as the legacy server did. The new server's
  template drops affiliations, but the XSD allows them and they are the affiliation evidence
  the matcher needs.
* Titles/abstracts are emitted as the same TeX source in `arXiv` and `arXivRaw`. The real
  server runs tex2utf on the `arXiv` format; consumers must cope with TeX either way.
* responseDate is the sandbox day at 00:00:00Z so answers are reproducible.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from urllib.parse import parse_qs, quote, unquote, urlencode
from xml.sax.saxutils import escape, quoteattr

from .endpoint import Request, Response
from .world import Paper, World

RECORDS_LIMIT = 2500
IDENTIFIERS_LIMIT = 20000
EARLIEST = dt.date(2005, 9, 16)
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
VERBS = ("Identify", "ListRecords", "ListIdentifiers", "GetRecord", "ListSets", "ListMetadataFormats")
ALLOWED = {
    "Identify": set(),
    "ListMetadataFormats": {"identifier"},
    "ListSets": {"resumptionToken"},
    "GetRecord": {"identifier", "metadataPrefix"},
    "ListRecords": {"metadataPrefix", "from", "until", "set", "resumptionToken"},
    "ListIdentifiers": {"metadataPrefix", "from", "until", "set", "resumptionToken"},
}
FORMATS = {
    "oai_dc": ("http://www.openarchives.org/OAI/2.0/oai_dc/", "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"),
    "arXiv": ("http://arxiv.org/OAI/arXiv/", "https://oaipmh.arxiv.org/OAI/arXiv.xsd"),
    "arXivRaw": ("http://arxiv.org/OAI/arXivRaw/", "https://oaipmh.arxiv.org/OAI/arXivRaw.xsd"),
}
GROUPS_WITH_OWN_ARCHIVE = ("cs", "math", "stat", "q-bio", "q-fin", "eess", "econ")
GROUP_NAMES = {"cs": "Computer Science", "math": "Mathematics", "physics": "Physics",
               "q-bio": "Quantitative Biology", "q-fin": "Quantitative Finance",
               "stat": "Statistics", "eess": "Electrical Engineering and Systems Science",
               "econ": "Economics"}
# Part of the taxonomy, so that valid-but-empty sets answer noRecordsMatch rather than
# "Set does not exist"; the world's own categories are added at start-up.
KNOWN_CATEGORIES = (
    "cs.AI cs.AR cs.CC cs.CE cs.CG cs.CL cs.CR cs.CV cs.CY cs.DB cs.DC cs.DL cs.DM cs.DS cs.ET "
    "cs.FL cs.GL cs.GR cs.GT cs.HC cs.IR cs.IT cs.LG cs.LO cs.MA cs.MM cs.MS cs.NA cs.NE cs.NI "
    "cs.OH cs.OS cs.PF cs.PL cs.RO cs.SC cs.SD cs.SE cs.SI cs.SY math.AC math.AG math.AP math.AT "
    "math.CA math.CO math.CT math.CV math.DG math.DS math.FA math.GM math.GN math.GR math.GT "
    "math.HO math.IT math.KT math.LO math.MG math.MP math.NA math.NT math.OA math.OC math.PR "
    "math.QA math.RA math.RT math.SG math.SP math.ST astro-ph astro-ph.CO astro-ph.EP astro-ph.GA "
    "astro-ph.HE astro-ph.IM astro-ph.SR cond-mat cond-mat.dis-nn cond-mat.mes-hall "
    "cond-mat.mtrl-sci cond-mat.other cond-mat.quant-gas cond-mat.soft cond-mat.stat-mech "
    "cond-mat.str-el cond-mat.supr-con gr-qc hep-ex hep-lat hep-ph hep-th math-ph nlin.AO nlin.CD "
    "nlin.CG nlin.PS nlin.SI nucl-ex nucl-th physics.acc-ph physics.ao-ph physics.app-ph "
    "physics.atom-ph physics.bio-ph physics.chem-ph physics.comp-ph physics.flu-dyn "
    "physics.gen-ph physics.ins-det physics.optics physics.plasm-ph physics.soc-ph quant-ph "
    "q-bio.BM q-bio.GN q-bio.NC q-bio.PE q-bio.QM q-fin.CP q-fin.GN q-fin.ST q-fin.TR stat.AP "
    "stat.CO stat.ME stat.ML stat.OT stat.TH eess.AS eess.IV eess.SP eess.SY econ.EM econ.GN econ.TH"
).split()

OAI_OPEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">\n'
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class OaiError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def set_spec(category: str) -> str:
    """'cs.LG' -> 'cs:cs:LG', 'hep-th' -> 'physics:hep-th', 'astro-ph.CO' -> 'physics:astro-ph:CO'."""
    archive, _, subject = category.partition(".")
    group = archive if archive in GROUPS_WITH_OWN_ARCHIVE else "physics"
    return f"{group}:{archive}:{subject}" if subject else f"{group}:{archive}"


def set_prefixes(category: str) -> list[str]:
    """Every set a category belongs to: group, group:archive, and the full spec."""
    spec = set_spec(category)
    parts = spec.split(":")
    return [":".join(parts[:i]) for i in range(1, len(parts) + 1)]


def rfc822(t: dt.datetime) -> str:
    """'Tue, 3 Apr 2007 22:04:11 GMT' (day not zero-padded, as arXivRaw prints it)."""
    return f"{DAYS[t.weekday()]}, {t.day} {MONTHS[t.month - 1]} {t.year} {t:%H:%M:%S} GMT"


def wrap_abstract(text: str, width: int = 80) -> str:
    """arXiv's stored abstract shape: two leading spaces, hard-wrapped lines, trailing newline."""
    lines, line = [], " "
    for word in text.split():
        if len(line) + 1 + len(word) > width and line.strip():
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}"
    lines.append(line)
    return "\n".join(lines) + "\n"


def wrap_title(text: str, width: int = 72) -> str:
    """Long titles continue on a new line indented by two spaces."""
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    if cut <= 0:
        return text
    return text[:cut] + "\n  " + wrap_title(text[cut + 1:], width)


def _e(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _opt(tag: str, value: str | None) -> str:
    return f"<{tag}>{_e(value)}</{tag}>" if value else ""


class ArxivOaiEndpoint:
    name = "arxiv"
    prefix = "/oai"

    def __init__(self, world: World):
        self.world = world
        # the OAI order: by datestamp then id; bisect on datestamps for from/until
        self.records: list[Paper] = sorted(world.papers, key=lambda p: (p.datestamp, p.arxiv_id))
        self.days = [p.datestamp for p in self.records]
        self.by_id = {p.arxiv_id: p for p in world.papers}
        cats = set(KNOWN_CATEGORIES)
        for p in world.papers:
            cats.update(p.categories)
        self.valid_sets = set()
        for c in cats:
            self.valid_sets.update(set_prefixes(c))
        self.categories = sorted(cats)

    # -- HTTP -----------------------------------------------------------------------------

    def handle(self, request: Request, today: dt.date) -> Response:
        base_url = f"http://{request.headers.get('host', '127.0.0.1')}{self.prefix}"
        try:
            params = self.parse_params(request)
        except OaiError as err:
            return self.error_response({}, err, base_url, today)
        try:
            body = self.dispatch(params, today, base_url)
        except OaiError as err:
            return self.error_response(params, err, base_url, today)
        return Response(200, body.encode("utf-8"), {"Content-Type": "text/xml; charset=utf-8"})

    def parse_params(self, request: Request) -> dict[str, str]:
        query: dict[str, list[str]] = {k: list(v) for k, v in request.query.items()}
        if request.method == "POST" and request.body:
            for k, v in parse_qs(request.body.decode("utf-8", "replace"), keep_blank_values=True).items():
                query.setdefault(k, []).extend(v)
        for k, values in query.items():
            if len(values) > 1:
                raise OaiError("badArgument", f"Duplicate argument: {k}")
        params = {k: v[0] for k, v in query.items()}
        verb = params.get("verb")
        if verb not in VERBS:
            raise OaiError("badVerb", "Illegal verb" if verb else "Missing verb")
        unknown = set(params) - ALLOWED[verb] - {"verb"}
        if unknown:
            raise OaiError("badArgument", f"Illegal argument: {sorted(unknown)[0]}")
        return params

    def error_response(self, params: dict[str, str], err: OaiError, base_url: str, today: dt.date) -> Response:
        # OAI errors are HTTP 200; the <request> echo carries no attributes on bad verbs/args
        attrs = "" if err.code in ("badVerb", "badArgument") else self.request_attrs(params)
        body = (OAI_OPEN + self.response_date(today) + f"<request{attrs}>{_e(base_url)}</request>\n"
                + f'<error code="{err.code}">{_e(err.message)}</error>\n</OAI-PMH>\n')
        return Response(200, body.encode("utf-8"), {"Content-Type": "text/xml; charset=utf-8"})

    @staticmethod
    def response_date(today: dt.date) -> str:
        return f"<responseDate>{today.isoformat()}T00:00:00Z</responseDate>\n"

    @staticmethod
    def request_attrs(params: dict[str, str]) -> str:
        return "".join(f" {k}={quoteattr(v)}" for k, v in params.items())

    def envelope(self, params, today, base_url, inner: str) -> str:
        return (OAI_OPEN + self.response_date(today)
                + f"<request{self.request_attrs(params)}>{_e(base_url)}</request>\n" + inner + "</OAI-PMH>\n")

    # -- verbs ----------------------------------------------------------------------------

    def dispatch(self, params: dict[str, str], today: dt.date, base_url: str) -> str:
        verb = params["verb"]
        if verb == "Identify":
            return self.envelope(params, today, base_url, self.identify(base_url))
        if verb == "ListMetadataFormats":
            if "identifier" in params:
                self.lookup(params["identifier"])
            return self.envelope(params, today, base_url, self.list_formats())
        if verb == "ListSets":
            if "resumptionToken" in params:
                raise OaiError("badResumptionToken", "Invalid resumption token")
            return self.envelope(params, today, base_url, self.list_sets())
        if verb == "GetRecord":
            prefix = self.check_prefix(params.get("metadataPrefix"))
            if "identifier" not in params:
                raise OaiError("badArgument", "Missing required argument: identifier")
            paper = self.lookup(params["identifier"])
            inner = "<GetRecord>\n" + self.record(paper, prefix) + "</GetRecord>\n"
            return self.envelope(params, today, base_url, inner)
        return self.envelope(params, today, base_url, self.list(verb, params, today))

    def identify(self, base_url: str) -> str:
        return (
            "<Identify>\n<repositoryName>arXiv</repositoryName>\n"
            f"<baseURL>{_e(base_url)}</baseURL>\n<protocolVersion>2.0</protocolVersion>\n"
            "<adminEmail>help@arxiv.org</adminEmail>\n"
            f"<earliestDatestamp>{EARLIEST.isoformat()}</earliestDatestamp>\n"
            "<deletedRecord>persistent</deletedRecord>\n<granularity>YYYY-MM-DD</granularity>\n"
            "</Identify>\n"
        )

    def list_formats(self) -> str:
        out = ["<ListMetadataFormats>\n"]
        for prefix, (ns, schema) in FORMATS.items():
            out.append(f"<metadataFormat><metadataPrefix>{prefix}</metadataPrefix><schema>{schema}</schema>"
                       f"<metadataNamespace>{ns}</metadataNamespace></metadataFormat>\n")
        return "".join(out) + "</ListMetadataFormats>\n"

    def list_sets(self) -> str:
        out = ["<ListSets>\n"]
        seen = []
        for cat in self.categories:
            for spec in set_prefixes(cat):
                if spec not in seen:
                    seen.append(spec)
        for spec in seen:
            parts = spec.split(":")
            name = GROUP_NAMES.get(parts[0], parts[0]) if len(parts) == 1 else spec.replace(":", " / ")
            out.append(f"<set><setSpec>{_e(spec)}</setSpec><setName>{_e(name)}</setName></set>\n")
        return "".join(out) + "</ListSets>\n"

    def lookup(self, identifier: str) -> Paper:
        arxiv_id = identifier[len("oai:arXiv.org:"):] if identifier.startswith("oai:arXiv.org:") else None
        paper = self.by_id.get(arxiv_id) if arxiv_id else None
        if paper is None:
            raise OaiError("idDoesNotExist", f"Identifier does not exist: {identifier}")
        return paper

    @staticmethod
    def check_prefix(prefix: str | None) -> str:
        if prefix is None:
            raise OaiError("badArgument", "Missing required argument: metadataPrefix")
        if prefix not in FORMATS:
            raise OaiError("cannotDisseminateFormat", f"Did not recognize requested format: {prefix}")
        return prefix

    def list(self, verb: str, params: dict[str, str], today: dt.date) -> str:
        if "resumptionToken" in params:
            if len(params) > 2:
                raise OaiError("badArgument", "resumptionToken is an exclusive argument")
            query = self.decode_token(params["resumptionToken"], verb)
        else:
            query = dict(params)
            query["skip"] = "0"
        prefix = self.check_prefix(query.get("metadataPrefix"))
        start, end = self.check_dates(query.get("from"), query.get("until"), today)
        spec = query.get("set")
        if spec is not None and spec not in self.valid_sets:
            raise OaiError("badArgument", "Set does not exist")
        matched = self.select(start, end, spec)
        skip = int(query["skip"])
        if not matched or skip >= len(matched):
            raise OaiError("noRecordsMatch", "No records match the request")
        limit = RECORDS_LIMIT if verb == "ListRecords" else IDENTIFIERS_LIMIT
        page = matched[skip:skip + limit]
        tag = verb
        if verb == "ListRecords":
            items = "".join(self.record(p, prefix) for p in page)
        else:
            items = "".join(self.header(p) for p in page)
        if skip + limit < len(matched):
            token = self.next_token(verb, query, matched, skip + len(page))
            expires = (today + dt.timedelta(days=1)).isoformat()
            items += f"<resumptionToken expirationDate='{expires}T00:00:00Z'>{token}</resumptionToken>\n"
        elif skip > 0:
            items += "<resumptionToken/>\n"
        return f"<{tag}>\n{items}</{tag}>\n"

    def check_dates(self, start_s: str | None, end_s: str | None, today: dt.date) -> tuple[dt.date, dt.date]:
        tomorrow = today + dt.timedelta(days=1)
        start = self.parse_day(start_s, "from") if start_s is not None else EARLIEST
        end = self.parse_day(end_s, "until") if end_s is not None else tomorrow
        if start < EARLIEST:
            raise OaiError("badArgument", f"from date must be on or after {EARLIEST.isoformat()}")
        if end > tomorrow:
            raise OaiError("badArgument", "until date is in the future")
        if start > end:
            raise OaiError("badArgument", "from date is after until date")
        return start, end

    @staticmethod
    def parse_day(value: str, name: str) -> dt.date:
        if not DATE_RE.match(value):
            raise OaiError("badArgument", f"Invalid {name} date format: {value}")
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise OaiError("badArgument", f"Invalid {name} date: {value}") from None

    def select(self, start: dt.date, end: dt.date, spec: str | None) -> list[Paper]:
        lo = bisect.bisect_left(self.days, start)
        hi = bisect.bisect_right(self.days, end)
        chosen = self.records[lo:hi]
        if spec is None:
            return chosen
        return [p for p in chosen if any(spec in set_prefixes(c) for c in p.categories)]

    def next_token(self, verb: str, query: dict[str, str], matched: list[Paper], shown: int) -> str:
        """Like the new server: `from` moves to the last day shown, `skip` counts the records
        of that day already shown."""
        last_day = matched[shown - 1].datestamp
        first_of_day = bisect.bisect_left([p.datestamp for p in matched], last_day)
        params = {"verb": verb, "from": last_day.isoformat()}
        if "until" in query:
            params["until"] = query["until"]
        if "set" in query:
            params["set"] = query["set"]
        params["metadataPrefix"] = query["metadataPrefix"]
        params["skip"] = str(shown - first_of_day)
        return quote(urlencode(params), safe="")

    @staticmethod
    def decode_token(token: str, verb: str) -> dict[str, str]:
        try:
            parsed = parse_qs(unquote(token), keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise OaiError("badResumptionToken", "Invalid resumption token") from None
        query = {k: v[0] for k, v in parsed.items() if len(v) == 1}
        if (len(query) != len(parsed) or query.get("verb") != verb or "metadataPrefix" not in query
                or not query.get("skip", "").isdigit()
                or set(query) - {"verb", "from", "until", "set", "metadataPrefix", "skip"}):
            raise OaiError("badResumptionToken", "Invalid resumption token")
        return query

    # -- rendering ------------------------------------------------------------------------

    def header(self, paper: Paper) -> str:
        specs = "".join(f" <setSpec>{set_spec(c)}</setSpec>\n" for c in dict.fromkeys(paper.categories))
        return (f"<header>\n <identifier>oai:arXiv.org:{paper.arxiv_id}</identifier>\n"
                f" <datestamp>{paper.datestamp.isoformat()}</datestamp>\n{specs}</header>\n")

    def record(self, paper: Paper, prefix: str) -> str:
        if prefix == "arXiv":
            meta = self.arxiv_format(paper)
        elif prefix == "arXivRaw":
            meta = self.arxiv_raw_format(paper)
        else:
            meta = self.oai_dc_format(paper)
        return f"<record>\n{self.header(paper)}<metadata>\n{meta}</metadata>\n</record>\n"

    @staticmethod
    def _open(root: str, prefix: str) -> str:
        ns, schema = FORMATS[prefix]
        return (f' <{root} xmlns="{ns}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                f'xsi:schemaLocation="{ns} {schema}">\n ')

    def arxiv_format(self, paper: Paper) -> str:
        v = paper.versions
        out = [self._open("arXiv", "arXiv"), f"<id>{paper.arxiv_id}</id><created>{v[0].submitted.date().isoformat()}</created>"]
        if len(v) > 1:
            out.append(f"<updated>{v[-1].submitted.date().isoformat()}</updated>")
        out.append("<authors>")
        for a in paper.authors:
            out.append(f"<author><keyname>{_e(a.keyname)}</keyname>")
            if a.forenames:
                out.append(f"<forenames>{_e(a.forenames)}</forenames>")
            if a.suffix:  # arXiv's <suffix> drops the printed dot ("Jr."); arXivRaw keeps it
                out.append(f"<suffix>{_e(a.suffix.rstrip('.'))}</suffix>")
            for aff in a.affiliations:
                out.append(f"<affiliation>{_e(aff)}</affiliation>")
            out.append("</author>")
        out.append("</authors>")
        out.append(f"<title>{_e(wrap_title(paper.title))}</title>")
        out.append(f"<categories>{' '.join(paper.categories)}</categories>")
        out.append(_opt("comments", paper.comments) + _opt("proxy", paper.proxy)
                   + _opt("report-no", paper.report_no) + _opt("msc-class", paper.msc_class)
                   + _opt("acm-class", paper.acm_class) + _opt("journal-ref", paper.journal_ref)
                   + _opt("doi", " ".join(paper.dois)) + _opt("license", paper.license))
        out.append(f"<abstract>{_e(wrap_abstract(paper.abstract))}</abstract></arXiv>\n")
        return "".join(out)

    def arxiv_raw_format(self, paper: Paper) -> str:
        out = [self._open("arXivRaw", "arXivRaw"), f"<id>{paper.arxiv_id}</id>",
               f"<submitter>{_e(paper.submitter)}</submitter>"]
        for v in paper.versions:
            st = f"<source_type>{v.source_type}</source_type>" if v.source_type else ""
            out.append(f'<version version="v{v.version}"><date>{rfc822(v.submitted)}</date>'
                       f"<size>{v.size_kb}kb</size>{st}</version>")
        out.append(f"<title>{_e(wrap_title(paper.title))}</title>")
        out.append(f"<authors>{_e(raw_authors(paper))}</authors>")
        out.append(f"<categories>{' '.join(paper.categories)}</categories>")
        out.append(_opt("comments", paper.comments) + _opt("proxy", paper.proxy)
                   + _opt("report-no", paper.report_no) + _opt("acm-class", paper.acm_class)
                   + _opt("msc-class", paper.msc_class) + _opt("journal-ref", paper.journal_ref)
                   + _opt("doi", " ".join(paper.dois)) + _opt("license", paper.license))
        out.append(f"<abstract>{_e(wrap_abstract(paper.abstract))}</abstract></arXivRaw>\n")
        return "".join(out)

    def oai_dc_format(self, paper: Paper) -> str:
        ns, schema = FORMATS["oai_dc"]
        out = [f' <oai_dc:dc xmlns:oai_dc="{ns}" xmlns:dc="http://purl.org/dc/elements/1.1/" '
               f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{ns} {schema}">\n ',
               f"<dc:title>{_e(paper.title)}</dc:title>"]
        for a in paper.authors:
            name = f"{a.keyname}, {a.forenames}" if a.forenames else a.keyname
            out.append(f"<dc:creator>{_e(name)}</dc:creator>")
        for c in paper.categories:
            out.append(f"<dc:subject>{_e(c)}</dc:subject>")
        out.append(f"<dc:description>{_e(paper.abstract)}</dc:description>")
        if paper.comments:
            out.append(f"<dc:description>Comment: {_e(paper.comments)}</dc:description>")
        out.append(f"<dc:date>{paper.versions[0].submitted.date().isoformat()}</dc:date>")
        if len(paper.versions) > 1:
            out.append(f"<dc:date>{paper.versions[-1].submitted.date().isoformat()}</dc:date>")
        out.append("<dc:type>text</dc:type>")
        out.append(f"<dc:identifier>http://arxiv.org/abs/{paper.arxiv_id}</dc:identifier>")
        if paper.journal_ref:
            out.append(f"<dc:identifier>{_e(paper.journal_ref)}</dc:identifier>")
        for d in paper.dois:
            out.append(f"<dc:identifier>doi:{_e(d)}</dc:identifier>")
        out.append("</oai_dc:dc>\n")
        return "".join(out)


def raw_authors(paper: Paper) -> str:
    """arXivRaw's single free-text author string: 'A. One, B. Two and C. Three', with a
    collaboration written 'ATLAS Collaboration: ...' and the odd parenthesised affiliation."""
    names = []
    for a in paper.authors:
        if a.keyname == "Collaboration" and a.forenames:
            names.append(f"{a.forenames} Collaboration")
            continue
        name = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
        if a.suffix:
            name += f" {a.suffix}"
        names.append(name)
    if names and names[0].endswith(" Collaboration") and len(names) > 1:
        head, rest = names[0] + ": ", names[1:]
    else:
        head, rest = "", names
    if len(rest) <= 1:
        return head + "".join(rest)
    return head + ", ".join(rest[:-1]) + " and " + rest[-1]
