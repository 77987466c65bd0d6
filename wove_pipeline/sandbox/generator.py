"""Deterministic synthetic world for the sandbox upstreams (see world.py for the contract).

``generate_world(seed, papers_per_day, days, start_day)`` builds, in one pass:

* a population of research groups (a lab = one institution, home categories, a stable
  circle of members and partner groups), whose members carry the real signal a good
  matcher needs: co-authors, affiliations, categories, topics, ORCID;
* papers spread over the OAI datestamp days: mostly new papers (v1 that day) plus
  replacements and metadata fixes of older papers, some with old-style ids;
* the noise real data has: many people sharing common names (CJK names especially, and
  at least seven "Peng Wang"s), printed name variants of the same person, collaboration
  papers with thousands of authors, TeX, withdrawals, cross-lists, several DOIs;
* the upstream views (``Paper.s2``, ``Paper.openalex``, ``World.s2_authors``,
  ``World.openalex_authors``) with coverage lag and split / merged author identities.

Only ``random.Random(seed)`` is used, and nothing iterates a set or hashes a string, so one
seed gives one world whatever PYTHONHASHSEED is.

Seed fixtures (SEED.md): 2508.06001 KnapFormer and the 3D Gaussian Splatting editing paper
(2508.03419) are always present when the window reaches 2025-08-08. The captured "Peng Wang"
(``SEED_PENG_WANG_ID``) is a middle author on exactly six papers (cs.CV x4, cs.DC x1,
cs.GR x1); his **Semantic Scholar** profile holds the external stats the site shows
(h-index 3, 478 citations, 8 papers). Six other planted "Peng Wang"s have 12, 11, 9, 9, 9, 9
papers and S2 h-indexes 4, 3, 7, 20, 4, 1; the random population adds more.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import unicodedata
from dataclasses import dataclass, field

from .world import (
    Authorship,
    Institution,
    OpenAlexAuthor,
    OpenAlexAuthorship,
    OpenAlexWork,
    Paper,
    Person,
    S2Author,
    S2Paper,
    Version,
    World,
)

SEED_PENG_WANG_ID = 1
KNAPFORMER_ID = "2508.06001"
GS_EDIT_ID = "2508.03419"
KNAPFORMER_DAY = dt.date(2025, 8, 8)
GS_EDIT_DAY = dt.date(2025, 8, 5)

# ---------------------------------------------------------------------------------------
# Vocabularies

# (category, relative weight). The first part before "." is the archive.
CATEGORIES: list[tuple[str, float]] = [
    ("cs.CV", 9), ("cs.LG", 10), ("cs.CL", 6), ("cs.AI", 4), ("cs.RO", 3), ("cs.GR", 1.5),
    ("cs.DC", 1.5), ("cs.CR", 2), ("cs.SE", 1.5), ("cs.IT", 1.5), ("cs.DS", 1), ("cs.NI", 1),
    ("cs.HC", 1.5), ("cs.IR", 1.5), ("cs.CY", 1), ("cs.SY", 1), ("cs.DB", 0.7), ("cs.PL", 0.6),
    ("cs.LO", 0.6), ("cs.NE", 0.7), ("cs.MA", 0.5), ("cs.SD", 0.5),
    ("stat.ML", 2), ("stat.ME", 1.2), ("stat.AP", 0.6),
    ("math.OC", 1.5), ("math.PR", 1.5), ("math.AP", 1.5), ("math.CO", 1.5), ("math.NT", 1),
    ("math.AG", 1), ("math.GT", 0.7), ("math.DG", 0.8), ("math.NA", 1.2), ("math.ST", 0.8),
    ("math-ph", 0.6), ("hep-th", 2), ("hep-ph", 2), ("hep-ex", 1.2), ("hep-lat", 0.4),
    ("gr-qc", 1.2), ("quant-ph", 4), ("nucl-th", 0.6), ("nucl-ex", 0.4),
    ("astro-ph.CO", 1.2), ("astro-ph.GA", 1.5), ("astro-ph.HE", 1), ("astro-ph.SR", 1),
    ("astro-ph.EP", 0.7), ("astro-ph.IM", 0.7),
    ("cond-mat.mtrl-sci", 2), ("cond-mat.str-el", 1.2), ("cond-mat.mes-hall", 1.2),
    ("cond-mat.stat-mech", 1), ("cond-mat.soft", 0.7), ("cond-mat.supr-con", 0.5),
    ("physics.optics", 1.2), ("physics.flu-dyn", 0.8), ("physics.comp-ph", 0.6),
    ("physics.ins-det", 0.5), ("nlin.CD", 0.3),
    ("eess.IV", 1.2), ("eess.SP", 1.2), ("eess.SY", 1), ("eess.AS", 0.6),
    ("q-bio.NC", 0.7), ("q-bio.QM", 0.5), ("q-fin.ST", 0.3), ("econ.EM", 0.4),
]
CATEGORY_CODES = [c for c, _ in CATEGORIES]

# Cross-list neighbours: a paper in the key often also appears in these.
CROSS = {
    "cs": ["cs.LG", "cs.AI", "cs.CV", "stat.ML", "cs.CL"],
    "stat": ["cs.LG", "math.ST", "stat.ML"],
    "math": ["math-ph", "math.NA", "cs.IT", "math.PR"],
    "math-ph": ["math.MP", "hep-th"],
    "hep-th": ["gr-qc", "hep-ph", "math-ph"],
    "hep-ph": ["hep-ex", "hep-th", "astro-ph.CO"],
    "hep-ex": ["hep-ph", "physics.ins-det"],
    "hep-lat": ["hep-ph", "nucl-th"],
    "gr-qc": ["hep-th", "astro-ph.CO"],
    "quant-ph": ["cond-mat.mes-hall", "physics.optics", "cs.ET"],
    "nucl-th": ["nucl-ex", "hep-ph"],
    "nucl-ex": ["nucl-th", "hep-ex"],
    "astro-ph": ["gr-qc", "astro-ph.IM", "hep-ph"],
    "cond-mat": ["cond-mat.mtrl-sci", "quant-ph", "physics.comp-ph"],
    "physics": ["cond-mat.soft", "physics.comp-ph", "cs.LG"],
    "nlin": ["math.DS", "cond-mat.stat-mech"],
    "eess": ["cs.LG", "cs.CV", "eess.SP"],
    "q-bio": ["cs.LG", "q-bio.QM"],
    "q-fin": ["stat.AP", "econ.EM"],
    "econ": ["stat.ME", "q-fin.ST"],
}

# OpenAlex classification of each archive: (field id, field, domain id, domain, S2 field of study)
FIELDS = {
    "cs": (17, "Computer Science", 3, "Physical Sciences", "Computer Science"),
    "eess": (22, "Engineering", 3, "Physical Sciences", "Engineering"),
    "stat": (26, "Mathematics", 3, "Physical Sciences", "Mathematics"),
    "math": (26, "Mathematics", 3, "Physical Sciences", "Mathematics"),
    "q-bio": (13, "Biochemistry, Genetics and Molecular Biology", 1, "Life Sciences", "Biology"),
    "q-fin": (20, "Economics, Econometrics and Finance", 2, "Social Sciences", "Economics"),
    "econ": (20, "Economics, Econometrics and Finance", 2, "Social Sciences", "Economics"),
}
PHYSICS_FIELD = (31, "Physics and Astronomy", 3, "Physical Sciences", "Physics")

CJK_FAMILIES = [
    ("Wang", 10), ("Li", 10), ("Zhang", 9), ("Liu", 7), ("Chen", 7), ("Yang", 5), ("Huang", 4),
    ("Zhao", 4), ("Wu", 4), ("Zhou", 4), ("Xu", 3), ("Sun", 3), ("Ma", 3), ("Zhu", 3),
    ("Hu", 3), ("Guo", 3), ("He", 2), ("Lin", 2), ("Luo", 2), ("Gao", 2), ("Zheng", 2),
    ("Kim", 4), ("Lee", 3), ("Park", 3), ("Tanaka", 1), ("Suzuki", 1), ("Sato", 1),
]
CJK_GIVENS = [
    ("Wei", 8), ("Jing", 6), ("Yang", 4), ("Peng", 4), ("Lei", 4), ("Jun", 4), ("Hao", 4),
    ("Yi", 4), ("Yu", 4), ("Xin", 4), ("Lin", 3), ("Tao", 3), ("Bo", 3), ("Min", 3), ("Fei", 2),
    ("Chao", 3), ("Jie", 4), ("Hui", 3), ("Qiang", 2), ("Ying", 3), ("Xiaoming", 2),
    ("Xiaoyu", 2), ("Yifan", 2), ("Zhiwei", 2), ("Haoran", 2), ("Zihan", 2), ("Yuxin", 2),
    ("Jiawei", 2), ("Kai", 3), ("Rui", 3), ("Ming", 3), ("Lu", 2), ("Yan", 3), ("Qi", 3),
    ("Min-jun", 1), ("Ji-hoon", 1), ("Seung-woo", 1), ("Hiroshi", 1), ("Yuki", 1),
]
WESTERN_FAMILIES = [
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker",
    "Schäfer", "Koch", "Smith", "Johnson", "Brown", "Jones", "Miller", "Davis", "Garcia",
    "Martinez", "Rodríguez", "López", "González", "Pérez", "Dubois", "Martin", "Bernard",
    "Lefèvre", "Moreau", "Laurent", "Rossi", "Russo", "Ferrari", "Bianchi", "van der Berg",
    "van Dijk", "de Vries", "de Jong", "Jansen", "Novak", "Kowalski", "Nowak", "Ivanov",
    "Petrov", "Smirnov", "Kuznetsov", "Andersson", "Johansson", "Nielsen", "Hansen",
    "O'Brien", "Murphy", "Kelly", "Sánchez", "Gómez", "Núñez", "Peña", "Çelik", "Yılmaz",
    "Öztürk", "Šimić", "Taylor", "Wilson", "Anderson", "Thomas", "Moore", "White", "Clark",
    "Lewis", "Walker", "Hall", "Young", "King", "Wright", "Scott", "Green", "Baker", "Adams",
    "Nelson", "Hill", "Campbell", "Mitchell", "Roberts", "Carter", "Phillips", "Evans",
    "Turner", "Torres", "Parker", "Collins", "Edwards", "Stewart", "Morris", "Rogers",
    "Hoffmann", "Schulz", "Zimmermann", "Krüger", "Hartmann", "Lange", "Werner", "Krause",
    "Lehmann", "Köhler", "Fontaine", "Girard", "Rousseau", "Bonnet", "Mercier", "Romano",
    "Colombo", "Ricci", "Marino", "Greco", "Costa", "Silva", "Santos", "Oliveira", "Pereira",
]
WESTERN_GIVENS = [
    "Thomas", "Michael", "Anna", "Maria", "Jean-Pierre", "Jean-Luc", "Marie-Claire",
    "Hans-Peter", "Karl-Heinz", "José", "François", "Jürgen", "Søren", "Zoë", "André",
    "Björn", "David", "Daniel", "Laura", "Sarah", "Elena", "Marco", "Luca", "Giulia", "Pierre",
    "Sophie", "Ana", "John", "Robert", "James", "Emily", "Julia", "Stefan", "Martin", "Peter",
    "Paul", "Lucas", "Clara", "Nicolas", "Alexander", "Christian", "Andreas", "Katharina",
    "Olivier", "Mathieu", "Matteo", "Francesco", "Alessandro", "Pablo", "Javier", "Carlos",
    "Ingrid", "Lars", "Mikhail", "Dmitry", "Olga", "Irina", "Tomasz", "Piotr", "Eva", "Nora",
]
WESTERN_MIDDLES = ["James", "A.", "Maria", "J.", "Lee", "R.", "Edward", "M.", "Anne"]
INDIAN_FAMILIES = ["Sharma", "Gupta", "Singh", "Kumar", "Patel", "Reddy", "Iyer", "Das",
                   "Nair", "Rao", "Mehta", "Joshi", "Chatterjee", "Banerjee", "Krishnan"]
INDIAN_GIVENS = ["Rahul", "Priya", "Amit", "Anil", "Sanjay", "Deepak", "Arjun", "Ananya",
                 "Vikram", "Sneha", "Ravi", "Kavya", "Aditya", "Pooja", "Suresh", "Lakshmi"]

INSTITUTION_STEMS = [
    ("Tsinghua University", "CN", "education", ["THU", "Tsinghua Univ."]),
    ("Peking University", "CN", "education", ["PKU"]),
    ("Zhejiang University", "CN", "education", ["ZJU"]),
    ("Shanghai Jiao Tong University", "CN", "education", ["SJTU"]),
    ("Fudan University", "CN", "education", []),
    ("University of Science and Technology of China", "CN", "education", ["USTC"]),
    ("Chinese Academy of Sciences", "CN", "government", ["CAS"]),
    ("Nanjing University", "CN", "education", []),
    ("Wuhan University", "CN", "education", []),
    ("Harbin Institute of Technology", "CN", "education", ["HIT"]),
    ("Seoul National University", "KR", "education", ["SNU"]),
    ("KAIST", "KR", "education", ["Korea Advanced Institute of Science and Technology"]),
    ("The University of Tokyo", "JP", "education", ["University of Tokyo", "Univ. of Tokyo"]),
    ("Kyoto University", "JP", "education", []),
    ("National University of Singapore", "SG", "education", ["NUS"]),
    ("Nanyang Technological University", "SG", "education", ["NTU Singapore"]),
    ("The Chinese University of Hong Kong", "HK", "education", ["CUHK"]),
    ("Massachusetts Institute of Technology", "US", "education", ["MIT"]),
    ("Stanford University", "US", "education", ["Stanford"]),
    ("University of California, Berkeley", "US", "education", ["UC Berkeley"]),
    ("Carnegie Mellon University", "US", "education", ["CMU"]),
    ("University of California, San Diego", "US", "education", ["UCSD", "UC San Diego"]),
    ("University of Washington", "US", "education", ["UW"]),
    ("Princeton University", "US", "education", []),
    ("Harvard University", "US", "education", []),
    ("University of Michigan", "US", "education", ["UMich"]),
    ("Cornell University", "US", "education", []),
    ("University of Toronto", "CA", "education", ["UofT"]),
    ("McGill University", "CA", "education", []),
    ("University of Oxford", "GB", "education", ["Oxford University"]),
    ("University of Cambridge", "GB", "education", ["Cambridge University"]),
    ("Imperial College London", "GB", "education", ["Imperial College"]),
    ("ETH Zurich", "CH", "education", ["ETH Zürich", "Swiss Federal Institute of Technology"]),
    ("EPFL", "CH", "education", ["École Polytechnique Fédérale de Lausanne"]),
    ("Max Planck Institute for Informatics", "DE", "facility", ["MPI-INF"]),
    ("Max Planck Institute for Physics", "DE", "facility", []),
    ("Technical University of Munich", "DE", "education", ["TU München", "TUM"]),
    ("Ludwig-Maximilians-Universität München", "DE", "education", ["LMU Munich"]),
    ("Heidelberg University", "DE", "education", ["Universität Heidelberg"]),
    ("Sorbonne Université", "FR", "education", ["Sorbonne University"]),
    ("École Normale Supérieure", "FR", "education", ["ENS Paris"]),
    ("CNRS", "FR", "government", ["Centre National de la Recherche Scientifique"]),
    ("Université Paris-Saclay", "FR", "education", []),
    ("Sapienza University of Rome", "IT", "education", ["Sapienza Università di Roma"]),
    ("Politecnico di Milano", "IT", "education", []),
    ("University of Amsterdam", "NL", "education", ["UvA"]),
    ("Delft University of Technology", "NL", "education", ["TU Delft"]),
    ("KTH Royal Institute of Technology", "SE", "education", ["KTH"]),
    ("University of Copenhagen", "DK", "education", []),
    ("Universidad de Buenos Aires", "AR", "education", []),
    ("Universidade de São Paulo", "BR", "education", ["USP"]),
    ("Indian Institute of Science", "IN", "education", ["IISc Bangalore"]),
    ("Indian Institute of Technology Bombay", "IN", "education", ["IIT Bombay"]),
    ("CERN", "CH", "facility", ["European Organization for Nuclear Research"]),
    ("Fermi National Accelerator Laboratory", "US", "facility", ["Fermilab"]),
    ("Adobe Research", "US", "company", ["Adobe Inc."]),
    ("Google DeepMind", "GB", "company", ["DeepMind"]),
    ("Microsoft Research", "US", "company", ["Microsoft Research Asia", "MSR"]),
    ("Meta AI", "US", "company", ["FAIR", "Facebook AI Research"]),
    ("NVIDIA", "US", "company", ["NVIDIA Research"]),
    ("Alibaba Group", "CN", "company", ["Alibaba DAMO Academy"]),
    ("Tencent", "CN", "company", ["Tencent AI Lab"]),
    ("ByteDance", "CN", "company", ["ByteDance Seed"]),
    ("Kavli Institute for the Physics and Mathematics of the Universe", "JP", "facility", ["Kavli IPMU"]),
    ("Weizmann Institute of Science", "IL", "education", []),
    ("University of Melbourne", "AU", "education", []),
]

LICENSES = [
    ("http://arxiv.org/licenses/nonexclusive-distrib/1.0/", 60),
    ("http://creativecommons.org/licenses/by/4.0/", 25),
    ("http://creativecommons.org/licenses/by-nc-sa/4.0/", 5),
    ("http://creativecommons.org/licenses/by-sa/4.0/", 3),
    ("http://creativecommons.org/publicdomain/zero/1.0/", 2),
    ("http://creativecommons.org/licenses/by-nc-nd/4.0/", 5),
]
JOURNALS = {
    "cs": ["IEEE Trans. Pattern Anal. Mach. Intell.", "Proc. CVPR 2024", "NeurIPS 2024",
           "J. Mach. Learn. Res. 25 (2024) 1-42", "ACM Trans. Graph. 43(4)", "ICML 2025"],
    "math": ["Ann. of Math. 198 (2023) 1-55", "Invent. Math. 231 (2023)", "J. Amer. Math. Soc.",
             "Geom. Topol. 8 (2004) 1427-1470", "Comm. Math. Phys. 402 (2023) 1-40"],
    "physics": ["Phys. Rev. D 108, 054021 (2023)", "Phys. Rev. Lett. 131, 101801 (2023)",
                "JHEP 05 (2024) 112", "Astrophys. J. 950 (2023) 12", "Nucl. Phys. B 580 (2000) 1-35",
                "Eur. Phys. J. C (2017) 77:856", "Phys.Rev.C76:024606,2007"],
}
DOI_PREFIXES = {"cs": ["10.1109", "10.1145", "10.1007"], "math": ["10.4007", "10.1007", "10.2140"],
                "physics": ["10.1103", "10.1007", "10.1088", "10.1016"]}

# Title/abstract vocabulary per broad area (cs-like, physics-like, math-like).
WORDS = {
    "cs": {
        "method": ["Transformer", "diffusion model", "graph neural network", "contrastive learner",
                   "vision-language model", "sparse autoencoder", "Gaussian Splatting pipeline",
                   "mixture-of-experts", "reinforcement learning agent", "neural radiance field",
                   "retrieval-augmented generator", "state-space model", "load balancer"],
        "task": ["image segmentation", "video generation", "program synthesis", "3D reconstruction",
                 "machine translation", "federated learning", "anomaly detection",
                 "robot manipulation", "question answering", "distributed training",
                 "point cloud registration", "text-to-image synthesis", "code review"],
        "adj": ["Efficient", "Scalable", "Robust", "Self-Supervised", "Sparse", "Adaptive",
                "Unified", "Interpretable", "Online", "Hierarchical", "Zero-Shot"],
    },
    "physics": {
        "method": ["lattice simulation", "effective field theory", "holographic model",
                   "tensor network", "Monte Carlo analysis", "spectroscopic survey",
                   "perturbative expansion", "hydrodynamic model", "dark matter halo model"],
        "task": ["neutrino oscillations", "black hole mergers", "topological insulators",
                 "the Higgs sector", "galaxy clustering", "superconducting qubits",
                 "quark-gluon plasma", "cosmic microwave background anisotropies",
                 "spin liquids", "exoplanet atmospheres"],
        "adj": ["Precision", "Nonperturbative", "Improved", "Anomalous", "Quantum",
                "Relativistic", "Finite-Temperature", "Novel", "Constraining"],
    },
    "math": {
        "method": ["spectral sequence", "variational principle", "random matrix ensemble",
                   "Hopf algebra", "mean-field game", "Lyapunov function", "sheaf cohomology",
                   "mixed finite element method", "Markov chain"],
        "task": ["knot invariants", "elliptic curves", "nonlinear Schrödinger equations",
                 "random graphs", "convex optimization", "moduli spaces",
                 "stochastic differential equations", "additive combinatorics"],
        "adj": ["Sharp", "Uniform", "Optimal", "Asymptotic", "Explicit", "Stable", "Generalized"],
    },
}
TEX_SNIPPETS = {
    "cs": ["$\\alpha$-divergence", "$O(n \\log n)$", "\\emph{without} retraining",
           "$\\ell_1$-regularized", "10$\\times$ faster", "top-$k$ routing", "a 3.2\\% gain"],
    "physics": ["$\\sqrt{s} = 13$ TeV", "$^{11}$Be", "$\\mathcal{N}=4$", "$\\Lambda$CDM",
                "$T_c \\approx 90$ K", "$U(1)_{B-L}$", "$10^{-5}$ eV$^2$"],
    "math": ["$L^p$ spaces", "$\\mathbb{Z}/p\\mathbb{Z}$", "$k$-regular", "$C^{1,\\alpha}$",
             "$\\zeta(s)$", "Sch\\\"{o}dinger-type", "$\\mathfrak{sl}_2$"],
}
SENTENCES = [
    "We propose a {adj_l} {method} for {task}.",
    "Existing approaches to {task} suffer from limited scalability and brittle assumptions.",
    "Our analysis relies on {tex} and a careful treatment of boundary effects.",
    "The key idea is to combine a {method} with {tex}.",
    "Experiments on standard benchmarks show consistent improvements over strong baselines.",
    "We further study {task} in the regime where {tex} dominates.",
    "Our results suggest that {method}s provide a principled route to {task}.",
    "Code and data are available at https://github.com/example/{slug}.",
    "We prove that the resulting estimates are {adj_l} under mild conditions.",
    "In contrast to prior work, our {method} does not require hand-tuned heuristics.",
    "Numerical results confirm the theoretical predictions for {task}.",
]

# ---------------------------------------------------------------------------------------
# Small helpers


def _weighted(rng: random.Random, items: list[tuple[object, float]]):
    """Draw one item from (item, weight) pairs (precomputed cumulative weights are cached)."""
    key = id(items)
    cum = _CUM_CACHE.get(key)
    if cum is None or cum[0] is not items:
        acc, total = [], 0.0
        for _, w in items:
            total += w
            acc.append(total)
        cum = (items, acc, total)
        _CUM_CACHE[key] = cum
    _, acc, total = cum
    return items[min(_bisect(acc, rng.random() * total), len(items) - 1)][0]


_CUM_CACHE: dict[int, tuple] = {}


def _bisect(acc: list[float], x: float) -> int:
    lo, hi = 0, len(acc)
    while lo < hi:
        mid = (lo + hi) // 2
        if acc[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def strip_accents(text: str) -> str:
    """'Müller' -> 'Muller', 'Yılmaz' -> 'Yilmaz' (dotless i has no decomposition)."""
    text = text.replace("ı", "i").replace("ø", "o").replace("Ø", "O").replace("ß", "ss")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def normalize_name(text: str) -> str:
    """The 'exact normalized name' used for the difficulty numbers: accents, case and
    punctuation dropped, whitespace collapsed ("J.-P. Müller" -> "j p muller")."""
    text = strip_accents(text).lower()
    text = "".join(c if c.isalnum() else " " for c in text)
    return " ".join(text.split())


def _orcid(rng: random.Random) -> str:
    """A valid ORCID iD (ISO 7064 mod 11-2 check digit)."""
    digits = [rng.randrange(10) for _ in range(15)]
    digits[0], digits[1], digits[2] = 0, 0, 0
    total = 0
    for d in digits:
        total = (total + d) * 2
    check = (12 - total % 11) % 11
    chars = "".join(map(str, digits)) + ("X" if check == 10 else str(check))
    return "-".join(chars[i:i + 4] for i in range(0, 16, 4))


def archive_of(category: str) -> str:
    return category.split(".")[0]


def area_of(category: str) -> str:
    """Vocabulary area: 'cs', 'math' or 'physics'."""
    arch = archive_of(category)
    if arch in ("cs", "eess", "stat", "q-bio", "q-fin", "econ"):
        return "cs"
    if arch == "math":
        return "math"
    return "physics"


def field_of(category: str) -> tuple:
    return FIELDS.get(archive_of(category), PHYSICS_FIELD)


# ---------------------------------------------------------------------------------------
# Generation state


@dataclass
class _Group:
    """A research lab: the unit that gives people stable co-authors and categories."""

    gid: int
    institution_id: str
    categories: list[str]  # primary first
    members: list[int]  # person ids; members[0] is the PI (prints last)
    partners: list[int] = field(default_factory=list)
    weight: float = 1.0
    member_weights: list[float] = field(default_factory=list)


@dataclass
class _Habit:
    """How a person's name gets printed."""

    initials_rate: float
    drop_middle_rate: float
    accent_drop_rate: float
    hyphen_variant_rate: float


