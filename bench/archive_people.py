"""Copies of the base archive that are other people (bench/archive_copy.py, ``people="other"``).

A copy made as it is (``people="twins"``) gives every base researcher K twins with the same
name, co-authors and affiliations: every token a day's author position is looked up by
(profile_assign.bounded_candidates) is held by K + 1 profiles, which no real archive does.
Here copy ``k`` renames its people instead: every name word (a run of ASCII letters of two or
more, in forenames and keynames) is replaced through a permutation of the base's words,
drawn per copy:

- surname words (words printed more often as a keyname than in forenames) among runs of
  RUN words with the same first letter and about the same frequency, so the heavy tail of
  name blocks stays (a copy's "Wang" block is about as big as the base's, but other people
  fill it);
- given-name words likewise among given-name words, so an initial ("P.") stays the initial
  of its full form ("Peng" -> "Ping") and a name's block maps to one block.

A person's co-authors are renamed with the same permutation, so a copy's circles are other
names too. Initials and words with other letters stay as printed.

A copy's people also work at workplaces of their own: each affiliation string is printed with a
word drawn for the copy before it ("Sisete University of Tokyo" in copy 1), and each institution id is
the copy's ("I123-c7", a row of wove.institutions named alike), in the authors' affiliations,
the aligned raw affiliations and institution ids, and the profiles' affiliation counts and
tokens. With the base's affiliations kept, the copies whose names met again held the same
institution, venue and years: people any real archive would call one. With them permuted
among the base's (the sandbox's 328 strings and 66 institutions, until 2026-12-06), every
string was printed by some 8,000 profiles at 1,000,000 papers, where a real archive prints
tens of thousands of workplaces; two initials-only namesakes sharing nothing but one of them
were most of the merges of a copy's researcher with a base one.

A copy also writes in its own vocabulary: the hashed term indices of its papers' text counts
(matching_text_terms) and of its profiles' text centroids are XORed with a salt drawn per
copy (a bijection of the 2**18 indices). Names drawn by the permutations meet again across
copies (an initial stays, a word keeps its place in one copy of 8), and with the base's texts
kept word for word such a name would hold the same papers in two copies: twins identical in
every piece of evidence, whom the world calls two people. Within a copy a person's papers
are as alike as in the base; across copies and against the day's papers they share no terms
but by chance, as papers of other fields do.

What the database holds derived from names (blocks, name keys, co-author keys, the profiles'
name forms and identifying tokens, researchers' display and normalized names) is mapped by
tables built here from the base's own printed names through the matcher's functions
(names.make_name, normalize_text), so a copy's derived keys are what the pipeline would have
derived from its renamed names. Left as in the base (not read by a day's matching or by the
metrics): the upstream records' author names (s2_papers.authors, openalex_works.authorships,
s2_authors, openalex_authors), papers.authors / authors_display and the representatives'
own token lists.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict

import numpy as np
import psycopg

from bench.archive_copy import _UPS, COPY_ID_PREFIX

RUN = 8  # words permuted among each other: a run of about equally frequent ones
SCHEMA = "bench_copy"
TEXT_INDEX_MASK = (1 << 18) - 1  # scoring._INDEX_BITS: the low bits of a packed term are its hashed index
_WORD = re.compile(r"[^\W\d_]+")


def _words(text: str | None) -> list[str]:
    return [w for w in _WORD.findall(text or "") if len(w) > 1 and w.isascii()]


def permutations(surnames: Counter, given: Counter, copies: int, seed: int,
                 frozen: frozenset[str] = frozenset()) -> list[dict[str, str]]:
    """Per copy (index k - 1), lowercase word -> lowercase word (only the words that move;
    ``frozen`` words stay)."""
    role = {w: "s" for w in surnames}
    role.update((w, "g") for w, n in given.items() if n > surnames.get(w, 0))
    count = surnames + given
    runs: dict[tuple, list[str]] = defaultdict(list)
    for w in sorted(set(count) - frozen, key=lambda w: (-count[w], w)):
        runs[(role[w], w[0])].append(w)
    groups = [ws[i:i + RUN] for ws in runs.values() for i in range(0, len(ws), RUN)]
    out = []
    for k in range(1, copies + 1):
        rng = random.Random(f"{seed}:{k}")
        mapping = {}
        for g in groups:
            shuffled = g[:]
            rng.shuffle(shuffled)
            mapping.update((a, b) for a, b in zip(g, shuffled) if a != b)
        out.append(mapping)
    return out


def _cased(word: str, new: str) -> str:
    if word.isupper():
        return new.upper()
    if word[0].isupper():
        return new[0].upper() + new[1:]
    return new


def rename(text: str | None, mapping: dict[str, str]) -> str | None:
    """``text`` with its name words replaced through ``mapping`` (case kept)."""
    if not text:
        return text

    def sub(m: re.Match) -> str:
        w = m.group(0)
        new = mapping.get(w.lower()) if len(w) > 1 and w.isascii() else None
        return _cased(w, new) if new else w

    return _WORD.sub(sub, text)


def build_name_maps(conn: psycopg.Connection, copies: int, seed: int = 7, log=print) -> dict[str, int]:
    """Fill bench_copy.name_map (kind, k, old, new) for copies 1..``copies``: kind 'p' a printed
    string (forenames, keyname, a printed full name), 'b' a name block key, 'k' a name key
    (names.Name.key), 'n' a normalized name (researchers.normalized_name), 'a' an affiliation
    string, 't' an affiliation's token (profiles' "a:" tokens). Returns
    the rows per kind and the keys and tokens that mapped two ways (kept: the first)."""
    from bench.archive_copy import _BASE_AX, RID_STRIDE
    from wove_pipeline.matching.names import make_name, normalize_text

    triples = conn.execute(f"SELECT DISTINCT forenames, keyname, suffix FROM wove.paper_authors t WHERE {_BASE_AX}").fetchall()
    surnames, given = Counter(), Counter()
    for forenames, keyname, _suffix in triples:
        given.update(w.lower() for w in _words(forenames))
        surnames.update(w.lower() for w in _words(keyname))
    # frequencies by position, not by distinct string
    for forenames, keyname, n in conn.execute(
            f"SELECT forenames, keyname, count(*) FROM wove.paper_authors t WHERE {_BASE_AX} GROUP BY 1, 2"):
        for w in _words(forenames):
            given[w.lower()] += n - 1
        for w in _words(keyname):
            surnames[w.lower()] += n - 1
    # a word printed with other letters ("Müller") stays, and so does the ASCII word it reads
    # as once normalized ("Muller"): both give one block key, which must map one way
    frozen = frozenset(w for f, k, _ in triples for x in (f, k) for w in normalize_text(x).split()
                       if not all(p.isascii() for p in _WORD.findall(x or "")))
    printed = {x for f, k, _ in triples for x in (f, k) if x}
    for (a, b, c) in conn.execute(f"SELECT arxiv_name, s2_name, openalex_name FROM wove.authorships t WHERE {_BASE_AX}"):
        printed.update(x for x in (a, b, c) if x)
    displays = [r[0] for r in conn.execute("SELECT display_name FROM wove.researchers WHERE researcher_id < %s",
                                           (RID_STRIDE,))]
    printed.update(displays)
    maps = permutations(surnames, given, copies, seed, frozen)
    workplaces = affiliation_maps(_affiliations(conn), copies, seed)
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    conn.execute(f"DROP TABLE IF EXISTS {SCHEMA}.name_map")
    conn.execute(f"CREATE UNLOGGED TABLE {SCHEMA}.name_map (kind \"char\", k int, old text, new text)")
    rows = Counter()
    conflicts = Counter()
    with conn.cursor().copy(f"COPY {SCHEMA}.name_map (kind, k, old, new) FROM STDIN") as copy:
        for k, mapping in enumerate(maps, start=1):
            for old in printed:
                if (new := rename(old, mapping)) != old:
                    copy.write_row(("p", k, old, new))
                    rows["p"] += 1
            blocks: dict[str, str] = {}
            keys: dict[str, str] = {}
            for forenames, keyname, suffix in triples:
                a = make_name(forenames, None, keyname, suffix)
                b = make_name(rename(forenames, mapping), None, rename(keyname, mapping), suffix)
                conflicts["blocks"] += blocks.setdefault(a.block, b.block) != b.block
                conflicts["keys"] += keys.setdefault(a.key, b.key) != b.key
            texts = workplaces[k - 1]
            tokens: dict[str, str] = {}
            for a, b in texts.items():
                conflicts["affiliation_tokens"] += tokens.setdefault(_token(a), _token(b)) != _token(b)
            for kind, pairs in (("b", blocks), ("k", keys),
                                ("n", {normalize_text(d): normalize_text(rename(d, mapping)) for d in displays}),
                                ("a", texts), ("t", tokens)):
                for old, new in pairs.items():
                    if new != old:
                        copy.write_row((kind, k, old, new))
                        rows[kind] += 1
    conn.execute(f"ALTER TABLE {SCHEMA}.name_map ADD PRIMARY KEY (kind, k, old)")
    conn.execute(f"ANALYZE {SCHEMA}.name_map")
    log(f"  name maps: {dict(rows)} rows for {copies} copies; mapped two ways (the first kept): {dict(conflicts)}")
    return {**rows, **{f"{k}_mapped_two_ways": v for k, v in conflicts.items()}}


def affiliation_maps(affiliations: list[str], copies: int, seed: int) -> list[dict[str, str]]:
    """Per copy (index k - 1): affiliation string -> the string printed with the copy's word
    before it. (A copy's institution ids are suffixed as its upstream ids are: RENAMED,
    INSTITUTIONS_SQL.)"""
    words = copy_words(copies, seed)
    return [{a: f"{words[k - 1]} {a}" for a in affiliations} for k in range(1, copies + 1)]


_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def copy_words(copies: int, seed: int) -> list[str]:
    """Per copy (index k - 1) a made-up capitalized word of three syllables, distinct."""
    rng = random.Random(f"{seed}:workplaces")
    words: list[str] = []
    while len(words) < copies:
        w = "".join(rng.choice(_SYLLABLES) for _ in range(3)).capitalize()
        if w not in words:
            words.append(w)
    return words


# the copies' institutions: the base's rows, each id (and ROR, and lineage) the copy's, named
# with the copy's word (archive_copy.grow, people="other")
INSTITUTIONS_SQL = """
INSERT INTO wove.institutions (institution_id, ror, display_name, country_code, type, aliases, lineage, homepage_url,
                               city, works_count, cited_by_count, as_of, fetched_at)
