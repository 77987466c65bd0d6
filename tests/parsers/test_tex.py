import pytest

from wove_pipeline.arxiv.tex import (
    SLUG_TITLE_MAX,
    arxiv_id_from_slug,
    is_old_style_id,
    is_valid_arxiv_id,
    normalize_arxiv_id,
    slugify_paper,
    tex_to_text,
    try_normalize_arxiv_id,
)


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"$\alpha$-decay", "α-decay"),
        (r"Gr\"{u}n and G\"odel", "Grün and Gödel"),
        (r"\'etude \c{c}a {\"o}", "étude ça ö"),
        (r"\emph{x} and \textbf{y}", "x and y"),
        # Unknown macro: kept as its bare name, with the space TeX would swallow.
        (r"We propose \ourmethod, and \ourmethod{} beats \ourmethod by far.",
         "We propose ourmethod, and ourmethod beats ourmethod by far."),
        # Hard line-wrap and indentation from OAI collapse to one space.
        ("Core excitation in the elastic scattering and breakup of $^{11}$Be on\n  protons",
         "Core excitation in the elastic scattering and breakup of ¹¹Be on protons"),
        (r"100fb$^{-1}$", "100fb⁻¹"),
        (r"$H_2O$ and CO$_2$", "H₂O and CO₂"),
        # A bare % is a percent sign in abstracts, not a TeX comment.
        ("up to 45% of the placebo laws", "up to 45% of the placebo laws"),
        (r"5\% and \&", "5% and &"),
        (r"\url{http://x.y/z} and \href{http://a}{the code}", "http://x.y/z and the code"),
        (r"see \cite{a,b} there", "see there"),
        (r"implications of $B-L$ extended", "implications of B-L extended"),
        (r"$\frac{1}{2}$ $\rightarrow$ $\leq$", "1/2 → ≤"),
        ("  plain   text \n", "plain text"),
        ("", ""),
        (None, ""),
    ],
)
def test_tex_to_text(tex, text):
    assert tex_to_text(tex) == text


@pytest.mark.parametrize("bad", ["\\", "$", "{", "}}}{{{", r"\begin{foo}", "a} b $ c", r"\frac{", "%%%", "$$$$"])
def test_tex_to_text_tolerates_garbage(bad):
    out = tex_to_text(bad)
    assert isinstance(out, str)
    assert "\n" not in out


def test_tex_to_text_sample_abstract_keeps_percent(load_bytes):
    # The Super-Kamiokande abstract ends a parenthesis with "%": nothing after it may vanish.
    from wove_pipeline.arxiv.metadata_formats import parse_arxiv_metadata
    meta = parse_arxiv_metadata(load_bytes("arxiv/getrecord_arXiv_legacy_collaboration_affiliations.xml"))
    text = tex_to_text(meta.abstract)
    assert "(-3.6+-1.6(stat.)+-0.6(syst.))%. The SK-IV solar neutrino data" in text
    assert text.endswith("Delta m2_21 = 4.8+1.5-0.8 x10-5 eV2.")


@pytest.mark.parametrize(
    "raw, norm",
    [
        ("oai:arXiv.org:1706.09418", "1706.09418"),
        ("oai:arXiv.org:hep-th/9901001", "hep-th/9901001"),
        ("arXiv:2508.06001v3", "2508.06001"),
        ("ARXIV:2508.06001", "2508.06001"),
        ("https://arxiv.org/abs/2508.06001v2", "2508.06001"),
        ("http://arxiv.org/abs/0704.0471", "0704.0471"),
        ("https://arxiv.org/pdf/2508.06001v2.pdf", "2508.06001"),
        ("https://export.arxiv.org/abs/math.GT/0309136v1", "math.GT/0309136"),
        ("math.gt/0309136", "math.GT/0309136"),
        (" 0704.0471 ", "0704.0471"),
    ],
)
def test_normalize_arxiv_id(raw, norm):
    assert normalize_arxiv_id(raw) == norm
    assert is_valid_arxiv_id(norm)