@dataclass
class _Slot:
    """One OAI record to produce: a datestamp day and whether the paper is new that day."""

    day: dt.date
    is_new: bool
    forced_person: int | None = None
    forced_group: int | None = None


class _Gen:
    def __init__(self, seed: int, papers_per_day: int, days: int, start_day: dt.date):
        self.rng = random.Random(seed)
        self.seed = seed
        self.papers_per_day = papers_per_day
        self.days = days
        self.start_day = start_day
        self.end_day = start_day + dt.timedelta(days=days - 1)
        self.persons: dict[int, Person] = {}
        self.habits: dict[int, _Habit] = {}
        self.person_group: dict[int, int] = {}
        self.institutions: dict[str, Institution] = {}
        self.groups: list[_Group] = []
        self.papers: list[Paper] = []
        self.used_ids: set[str] = set()  # membership only, never iterated
        self.month_counters: dict[str, int] = {}
        self.pinned: set[int] = set()  # planted persons never drawn at random
        self.citations: dict[str, int] = {}  # arxiv id -> "true" citation count
        self.next_person = 2  # 1 is reserved for the seed Peng Wang
        self.used_numbers: set[int] = set()

    # -- ids ----------------------------------------------------------------------------

    def unique_number(self, digits: int) -> int:
        while True:
            n = self.rng.randrange(10 ** (digits - 1), 10 ** digits)
            if n not in self.used_numbers:
                self.used_numbers.add(n)
                return n

    def hex40(self) -> str:
        return "%040x" % self.rng.getrandbits(160)

    # -- institutions -------------------------------------------------------------------

    def make_institutions(self) -> list[str]:
        ids = []
        alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
        for name, country, kind, aliases in INSTITUTION_STEMS:
            iid = "I%d" % self.unique_number(9)
            ror = "https://ror.org/0" + "".join(self.rng.choice(alphabet) for _ in range(6)) + "%02d" % self.rng.randrange(100)
            self.institutions[iid] = Institution(iid, ror, name, country, kind, list(aliases))
            ids.append(iid)
        return ids

    def affiliation_string(self, iid: str) -> str:
        """A raw affiliation as people type it: full name, alias, or with a department."""
        inst = self.institutions[iid]
        r = self.rng.random()
        if inst.aliases and r < 0.25:
            return self.rng.choice(inst.aliases)
        if r < 0.4 and inst.type == "education":
            dept = self.rng.choice(["Department of Physics", "Department of Computer Science",
                                    "School of Mathematics", "Department of Electrical Engineering"])
            return f"{dept}, {inst.display_name}"
        return inst.display_name

    # -- persons ------------------------------------------------------------------------

    def new_person(self, given: str, family: str, suffix: str | None = None, pid: int | None = None) -> int:
        rng = self.rng
        if pid is None:
            pid = self.next_person
        self.next_person = max(self.next_person, pid + 1)
        person = Person(pid, given, family, suffix)
        if rng.random() < 0.2:
            person.orcid = _orcid(rng)
        self.persons[pid] = person
        variable = rng.random() < 0.6  # 40% always print the canonical form
        self.habits[pid] = _Habit(
            initials_rate=(rng.choice([0.15, 0.3, 0.5, 0.9]) if variable else 0.0),
            drop_middle_rate=(0.4 if variable else 0.0),
            accent_drop_rate=(rng.choice([0.3, 0.6, 1.0]) if variable else 0.0),
            hyphen_variant_rate=(0.4 if variable else 0.0),
        )
        return pid

    def random_name(self) -> tuple[str, str, str | None]:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            family = _weighted(rng, CJK_FAMILIES)
            given = _weighted(rng, CJK_GIVENS)
            return given, family, None
        if r < 0.6:
            return rng.choice(INDIAN_GIVENS), rng.choice(INDIAN_FAMILIES), None
        given = rng.choice(WESTERN_GIVENS)
        if rng.random() < 0.25:
            given += " " + rng.choice(WESTERN_MIDDLES)
        suffix = rng.choice(["Jr", "Jr.", "III"]) if rng.random() < 0.015 else None
        return given, rng.choice(WESTERN_FAMILIES), suffix

    def make_groups(self, inst_ids: list[str], n_persons: int) -> None:
        rng = self.rng
        cats = CATEGORIES
        while self.next_person <= n_persons:
            gid = len(self.groups)
            primary = _weighted(rng, cats)
            area = area_of(primary)
            cross = CROSS.get(archive_of(primary), CROSS.get(area, []))
            gcats = [primary] + rng.sample(cross, min(2, len(cross)))
            gcats = list(dict.fromkeys(c for c in gcats))
            group = _Group(gid, rng.choice(inst_ids), gcats, [],
                           weight=rng.lognormvariate(0, 0.8))
            size = rng.randint(3, 12)
            taken: list[tuple[str, str]] = []
            for _ in range(size):
                # no two members share family name + first initial: inside one lab even a
                # human could not tell "P. Wang" from "Ping Wang"
                for _attempt in range(20):
                    given, family, suffix = self.random_name()
                    key = (strip_accents(family).lower(), given[0])
                    if key not in taken:
                        break
                taken.append(key)
                pid = self.new_person(given, family, suffix)
                self.join(pid, group, inst_ids)
            self.groups.append(group)
        for group in self.groups:
            group.partners = [rng.randrange(len(self.groups)) for _ in range(rng.randint(1, 3))]

    def join(self, pid: int, group: _Group, inst_ids: list[str], weight: float | None = None) -> None:
        rng = self.rng
        person = self.persons[pid]
        group.members.append(pid)
        # PI (first member) writes on most papers; others by a heavy-tailed activity
        group.member_weights.append(weight if weight is not None else
                                    (3.0 if len(group.members) == 1 else rng.paretovariate(1.6)))
        self.person_group[pid] = group.gid
        person.home_categories = list(group.categories)
        if rng.random() < 0.15:
            # moved from another institution to this lab
            moved = rng.randint(2015, 2025)
            person.affiliations = [(rng.choice(inst_ids), 1990, moved - 1), (group.institution_id, moved, 2026)]
        else:
            person.affiliations = [(group.institution_id, 1990, 2026)]

    def institution_at(self, pid: int, year: int) -> str | None:
        for iid, y0, y1 in self.persons[pid].affiliations:
            if y0 <= year <= y1:
                return iid
        aff = self.persons[pid].affiliations
        return aff[-1][0] if aff else None

    # -- name printing ------------------------------------------------------------------

    def print_name(self, pid: int) -> tuple[str, str | None, str | None]:
        """(keyname, forenames, suffix) as this paper prints the person."""
        person = self.persons[pid]
        habit = self.habits[pid]
        rng = self.rng
        given, family = person.given, person.family
        parts = given.split(" ")
        if len(parts) > 1 and rng.random() < habit.drop_middle_rate:
            parts = parts[:1]
        first = parts[0]
        if "-" in first and rng.random() < habit.hyphen_variant_rate:
            pieces = first.split("-")
            first = rng.choice([" ".join(pieces), "".join([pieces[0]] + [p.lower() for p in pieces[1:]])])
        elif len(first) >= 7 and first.isalpha() and family in _CJK_FAMILY_NAMES and rng.random() < habit.hyphen_variant_rate:
            # "Xiaoming" printed "Xiao-Ming"
            cut = 4 if first[:4].lower() in ("xiao", "zhi", "jia") else len(first) // 2
            first = first[:cut] + "-" + first[cut].upper() + first[cut + 1:]
        if rng.random() < habit.initials_rate:
            forenames = " ".join(_initials(p) for p in [first] + parts[1:])
        else:
            forenames = " ".join([first] + parts[1:])
        keyname = family
        if rng.random() < habit.accent_drop_rate:
            keyname = strip_accents(keyname) if rng.random() < 0.85 else _transliterate(keyname)
            forenames = strip_accents(forenames)
        if keyname.startswith(("van ", "de ")) and rng.random() < 0.2:
            keyname = keyname[0].upper() + keyname[1:]
        suffix = person.suffix if (person.suffix and rng.random() < 0.7) else None
        return keyname, forenames, suffix

    # -- papers -------------------------------------------------------------------------

    def pick_authors(self, group: _Group, forced: int | None) -> list[int]:
        rng = self.rng
        members = group.members
        k = min(len(members), rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5, 6]))
        chosen: list[int] = []
        # the PI is on most papers and prints last
        weights = group.member_weights
        for _ in range(k * 3):
            if len(chosen) >= k:
                break
            pid = rng.choices(members, weights)[0]
            if pid not in chosen and pid not in self.pinned:
                chosen.append(pid)
        if forced is not None and forced not in chosen:
            chosen.insert(rng.randrange(len(chosen) + 1) if chosen else 0, forced)
        # outside collaborators from partner groups
        if rng.random() < 0.3 and group.partners:
            partner = self.groups[rng.choice(group.partners)]
            for _ in range(rng.randint(1, 2)):
                pid = rng.choice(partner.members)
                if pid not in chosen and pid not in self.pinned:
                    chosen.insert(rng.randrange(len(chosen) + 1), pid)
        if not chosen:
            chosen = [members[0]]
        pi = members[0]
        if pi in chosen and len(chosen) > 1 and chosen[-1] != pi:
            chosen.remove(pi)
            chosen.append(pi)
        return chosen

    def new_id(self, v1: dt.datetime, primary: str) -> str:
        rng = self.rng
        if v1.date() < dt.date(2007, 4, 1):
            archive = archive_of(primary)
            if archive in ("cs", "math") and "." in primary and rng.random() < 0.5:
                archive = primary  # "math.GT/0309136" style
            while True:
                aid = "%s/%02d%02d%03d" % (archive, v1.year % 100, v1.month, rng.randint(1, 999))
                if aid not in self.used_ids:
                    return aid
        yymm = "%02d%02d" % (v1.year % 100, v1.month)
        digits = 4 if v1.year < 2015 else 5
        if digits == 5 and v1.date() >= self.start_day - dt.timedelta(days=40):
            # sequential within a month, like the real numbering
            n = self.month_counters.get(yymm, 0) + 1
            aid = f"{yymm}.{n:05d}"
            while aid in self.used_ids:
                n += 1
                aid = f"{yymm}.{n:05d}"
            self.month_counters[yymm] = n
            return aid
        while True:
            aid = f"{yymm}.{rng.randint(1, 10 ** digits - 1):0{digits}d}"
            if aid not in self.used_ids:
                return aid

    def old_v1(self, day: dt.date) -> dt.datetime:
        rng = self.rng
        r = rng.random()
        if r < 0.65:
            days_back = rng.randint(20, 3 * 365)
        elif r < 0.85:
            days_back = rng.randint(3 * 365, 15 * 365)
        else:
            days_back = rng.randint(19 * 365, 33 * 365)  # 1992-2006: old-style ids
        d = day - dt.timedelta(days=days_back)
        return _at(d, rng)

    def make_paper(self, slot: _Slot) -> Paper:
        rng = self.rng
        if slot.forced_group is not None:
            group = self.groups[slot.forced_group]
        else:
            group = self.groups[self.group_picker()]
        pids = self.pick_authors(group, slot.forced_person)
        categories = list(group.categories[:1])
        for c in group.categories[1:]:
            if rng.random() < 0.45:
                categories.append(c)
        if slot.is_new:
            v1 = _at(slot.day, rng)
        else:
            v1 = self.old_v1(slot.day)
        return self.assemble(slot.day, v1, categories, pids, group, slot.is_new)

    def assemble(self, day: dt.date, v1: dt.datetime, categories: list[str], pids: list[int],
                 group: _Group | None, is_new: bool, arxiv_id: str | None = None,
                 title: str | None = None, abstract: str | None = None) -> Paper:
        rng = self.rng
        primary = categories[0]
        if arxiv_id is None:
            arxiv_id = self.new_id(v1, primary)
        self.used_ids.add(arxiv_id)
        versions = self.versions(v1, day, is_new)
        year = v1.year
        with_affil = rng.random() < 0.6
        authors = []
        for pos, pid in enumerate(pids):
            keyname, forenames, suffix = self.print_name(pid)
            iid = self.institution_at(pid, year)
            affs = [self.affiliation_string(iid)] if (with_affil and iid) else []
            authors.append(Authorship(pos, pid, keyname, forenames, suffix, affs, [iid] if iid else []))
        area = area_of(primary)
        if title is None:
            title = self.title(area)
        if abstract is None:
            abstract = self.abstract(area, title)
        paper = Paper(arxiv_id=arxiv_id, versions=versions, datestamp=day, title=title,
                      abstract=abstract, authors=authors, categories=categories)
        first = authors[0]
        paper.submitter = f"{first.forenames} {first.keyname}" if first.forenames else first.keyname
        self.decorate(paper, area, v1)
        return paper

    def versions(self, v1: dt.datetime, day: dt.date, is_new: bool) -> list[Version]:
        rng = self.rng
        out = [Version(1, v1, rng.randint(20, 9000), "D")]
        if is_new:
            return out
        # a replacement on the datestamp day, or a metadata fix that adds no version
        n_more = rng.choice([0, 1, 1, 1, 2, 3])
        span = max(1, (day - v1.date()).days)
        last = v1
        for k in range(n_more):
            if k == n_more - 1:
                when = _at(day, rng)
            else:
                when = last + dt.timedelta(days=rng.randint(1, max(1, span // (n_more + 1))))
            if when <= last:
                when = last + dt.timedelta(minutes=5)
            out.append(Version(k + 2, when, out[-1].size_kb + rng.randint(-5, 300), "D"))
            last = when
        return out

    def title(self, area: str) -> str:
        rng = self.rng
        w = WORDS[area]
        form = rng.random()
        if form < 0.4:
            t = f"{rng.choice(w['adj'])} {_cap(rng.choice(w['method']))} for {_cap(rng.choice(w['task']))}"
        elif form < 0.7:
            t = f"{_cap(rng.choice(w['method']))}: {rng.choice(w['adj'])} Approaches to {_cap(rng.choice(w['task']))}"
        elif form < 0.85:
            t = f"On {rng.choice(w['task'])} and {rng.choice(TEX_SNIPPETS[area])}"
        else:
            t = f"{rng.choice(w['adj'])} {rng.choice(w['method'])} with {rng.choice(TEX_SNIPPETS[area])} for {rng.choice(w['task'])}"
        return t

    def abstract(self, area: str, title: str) -> str:
        rng = self.rng
        w = WORDS[area]
        slug = "".join(c for c in title.lower() if c.isalnum())[:12] or "code"
        chosen = rng.sample(SENTENCES, rng.randint(4, 7))
        out = []
        for s in chosen:
            out.append(s.format(adj_l=rng.choice(w["adj"]).lower(), method=rng.choice(w["method"]),
                                task=rng.choice(w["task"]), tex=rng.choice(TEX_SNIPPETS[area]),
                                slug=slug))
        return " ".join(out)

    def decorate(self, paper: Paper, area: str, v1: dt.datetime) -> None:
        """comments, journal-ref, DOIs, license, report-no, msc/acm-class, withdrawals."""
        rng = self.rng
        pages, figs = rng.randint(4, 60), rng.randint(0, 20)
        paper.comments = f"{pages} pages, {figs} figures" if rng.random() < 0.75 else None
        if v1.date() >= dt.date(2004, 1, 1):
            paper.license = _weighted(rng, LICENSES)
        age_days = (paper.datestamp - v1.date()).days
        if age_days > 150 and rng.random() < 0.45:
            paper.journal_ref = rng.choice(JOURNALS["cs" if area == "cs" else area])
            prefix = rng.choice(DOI_PREFIXES["cs" if area == "cs" else area])
            paper.dois = [f"{prefix}/{_doi_suffix(rng)}"]
            if rng.random() < 0.08:  # erratum: a second DOI
                paper.dois.append(f"{prefix}/{_doi_suffix(rng)}")
        if area == "physics" and rng.random() < 0.15:
            paper.report_no = f"{rng.choice(['CERN-TH', 'FERMILAB-PUB', 'BONN-TH', 'IPMU'])}-{v1.year}-{rng.randint(1, 300):03d}"
        if area == "math" and rng.random() < 0.3:
            paper.msc_class = f"{rng.randint(11, 94):02d}A{rng.randint(10, 99)}, {rng.randint(11, 94):02d}B{rng.randint(10, 99)}"
        if paper.categories[0].startswith("cs.") and rng.random() < 0.05:
            paper.acm_class = f"I.{rng.randint(2, 5)}.{rng.randint(1, 9)}"
        if len(paper.versions) > 1 and rng.random() < 0.04:
            # withdrawal: the last version is a withdrawal notice
            paper.withdrawn = True
            paper.versions[-1].source_type = "W"
            paper.versions[-1].size_kb = 1
            paper.comments = "This paper has been withdrawn by the author due to a crucial error in the proof"
        # latent citation count, the truth both upstreams estimate
        years = max(0.0, (self.end_day - v1.date()).days / 365.25)
        self.citations[paper.arxiv_id] = int(rng.lognormvariate(1.0, 1.2) * years ** 1.1)

    # -- group picking -------------------------------------------------------------------

    def build_group_picker(self) -> None:
        acc, total = [], 0.0
        for g in self.groups:
            total += g.weight
            acc.append(total)
        self._gacc, self._gtotal = acc, total

    def group_picker(self) -> int:
        return min(_bisect(self._gacc, self.rng.random() * self._gtotal), len(self.groups) - 1)


_CJK_FAMILY_NAMES = frozenset(f for f, _ in CJK_FAMILIES)


def _initials(name: str) -> str:
    """'Jean-Pierre' -> 'J.-P.', 'Peng' -> 'P.', 'A.' -> 'A.'."""
    if "-" in name:
        return "-".join(p[0].upper() + "." for p in name.split("-") if p)
    return name[0] + "."


def _transliterate(name: str) -> str:
    """German-style transliteration: 'Müller' -> 'Mueller'."""
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("Ä", "Ae"), ("Ö", "Oe"), ("Ü", "Ue")):
        name = name.replace(a, b)
    return strip_accents(name)


def _cap(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))


def _doi_suffix(rng: random.Random) -> str:
    return rng.choice(["PhysRevD.", "s10052-0", "j.nuclphysb.", "TPAMI.", "3592433."]) + str(rng.randint(100000, 999999))


def _at(day: dt.date, rng: random.Random) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, rng.randint(0, 23), rng.randint(0, 59),
                       rng.randint(0, 59), tzinfo=dt.timezone.utc)