SELECT t.institution_id || '-c' || w.k, t.ror || '-c' || w.k, w.word || ' ' || t.display_name, t.country_code, t.type,
       (SELECT coalesce(array_agg(w.word || ' ' || x ORDER BY o), '{}') FROM unnest(t.aliases) WITH ORDINALITY u(x, o)),
       (SELECT coalesce(array_agg(x || '-c' || w.k ORDER BY o), '{}') FROM unnest(t.lineage) WITH ORDINALITY u(x, o)),
       t.homepage_url, t.city, t.works_count, t.cited_by_count, t.as_of, t.fetched_at
FROM wove.institutions t, unnest(%(words)s::text[]) WITH ORDINALITY w (word, k)
WHERE t.institution_id !~ '-c[0-9]+$'
"""


def _affiliations(conn: psycopg.Connection) -> list[str]:
    """Every affiliation string of the base (the authors' and the aligned raw ones)."""
    from bench.archive_copy import _BASE_AX

    texts = [a for (a,) in conn.execute(
        f"SELECT a FROM wove.paper_authors t, unnest(t.affiliations) a WHERE {_BASE_AX}"
        f" UNION SELECT a FROM wove.authorships t, unnest(t.raw_affiliations) a WHERE {_BASE_AX}") if a]
    return texts


def vocabulary_salts(copies: int, seed: int) -> list[int]:
    """Per copy (index k - 1) the XOR salt of its hashed term indices: distinct, never 0."""
    return random.Random(f"{seed}:vocabulary").sample(range(1, TEXT_INDEX_MASK + 1), copies)


def salted_terms(packed: bytes, salt: int) -> bytes:
    """Packed term counts (uint32 ``count << 18 | index``) with each index XORed by ``salt``,
    in index order again (scoring.text_term_counts' order)."""
    words = np.frombuffer(packed, dtype="<u4") ^ np.uint32(salt)
    return words[np.argsort(words & TEXT_INDEX_MASK, kind="stable")].astype("<u4").tobytes()


def salted_centroid(packed: bytes, salt: int) -> bytes:
    """A packed centroid (uint32 pairs index, count; profile_store.pack_centroid) salted."""
    pairs = np.frombuffer(packed, dtype="<u4").reshape(-1, 2).copy()
    pairs[:, 0] ^= np.uint32(salt)
    return pairs.astype("<u4").tobytes()


# what stage_texts fills per table: (base rows' query, key column, salting function)
SALTED_TEXTS = {
    "matching_text_terms": ("SELECT arxiv_id, terms FROM wove.matching_text_terms t WHERE {base}", "arxiv_id",
                            salted_terms),
    "researcher_profiles": ("SELECT researcher_id, centroid FROM wove.researcher_profiles t WHERE {base}"
                            " AND length(centroid) > 0", "researcher_id", salted_centroid),
}


def base_texts(conn: psycopg.Connection, table: str) -> list[tuple]:
    """The base's rows of a SALTED_TEXTS table: (key, packed text column), read once per grow."""
    from bench.archive_copy import RID_STRIDE, TABLES

    query = SALTED_TEXTS[table][0]
    return [(ident, bytes(value)) for ident, value in
            conn.execute(query.format(base=TABLES[table][0] % {"stride": RID_STRIDE}))]


def stage_texts(conn: psycopg.Connection, table: str, rows: list[tuple], k0: int, k1: int, salts: list[int]) -> None:
    """Fill bench_copy.<table>_texts (k, key, value) with the base's ``rows`` (base_texts)
    salted for copies k0..k1 (the copy's INSERT reads them through RENAMED)."""
    _, key, salted = SALTED_TEXTS[table]
    staged = f"{SCHEMA}.{table}_texts"
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    conn.execute(f"DROP TABLE IF EXISTS {staged}")
    kind = "text" if key == "arxiv_id" else "bigint"
    conn.execute(f"CREATE UNLOGGED TABLE {staged} (k int, key {kind}, value bytea)")
    with conn.cursor().copy(f"COPY {staged} (k, key, value) FROM STDIN") as copy:
        for k in range(k0, k1 + 1):
            for ident, value in rows:
                copy.write_row((k, ident, salted(value, salts[k - 1])))
    conn.execute(f"ALTER TABLE {staged} ADD PRIMARY KEY (k, key)")
    conn.execute(f"ANALYZE {staged}")


def _token(affiliation: str) -> str:
    from wove_pipeline.matching.profiles import _affiliation_token

    return _affiliation_token(affiliation)[2:]


def drop_name_maps(conn: psycopg.Connection) -> None:
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def _mapped(kind: str, expr: str) -> str:
    return (f"coalesce((SELECT m.new FROM {SCHEMA}.name_map m WHERE m.kind = '{kind}' AND m.k = g.k"
            f" AND m.old = {expr}), {expr})")


def _mapped_array(kind: str, column: str) -> str:
    return (f"(SELECT coalesce(array_agg({_mapped(kind, 'x')} ORDER BY o), '{{}}') FROM unnest({column})"
            " WITH ORDINALITY u(x, o))")


def _form(key: str) -> str:
    """A stored name form (first\\tmiddle\\tlast\\tsuffix, or four tabs and a printed name) renamed."""
    part = lambda n: f"split_part({key}, E'\\t', {n})"  # noqa: E731
    return (f"CASE WHEN {key} LIKE E'\\t\\t\\t\\t%%' THEN E'\\t\\t\\t\\t' || {_mapped('p', part(5))} ELSE "
            f"concat_ws(E'\\t', {_mapped('p', part(1))}, {_mapped('p', part(2))}, {_mapped('p', part(3))}, {part(4)}) END")


def _salted(table: str, key: str, column: str) -> str:
    """A text column as stage_texts salted it for copy g.k (an empty centroid stays empty)."""
    return f"coalesce((SELECT s.value FROM {SCHEMA}.{table}_texts s WHERE s.k = g.k AND s.key = {key}), {column})"


# a profile's identifying token "<block>|<kind>:<value>": block and name-derived values renamed,
# upstream ids suffixed as the copy's ids are (an ORCID as normalize_orcid reads the copy's)
_TOKEN = ("{b} || '|' || CASE WHEN r LIKE 'n:%%' THEN 'n:' || {key} WHEN r LIKE 'c:%%' THEN 'c:' || {co}"
          " WHEN r LIKE 'a:%%' THEN 'a:' || {aff}"
          " WHEN r ~ '^[so]:' THEN r || '-c' || g.k WHEN r LIKE 'r:%%' THEN r || '-C' || g.k ELSE r END").format(
    b=_mapped("b", "split_part(x, '|', 1)"), key=_mapped("k", "substr(r, 3)"), co=_mapped("b", "substr(r, 3)"),
    aff=_mapped("t", "substr(r, 3)"))

RENAMED: dict[str, dict[str, str]] = {
    "paper_authors": {"keyname": _mapped("p", "t.keyname"), "forenames": _mapped("p", "t.forenames"),
                      "affiliations": _mapped_array("a", "t.affiliations")},
    "authorships": {**{c: _mapped("p", f"t.{c}") for c in ("arxiv_name", "s2_name", "openalex_name")},
                    "raw_affiliations": _mapped_array("a", "t.raw_affiliations"),
                    "institution_ids": _UPS},  # the copy's ids, as INSTITUTIONS_SQL writes their rows
    "researchers": {"display_name": _mapped("p", "t.display_name"), "normalized_name": _mapped("n", "t.normalized_name")},
    "researcher_mentions": {"block": _mapped("b", "t.block")},
    "researcher_profiles": {
        "blocks": f"(SELECT coalesce(array_agg({_mapped('b', 'x')} ORDER BY o), '{{}}') FROM unnest(t.blocks)"
                  " WITH ORDINALITY u(x, o))",
        "name_forms": f"(SELECT coalesce(jsonb_object_agg({_form('key')}, value), '{{}}'::jsonb) FROM jsonb_each(t.name_forms))",
        "coauthors": f"(SELECT coalesce(jsonb_object_agg({_mapped('b', 'key')}, value), '{{}}'::jsonb) FROM jsonb_each(t.coauthors))",
        "affiliations": f"(SELECT coalesce(jsonb_object_agg({_mapped('a', 'key')}, value), '{{}}'::jsonb)"
                        " FROM jsonb_each(t.affiliations))",
        "match_tokens": f"(SELECT coalesce(array_agg({_TOKEN} ORDER BY o), '{{}}') FROM unnest(t.match_tokens)"
                        " WITH ORDINALITY u(x, o), LATERAL (SELECT substr(x, length(split_part(x, '|', 1)) + 2) AS r) rr)",
        "representatives": (f"(SELECT coalesce(jsonb_agg(jsonb_build_array({COPY_ID_PREFIX} || (e ->> 0), e -> 1, "
                            + _mapped("b", "e ->> 2") + ", e -> 3) ORDER BY o),"
                            " '[]'::jsonb) FROM jsonb_array_elements(t.representatives) WITH ORDINALITY x(e, o))"),
        "centroid": _salted("researcher_profiles", "t.researcher_id", "t.centroid"),
    },
    "matching_text_terms": {"terms": _salted("matching_text_terms", "t.arxiv_id", "t.terms")},
}


def verify(conn: psycopg.Connection, sample: int = 200, log=print) -> dict[str, int]:
    """Rebuild ``sample`` copied researchers' profiles from their copied (renamed, salted)
    author positions with the matcher's own code and count those whose stored name- or
    text-derived fields differ, and the institution ids of their positions without a row of
    wove.institutions: the copying in SQL must give what the pipeline would have built."""
    from bench.archive_copy import RID_STRIDE
    from wove_pipeline.matching import profile_store
    from wove_pipeline.matching.profiles import build_profile

    ids = [r[0] for r in conn.execute(
        "SELECT researcher_id FROM wove.researcher_profiles WHERE researcher_id >= %s"
        " ORDER BY md5(researcher_id::text) LIMIT %s", (RID_STRIDE, sample))]
    stored = profile_store.load_profiles(conn, ids)
    columns = {r: (set(b), set(t)) for r, b, t in conn.execute(
        "SELECT researcher_id, blocks, match_tokens FROM wove.researcher_profiles WHERE researcher_id = ANY(%s)", (ids,))}
    members = profile_store.members_of(conn, ids)
    differ = Counter()
    example: dict[str, tuple] = {}
    for rid in ids:
        built, kept = build_profile(rid, members[rid]), stored[rid]
        for field, a, b in (("blocks", set(built.blocks), columns[rid][0]),
                            ("name_forms", dict(built.name_forms), dict(kept.name_forms)),
                            ("coauthors", set(built.coauthors), set(kept.coauthors)),
                            ("match_tokens", set(built.identifying_tokens()), columns[rid][1]),
                            ("affiliations", dict(built.affiliations), dict(kept.affiliations)),
                            ("centroid", dict(built.centroid), dict(kept.centroid))):
            if a != b:
                differ[field] += 1
                example.setdefault(field, (rid, sorted(a ^ b)[:4] if isinstance(a, set) else (a, b)))
    # and the copies' institution ids their positions carry are rows of wove.institutions
    insts = sorted({i for ms in members.values() for m in ms for i in m.institution_ids})
    known = {i for (i,) in conn.execute("SELECT institution_id FROM wove.institutions WHERE institution_id = ANY(%s)",
                                        (insts,))}
    if missing := [i for i in insts if i not in known]:
        differ["institutions"] = len(missing)
        example["institutions"] = (None, missing[:4])
    log(f"  renamed profiles checked: {len(ids)}, differing {dict(differ) or 'none'} {example or ''}"
        f" ({len(insts)} institution ids)")
    return {"checked": len(ids), **differ}
