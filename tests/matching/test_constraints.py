import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wove_pipeline.matching import Mention, Overrides, assign_incremental, match_all


def twin(mid, paper, orcid=None, first="Peng", **kw):
    """Mentions that agree on everything (name, affiliation, co-authors, topic)."""
    base = dict(
        affiliations=["Adobe Research"],
        coauthor_keys=["k zhang", "s bi"],
        categories=["cs.CV"],
        text="diffusion transformer training load balancing",
        year=2025,
        s2_author_id="S1",
        openalex_author_id="A1",
    )
    base.update(kw)
    return Mention(mid, paper, 1, first, None, "Wang", orcid=orcid, **base)


def test_identical_evidence_merges_and_keeps_evidence():
    a = match_all([twin("m1", "p1"), twin("m2", "p2"), twin("m3", "p3")])
    assert len(set(a.clusters.values())) == 1
    link = a.links["m1"]
    assert link.score > 0.9 and link.partner in ("m2", "m3")
    # the evidence: what each feature adds to the pair's log-odds under the learned model
    # (co-authors come as two features, the count and the share, that say one thing together)
    coauthors = link.evidence["coauthors_shared"] + link.evidence["coauthors_share"]
    assert coauthors > 0 and link.evidence["s2_same"] > 0 and link.evidence["log_odds"] > 2


def test_two_different_orcids_never_merge():
    ms = [twin("m1", "p1", "0000-0001"), twin("m2", "p2", "0000-0002"), twin("m3", "p3")]
    a = match_all(ms)
    assert a.clusters["m1"] != a.clusters["m2"]


def test_same_orcid_links_only_compatible_names():
    ms = [
        twin("m1", "p1", "0000-0001", affiliations=[], coauthor_keys=[], s2_author_id=None, openalex_author_id=None),
        twin("m2", "p2", "0000-0001", affiliations=["Elsewhere"], coauthor_keys=[], s2_author_id=None, openalex_author_id=None,
             text="unrelated", categories=["math.AP"]),
        twin("m3", "p3", "0000-0001", first="Ping", affiliations=[], coauthor_keys=[], s2_author_id=None),
    ]
    a = match_all(ms)
    assert a.clusters["m1"] == a.clusters["m2"]  # same ORCID, compatible names: must-link
    assert a.links["m1"].outcome == "forced"
    assert a.clusters["m3"] != a.clusters["m1"]  # Ping vs Peng: the ORCID does not override names


def test_two_authors_of_one_paper_are_two_people():
    a = match_all([twin("m1", "p1"), Mention("m2", "p1", 3, "Peng", None, "Wang", affiliations=["Adobe Research"])])
    assert a.clusters["m1"] != a.clusters["m2"]


def test_overrides_force_split_and_force_link_survive_reruns():
    ms = [twin("m1", "p1"), twin("m2", "p2"), twin("m3", "p3")]
    ov = Overrides()
    ov.force_split("m1", "m2")
    ov2 = Overrides.from_rows(ov.to_rows())  # what the pipeline stores and reloads
    for o in (ov, ov2):
        a = match_all(ms, o)
        assert a.clusters["m1"] != a.clusters["m2"]
    # force link across blocks (a name change) and within a block against the evidence
    other = Mention("x1", "p9", 0, "Pamela", None, "Smith", text="poetry")
    ov.force_link("m3", "x1")
    a = match_all(ms + [other], ov)
    assert a.clusters["x1"] == a.clusters["m3"]
    assert a.clusters["m1"] != a.clusters["m2"]
    ov3 = Overrides()
    far = Mention("y1", "p8", 0, "Peng", None, "Wang", text="string theory", categories=["hep-th"])
    ov3.force_link("m1", "y1")
    a = match_all(ms + [far], ov3)
    assert a.clusters["y1"] == a.clusters["m1"]
    # incremental honours overrides too
    base = match_all(ms)
    inc = assign_incremental(ms, base, [far], ov3)
    assert inc.clusters["y1"] == inc.clusters["m1"]
    assert inc.links["y1"].outcome == "forced"


def test_incremental_not_sure_opens_new_profile():
    ms = [twin("m1", "p1"), twin("m2", "p2")]
    base = match_all(ms)
    vague = Mention("n1", "p5", 0, "P.", None, "Wang", year=2025)
    strong = twin("n2", "p6")
    inc = assign_incremental(ms, base, [vague, strong])
    assert inc.clusters["n2"] == inc.clusters["m1"] and inc.links["n2"].outcome == "linked"
    assert inc.clusters["n1"] not in (inc.clusters["m1"],)
    assert inc.links["n1"].outcome in ("new", "not_sure")
    assert inc.clusters["m1"] == base.clusters["m1"]  # existing labels kept
    assert sum(v for k, v in inc.stats.items() if k in ("new", "not_sure", "linked")) == 2


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([None, "A", "B", "C"]), st.sampled_from(["Peng", "P.", "Pengfei"])), min_size=2, max_size=12))
def test_property_no_cluster_holds_two_orcids(spec):
    ms = [twin(f"m{i}", f"p{i}", orcid, first=first) for i, (orcid, first) in enumerate(spec)]
    a = match_all(ms)
    for members in a.members().values():
        orcids = {m.orcid for m in ms if m.mention_id in members} - {None}
        assert len(orcids) <= 1