def _undo_withdrawal(paper: Paper) -> None:
    """Fixtures must stay live papers whatever the random decoration drew."""
    if paper.withdrawn:
        paper.withdrawn = False
        paper.versions[-1].source_type = "D"
        paper.versions[-1].size_kb = 500
        paper.comments = None


def _h_index(citations: list[int]) -> int:
    h = 0
    for i, c in enumerate(sorted(citations, reverse=True), start=1):
        if c >= i:
            h = i
        else:
            break
    return h


# ---------------------------------------------------------------------------------------
# Day plan


def _day_weights(rng: random.Random, start: dt.date, days: int) -> list[float]:
    """Weekdays heavy, weekends light, and an occasional very light day (holiday)."""
    out = []
    for i in range(days):
        d = start + dt.timedelta(days=i)
        w = {0: 1.15, 1: 1.2, 2: 1.15, 3: 1.1, 4: 0.95, 5: 0.3, 6: 0.35}[d.weekday()]
        if rng.random() < 0.03:
            w = 0.05
        out.append(w)
    return out


def _plan_slots(gen: _Gen) -> list[_Slot]:
    rng = gen.rng
    weights = _day_weights(rng, gen.start_day, gen.days)
    total = gen.papers_per_day * gen.days
    scale = total / sum(weights)
    slots: list[_Slot] = []
    carry = 0.0
    for i, w in enumerate(weights):
        day = gen.start_day + dt.timedelta(days=i)
        exact = w * scale + carry
        n = int(exact)
        carry = exact - n
        for _ in range(n):
            slots.append(_Slot(day, rng.random() < 0.82))
    return slots