@pytest.mark.parametrize("bad", ["", "foo", "1234.567", "hep-th/990100", "10.48550/arXiv.2205.01833", "2508.06001/x"])
def test_normalize_arxiv_id_rejects(bad):
    assert try_normalize_arxiv_id(bad) is None
    with pytest.raises(ValueError):
        normalize_arxiv_id(bad)


def test_is_old_style_id():
    assert is_old_style_id("hep-th/9901001")
    assert is_old_style_id("oai:arXiv.org:astro-ph/9901001")
    assert is_old_style_id("math.GT/0309136")
    assert not is_old_style_id("2508.06001")
    assert not is_old_style_id("0704.0471")
    assert not is_old_style_id("garbage")


def test_slug_seed_example():
    slug = slugify_paper(
        "2508.06001", "KnapFormer: An Online Load Balancer for Efficient Diffusion Transformers Training"
    )
    assert slug == "2508.06001-knapformer-an-online-load-balancer-for-efficient-diffusion-transformers-training"
    assert arxiv_id_from_slug(slug) == "2508.06001"


def test_slug_ascii_folds_and_cleans_tex():
    assert slugify_paper("2401.00001", "Über die Größe von $\\alpha$-Zerfällen") == (
        "2401.00001-uber-die-grosse-von-a-zerfallen"
    )
    assert slugify_paper("2401.00001", "\\ourmethod: Fast") == "2401.00001-ourmethod-fast"


def test_slug_old_style_ids_round_trip():
    slug = slugify_paper("hep-th/9901001", "Strings")
    assert slug == "hep-th-9901001-strings"
    assert arxiv_id_from_slug(slug) == "hep-th/9901001"
    slug = slugify_paper("math.GT/0309136", "Knots")
    assert slug == "math.GT-0309136-knots"
    assert arxiv_id_from_slug(slug) == "math.GT/0309136"
    assert arxiv_id_from_slug("math.gt-0309136") == "math.GT/0309136"
    # The id alone must resolve (in either spelling).
    assert arxiv_id_from_slug("hep-th/9901001") == "hep-th/9901001"
    assert arxiv_id_from_slug("2508.06001") == "2508.06001"
    assert arxiv_id_from_slug("2508.06001v2") == "2508.06001"
    assert arxiv_id_from_slug("not-a-paper") is None


def test_slug_cap_on_word_boundary():
    title = " ".join(["transformer"] * 40)
    slug = slugify_paper("2401.00001", title)
    body = slug.removeprefix("2401.00001-")
    assert len(body) <= SLUG_TITLE_MAX
    assert body.split("-") == ["transformer"] * len(body.split("-"))  # no half word
    assert slugify_paper("2401.00001", "x" * 500) == "2401.00001-" + "x" * SLUG_TITLE_MAX
    assert slugify_paper("2401.00001", "") == "2401.00001"
    assert slugify_paper("2401.00001", "???") == "2401.00001"


def test_tex_to_text_same_with_a_warm_span_cache(load_bytes):
    """Converted spans are cached across strings: every text converts to what it converts
    to on its own, with an empty cache, whatever came before it."""
    from wove_pipeline.arxiv import tex
    from wove_pipeline.arxiv.metadata_formats import parse_arxiv_metadata
    from wove_pipeline.arxiv.oai_pages import parse_oai_page
    page = parse_oai_page(load_bytes("arxiv/listrecords_arXiv_legacy_physics-hep-ex.xml"))
    metas = [parse_arxiv_metadata(r.xml) for r in page.records if not r.deleted]
    texts = [t for m in metas for t in (m.title, m.abstract) if t]
    assert len(texts) >= 6
    texts += [r"$\alpha$ and $\beta$ then $\alpha$", r"$\beta$-decay of $\alpha$", r"\emph{x} $N$", r"$N$ \emph{x}"]
    cold = []
    for t in texts:
        tex._SPAN_CACHE.clear()
        cold.append(tex_to_text(t))
    tex._SPAN_CACHE.clear()
    warm = [tex_to_text(t) for t in texts]
    assert len(tex._SPAN_CACHE) > 0
    assert warm == cold
    assert warm[-4:] == ["α and β then α", "β-decay of α", "x N", "N x"]
