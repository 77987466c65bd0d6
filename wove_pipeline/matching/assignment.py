"""What a matching run is configured with (``MatchConfig``) and what it gives back: an
``Assignment`` of mentions to cluster labels, with a ``Link`` saying why for each mention."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .model import PairModel


@dataclass
class MatchConfig:
    model: PairModel | None = None  # None: the trained model shipped in the package
    threshold: float | None = None  # link when mean pair probability >= threshold; None: the model's (cross-validated)
    unsure_low: float | None = None  # incremental: [unsure_low, threshold) -> "not_sure", new profile; None: the model's
    size_exponent: float | None = None  # both lowered for bigger groups (cluster.merge_threshold); None: the model's
    max_block: int = 2000  # blocks above this are sub-blocked
    # big blocks: a mention is assigned against the representatives of at most this many
    # candidate clusters (big_block.py: work per mention bounded); 0: against every member
    candidate_clusters: int = 32
    # the daily assignment by profile likewise, in a block holding more profiles than this
    # (profile_assign.bounded_candidates): what a day reads stays near a small archive's as
    # blocks grow. 2 (with 4 representatives, then): on the six real sets the newest 10%
    # assigned by profile score within 0.0083 B3 F1 of link by link, the same worst set and
    # figure as 4 candidates of 8 (acl_homonyms; tests/matching/test_profiles.py; 2026-12-04,
    # candidates, representatives -> largest gap: 4, 8 -> 0.0083; 4, 4 -> 0.0083; 2, 8 ->
    # 0.0083; 2, 4 -> 0.0083, pubmed_sanyal 0.0037 against 0.0002; 4, 2 -> 0.0083,
    # pubmed_sanyal 0.0056), and a day on a big archive reads and scores fewer candidates'
    # representatives (after 1,000,000 papers: 67,853 positions against 191,321, and the day
    # 182 s against 305; bench/RESULTS.md "Day after an archive of other people"); 0: every
    # profile of the block
    profile_candidates: int = 2
    # a candidate profile is scored by its heaviest representatives in the block, at most this
    # many (a profile keeps up to profiles.MAX_REPRESENTATIVES): what a day reads per candidate
    # is its representatives' papers, cold on an archive bigger than memory. 12 (2026-12-05):
    # held out on the six real sets, the newest 10% assigned by profile then score within 0.005
    # B3 F1 of matching everything at once (issue 21's incremental bar), on every set; with 4 or
    # 8, acl_blocks and acl_homonyms did not (gaps 4 -> 8 -> 12 -> 16: acl_blocks +0.0088,
    # +0.0091, +0.0047, +0.0047; acl_homonyms +0.0142, +0.0142, +0.0029, +0.0029; the others
    # within 0.0048 throughout; under two other training samples acl_blocks stays just over,
    # 0.0058 and 0.0057 against 0.0088 and 0.0107 with 4): a heavy profile's lighter
    # representatives are members its mean cannot leave out. The price: a 100k archive's day
    # read 114,223 positions against 63,656, its researchers step 35.7 s against 30.5
    # (bench/RESULTS.md, "Day after an archive of other people"). 0: every one
    profile_representatives: int = 12
    batch_size: int = 400  # small blocks are packed into batches of about this many mentions
    chunk_cells: int = 2_000_000  # max rows*cols scored at once in assignment (20 float32 features a cell)
    workers: int = 1  # processes for match_all and large incremental runs (blocks are independent)


@dataclass
class Link:
    """Why a mention sits in its cluster."""

    mention_id: str
    cluster: int
    outcome: str  # clustered | singleton | linked | new | not_sure | forced | existing
    score: float | None  # mean probability to the other members when decided
    partner: str | None = None  # strongest partner in the cluster
    evidence: dict[str, float] = field(default_factory=dict)  # log-odds per feature with partner


@dataclass
class Assignment:
    clusters: dict[str, int]  # mention_id -> cluster label
    links: dict[str, Link]
    stats: dict[str, int] = field(default_factory=dict)
    # incremental: existing clusters the group model merged (absorbed -> kept; group_merge.join_new_groups)
    merged: dict[int, int] = field(default_factory=dict)

    def members(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = defaultdict(list)
        for m, c in self.clusters.items():
            out[c].append(m)
        return dict(out)
