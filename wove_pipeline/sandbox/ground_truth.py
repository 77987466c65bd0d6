"""Ground truth of a world: who each authorship is, and the S2AND-format evaluation set."""

from __future__ import annotations

import json
import os

from .people import normalize_name
from .vocabulary import field_of
from .world import Authorship, World


def mention_identities(world: World) -> list[tuple[str, int, int, str | None, str | None]]:
    """(arxiv_id, position, person_id, s2 author id, openalex author id) per arXiv authorship.

    The upstream id is the one the paper's S2/OpenAlex view carries for that person (None
    when the view is missing, the id is null, or S2 dropped the author)."""
    out = []
    for paper in world.papers:
        s2_ids = {x for x, _ in paper.s2.authors if x} if paper.s2 else set()  # membership only
        for a in paper.authors:
            person = world.persons[a.person_id]
            s2id = None
            oaid = None
            if paper.s2 and not person.is_collaboration:
                s2id = next((i for i in person.s2_author_ids if i in s2_ids), None)
            if paper.openalex and a.position < len(paper.openalex.authorships):
                oaid = paper.openalex.authorships[a.position].author_id
            out.append((paper.arxiv_id, a.position, a.person_id, s2id, oaid))
    return out


def write_ground_truth(world: World, directory: str | os.PathLike) -> dict[str, str]:
    """Write persons.jsonl, authorships.jsonl and the S2AND set (signatures.json,
    papers.json, clusters.json) into ``directory``; return {name: path}.

    The S2AND set leaves out collaboration pseudo-authors ("ATLAS Collaboration"): they are
    not people. Paper ids there are integers (1-based position in ``world.papers``); each
    paper record also carries its ``arxiv_id``. ``authorships.jsonl`` keeps every authorship,
    with the S2/OpenAlex author id that upstream shows for it (for id-only baselines)."""
    os.makedirs(directory, exist_ok=True)
    paths = {name: os.path.join(directory, name) for name in
             ("persons.jsonl", "authorships.jsonl", "signatures.json", "papers.json", "clusters.json")}
    with open(paths["persons.jsonl"], "w", encoding="utf-8") as f:
        for pid in sorted(world.persons):
            p = world.persons[pid]
            f.write(json.dumps({
                "person_id": pid, "given": p.given, "family": p.family, "suffix": p.suffix,
                "orcid": p.orcid, "affiliations": p.affiliations, "home_categories": p.home_categories,
                "s2_author_ids": p.s2_author_ids, "openalex_author_ids": p.openalex_author_ids,
                "is_collaboration": p.is_collaboration,
            }, ensure_ascii=False) + "\n")
    ids = mention_identities(world)
    with open(paths["authorships.jsonl"], "w", encoding="utf-8") as f:
        i = 0
        for paper in world.papers:
            for a in paper.authors:
                _, _, _, s2id, oaid = ids[i]
                i += 1
                f.write(json.dumps({
                    "arxiv_id": paper.arxiv_id, "position": a.position, "person_id": a.person_id,
                    "keyname": a.keyname, "forenames": a.forenames, "suffix": a.suffix,
                    "s2_author_id": s2id, "openalex_author_id": oaid,
                }, ensure_ascii=False) + "\n")
    signatures, papers_out, clusters = {}, {}, {}
    for n, paper in enumerate(world.papers, start=1):
        papers_out[str(n)] = {
            "paper_id": n, "arxiv_id": paper.arxiv_id, "title": paper.title, "abstract": paper.abstract,
            "journal_name": paper.journal_ref, "venue": "arXiv", "year": paper.versions[0].submitted.year,
            "sources": ["arXiv"], "fields_of_study": [field_of(paper.categories[0])[4]],
            "categories": paper.categories,
            "authors": [{"position": a.position, "author_name": _display(a)} for a in paper.authors],
            "references": [],
        }
        for a in paper.authors:
            if world.persons[a.person_id].is_collaboration:
                continue
            sid = f"{paper.arxiv_id}_{a.position}"
            fore = (a.forenames or "").replace(".", ". ").replace("-", " - ").split()
            fore = [t for t in fore if t != "-"]
            first = fore[0] if fore else None
            middle = " ".join(fore[1:]) or None
            signatures[sid] = {
                "author_info": {
                    "first": first, "middle": middle, "last": a.keyname, "suffix": a.suffix,
                    "position": a.position, "email": None, "affiliations": a.affiliations,
                    "block": _block(first, a.keyname), "given_block": _block(first, a.keyname),
                },
                "signature_id": sid, "paper_id": n, "given_name": _display(a),
                "sourced_author_ids": [], "sourced_author_source": None,
            }
            cluster = clusters.setdefault(str(a.person_id), {"cluster_id": str(a.person_id), "signature_ids": [], "model_version": -1})
            cluster["signature_ids"].append(sid)
    for name, obj in (("signatures.json", signatures), ("papers.json", papers_out), ("clusters.json", clusters)):
        with open(paths[name], "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False)
    return paths


def _display(a: Authorship) -> str:
    name = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
    return f"{name} {a.suffix}" if a.suffix else name


def _block(first: str | None, last: str) -> str:
    """S2AND block: first initial + normalized last name ("p wang")."""
    initial = normalize_name(first)[:1] if first else ""
    return f"{initial} {normalize_name(last).replace(' ', '')}".strip()
