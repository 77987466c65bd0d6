"""The sandbox OpenAlex's records: the world indexed as OpenAlex sees it (coverage lag, merged
ids, the author filter's 100-authorship horizon) and each work, author and institution rendered
as ``api.openalex.org`` serves it. ``openalex.OpenAlexEndpoint`` answers HTTP with them.

This module shares no code with the pipeline's OpenAlex client or parsers (DESIGN.md).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections import Counter, defaultdict

from wove_pipeline.sandbox.world import (
    Institution,
    OpenAlexAuthor,
    OpenAlexWork,
    Paper,
    World,
)

OA = "https://openalex.org/"
LIST_AUTHORSHIPS_MAX = 100  # list responses cut authorships here and flag it

_COUNTRIES = {
    "US": "United States", "GB": "United Kingdom", "DE": "Germany", "FR": "France", "CN": "China",
    "JP": "Japan", "CH": "Switzerland", "IT": "Italy", "IN": "India", "CA": "Canada", "NL": "Netherlands",
    "ES": "Spain", "KR": "South Korea", "AU": "Australia", "BR": "Brazil", "IL": "Israel", "SE": "Sweden",
    "RU": "Russia", "PL": "Poland", "AT": "Austria", "BE": "Belgium", "DK": "Denmark",
}
_ARXIV_SOURCE = {
    "id": "https://openalex.org/S4306400194",
    "display_name": "arXiv (Cornell University)",
    "issn_l": None,
    "issn": None,
    "is_oa": True,
    "is_in_doaj": False,
    "is_core": False,
    "host_organization": "https://openalex.org/I205783295",
    "host_organization_name": "Cornell University",
    "host_organization_lineage": ["https://openalex.org/I205783295"],
    "host_organization_lineage_names": ["Cornell University"],
    "type": "repository",
}
_DATACITE_SOURCE = dict(
    _ARXIV_SOURCE, id="https://openalex.org/S4393918464", display_name="ArXiv.org", is_core=False
)


def short_id(ident: str) -> str:
    """'https://openalex.org/W12' / 'w12' -> 'W12' (OpenAlex accepts ids in either form)."""
    # "https:/openalex.org/": some servers collapse the "//" of a URL that sits in a path
    ident = ident.strip().removeprefix(OA).removeprefix("https:/openalex.org/").removeprefix("openalex.org/")
    return ident[:1].upper() + ident[1:]


def bare_doi(doi: str) -> str:
    doi = doi.strip().lower()
    for pre in ("https://doi.org/", "http://doi.org/", "https:/doi.org/", "doi.org/", "doi:"):
        if doi.startswith(pre):
            return doi[len(pre):]
    return doi


def bare_orcid(orcid: str) -> str:
    return orcid.strip().lower().removeprefix("https://orcid.org/").removeprefix("orcid:").upper()


def orcid_url(orcid: str | None) -> str | None:
    return f"https://orcid.org/{bare_orcid(orcid)}" if orcid else None


def bare_ror(ror: str) -> str:
    return ror.strip().lower().removeprefix("https://ror.org/").removeprefix("ror:")


class OpenAlexRecords:
    """A world's OpenAlex works, authors and institutions: indexed once, rendered per request."""

    def __init__(self, world: World):
        self.world = world
        # work id -> the published DOI of a preprint served as merged into its published
        # version (see merge_published); empty: every work is the arXiv copy
        self.published_doi: dict[str, str] = {}
        self._lock = threading.Lock()
        self._index()

    # ------------------------------------------------------------------ indexes

    def _index(self) -> None:
        w = self.world
        self.works: dict[str, tuple[Paper, OpenAlexWork]] = {}
        self.work_by_doi: dict[str, str] = {}
        self.works_of_author: dict[str, list[str]] = defaultdict(list)  # only positions < 100
        self.all_works_of_author: dict[str, list[str]] = defaultdict(list)
        self.works_of_institution: dict[str, list[str]] = defaultdict(list)
        self.redirects: dict[str, str] = {short_id(k): short_id(v) for k, v in w.openalex_redirects.items()}
        for p in w.papers:
            work = p.openalex
            if work is None:
                continue
            if work.merged_into:
                self.redirects[work.work_id] = short_id(work.merged_into)
                continue
            self.works[work.work_id] = (p, work)
            self.work_by_doi[bare_doi(work.doi)] = work.work_id
            for i, a in enumerate(work.authorships):
                if a.author_id:
                    if i < LIST_AUTHORSHIPS_MAX:  # OpenAlex's author filter does not see past 100
                        self.works_of_author[a.author_id].append(work.work_id)
                    self.all_works_of_author[a.author_id].append(work.work_id)
                for inst in a.institution_ids:
                    self.works_of_institution[inst].append(work.work_id)
        for a in w.openalex_authors.values():
            if a.merged_into:
                self.redirects[a.author_id] = short_id(a.merged_into)
        self.author_by_orcid: dict[str, str] = {
            bare_orcid(a.orcid): a.author_id for a in w.openalex_authors.values() if a.orcid and not a.merged_into
        }
        self.inst_by_ror = {bare_ror(i.ror): i.institution_id for i in w.institutions.values()}
        # Sort orders for list results: numeric id order keeps cursor paging stable.
        self._work_order = sorted(self.works, key=lambda x: int(x[1:]) if x[1:].isdigit() else 0)

    def merge_published(self, share: float) -> list[str]:
        """Serve `share` of the works whose paper has a journal DOI as OpenAlex serves a
        preprint it merged into its published version: the work's DOI is the published one
        (type article, the journal first among the locations), and a lookup by the arXiv DOI
        finds nothing; the arXiv copy survives only in `locations`. Deterministic (by work
        id). Returns the arXiv ids of the works so served."""
        with self._lock:
            self.published_doi = {}
            merged = []
            for p in self.world.papers:
                w = p.openalex
                if w is None or w.merged_into or not p.dois or w.work_id not in self.works:
                    continue
                if int(re.sub(r"\D", "", w.work_id) or 0) % 1000 < share * 1000:
                    self.published_doi[w.work_id] = bare_doi(p.dois[0])
                    merged.append(p.arxiv_id)
            self.work_by_doi = {}
            for work_id, (_p, w) in self.works.items():
                self.work_by_doi[self.published_doi.get(work_id) or bare_doi(w.doi)] = work_id
        return merged

    def _work_visible(self, work_id: str, today: dt.date) -> bool:
        entry = self.works.get(work_id)
        return entry is not None and entry[1].available_from <= today  # coverage lag

    def _author_visible(self, a: OpenAlexAuthor | None, today: dt.date) -> bool:
        if a is None or a.merged_into:
            return False
        works = self.all_works_of_author.get(a.author_id, [])
        # An author known only through works OpenAlex has not ingested yet does not exist yet.
        return not works or any(self._work_visible(x, today) for x in works)

    # ------------------------------------------------------------------ rendering

    def _inst_dehydrated(self, inst_id: str, with_ror_first: bool = False) -> dict | None:
        inst = self.world.institutions.get(inst_id)
        if inst is None:
            return None
        if with_ror_first:  # author affiliations put ror before display_name (sample)
            return {"id": OA + inst.institution_id, "ror": inst.ror, "display_name": inst.display_name,
                    "country_code": inst.country_code, "type": inst.type, "lineage": [OA + inst.institution_id]}
        return {"id": OA + inst.institution_id, "display_name": inst.display_name, "ror": inst.ror,
                "country_code": inst.country_code, "type": inst.type, "lineage": [OA + inst.institution_id]}

    def _affiliations(self, raw_strings: list[str], inst_ids: list[str]) -> list[dict]:
        """Pair raw affiliation strings with institution ids (the world keeps them apart)."""
        if len(raw_strings) == len(inst_ids):
            return [{"raw_affiliation_string": s, "institution_ids": [OA + i]} for s, i in zip(raw_strings, inst_ids)]
        out = []
        for s in raw_strings:
            low = s.lower()
            hits = []
            for i in inst_ids:
                inst = self.world.institutions.get(i)
                names = [inst.display_name, *inst.aliases] if inst else []
                if any(n and n.lower() in low for n in names):
                    hits.append(OA + i)
            out.append({"raw_affiliation_string": s, "institution_ids": hits})
        return out

    def render_work(self, work_id: str, today: dt.date, full: bool = False) -> dict:
        paper, w = self.works[work_id]
        wid = OA + w.work_id
        published = self.published_doi.get(w.work_id)
        doi_url = "https://doi.org/" + (published or bare_doi(w.doi))
        authorships = []
        for i, a in enumerate(w.authorships):
            insts = [x for x in (self._inst_dehydrated(i_) for i_ in a.institution_ids) if x]
            n = len(w.authorships)
            authorships.append({
                "author_position": "first" if i == 0 else ("last" if i == n - 1 else "middle"),
                "author": {"id": OA + a.author_id if a.author_id else None,
                           "display_name": a.display_name, "orcid": orcid_url(a.orcid)},
                "institutions": insts,
                "countries": sorted({x["country_code"] for x in insts if x["country_code"]}),
                "is_corresponding": a.is_corresponding,
                "raw_author_name": a.raw_author_name,
                "raw_affiliation_strings": list(a.raw_affiliation_strings),
                "affiliations": self._affiliations(a.raw_affiliation_strings, a.institution_ids),
            })
        truncated = not full and len(authorships) > LIST_AUTHORSHIPS_MAX
        if truncated:
            authorships = authorships[:LIST_AUTHORSHIPS_MAX]
        all_insts = {i for a in w.authorships for i in a.institution_ids}
        arxiv_loc = {
            "id": f"pmh:oai:arXiv.org:{paper.arxiv_id}",
            "is_oa": True,
            "landing_page_url": f"https://arxiv.org/abs/{paper.arxiv_id}",
            "pdf_url": f"https://arxiv.org/pdf/{paper.arxiv_id}",
            "source": dict(_ARXIV_SOURCE),
            "license": paper.license and "other-oa",
            "license_id": paper.license and "https://openalex.org/licenses/other-oa",
            "version": "submittedVersion",
            "is_accepted": False,
            "is_published": False,
            "raw_source_name": None,
            "raw_type": "text",
        }
        doi_loc = dict(arxiv_loc, id="doi:" + bare_doi(w.doi), landing_page_url=doi_url, pdf_url=None,
                       source=dict(_DATACITE_SOURCE), raw_source_name="ArXiv.org", raw_type="article")
        if published:  # merged into the published version: the journal's copy leads
            journal = (paper.journal_ref or "Journal").split(" (")[0]
            doi_loc = dict(doi_loc, id="doi:" + published, is_oa=False, version="publishedVersion",
                           is_accepted=True, is_published=True, raw_source_name=journal, raw_type="journal-article",
                           source=dict(_DATACITE_SOURCE, id="https://openalex.org/S%d" % (4300000000 + len(journal)),
                                       display_name=journal, type="journal", host_organization=None,
                                       host_organization_name=None, host_organization_lineage=[],
                                       host_organization_lineage_names=[]))
        cby = [{"year": y, "cited_by_count": c} for y, c in sorted(w.counts_by_year, reverse=True) if c]
        pct = (sum(map(ord, w.work_id)) % 1000) / 1000  # deterministic stand-in, no meaning
        out = {
            "id": wid,
            "doi": doi_url,
            "title": w.title,
            "display_name": w.title,
            "publication_year": w.publication_date.year,
            "publication_date": w.publication_date.isoformat(),
            "ids": {"openalex": wid, "doi": doi_url},
            "language": "en",
            "primary_location": dict(doi_loc),
            "type": "article" if published else w.type,
            "indexed_in": ["arxiv", "datacite"],
            "open_access": {"is_oa": True, "oa_status": "green", "oa_url": arxiv_loc["pdf_url"],
                            "any_repository_has_fulltext": True},
            "authorships": authorships,
            "institutions": [],  # always empty in 2026 payloads (sample)
            "countries_distinct_count": len({self.world.institutions[i].country_code
                                             for i in all_insts if i in self.world.institutions}),
            "institutions_distinct_count": len(all_insts),
            "corresponding_author_ids": [OA + a.author_id for a in w.authorships if a.is_corresponding and a.author_id],
            "corresponding_institution_ids": sorted({OA + i for a in w.authorships if a.is_corresponding
                                                     for i in a.institution_ids}),
            "apc_list": None,
            "apc_paid": None,
            "fwci": None,
            "has_fulltext": False,
            "cited_by_count": w.cited_by_count,
            "citation_normalized_percentile": {"value": pct, "is_in_top_1_percent": pct >= 0.99,
                                               "is_in_top_10_percent": pct >= 0.9},
            "cited_by_percentile_year": {"min": int(pct * 90), "max": int(pct * 90) + 10},
            "biblio": {"volume": None, "issue": None, "first_page": None, "last_page": None},
            "is_retracted": False,
            "is_paratext": False,
            "is_xpac": False,
            "primary_topic": w.primary_topic,
            "topics": list(w.topics),
            "keywords": [],
            "concepts": [],
            "mesh": [],
            "locations_count": 2,
            "locations": [doi_loc, arxiv_loc],
            "best_oa_location": dict(arxiv_loc),
            "sustainable_development_goals": [],
            "awards": [],
            "funders": [],
            "has_content": {"grobid_xml": False, "pdf": False},
            "content_urls": None,
            "referenced_works_count": 0,
            "referenced_works": [],
            "related_works": [],
            "abstract_inverted_index": self._inverted(w.abstract),
            "counts_by_year": cby,
            "updated_date": f"{max(w.available_from, paper.datestamp).isoformat()}T00:00:00",
            "created_date": f"{w.available_from.isoformat()}T00:00:00",
        }
        if truncated:
            # Inserted right after authorships, where OpenAlex puts it.
            items = list(out.items())
            pos = [k for k, _ in items].index("authorships") + 1
            out = dict(items[:pos] + [("is_authors_truncated", True)] + items[pos:])
        return out

    @staticmethod
    def _inverted(text: str | None) -> dict | None:
        if not text:
            return None
        index: dict[str, list[int]] = {}
        for pos, word in enumerate(text.split()):
            index.setdefault(word, []).append(pos)
        return index

    def _visible_works_of(self, author_id: str, today: dt.date) -> list[OpenAlexWork]:
        return [self.works[x][1] for x in self.all_works_of_author.get(author_id, []) if self._work_visible(x, today)]

    def render_author(self, author_id: str, today: dt.date) -> dict:
        a = self.world.openalex_authors[author_id]
        aid = OA + a.author_id
        orcid = orcid_url(a.orcid)
        # OpenAlex sometimes leaves the top-level orcid null while ids.orcid is set (sample);
        # do the same, deterministically, for about one profile in four.
        top_orcid = None if orcid and int(re.sub(r"\D", "", a.author_id) or 0) % 4 == 0 else orcid
        works = self._visible_works_of(a.author_id, today)
        by_year: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        topics: Counter = Counter()
        topic_obj: dict[str, dict] = {}
        for w in works:
            by_year[w.publication_date.year][0] += 1
            for y, c in w.counts_by_year:
                by_year[y][1] += c
            if w.primary_topic:
                topics[w.primary_topic["id"]] += 1
                topic_obj[w.primary_topic["id"]] = w.primary_topic
        total = sum(topics.values()) or 1
        names = [a.display_name, *a.display_name_alternatives]
        longest = max(names, key=len)
        tokens = longest.lower().split()
        first = tokens[0] if tokens else ""
        last = tokens[-1] if len(tokens) > 1 else ""
        ids = {"openalex": aid}
        if orcid:
            ids["orcid"] = orcid
        return {
            "id": aid,
            "orcid": top_orcid,
            "display_name": a.display_name,
            "display_name_alternatives": sorted(set(names)),
            "works_count": a.works_count,
            "cited_by_count": a.cited_by_count,
            "summary_stats": {"2yr_mean_citedness": a.two_year_mean_citedness, "h_index": a.h_index,
                              "i10_index": a.i10_index},
            "ids": ids,
            "affiliations": [
                {"institution": self._inst_dehydrated(i, with_ror_first=True), "years": sorted(years, reverse=True)}
                for i, years in a.affiliations if i in self.world.institutions
            ],
            "last_known_institutions": [
                self._inst_dehydrated(i, with_ror_first=True) for i in a.last_known_institution_ids
                if i in self.world.institutions
            ],
            "topics": [dict(topic_obj[t], count=n) for t, n in topics.most_common(25)],
            "topic_share": [
                {k: v for k, v in (dict(topic_obj[t], value=round(n / total, 7))).items() if k != "score"}
                for t, n in topics.most_common(25)
            ],
            "x_concepts": [],
            "counts_by_year": [
                {"year": y, "works_count": c[0], "oa_works_count": c[0], "cited_by_count": c[1]}
                for y, c in sorted(by_year.items())
            ],
            "longest_name": longest,
            "parsed_longest_name": {"first": first, "middle": " ".join(tokens[1:-1]), "last": last,
                                    "suffix": "", "nickname": ""},
            "block_key": f"{first[:1]} {last}".strip(),
            "works_api_url": f"https://api.openalex.org/works?filter=author.id:{a.author_id}",
            "updated_date": f"{today.isoformat()}T00:00:00",
            "created_date": f"{min((w.available_from for w in works), default=today).isoformat()}T00:00:00",
        }

    def render_institution(self, inst_id: str, today: dt.date) -> dict:
        inst: Institution = self.world.institutions[inst_id]
        iid = OA + inst.institution_id
        works = [self.works[x][1] for x in dict.fromkeys(self.works_of_institution.get(inst_id, []))
                 if self._work_visible(x, today)]
        acronyms = [x for x in inst.aliases if x.isupper() and " " not in x]
        alternatives = [x for x in inst.aliases if x not in acronyms]
        by_year: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for w in works:
            by_year[w.publication_date.year][0] += 1
            for y, c in w.counts_by_year:
                by_year[y][1] += c
        return {
            "id": iid,
            "ror": inst.ror,
            "display_name": inst.display_name,
            "country_code": inst.country_code,
            "type": inst.type,
            "type_id": f"https://openalex.org/institution-types/{inst.type}",
            "lineage": [iid],
            "homepage_url": None,
            "image_url": None,
            "image_thumbnail_url": None,
            "display_name_acronyms": acronyms,
            "display_name_alternatives": alternatives,
            "repositories": [],
            "works_count": len(works),
            "cited_by_count": sum(w.cited_by_count for w in works),
            "summary_stats": {"2yr_mean_citedness": 0.0, "h_index": 0, "i10_index": 0},
            "ids": {"openalex": iid, "ror": inst.ror, "grid": None, "wikipedia": None, "wikidata": None},
            "geo": {"city": None, "geonames_city_id": None, "region": None, "country_code": inst.country_code,
                    "country": _COUNTRIES.get(inst.country_code), "latitude": None, "longitude": None},
            "international": {},
            "associated_institutions": [],
            "counts_by_year": [
                {"year": y, "works_count": c[0], "oa_works_count": c[0], "cited_by_count": c[1]}
                for y, c in sorted(by_year.items(), reverse=True)
            ],
            "roles": [{"role": "institution", "id": iid, "works_count": len(works)}],
            "topics": [],
            "topic_share": [],
            "is_super_system": False,
            "works_api_url": f"https://api.openalex.org/works?filter=institutions.id:{inst.institution_id}",
            "updated_date": f"{today.isoformat()}T00:00:00",
            "created_date": "2016-06-24T00:00:00",
        }