# ---------------------------------------------------------------------------------------
# Seed fixtures (SEED.md)

KNAPFORMER_TITLE = "KnapFormer: An Online Load Balancer for Efficient Diffusion Transformers Training"
KNAPFORMER_ABSTRACT = (
    "We present KnapFormer, an efficient and versatile framework to combine workload "
    "balancing and sequence parallelism in distributed training of Diffusion Transformers "
    "(DiT). KnapFormer builds on the insight that strong synergy exists between sequence "
    "parallelism and the need to address the significant token imbalance across ranks. This "
    "imbalance arises from variable-length text inputs and varying visual token counts in "
    "mixed-resolution and image-video joint training. KnapFormer redistributes tokens by first "
    "gathering sequence length metadata across all ranks in a balancing group and solving a "
    "global knapsack problem. The solver aims to minimize the variances of total workload per "
    "GPU, while accounting for the effect of sequence parallelism. By integrating DeepSpeed-Ulysses-based "
    "sequence parallelism in the load-balancing decision process and utilizing a simple "
    "semi-empirical workload model, KnapFormers achieves minimal communication overhead and less "
    "than 1\\% workload discrepancy in real-world training workloads with sequence length "
    "varying from a few hundred to tens of thousands. It eliminates straggler effects and "
    "achieves 2x to 3x speedup when training state-of-the-art diffusion models like FLUX on "
    "mixed-resolution and image-video joint data corpora. We open-source the KnapFormer "
    "implementation at https://github.com/Kai-46/KnapFormer/"
)
GS_EDIT_TITLE = "Feed-Forward State-Aware Editing of 3D Gaussian Splatting Assets from 2D Views via Test-Time Training"
GS_EDIT_ABSTRACT = (
    "We present \\ourmethod, a feed-forward, state-aware model for interactive editing of 3D "
    "Gaussian Splatting (3DGS) assets from 2D views. Given a 3DGS asset and a sequence of user "
    "edits applied to rendered views, \\ourmethod{} propagates each edit to the 3D "
    "representation in a single forward pass, maintaining a compact \\emph{editing state} "
    "that is updated with test-time training so that successive edits remain consistent. "
    "Unlike optimization-based pipelines that require minutes per edit, \\ourmethod{} responds "
    "in about a second while preserving multi-view consistency and the identity of unedited "
    "regions. Experiments on object- and scene-level benchmarks show that \\ourmethod{} "
    "outperforms prior 3D editing methods in fidelity and speed."
)
# The six other planted "Peng Wang"s: (archive paper count, S2 h-index) per SEED.md
OTHER_PENG_WANGS = [(12, 4), (11, 3), (9, 7), (9, 20), (9, 4), (9, 1)]
# how many OpenAlex ids a person gets (OpenAlex over-splits)
OA_SPLITS = [(1, 65), (2, 25), (3, 10)]


