"""The learned pair model: shipped with its manifest, missing evidence as missing, the name
prior from real bylines, deterministic training, and upstream ids joining name blocks."""

import numpy as np

from wove_pipeline.matching import Mention, assign_incremental, match_all
from wove_pipeline.matching.features import FEATURES, pair_features
from wove_pipeline.matching.mentions import EMBEDDING_MODEL, coauthor_fields
from wove_pipeline.matching.model import MANIFEST_FILE, MODEL_DIR, PairModel, default_model, score_pairs
from wove_pipeline.matching.names import make_name
from wove_pipeline.matching.scoring import block_names, build_data, combine_block_names


def test_shipped_model_loads_from_the_package_with_its_manifest():
    model = default_model()
    m = model.manifest
    assert tuple(m["features"]) == FEATURES
    assert m["sentence_vectors"]["model"] == EMBEDDING_MODEL  # the vectors mention_load reads
    assert 0.0 < model.unsure_low < model.threshold < 1.0
    # trained on the six real sets and the sandbox world, each input named by its digest
    assert {"ads", "aminer110", "pubmed_sanyal", "medline_pairs", "acl_blocks", "acl_homonyms"} <= set(m["inputs"])
    assert all(len(v["sha256"]) == 64 for k, v in m["inputs"].items() if not k.startswith("sandbox"))
    # the cross-validated figures: every set held out once, at every size exponent and threshold tried
    assert set(m["leave_one_out_at_threshold"]) == set(m["inputs"])
    assert model.size_exponent == m["size_exponent"] >= 0.0
    assert str(model.threshold) in m["leave_one_out_b3"]["ads"][str(model.size_exponent)]
    if model.group is None:  # average linkage alone
        chosen = m["leave_one_out_b3"]["ads"][str(model.size_exponent)][str(model.threshold)]
    else:  # then the group model (tests/matching/test_group_merge.py)
        chosen = m["leave_one_out_group_b3"]["ads"][f"{model.size_exponent}/{model.threshold}/{model.group.threshold}"]
    assert chosen == m["leave_one_out_at_threshold"]["ads"]
    assert PairModel.from_files(MODEL_DIR).model_text == model.model_text
    assert (MODEL_DIR + "/" + MANIFEST_FILE).endswith("manifest.json")


def _features(a: Mention, b: Mention) -> dict[str, float]:
    data = build_data([a, b])
    idx = np.arange(2)
    f, cannot, _ = pair_features(data, idx[:1], idx[1:], block_names(data, idx), pairs=True)
    assert not cannot[0]
    return {k: float(np.broadcast_to(v, (1,))[0]) for k, v in f.items()}


def test_pairs_no_name_fits_are_cannot_links_without_their_features_computed(monkeypatch):
    """A call's pool packs blocks and names: score_pairs computes the features of the columns
    some row's name fits only, and the rest come out as pair_features would make them."""
    from wove_pipeline.matching import features

    people = [("Peng", "Wang"), ("P.", "Wang"), ("Ping", "Wang"), ("Yi", "Zhang"), ("Y.", "Zhang"), ("Yue", "Zhang")]
    mentions = [Mention(f"m{k}", f"p{k}", 0, first, None, last, affiliations=["KAIST"] if k % 2 else [],
                        coauthor_keys=["j li"], year=2020 + k) for k, (first, last) in enumerate(people * 2)]
    data = build_data(mentions)
    blocks = {}
    for k, m in enumerate(mentions):
        blocks.setdefault(m.block, []).append(k)
    bn = combine_block_names([block_names(data, np.array(ix)) for ix in blocks.values()])
    rows, cols = np.array([0, 2]), np.arange(len(mentions))  # Peng and Ping Wang, against everyone
    computed = []
    real = features.pair_features
    monkeypatch.setattr(features, "pair_features", lambda d, r, c, b, **kw: computed.append(len(c)) or real(d, r, c, b, **kw))
    logit, cannot, must, _ = score_pairs(data, rows, cols, bn, default_model())
    every_pair = real(data, rows, cols, bn)[1]
    assert computed == [6]  # the six Wangs: no Zhang fits a Wang
    assert (cannot == every_pair).all() and not must.any()
    assert (logit[cannot] == -30.0).all() and (logit[~cannot] > -30.0).all()
    computed.clear()
    whole = score_pairs(data, rows, cols, bn, default_model(), symmetric=False, explain=True)
    assert computed == [len(cols)] and (whole[0] == logit).all() and (whole[1] == cannot).all()


