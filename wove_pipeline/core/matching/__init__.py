"""Author matching core (Dagster-free): names, mentions, scoring, clustering, identity, evaluation."""

from .alignment import align_authorships
from .cluster import Assignment, Link, MatchConfig, assign_incremental, match_all
from .mentions import Mention
from .names import Name, block_key, make_name, names_compatible, normalize_text, parse_name
from .overrides import Overrides

__all__ = [
    "Assignment",
    "Link",
    "MatchConfig",
    "Mention",
    "Name",
    "Overrides",
    "align_authorships",
    "assign_incremental",
    "block_key",
    "make_name",
    "match_all",
    "names_compatible",
    "normalize_text",
    "parse_name",
]