def _plant_seed(gen: _Gen, inst_ids: list[str], slots: list[_Slot]) -> list[Paper]:
    """The Adobe group with Kai Zhang and the captured Peng Wang, and his six papers."""
    rng = gen.rng
    adobe = next(i for i in inst_ids if gen.institutions[i].display_name == "Adobe Research")
    stanford = next(i for i in inst_ids if gen.institutions[i].display_name == "Stanford University")
    group = _Group(len(gen.groups), adobe, ["cs.CV", "cs.GR", "cs.LG"], [], weight=1.0)
    gen.groups.append(group)
    names = [("Kai", "Zhang"), ("Peng", "Wang"), ("Sai", "Bi"), ("Jianming", "Zhang"),
             ("Yuanjun", "Xiong"), ("Hao", "Tan"), ("Yang", "Zheng"), ("Zexiang", "Xu"),
             ("Fujun", "Luan")]
    pids = {}
    for given, family in names:
        pid = gen.new_person(given, family, pid=SEED_PENG_WANG_ID if (given, family) == ("Peng", "Wang") else None)
        gen.habits[pid] = _Habit(0.0, 0.0, 0.0, 0.0)  # the seed authors print canonically
        gen.join(pid, group, inst_ids, weight=1.0)
        pids[given + " " + family] = pid
    # Yang Zheng was at Stanford (intern at Adobe); the first member is the PI
    gen.persons[pids["Yang Zheng"]].affiliations = [(stanford, 1990, 2026)]
    gen.pinned.add(SEED_PENG_WANG_ID)
    gen.persons[SEED_PENG_WANG_ID].home_categories = ["cs.CV", "cs.GR", "cs.DC"]
    gen.persons[SEED_PENG_WANG_ID].orcid = None

    papers = []
    if gen.end_day < KNAPFORMER_DAY:
        return papers
    kz, pw = pids["Kai Zhang"], SEED_PENG_WANG_ID

    def clamp(day: dt.date) -> dt.date:
        return min(max(day, gen.start_day), gen.end_day)

    day = clamp(KNAPFORMER_DAY)
    v1 = dt.datetime(2025, 8, 8, 17, 31, 2, tzinfo=dt.timezone.utc)
    knap = gen.assemble(day, v1, ["cs.DC", "cs.CV"],
                        [kz, pw, pids["Sai Bi"], pids["Jianming Zhang"], pids["Yuanjun Xiong"]],
                        group, True, KNAPFORMER_ID, KNAPFORMER_TITLE, KNAPFORMER_ABSTRACT)
    knap.comments, knap.withdrawn, knap.journal_ref, knap.dois = "Code available at https://github.com/Kai-46/KnapFormer/", False, None, []
    knap.license = "http://creativecommons.org/licenses/by/4.0/"
    papers.append(knap)

    day = clamp(GS_EDIT_DAY)
    v1 = dt.datetime(GS_EDIT_DAY.year, 8, 5, 16, 2, 44, tzinfo=dt.timezone.utc)
    gs = gen.assemble(day, v1, ["cs.CV", "cs.GR"],
                      [pids["Yang Zheng"], pids["Hao Tan"], kz, pw, pids["Sai Bi"], pids["Zexiang Xu"]],
                      group, True, GS_EDIT_ID, GS_EDIT_TITLE, GS_EDIT_ABSTRACT)
    gs.comments, gs.withdrawn, gs.journal_ref, gs.dois = "Project page: https://example.github.io/gs-edit", False, None, []
    papers.append(gs)

    # four older papers, replaced/fixed inside the window: 3x cs.CV, 1x cs.GR, all middle author
    for k, cats in enumerate([["cs.CV"], ["cs.CV", "cs.LG"], ["cs.CV", "cs.GR"], ["cs.GR", "cs.CV"]]):
        day = gen.start_day + dt.timedelta(days=rng.randrange(gen.days))
        v1 = _at(dt.date(2023, 3, 1) + dt.timedelta(days=150 * k + rng.randrange(60)), rng)
        others = [p for p in group.members if p not in (kz, pw)]
        authors = rng.sample(others, 2) + [pw] + [kz]
        p = gen.assemble(day, v1, cats, authors, group, False)
        _undo_withdrawal(p)
        papers.append(p)
    return papers


