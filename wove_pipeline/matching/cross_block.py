"""Joining clusters across name blocks: force links from the overrides, and identical
upstream ids (an ORCID, or both S2 and OpenAlex author ids) with compatible names, unless a
cannot-link would land in one cluster."""

from __future__ import annotations

from collections import defaultdict

from .mentions import Mention, normalize_orcid
from .overrides import Overrides


def id_keys(orcid: str | None, s2_author_id: str | None, openalex_author_id: str | None) -> list[tuple]:
    """What identifies a position across name blocks: its ORCID, its S2 and OpenAlex author ids
    together (the keys join_by_upstream_ids joins on)."""
    keys: list[tuple] = []
    if orcid:
        keys.append(("orcid", orcid))
    if s2_author_id and openalex_author_id:
        keys.append(("s2+oa", s2_author_id, openalex_author_id))
    return keys


def merge_refused(ma: list[str], mb: list[str], mentions_by_id: dict[str, Mention], splits: set,
                   *, one_paper: bool = False) -> bool:
    """Would joining clusters ``ma`` and ``mb`` put a cannot-link in one cluster: two different
    ORCIDs, a forced split, or (``one_paper``) two positions of one paper?"""
    known_a = [mentions_by_id[m] for m in ma if m in mentions_by_id]
    known_b = [mentions_by_id[m] for m in mb if m in mentions_by_id]
    oa = {normalize_orcid(m.orcid) for m in known_a} - {None}
    ob = {normalize_orcid(m.orcid) for m in known_b} - {None}
    if oa and ob and oa != ob:
        return True
    if one_paper and {m.paper_id for m in known_a} & {m.paper_id for m in known_b}:
        return True
    sa, sb = set(ma), set(mb)
    return any((x in sa and y in sb) or (x in sb and y in sa) for x, y in splits)


def apply_cross_block_links(clusters: dict[str, int], mentions_by_id: dict[str, Mention], overrides: Overrides | None, stats) -> None:
    if not overrides or not overrides.links:
        return
    splits = overrides.split_set()
    for a, b in overrides.links:
        if a not in clusters or b not in clusters or clusters[a] == clusters[b]:
            continue
        la, lb = clusters[a], clusters[b]
        ma = [m for m, c in clusters.items() if c == la]
        mb = [m for m, c in clusters.items() if c == lb]
        if merge_refused(ma, mb, mentions_by_id, splits):
            stats["force_link_refused"] += 1
            continue
        keep, drop = min(la, lb), max(la, lb)
        for m in mb if drop == lb else ma:
            clusters[m] = keep
        stats["force_link_cross_block"] += 1


def join_by_upstream_ids(clusters: dict[str, int], mentions_by_id: dict[str, Mention], overrides: Overrides | None,
                          stats, only: set[str] | None = None) -> None:
    """Join clusters of different name blocks that share an ORCID, or both an S2 and an
    OpenAlex author id, when their names are compatible ("Wang Peng" printed surname-first
    is "Peng Wang"). Refused where a cannot-link would land in one cluster (two ORCIDs, two
    positions of one paper, a forced split). ``only`` (an incremental run's new mentions):
    a cluster of new mentions only may join another; two clusters that both hold earlier
    mentions stay apart (earlier mentions move only by the group model's merges within a
    block, group_merge.join_new_groups; a full re-match revisits them)."""
    from .names import names_compatible

    by_key: dict[tuple, list[str]] = defaultdict(list)
    for mid, m in mentions_by_id.items():
        if mid not in clusters:
            continue
        for key in id_keys(m.orcid, m.s2_author_id, m.openalex_author_id):
            by_key[key].append(mid)
    members: dict[int, list[str]] | None = None
    splits = overrides.split_set() if overrides else set()
    for key in sorted(by_key):
        mids = by_key[key]
        if len({clusters[m] for m in mids}) < 2 or len({mentions_by_id[m].block for m in mids}) < 2:
            continue
        if members is None:
            members = defaultdict(list)
            for m, c in clusters.items():
                members[c].append(m)
        anchor = mids[0]
        for other in mids[1:]:
            la, lb = clusters[anchor], clusters[other]
            if la == lb or mentions_by_id[anchor].block == mentions_by_id[other].block:
                continue
            keep, drop = min(la, lb), max(la, lb)
            if only is not None:
                fresh_a, fresh_b = set(members[la]) <= only, set(members[lb]) <= only
                if not (fresh_a or fresh_b):
                    continue
                keep, drop = (lb, la) if fresh_a and not fresh_b else (la, lb) if fresh_b and not fresh_a else (keep, drop)
            if not names_compatible(mentions_by_id[anchor].name, mentions_by_id[other].name):
                continue
            if merge_refused(members[la], members[lb], mentions_by_id, splits, one_paper=True):
                stats["id_join_refused"] += 1
                continue
            for m in members.pop(drop):
                clusters[m] = keep
                members[keep].append(m)
            stats["id_join_cross_block"] += 1