def test_missing_evidence_is_missing_not_zero():
    with_aff = Mention("a", "p1", 0, "Chao", None, "Guo", affiliations=["Stanford University"], year=2020)
    without = Mention("b", "p2", 0, "Chao", None, "Guo", year=2024)
    elsewhere = Mention("c", "p3", 0, "Chao", None, "Guo", affiliations=["Kyoto Observatory"])
    f = _features(with_aff, without)
    assert np.isnan(f["affiliation_cosine"]) and np.isnan(f["coauthors_shared"]) and np.isnan(f["s2_same"])
    assert f["year_gap"] == 4.0 and f["name_grade"] == 4.0
    g = _features(with_aff, elsewhere)
    assert g["affiliation_cosine"] == 0.0  # both present, nothing shared: evidence against
    assert np.isnan(g["year_gap"])


def test_coauthors_by_block_and_by_full_name():
    """Namesakes of one field share co-author blocks by chance ("y zhang": Yue, Yi): the full
    names behind the blocks tell them apart; a side printing only initials leaves it missing."""
    def yang_liu(mid: str, *coauthors: tuple[str, str]) -> Mention:
        names = [make_name("Yang", None, "Liu")] + [make_name(f, None, k) for f, k in coauthors]
        return Mention(mid, f"p{mid}", 0, "Yang", None, "Liu", **coauthor_fields(names, 0))

    yue, yi = yang_liu("a", ("Yue", "Zhang")), yang_liu("b", ("Yi", "Zhang"))
    both = yang_liu("c", ("Y.", "Zhang"), ("Yue", "Zhang"))
    initials = yang_liu("d", ("Y.", "Zhang"))
    assert yue.coauthor_keys == ["y zhang"] and yue.coauthor_names == ["yue zhang"]
    assert initials.coauthor_keys == ["y zhang"] and initials.coauthor_names == []
    f = _features(yue, yi)
    assert f["coauthors_shared"] == 1.0 and f["coauthors_named"] == 0.0
    assert _features(yue, both)["coauthors_named"] == 1.0
    g = _features(yue, initials)
    assert g["coauthors_shared"] == 1.0 and np.isnan(g["coauthors_named"])


def test_sentence_vectors_give_their_cosine_and_nothing_where_a_paper_has_none():
    """embedding_cosine is the cosine of the two papers' vectors (whatever their length);
    a paper without a vector, or with another model's (another size), leaves it missing."""
    v = np.array([3.0, 4.0, 0.0], dtype=np.float32)
    w = np.array([0.0, 4.0, 3.0], dtype=np.float32)
    a = Mention("a", "p1", 0, "Chao", None, "Guo", embedding=v)
    b = Mention("b", "p2", 0, "Chao", None, "Guo", embedding=w)
    assert abs(_features(a, b)["embedding_cosine"] - 16 / 25) < 1e-3  # float16 storage
    assert np.isnan(_features(a, Mention("c", "p3", 0, "Chao", None, "Guo"))["embedding_cosine"])
    three = [a, b, Mention("d", "p4", 0, "Chao", None, "Guo", embedding=np.ones(5, np.float32))]
    data = build_data(three)
    assert data.has_embedding.tolist() == [True, True, False]
    idx = np.arange(3)
    f, _, _ = pair_features(data, idx, idx, block_names(data, idx))
    assert np.isnan(f["embedding_cosine"][:, 2]).all() and abs(f["embedding_cosine"][0, 0] - 1) < 1e-3
    assert abs(f["embedding_cosine"][0, 1] - f["embedding_cosine"][1, 0]) < 1e-6


def test_how_common_a_name_is_decides_how_much_evidence_a_merge_needs():
    """A rare full name with nothing against it merges; 'J. Wang' with nothing else does not."""
    rare = [Mention(f"r{i}", f"pr{i}", 0, "Piotr", None, "Yilmazcik", year=2020 + i) for i in range(2)]
    common = [Mention(f"w{i}", f"pw{i}", 0, "J.", None, "Wang", year=2020 + i) for i in range(2)]
    a = match_all(rare + common)
    assert a.clusters["r0"] == a.clusters["r1"]
    assert a.clusters["w0"] != a.clusters["w1"]
    data = build_data(rare + common)
    # the real bylines know "wang" as a surname of many first names, "yilmazcik" not at all
    assert data.surname_variety[data.variant[2]] > 3 + data.surname_variety[data.variant[0]]


def test_a_prior_that_never_saw_a_name_counts_it_as_rare_and_the_shipped_one_comes_back():
    """Evaluation swaps the name prior (quality.unseen_names_scores); matching reads the swapped one."""
    from wove_pipeline.matching import name_prior

    wang = [Mention("w", "pw", 0, "J.", None, "Wang")]
    shipped = build_data(wang).surname_variety[0]
    bylines = ["Jun Wang", "Jian Wang", "Wei Wang", "Jun Li", "Wei Li", "Ana Silva"]
    doc = name_prior.counts_of(bylines)
    assert doc["first_names_of_surname"] == {"li": 2, "wang": 3}  # a surname seen with one first name is left out
    with name_prior.prior(doc):
        assert build_data(wang).surname_variety[0] == np.float32(np.log1p(3))
        with name_prior.prior(name_prior.counts_of(["Ana Silva"])):
            assert build_data(wang).surname_variety[0] == 0.0  # never seen: as rare as a name can be
    assert build_data(wang).surname_variety[0] == shipped > np.log1p(100)


