"""Mentions and ground truth from a sandbox ``World``.

Only what the pipeline itself can see goes into a mention: the arXiv author string and
raw affiliations, the S2 / OpenAlex author ids and OpenAlex's ORCID and institution ids
*aligned by name and position* (``alignment.align_authorships``), co-authors, categories,
title + abstract and the v1 date. The ground truth (``Authorship.person_id``,
``Authorship.institution_ids``) is used only as gold.
"""

from __future__ import annotations

import hashlib

from .alignment import align_authorships
from .mentions import MAX_COAUTHOR_AUTHORS, Mention, coauthor_fields, normalize_orcid
from .names import make_name



def world_mentions(world, papers=None) -> tuple[list[Mention], dict[str, int]]:
    mentions: list[Mention] = []
    gold: dict[str, int] = {}
    for p in papers if papers is not None else world.papers:
        names = [f"{a.forenames or ''} {a.keyname}".strip() for a in p.authors]
        s2_al = {}
        if p.s2 is not None and p.s2.authors:
            for i, j, c in align_authorships(names, [n for _, n in p.s2.authors]):
                if j is not None:
                    s2_al[i] = (p.s2.authors[j][0], c)
        oa_al = {}
        if p.openalex is not None and p.openalex.authorships:
            for i, j, c in align_authorships(names, [a.raw_author_name for a in p.openalex.authorships]):
                if j is not None:
                    oa_al[i] = (p.openalex.authorships[j], c)
        big = len(p.authors) > MAX_COAUTHOR_AUTHORS
        author_names = [] if big else [make_name(a.forenames, None, a.keyname) for a in p.authors]
        v1 = p.versions[0].submitted if p.versions else None
        text = f"{p.title}\n{p.abstract}"
        for k, a in enumerate(p.authors):
            s2id, c1 = s2_al.get(k, (None, None))
            oa, c2 = oa_al.get(k, (None, None))
            confs = [c for c in (c1, c2) if c is not None]
            m = Mention(
                mention_id=f"{p.arxiv_id}:{a.position}",
                paper_id=p.arxiv_id,
                position=a.position,
                first=a.forenames,
                last=a.keyname,
                suffix=a.suffix,
                affiliations=list(a.affiliations),
                s2_author_id=s2id,
                openalex_author_id=oa.author_id if oa is not None else None,
                orcid=normalize_orcid(oa.orcid) if oa is not None else None,
                institution_ids=list(oa.institution_ids) if oa is not None else [],
                **coauthor_fields(author_names, k),
                categories=list(p.categories),
                text=text,
                year=v1.year if v1 else None,
                published=v1,
                n_authors=len(p.authors),
                alignment_confidence=min(confs) if confs else None,
            )
            mentions.append(m)
            gold[m.mention_id] = a.person_id
    return mentions, gold


def attach_world_vectors(world, mentions: list[Mention]) -> None:
    """Each mention gets its paper's sentence vector, as the embedding stage would make it
    (set_vectors: embedded once, then kept). One cache per world, named by its papers: a set's
    cache is embedded again whole when a text is missing, so one cache shared by the training
    world (seed 11) and the bar's (seed 7) was embedded again on every switch between them."""
    from .set_vectors import attach_vectors

    ids = hashlib.sha256(" ".join(sorted(p.arxiv_id for p in world.papers)).encode()).hexdigest()[:12]
    attach_vectors(f"sandbox-{ids}", {p.arxiv_id: {"title": p.title, "abstract": p.abstract} for p in world.papers},
                   mentions)


def sandbox_eval(seed: int = 7, papers_per_day: int = 250, days: int = 10, *, thin: bool = False,
                 vectors: bool = False, **kw):
    """Evaluate on a sandbox world; ``thin`` strips mentions to names + affiliations +
    positions (``evaluate.thin_mentions``), like S2AND input without papers.json or ids;
    ``vectors`` gives them their papers' sentence vectors, as in the pipeline."""
    from wove_pipeline.sandbox.generator import generate_world

    from .evaluate import evaluate, thin_mentions

    world = generate_world(seed=seed, papers_per_day=papers_per_day, days=days)
    mentions, gold = world_mentions(world)
    name = f"sandbox world seed={seed} ({papers_per_day}x{days})"
    if vectors and not thin:
        attach_world_vectors(world, mentions)
    if thin:
        mentions, name = thin_mentions(mentions), name + " (thin: names + affiliations + positions)"
    return evaluate(mentions, gold, name=name, **kw)
