"""Thin evidence (names + affiliations + positions, as S2AND input without papers.json,
ids or e-mail): the matcher must beat the exact-normalized-name baseline."""

import pytest

from wove_pipeline.matching import match_all
from wove_pipeline.matching.evaluate import default_methods, evaluate, format_report, thin_mentions
from wove_pipeline.matching.sandbox_eval import world_mentions
from wove_pipeline.matching.train import THIN_MARGIN_F1, THIN_MARGIN_PRECISION
from wove_pipeline.sandbox.generator import generate_world


@pytest.fixture(scope="module")
def thin_corpus():
    mentions, gold = world_mentions(generate_world(seed=7, papers_per_day=250, days=10))
    return thin_mentions(mentions), gold


def test_thin_strips_everything_but_names_affiliations_positions(thin_corpus):
    mentions, _ = thin_corpus
    for m in mentions[:200]:
        assert m.s2_author_id is None and m.openalex_author_id is None and m.orcid is None
        assert not m.coauthor_keys and not m.categories and not m.text and not m.institution_ids
        assert m.year is None and m.email is None and m.venue is None
        assert m.position is not None and m.paper_id


def test_thin_matcher_beats_exact_name(thin_corpus):
    mentions, gold = thin_corpus
    methods = default_methods()
    del methods["S2 author id alone"], methods["OpenAlex author id alone"]
    r = evaluate(mentions, gold, name="thin sandbox", methods=methods)
    print(format_report(r))
    m, ex = r.methods["matcher"], r.methods["exact normalized name"]
    # the margins `wove matching train` holds its choice of linkage to (the manifest's sandbox_bar;
    # F1 + 0.02 from 2026-12-02 to 2026-12-04, when it vetoed the group model that every real set
    # scores better with: train.py)
    assert (THIN_MARGIN_F1, THIN_MARGIN_PRECISION) == (0.01, 0.05)
    assert m["b3"].f1 > ex["b3"].f1 + THIN_MARGIN_F1
    assert m["b3"].precision > ex["b3"].precision + THIN_MARGIN_PRECISION


def test_acronym_links_affiliation_spellings():
    from wove_pipeline.matching.mentions import Mention
    ms = [
        Mention("a", "p1", 0, first="Chao", last="Guo", affiliations=["Massachusetts Institute of Technology"]),
        Mention("b", "p2", 0, first="Chao", last="Guo", affiliations=["MIT"]),
    ]
    from wove_pipeline.matching.scoring import build_data
    d = build_data(ms)
    assert float(d.affil[0].multiply(d.affil[1]).sum()) > 0.3
    assert match_all(ms).clusters["a"] == match_all(ms).clusters["b"]


def test_cli_thin_flag(capsys, tmp_path):
    from wove_pipeline.cli import main
    assert main(["matching", "evaluate", "--sandbox", "--thin", "--seed", "5", "--papers-per-day", "40", "--days", "3"]) == 0
    assert "thin: names + affiliations + positions" in capsys.readouterr().out
    assert main(["matching", "evaluate", "/work/shared/matching-format", "--thin"]) == 0
    assert "(thin" in capsys.readouterr().out