def test_training_is_deterministic():
    from wove_pipeline.matching.train import fit
    rng = np.random.default_rng(0)
    X = rng.random((3000, len(FEATURES))).astype(np.float32)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, FEATURES.index("coauthors_share")]) + rng.random(3000) * 0.5 > 0.6).astype(np.int8)
    sets = [(X[:2000], y[:2000]), (X[2000:], y[2000:])]
    assert fit(sets).model_to_string() == fit(sets).model_to_string()


def _peng(mid, paper, first="Peng", last="Wang", **kw):
    base = dict(s2_author_id="S77", openalex_author_id="A77", affiliations=["Adobe Research"],
                coauthor_keys=[f"k{paper}"], year=2024)
    base.update(kw)
    return Mention(mid, paper, 0, first, None, last, **base)


def test_surname_first_mention_with_the_same_upstream_ids_joins_the_profile():
    """One paper prints "Wang Peng" (surname first): another name block, but the same S2 and
    OpenAlex author ids as his other papers."""
    profile = [_peng(f"m{i}", f"p{i}") for i in range(9)]
    swapped = _peng("x", "p9", first="Wang", last="Peng")
    assert make_name("Wang", None, "Peng").block != make_name("Peng", None, "Wang").block
    a = match_all(profile + [swapped])
    assert len({a.clusters[m.mention_id] for m in profile}) == 1
    assert a.clusters["x"] == a.clusters["m0"]
    # the daily run: the swapped mention arrives after the profile exists
    base = match_all(profile)
    inc = assign_incremental(profile, base, [swapped])
    assert inc.clusters["x"] == base.clusters["m0"]
    assert {m: inc.clusters[m] for m in base.clusters} == base.clusters
    # ids alone do not join incompatible names, nor a mention with another ORCID
    stranger = _peng("y", "p10", first="Li", last="Zhang")
    other_orcid = _peng("z", "p11", first="Wang", last="Peng", orcid="0000-0002-0000-0001")
    b = match_all(profile + [stranger, other_orcid, _peng("o", "p12", orcid="0000-0002-0000-0009")])
    assert b.clusters["y"] != b.clusters["m0"]
    assert b.clusters["z"] != b.clusters["o"]


def test_the_real_sets_choose_the_linkage_and_the_sandbox_bar_only_vetoes():
    from wove_pipeline.matching.train import choose_linkage

    def f1(v):
        return {"f1": v, "precision": v, "recall": v}

    loo = {  # two real sets and a held-out sandbox, which the mean leaves out
        "ads": {(0.0, 0.3): f1(0.90), (0.2, 0.5): f1(0.94), (0.2, 0.55): f1(0.95)},
        "medline_pairs": {(0.0, 0.3): f1(0.94), (0.2, 0.5): f1(0.96), (0.2, 0.55): f1(0.96)},
        "sandbox_seed11": {(0.0, 0.3): f1(0.99), (0.2, 0.5): f1(0.50), (0.2, 0.55): f1(0.40)},
    }
    assert choose_linkage(loo) == (0.2, 0.55)
    tried = []

    def bar(exponent, threshold):
        tried.append((exponent, threshold))
        return threshold < 0.55

    assert choose_linkage(loo, bar) == (0.2, 0.5)
    assert tried == [(0.2, 0.55), (0.2, 0.5)]  # best real mean first, no further than needed
    assert choose_linkage(loo, lambda e, t: False) == (0.2, 0.55)


def test_sets_sharing_papers_are_held_out_together():
    from wove_pipeline.matching.train import LabelledSet, held_out_with

    def labelled(name, texts):
        ms = [Mention(f"{name}{i}", f"{name}-p{i}", 0, "A", None, "Li", text=t) for i, t in enumerate(texts)]
        return LabelledSet(name, ms, {m.mention_id: 0 for m in ms}, name)

    shared = [f"paper {i}" for i in range(20)]
    blocks = labelled("blocks", shared + [f"other {i}" for i in range(30)])
    homonyms = labelled("homonyms", shared[:8])  # every paper also in blocks, as acl_homonyms in acl_blocks
    astro = labelled("astro", [f"star {i}" for i in range(40)] + ["other 0", "other 1"])  # 2 of 42 by chance: 5%
    out = held_out_with([blocks, homonyms, astro])
    assert out == {"blocks": {"blocks", "homonyms"}, "homonyms": {"blocks", "homonyms"}, "astro": {"astro"}}