def _plant_other_peng_wangs(gen: _Gen, inst_ids: list[str], slots: list[_Slot]) -> list[int]:
    """Six more Peng Wangs, each in his own random group, with fixed paper counts."""
    rng = gen.rng
    planted = []
    # never the seed's Adobe group (gid 0), never a lab that already has a "P. Wang"
    candidates = [g for g in gen.groups[1:] if len(g.members) >= 3 and not any(
        (strip_accents(gen.persons[m].family), gen.persons[m].given[0]) == ("Wang", "P") for m in g.members)]
    free = [i for i, s in enumerate(slots) if s.forced_person is None]
    picks = rng.sample(free, min(len(free), sum(n for n, _ in OTHER_PENG_WANGS)))
    cursor = 0
    for n_papers, _h in OTHER_PENG_WANGS:
        group = rng.choice(candidates)
        candidates.remove(group)
        pid = gen.new_person("Peng", "Wang")
        gen.join(pid, group, inst_ids, weight=1.0)
        gen.pinned.add(pid)
        for i in picks[cursor:cursor + n_papers]:
            slots[i].forced_person = pid
            slots[i].forced_group = group.gid
        cursor += n_papers
        planted.append(pid)
    return planted


# ---------------------------------------------------------------------------------------
# Collaboration papers


def _collaboration_papers(gen: _Gen, inst_ids: list[str], slots: list[_Slot]) -> list[Paper]:
    """Two hep-ex papers with ~1,200 and ~2,600 authors from one big collaboration, the
    first author printed as the legacy artefact keyname="Collaboration" forenames="ATLAS".
    Members print as initials (as HEP author lists do), which makes names collide a lot."""
    rng = gen.rng
    if len(slots) < 50:
        return []
    labs = [i for i in inst_ids if gen.institutions[i].type in ("education", "facility")]
    group = _Group(len(gen.groups), next(i for i in inst_ids if gen.institutions[i].display_name == "CERN"),
                   ["hep-ex", "hep-ph"], [], weight=0.0)
    gen.groups.append(group)
    collab = gen.new_person("ATLAS", "Collaboration")
    gen.persons[collab].is_collaboration = True
    gen.persons[collab].orcid = None
    gen.habits[collab] = _Habit(0.0, 0.0, 0.0, 0.0)
    members = []
    taken: set[tuple[str, str]] = set()  # membership only
    for _ in range(2700):
        # HEP lists print initials; keep "initial + family" unique inside the collaboration
        # so the two papers can be linked by a careful matcher
        for _attempt in range(60):
            given, family, suffix = gen.random_name()
            key = (strip_accents(family).lower(), given[0])
            if key not in taken:
                break
        taken.add(key)
        pid = gen.new_person(given, family, suffix)
        gen.habits[pid] = _Habit(1.0, 1.0, rng.choice([0.0, 1.0]), 0.0)  # "G. Aad" style
        gen.join(pid, group, labs, weight=1.0)
        gen.persons[pid].affiliations = [(rng.choice(labs), 1990, 2026)]
        members.append(pid)
    gen.pinned.update(members)
    gen.pinned.add(collab)
    papers = []
    for n in (1200, 2600):
        day = gen.start_day + dt.timedelta(days=rng.randrange(gen.days))
        authors = sorted(rng.sample(members, n), key=lambda p: strip_accents(gen.persons[p].family))
        p = gen.assemble(day, _at(day, rng) if rng.random() < 0.5 else gen.old_v1(day),
                         ["hep-ex", "hep-ph"], [collab] + authors, group, rng.random() < 0.5,
                         title=f"Search for new phenomena in final states with {rng.choice(['two leptons', 'jets and missing transverse momentum', 'a photon'])} at $\\sqrt{{s}}=13$ TeV with the ATLAS detector")
        p.authors[0].keyname, p.authors[0].forenames = "Collaboration", "ATLAS"
        p.authors[0].affiliations, p.authors[0].institution_ids = [], []
        _undo_withdrawal(p)
        p.submitter = "ATLAS Publications"
        papers.append(p)
    return papers


# ---------------------------------------------------------------------------------------
# Upstream views


