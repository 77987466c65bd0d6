"""Author matching core (Dagster-free, no database access).

Pipeline use (the lead wires these to PostgreSQL tables and Dagster assets):

1. Build ``Mention`` rows (``mention_id = "<arxiv_id>:<position>"``) from arXiv authors,
   with S2 / OpenAlex author ids, ORCID and institutions aligned by
   ``align_authorships(arxiv_names, other_names)``.
2. Daily: ``assign_incremental(existing_mentions_of_touched_blocks, mention->researcher_id,
   new_mentions, overrides)`` assigns new mentions newest first, then lets the profiles
   they opened join existing ones as average linkage would (``Link.outcome`` says
   linked / new / not_sure / forced); periodically or on demand ``match_all(mentions,
   overrides)`` re-clusters (per block; blocks are independent).
3. ``identity.assign_ids(previous_map, clusters, redirects=..., next_id=...)`` turns any
   clustering into stable researcher ids plus redirect rows (merge / split / orphaned).
4. ``Overrides`` (force link / force split by mention id) are stored as rows
   (``to_rows`` / ``from_rows``) and passed to every call.
5. ``wove matching evaluate DIR|--sandbox`` (``cli.add_matching_commands``) measures B3 and
   pairwise P/R/F1 against labelled data, beside the baselines.
"""

from .alignment import align_authorships
from .assignment import Assignment, Link, MatchConfig
from .cluster import assign_incremental, match_all
from .identity import IdentityResult, Redirect, assign_ids, resolve
from .mentions import Mention, coauthor_key, normalize_orcid
from .model import PairModel
from .names import Name, block_key, make_name, names_compatible, normalize_text, parse_name
from .overrides import Override, Overrides

__all__ = [
    "Assignment",
    "IdentityResult",
    "Link",
    "MatchConfig",
    "Mention",
    "Name",
    "Override",
    "Overrides",
    "Redirect",
    "PairModel",
    "align_authorships",
    "assign_ids",
    "assign_incremental",
    "block_key",
    "coauthor_key",
    "make_name",
    "match_all",
    "names_compatible",
    "normalize_orcid",
    "normalize_text",
    "parse_name",
    "resolve",
]