def test_parallel_workers_give_the_same_partition():
    from wove_pipeline.matching import MatchConfig
    from wove_pipeline.matching.evaluate import b3
    from wove_pipeline.matching.sandbox_eval import world_mentions
    from wove_pipeline.sandbox.generator import generate_world
    ms, _ = world_mentions(generate_world(seed=3, papers_per_day=40, days=3))
    a = match_all(ms)
    b = match_all(ms, config=MatchConfig(workers=2, batch_size=100))
    assert b3(a.clusters, b.clusters).f1 == 1.0
    assert all(b.links[m].cluster == c for m, c in b.clusters.items())


@pytest.mark.parametrize("split", ["last_day", "mostly_new"])
def test_parallel_incremental_assignment_decides_as_one_process(monkeypatch, split):
    """assign_incremental spread over forked workers makes the same decisions with the same
    evidence as in one process; only new clusters' labels are numbered differently.
    "mostly_new" makes every share open new clusters, and each worker process runs several
    shares in turn: their new clusters must not share labels (they once did)."""
    import multiprocessing

    from wove_pipeline.matching import MatchConfig, parallel
    from wove_pipeline.matching.evaluate import b3
    from wove_pipeline.matching.sandbox_eval import world_mentions
    from wove_pipeline.sandbox.generator import generate_world
    ms, _ = world_mentions(generate_world(seed=3, papers_per_day=40, days=3))
    if split == "last_day":
        last_day = max(m.sort_date[0] for m in ms)
        old = [m for m in ms if m.sort_date[0] < last_day]
        new = [m for m in ms if m.sort_date[0] == last_day]
    else:
        ms = sorted(ms, key=lambda m: m.sort_date)
        old, new = ms[: len(ms) // 2], ms[len(ms) // 2:]
    assert len(new) > 50 and len(old) > 100
    base = match_all(old)
    one = assign_incremental(old, base.clusters, new, config=MatchConfig(batch_size=100))

    forks = []
    real_get_context = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda m=None: forks.append(m) or real_get_context(m))
    monkeypatch.setattr(parallel, "PARALLEL_ASSIGN_MIN_PAIRS", 0)
    two = assign_incremental(old, base.clusters, new, config=MatchConfig(workers=2, batch_size=100))
    assert forks == ["fork"]

    assert len(set(one.clusters.values())) == len(set(two.clusters.values()))
    assert b3(one.clusters, two.clusters).f1 == 1.0
    assert one.merged == two.merged  # existing clusters merged alike in one process and in two
    assert {m: two.clusters[m] for m in base.clusters} == {m: two.merged.get(c, c) for m, c in base.clusters.items()}
    for m in new:
        a, b = one.links[m.mention_id], two.links[m.mention_id]
        assert (a.outcome, a.score, a.partner, a.evidence) == (b.outcome, b.score, b.partner, b.evidence)
        assert b.cluster == two.clusters[m.mention_id]
    assert one.stats == two.stats


def test_big_blocks_are_sub_blocked():
    from wove_pipeline.matching import MatchConfig
    ms = []
    for i in range(60):
        first = ["Peng", "Ping", "P."][i % 3]
        ms.append(Mention(f"m{i}", f"p{i}", 0, first, None, "Wang", coauthor_keys=[f"x{i % 4}"], year=2000 + i % 20))
    a = match_all(ms, config=MatchConfig(max_block=10))
    assert a.stats.get("big_blocks") == 1
    names = {m.mention_id: m.first for m in ms}
    for members in a.members().values():
        full = {names[m] for m in members} - {"P."}
        assert len(full) <= 1  # Peng and Ping never share a cluster
    assert set(a.clusters) == {m.mention_id for m in ms}


def _sigterm_is_default(_):
    import signal

    return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_forked_workers_end_even_when_the_parent_catches_sigterm():
    """A Dagster run catches SIGTERM and forked workers inherit the handler: a pool that
    ends them with SIGTERM could wait forever (seen in a daily publish). Workers get the
    default disposition back and are let finish on their own."""
    import multiprocessing
    import signal

    from wove_pipeline.matching.parallel import fork_map
    previous = signal.signal(signal.SIGTERM, lambda *a: None)
    try:
        assert fork_map(_sigterm_is_default, [0, 1, 2], 2, None, []) == [True, True, True]
        assert multiprocessing.active_children() == []
    finally:
        signal.signal(signal.SIGTERM, previous)