class _Views:
    """Builds S2 and OpenAlex identities and paper views with their realistic noise."""

    def __init__(self, gen: _Gen):
        self.gen = gen
        self.rng = gen.rng
        self.s2_authors: dict[str, S2Author] = {}
        self.oa_authors: dict[str, OpenAlexAuthor] = {}
        self.redirects: dict[str, str] = {}
        self.s2_cites: dict[str, list[int]] = {}
        self.oa_cites: dict[str, list[int]] = {}
        self.s2_split_weight: dict[int, float] = {}
        self.oa_split_weights: dict[int, list[float]] = {}

    def s2_id(self) -> str:
        return str(self.gen.unique_number(10))

    def oa_id(self) -> str:
        return "A5%09d" % self.gen.unique_number(9)

    def assign_identities(self, seed_pws: list[int]) -> None:
        """S2: ~15% of people split in two, same-name pairs merged; OpenAlex: ~35% split in
        2-3, a few giant common-name profiles, same-name pairs merged."""
        gen, rng = self.gen, self.rng
        by_name: dict[str, list[int]] = {}
        for pid in sorted(gen.persons):
            p = gen.persons[pid]
            if p.is_collaboration:
                continue
            by_name.setdefault(normalize_name(f"{p.given.split(' ')[0]} {p.family}"), []).append(pid)
        protected = {SEED_PENG_WANG_ID, *seed_pws}
        for pid in sorted(gen.persons):
            p = gen.persons[pid]
            if p.is_collaboration:
                continue
            p.s2_author_ids = [self.s2_id()]
            if pid not in protected and rng.random() < 0.15:
                p.s2_author_ids.append(self.s2_id())
                self.s2_split_weight[pid] = rng.uniform(0.2, 0.5)
            n_oa = 1 if pid == SEED_PENG_WANG_ID else _weighted(rng, OA_SPLITS)
            p.openalex_author_ids = [self.oa_id() for _ in range(n_oa)]
            if n_oa > 1:
                self.oa_split_weights[pid] = [rng.uniform(0.3, 1.0) for _ in range(n_oa)]
        # merges among people who share a name; the largest name groups become giant
        # OpenAlex profiles (one "Wei Wang" covering every Wei Wang)
        names = sorted(by_name, key=lambda n: (-len(by_name[n]), n))
        self.giant_names = [n for n in names if n != "peng wang" and len(by_name[n]) >= 4][:4]
        for name in names:
            pids = [p for p in by_name[name] if p != SEED_PENG_WANG_ID]
            if len(pids) < 2:
                continue
            if name in self.giant_names:
                shared = gen.persons[pids[0]].openalex_author_ids[0]
                for other in pids[1:]:
                    gen.persons[other].openalex_author_ids[0] = shared
            elif rng.random() < 0.35:
                a, b = rng.sample(pids, 2)
                gen.persons[b].openalex_author_ids[0] = gen.persons[a].openalex_author_ids[0]
            s2_pool = [p for p in pids if p not in protected]
            if len(s2_pool) >= 2 and rng.random() < 0.3:
                a, b = rng.sample(s2_pool, 2)
                gen.persons[b].s2_author_ids[0] = gen.persons[a].s2_author_ids[0]

    def pick_s2(self, pid: int) -> str:
        ids = self.gen.persons[pid].s2_author_ids
        if len(ids) > 1 and self.rng.random() < self.s2_split_weight.get(pid, 0.3):
            return ids[1]
        return ids[0]

    def pick_oa(self, pid: int) -> str:
        ids = self.gen.persons[pid].openalex_author_ids
        if len(ids) == 1:
            return ids[0]
        return self.rng.choices(ids, self.oa_split_weights[pid])[0]

    def paper_views(self, paper: Paper) -> None:
        gen, rng = self.gen, self.rng
        v1 = paper.versions[0].submitted.date()
        true_c = gen.citations[paper.arxiv_id]
        is_seed = paper.arxiv_id in (KNAPFORMER_ID, GS_EDIT_ID)
        never = (not is_seed) and rng.random() < 0.05
        s2_lag = rng.randint(2, 25) if rng.random() < 0.9 else rng.randint(26, 60)
        oa_lag = rng.randint(4, 40)
        # a replacement of an old paper is long known; new papers wait
        s2_c = max(0, int(true_c * rng.uniform(0.85, 1.2)) + rng.choice([0, 0, 1, 2]))
        oa_c = max(0, int(true_c * rng.uniform(0.7, 1.1)))
        primary = paper.categories[0]
        fid, fname, did, dname, fos = field_of(primary)
        s2_authors: list[tuple[str | None, str]] = []
        oa_ships: list[OpenAlexAuthorship] = []
        drop = -1
        if not is_seed and len(paper.authors) > 3 and rng.random() < 0.03:
            drop = rng.randrange(1, len(paper.authors) - 1)
        wrong_orcid = rng.random() < 0.01
        for a in paper.authors:
            person = gen.persons[a.person_id]
            printed = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
            if person.is_collaboration:
                printed = "ATLAS Collaboration"
                s2_authors.append((None, printed))
                oa_ships.append(OpenAlexAuthorship(None, printed, printed, None))
                continue
            s2id = self.pick_s2(a.person_id) if rng.random() > 0.02 else None  # null authorId
            oaid = self.pick_oa(a.person_id)
            name = printed
            if a.forenames and rng.random() < 0.15:
                name = " ".join(_initials(x) for x in a.forenames.split(" ")) + " " + a.keyname
            if a.position == drop:
                s2id = None
            else:
                s2_authors.append((s2id, name))
            orcid = person.orcid if (person.orcid and rng.random() < 0.8) else None
            if wrong_orcid and orcid is None and rng.random() < 0.3:
                other = gen.persons.get(rng.randint(1, gen.next_person - 1))
                orcid = other.orcid if other else None
            display = self.oa_authors[oaid].display_name if oaid in self.oa_authors else f"{person.given.split(' ')[0]} {person.family}"
            ship = OpenAlexAuthorship(oaid, display, printed, orcid, list(a.institution_ids),
                                      list(a.affiliations) or [gen.institutions[i].display_name for i in a.institution_ids],
                                      a.position == 0 and rng.random() < 0.5)
            oa_ships.append(ship)
            self.note_author(None if never else s2id, None if never else oaid, a, person, name, s2_c, oa_c, v1.year)
        if never:
            return
        published = v1
        old = v1 < gen.start_day - dt.timedelta(days=60)
        s2_from = (gen.start_day - dt.timedelta(days=30)) if old else v1 + dt.timedelta(days=s2_lag)
        oa_from = (gen.start_day - dt.timedelta(days=30)) if old else v1 + dt.timedelta(days=oa_lag)
        flat = paper.abstract
        paper.s2 = S2Paper(
            paper_id=gen.hex40(), corpus_id=gen.unique_number(9), available_from=s2_from,
            title=paper.title, abstract=flat if rng.random() < 0.9 else None, year=v1.year,
            publication_date=published, venue=(paper.journal_ref.split(" (")[0] if paper.journal_ref else "arXiv.org"),
            citation_count=s2_c, influential_citation_count=s2_c // rng.randint(5, 20),
            reference_count=rng.randint(10, 80), fields_of_study=[fos] if rng.random() < 0.95 else None,
            doi=paper.dois[0] if paper.dois else None, authors=s2_authors)
        topic = _topic(primary)
        counts = _counts_by_year(rng, v1.year, gen.end_day.year, oa_c)
        paper.openalex = OpenAlexWork(
            work_id="W%d" % gen.unique_number(10), available_from=oa_from,
            doi=f"https://doi.org/10.48550/arxiv.{paper.arxiv_id}".lower(), title=paper.title,
            publication_date=published, type="article" if paper.journal_ref else "preprint",
            cited_by_count=oa_c, counts_by_year=counts, authorships=oa_ships,
            primary_topic=topic, topics=[topic] + [_topic(c, 0.6) for c in paper.categories[1:2]],
            abstract=flat)

    def note_author(self, s2id, oaid, a: Authorship, person: Person, name: str, s2_c: int, oa_c: int, year: int) -> None:
        if s2id is not None:
            prof = self.s2_authors.get(s2id)
            if prof is None:
                prof = S2Author(s2id, name, [], orcid=None)
                self.s2_authors[s2id] = prof
                self.s2_cites[s2id] = []
            if person.person_id not in prof.person_ids:
                prof.person_ids.append(person.person_id)
            if a.affiliations and a.affiliations[0] not in prof.affiliations and len(prof.affiliations) < 3:
                prof.affiliations.append(a.affiliations[0])
            if len(name) > len(prof.name):
                prof.name = name
            self.s2_cites[s2id].append(s2_c)
        if oaid is None:
            return
        prof2 = self.oa_authors.get(oaid)
        if prof2 is None:
            prof2 = OpenAlexAuthor(oaid, f"{person.given.split(' ')[0]} {person.family}", [], None)
            self.oa_authors[oaid] = prof2
            self.oa_cites[oaid] = []
        if person.person_id not in prof2.person_ids:
            prof2.person_ids.append(person.person_id)
        printed = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
        if printed != prof2.display_name and printed not in prof2.display_name_alternatives:
            prof2.display_name_alternatives.append(printed)
        for iid in a.institution_ids:
            for entry in prof2.affiliations:
                if entry[0] == iid:
                    if year not in entry[1]:
                        entry[1].append(year)
                    break
            else:
                prof2.affiliations.append((iid, [year]))
        self.oa_cites[oaid].append(oa_c)

    def finish_profiles(self, seed_pws: list[int]) -> None:
        """Fill stats: archive papers plus works the archive does not hold."""
        gen, rng = self.gen, self.rng
        for sid in sorted(self.s2_authors):
            prof = self.s2_authors[sid]
            cites = self.s2_cites[sid] + [int(rng.lognormvariate(1.5, 1.3)) for _ in range(rng.randint(0, 25))]
            prof.paper_count, prof.citation_count, prof.h_index = len(cites), sum(cites), _h_index(cites)
            person = gen.persons[prof.person_ids[0]]
            if person.orcid and len(prof.person_ids) == 1 and rng.random() < 0.5:
                prof.orcid = person.orcid  # a claimed profile
            if rng.random() < 0.3:
                prof.dblp_names = [prof.name]
        for oid in sorted(self.oa_authors):
            prof = self.oa_authors[oid]
            cites = self.oa_cites[oid] + [int(rng.lognormvariate(1.3, 1.4)) for _ in range(rng.randint(0, 30))]
            prof.works_count, prof.cited_by_count, prof.h_index = len(cites), sum(cites), _h_index(cites)
            prof.i10_index = sum(1 for c in cites if c >= 10)
            prof.two_year_mean_citedness = round(rng.uniform(0, 6), 3)
            person = gen.persons[prof.person_ids[0]]
            prof.orcid = person.orcid if len(prof.person_ids) == 1 else None
            prof.affiliations.sort(key=lambda e: max(e[1]))
            for e in prof.affiliations:
                e[1].sort(reverse=True)
            prof.last_known_institution_ids = [prof.affiliations[-1][0]] if prof.affiliations else []
        # seed Peng Wang: the Semantic Scholar profile carries the site's numbers
        seed = gen.persons[SEED_PENG_WANG_ID]
        prof = self.s2_authors.get(seed.s2_author_ids[0])
        if prof is not None:  # absent when the window ends before KnapFormer
            prof.paper_count, prof.citation_count, prof.h_index, prof.name = 8, 478, 3, "Peng Wang"
        oa = self.oa_authors.get(seed.openalex_author_ids[0])
        if oa is not None:  # OpenAlex disagrees a little, as the real sources do
            oa.works_count, oa.cited_by_count, oa.h_index, oa.i10_index = 9, 451, 3, 2
        for pid, (_n, h) in zip(seed_pws, OTHER_PENG_WANGS):
            p = self.s2_authors.get(gen.persons[pid].s2_author_ids[0])
            if p is not None:
                p.h_index = h
                p.paper_count = max(p.paper_count, h + _n)
                p.citation_count = max(p.citation_count, h * h + rng.randint(0, 200))
        # retired ids that answer 301: a few works and authors were merged upstream
        works = [p.openalex for p in gen.papers if p.openalex is not None]
        for w in rng.sample(works, min(len(works), max(2, len(works) // 400))):
            self.redirects["W%d" % gen.unique_number(10)] = w.work_id
        authors = sorted(self.oa_authors)
        for aid in rng.sample(authors, min(len(authors), max(2, len(authors) // 400))):
            self.redirects["A5%09d" % gen.unique_number(9)] = aid


def _topic(category: str, score: float = 0.99) -> dict:
    fid, fname, did, dname, _ = field_of(category)
    # topic/subfield ids derived from the category position: stable across runs
    k = CATEGORY_CODES.index(category) if category in CATEGORY_CODES else len(CATEGORY_CODES)
    sub_id = fid * 100 + 1 + k % 97
    return {
        "id": f"https://openalex.org/T{10000 + k * 7}",
        "display_name": f"Advances in {category} research",
        "score": score,
        "subfield": {"id": f"https://openalex.org/subfields/{sub_id}", "display_name": f"{fname}: {category}"},
        "field": {"id": f"https://openalex.org/fields/{fid}", "display_name": fname},
        "domain": {"id": f"https://openalex.org/domains/{did}", "display_name": dname},
    }


def _counts_by_year(rng: random.Random, y0: int, y1: int, total: int) -> list[tuple[int, int]]:
    years = list(range(max(y0, y1 - 9), y1 + 1))
    if not years or total == 0:
        return []
    raw = [rng.random() + 0.2 for _ in years]
    s = sum(raw)
    counts = [int(total * r / s) for r in raw]
    counts[-1] += total - sum(counts)
    return sorted([(y, c) for y, c in zip(years, counts) if c > 0], reverse=True)


# ---------------------------------------------------------------------------------------
# Entry points


def generate_world(seed: int = 7, papers_per_day: int = 250, days: int = 10,
                   start_day: dt.date = dt.date(2025, 8, 4)) -> World:
    """Build the world. Size = papers_per_day x days records (plus the seed papers and the
    two collaboration papers). About 1.6 persons per paper, in labs of 3-12 people."""
    if papers_per_day < 1 or days < 1:
        raise ValueError("papers_per_day and days must be positive")
    gen = _Gen(seed, papers_per_day, days, start_day)
    inst_ids = gen.make_institutions()
    slots = _plan_slots(gen)
    seed_papers = _plant_seed(gen, inst_ids, slots)
    n_persons = max(200, int(len(slots) * 1.6))
    gen.make_groups(inst_ids, gen.next_person + n_persons)
    gen.build_group_picker()
    seed_pws = _plant_other_peng_wangs(gen, inst_ids, slots)
    collab = _collaboration_papers(gen, inst_ids, slots)

    # the seed and collaboration papers take the place of random records (any days)
    free = [i for i, s in enumerate(slots) if s.forced_person is None]
    drop = set(gen.rng.sample(free, min(len(free), len(seed_papers) + len(collab))))
    chosen = [s for i, s in enumerate(slots) if i not in drop]
    papers = [gen.make_paper(s) for s in chosen] + seed_papers + collab
    # v1 order gives stable S2/OpenAlex identity draws and citation links
    papers.sort(key=lambda p: (p.datestamp, p.arxiv_id))
    gen.papers = papers

    views = _Views(gen)
    views.assign_identities(seed_pws)
    for paper in sorted(papers, key=lambda p: (p.versions[0].submitted, p.arxiv_id)):
        views.paper_views(paper)
    _link_citations(gen)
    views.finish_profiles(seed_pws)

    return World(seed=seed, size=len(papers), start_day=gen.start_day, end_day=gen.end_day,
                 papers=papers, persons=gen.persons, institutions=gen.institutions,
                 s2_authors=views.s2_authors, openalex_authors=views.oa_authors,
                 openalex_redirects=views.redirects)


def _link_citations(gen: _Gen) -> None:
    """Each paper cites up to 3 older papers known to S2 (for /paper/{id}/citations)."""
    rng = gen.rng
    known = [p for p in sorted(gen.papers, key=lambda p: (p.versions[0].submitted, p.arxiv_id)) if p.s2]
    for i in range(1, len(known)):
        for _ in range(rng.randint(0, 3)):
            cited = known[rng.randrange(i)]
            if len(cited.s2.citing_paper_ids) < cited.s2.citation_count:
                cited.s2.citing_paper_ids.append(known[i].s2.paper_id)


# ---------------------------------------------------------------------------------------
# Ground truth


def mention_identities(world: World) -> list[tuple[str, int, int, str | None, str | None]]:
    """(arxiv_id, position, person_id, s2 author id, openalex author id) per arXiv authorship.

    The upstream id is the one the paper's S2/OpenAlex view carries for that person (None
    when the view is missing, the id is null, or S2 dropped the author)."""
    out = []
    for paper in world.papers:
        s2_ids = {x for x, _ in paper.s2.authors if x} if paper.s2 else set()  # membership only
        for a in paper.authors:
            person = world.persons[a.person_id]
            s2id = None
            oaid = None
            if paper.s2 and not person.is_collaboration:
                s2id = next((i for i in person.s2_author_ids if i in s2_ids), None)
            if paper.openalex and a.position < len(paper.openalex.authorships):
                oaid = paper.openalex.authorships[a.position].author_id
            out.append((paper.arxiv_id, a.position, a.person_id, s2id, oaid))
    return out


def write_ground_truth(world: World, directory: str | os.PathLike) -> dict[str, str]:
    """Write persons.jsonl, authorships.jsonl and the S2AND set (signatures.json,
    papers.json, clusters.json) into ``directory``; return {name: path}.

    The S2AND set leaves out collaboration pseudo-authors ("ATLAS Collaboration"): they are
    not people. Paper ids there are integers (1-based position in ``world.papers``); each
    paper record also carries its ``arxiv_id``. ``authorships.jsonl`` keeps every authorship,
    with the S2/OpenAlex author id that upstream shows for it (for id-only baselines)."""
    os.makedirs(directory, exist_ok=True)
    paths = {name: os.path.join(directory, name) for name in
             ("persons.jsonl", "authorships.jsonl", "signatures.json", "papers.json", "clusters.json")}
    with open(paths["persons.jsonl"], "w", encoding="utf-8") as f:
        for pid in sorted(world.persons):
            p = world.persons[pid]
            f.write(json.dumps({
                "person_id": pid, "given": p.given, "family": p.family, "suffix": p.suffix,
                "orcid": p.orcid, "affiliations": p.affiliations, "home_categories": p.home_categories,
                "s2_author_ids": p.s2_author_ids, "openalex_author_ids": p.openalex_author_ids,
                "is_collaboration": p.is_collaboration,
            }, ensure_ascii=False) + "\n")
    ids = mention_identities(world)
    with open(paths["authorships.jsonl"], "w", encoding="utf-8") as f:
        i = 0
        for paper in world.papers:
            for a in paper.authors:
                _, _, _, s2id, oaid = ids[i]
                i += 1
                f.write(json.dumps({
                    "arxiv_id": paper.arxiv_id, "position": a.position, "person_id": a.person_id,
                    "keyname": a.keyname, "forenames": a.forenames, "suffix": a.suffix,
                    "s2_author_id": s2id, "openalex_author_id": oaid,
                }, ensure_ascii=False) + "\n")
    signatures, papers_out, clusters = {}, {}, {}
    for n, paper in enumerate(world.papers, start=1):
        papers_out[str(n)] = {
            "paper_id": n, "arxiv_id": paper.arxiv_id, "title": paper.title, "abstract": paper.abstract,
            "journal_name": paper.journal_ref, "venue": "arXiv", "year": paper.versions[0].submitted.year,
            "sources": ["arXiv"], "fields_of_study": [field_of(paper.categories[0])[4]],
            "categories": paper.categories,
            "authors": [{"position": a.position, "author_name": _display(a)} for a in paper.authors],
            "references": [],
        }
        for a in paper.authors:
            if world.persons[a.person_id].is_collaboration:
                continue
            sid = f"{paper.arxiv_id}_{a.position}"
            fore = (a.forenames or "").replace(".", ". ").replace("-", " - ").split()
            fore = [t for t in fore if t != "-"]
            first = fore[0] if fore else None
            middle = " ".join(fore[1:]) or None
            signatures[sid] = {
                "author_info": {
                    "first": first, "middle": middle, "last": a.keyname, "suffix": a.suffix,
                    "position": a.position, "email": None, "affiliations": a.affiliations,
                    "block": _block(first, a.keyname), "given_block": _block(first, a.keyname),
                },
                "signature_id": sid, "paper_id": n, "given_name": _display(a),
                "sourced_author_ids": [], "sourced_author_source": None,
            }
            cluster = clusters.setdefault(str(a.person_id), {"cluster_id": str(a.person_id), "signature_ids": [], "model_version": -1})
            cluster["signature_ids"].append(sid)
    for name, obj in (("signatures.json", signatures), ("papers.json", papers_out), ("clusters.json", clusters)):
        with open(paths[name], "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False)
    return paths


def _display(a: Authorship) -> str:
    name = f"{a.forenames} {a.keyname}" if a.forenames else a.keyname
    return f"{name} {a.suffix}" if a.suffix else name


def _block(first: str | None, last: str) -> str:
    """S2AND block: first initial + normalized last name ("p wang")."""
    initial = normalize_name(first)[:1] if first else ""
    return f"{initial} {normalize_name(last).replace(' ', '')}".strip()
