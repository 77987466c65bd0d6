"""Shards of the name blocks: a static set of ``N_SHARDS`` over a stable hash of the block key.

A full re-match (the first run, a model change) is cut into shards so that each can run in
its own process or Kubernetes pod (``matching/assets.py``: the ``full_rematch`` job, one
partition per shard). Blocks never cross shards, so a shard clusters exactly what
``match_all`` would for its blocks; only the joins across name blocks by identical upstream
ids (``cross_block``) can reach another shard, and they run in the final step
(``streaming.join_across_shards``).

The hash is BLAKE2b of the block key's UTF-8 bytes (Python's ``hash`` is salted per
process): the same key lands in the same shard on every machine and in every release, so
the number of shards must not change without a full re-match.
"""

from __future__ import annotations

import hashlib

N_SHARDS = 64  # a static partition set: changing it re-shards every block

# mentions without a usable name are blocks of their own (cluster._group_blocks): they go
# to shard 0 whatever their (empty) key
EMPTY_BLOCK_SHARD = 0


def shard_of(block: str, n_shards: int = N_SHARDS) -> int:
    """The shard (0 .. n_shards - 1) of a name block key."""
    if not block.strip():
        return EMPTY_BLOCK_SHARD
    digest = hashlib.blake2b(block.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % n_shards


def shard_ids(n_shards: int = N_SHARDS) -> list[str]:
    """The partition keys of the shards: "00" .. "63" (sorted as strings = as numbers)."""
    width = len(str(n_shards - 1))
    return [str(s).zfill(width) for s in range(n_shards)]


def parse_shard(key: str | int) -> int:
    shard = int(key)
    if not 0 <= shard < N_SHARDS:
        raise ValueError(f"shard {key!r} is outside 0..{N_SHARDS - 1}")
    return shard
