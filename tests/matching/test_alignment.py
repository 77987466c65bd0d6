from wove_pipeline.matching.alignment import align_authorships


def test_identical_lists():
    names = ["Kai Zhang", "Peng Wang", "Sai Bi"]
    assert [(i, j) for i, j, _ in align_authorships(names, names)] == [(0, 0), (1, 1), (2, 2)]


def test_reordered_abbreviated_and_missing():
    arxiv = ["Kai Zhang", "Peng Wang", "Sai Bi", "Jianming Zhang", "Yuanjun Xiong"]
    other = ["P. Wang", "K. Zhang", "Yuanjun Xiong", "Jian-Ming Zhang"]
    al = {i: (j, c) for i, j, c in align_authorships(arxiv, other)}
    assert al[0][0] == 1 and al[1][0] == 0 and al[3][0] == 3 and al[4][0] == 2
    assert al[2] == (None, 0.0)
    assert all(0 < c <= 1 for j, c in al.values() if j is not None)


def test_diacritics_and_empty():
    al = align_authorships(["José Müller"], ["Jose Muller"])
    assert al[0][1] == 0 and al[0][2] > 0.8
    assert align_authorships(["A B"], []) == [(0, None, 0.0)]
    assert align_authorships([], ["A B"]) == []
