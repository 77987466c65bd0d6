"""Heavy-tailed name draws for the realistic world shape (``WorldShape(names="heavy_tailed")``).

The default world draws names from small flat-ish pools (50% CJK from 27 surnames), which
gives name blocks of tens to hundreds of mentions. arXiv's are far bigger and far more
skewed: "Y. Wang", "J. Li", "Y. Zhang" hold tens of thousands of mentions each, while most
surnames are rare. This module reproduces that shape.

The distribution (per person drawn; a block's mentions follow its persons' share):

1. **Origin** of the name, a mixture assumed for arXiv author positions (2015-2025), no
   source gives it exactly: bibliometric studies that classify authors by name origin put
   Chinese-origin names at roughly a quarter to a third of arXiv / physics / CS authorships
   in recent years, Korean, Japanese and Indian at a few percent each. Assumed here:
   Chinese 30%, Korean 4%, Japanese 4%, Vietnamese 1%, Indian 8%, Western / other 53%.
2. **Surname within an origin**, published population frequencies (approximate, rounded),
   romanised as arXiv prints them, characters that share a romanisation summed (Yu = 于 余
   俞, Lu = 卢 陆 吕 鲁, Xu = 徐 许, Wu = 吴 武 伍, ...):
   Chinese: China's household-registration surname counts (Ministry of Public Security
   reports, 2007 and 2020: Wang 7.1%, Li 7.0%, Zhang 6.8%, Liu 5.4%, Chen 4.5%, ...), top 100;
   Korean: 2015 census (Kim 21.5%, Lee 14.7%, Park 8.4%, ...); Japanese: the common
   surname rankings (Sato 1.5%, Suzuki 1.4%, ...) then a synthetic tail; Vietnamese (Nguyen
   38%, Tran 11%, Le 9.5%, ...); Indian: an assumed Zipf over common surnames; Western:
   the default world's surnames at the head of a Zipf-Mandelbrot law 1 / (rank + 10) over
   ~120,000 surnames (US census 2010: Smith, the commonest, 0.83% of people; the law gives
   the head ~1%), the tail made of syllables (``_western_tail``), so most Western names are
   rare, as they are.
3. **Given name**: Chinese given names are one (15%) or two pinyin syllables with the
   first-syllable weights of common given names, so their first initial is Y, X, J, Z, H, L,
   W-heavy (Y 18%, J 13%, X 11%) as in pinyin given names; Korean two syllables joined by a hyphen;
   Japanese and Indian from pools; Western from the default pools.

What follows at 1,000,000 papers (about 3.6 regular positions a paper): "Y. Wang" gets about
0.30 x 0.071 x 0.18 = 0.38% of the positions. Measured on 20,000 papers of this shape without
the collaborations: "Y. Liu" 0.41%, "Y. Wang" 0.38%, "Y. Chen" 0.36%, "Y. Li", "Y. Zhang",
"J. Wang" 0.33-0.35%, i.e. 12,000-14,500 mentions each at 1,000,000 papers; with the
collaboration papers (whose members repeat on every paper of theirs) the biggest blocks grow
further (~36,000 for "Y. Wang" at 3 collaboration papers a day). Over 40% of the distinct
surnames of 15,000 papers appear once or twice. ``tests/sandbox/test_realistic_shape.py`` checks the
shares on a smaller world.

Only ``random.Random`` draws from the rng it is handed; the tables are built without
hashing or set iteration, so one seed gives one world.
"""

from __future__ import annotations

import math
import random

from .draws import weighted
from .vocabulary import INDIAN_GIVENS, WESTERN_FAMILIES, WESTERN_GIVENS, WESTERN_MIDDLES

ORIGINS: list[tuple[str, float]] = [
    ("chinese", 30), ("korean", 4), ("japanese", 4), ("vietnamese", 1), ("indian", 8), ("western", 53),
]

# percent of the population (approximate published figures, pinyin-merged)
CHINESE_SURNAMES: list[tuple[str, float]] = [
    ("Wang", 7.1), ("Li", 7.0), ("Zhang", 6.8), ("Liu", 5.4), ("Chen", 4.5), ("Yang", 3.1),
    ("Huang", 2.3), ("Zhao", 2.3), ("Wu", 2.2), ("Zhou", 2.0), ("Xu", 2.0), ("Sun", 1.5),
    ("Ma", 1.5), ("Zhu", 1.4), ("Hu", 1.3), ("Guo", 1.2), ("He", 1.2), ("Lin", 1.1), ("Gao", 1.1),
    ("Luo", 1.0), ("Zheng", 1.0), ("Liang", 0.9), ("Xie", 0.9), ("Song", 0.8), ("Tang", 0.8),
    ("Lu", 1.3), ("Yu", 1.1), ("Han", 0.7), ("Feng", 0.7), ("Deng", 0.7), ("Cao", 0.7),
    ("Peng", 0.7), ("Zeng", 0.65), ("Xiao", 0.65), ("Tian", 0.6), ("Dong", 0.6), ("Pan", 0.55),
    ("Yuan", 0.55), ("Cai", 0.55), ("Jiang", 1.2), ("Du", 0.5), ("Ye", 0.5), ("Cheng", 0.5),
    ("Wei", 0.5), ("Su", 0.45), ("Ding", 0.45), ("Ren", 0.45), ("Shen", 0.45), ("Yao", 0.4),
    ("Shi", 0.8), ("Fan", 0.4), ("Fang", 0.4), ("Jin", 0.4), ("Tan", 0.35), ("Liao", 0.35),
    ("Zou", 0.35), ("Xiong", 0.35), ("Qiu", 0.3), ("Qin", 0.3), ("Dai", 0.3), ("Xue", 0.3),
    ("Hou", 0.3), ("Xia", 0.3), ("Yin", 0.3), ("Wan", 0.25), ("Duan", 0.25), ("Lei", 0.25),
    ("Qian", 0.25), ("Tao", 0.25), ("Hao", 0.2), ("Kong", 0.2), ("Bai", 0.2), ("Cui", 0.2),
    ("Kang", 0.2), ("Mao", 0.2), ("Gu", 0.2), ("Shao", 0.2), ("Meng", 0.2),
    ("Long", 0.2), ("Yan", 0.3), ("Chang", 0.15), ("Niu", 0.15), ("Hong", 0.15),
    ("Mo", 0.12), ("Xiang", 0.12), ("Fu", 0.3), ("Zhong", 0.2), ("Ni", 0.1), ("Ou", 0.1),
    ("Geng", 0.1), ("Guan", 0.1), ("Ji", 0.15), ("Bao", 0.1), ("Zhan", 0.1), ("Qi", 0.1),
    ("Miao", 0.1), ("Jia", 0.2), ("Zuo", 0.1), ("Kuang", 0.05), ("Chu", 0.08),
]
KOREAN_SURNAMES: list[tuple[str, float]] = [
    ("Kim", 21.5), ("Lee", 14.7), ("Park", 8.4), ("Choi", 4.7), ("Jung", 4.3), ("Kang", 2.3),
    ("Cho", 2.1), ("Yoon", 2.1), ("Jang", 2.0), ("Lim", 1.7), ("Han", 1.5), ("Oh", 1.5),
    ("Seo", 1.5), ("Shin", 1.5), ("Kwon", 1.4), ("Hwang", 1.4), ("Ahn", 1.3), ("Song", 1.3),
    ("Yoo", 1.2), ("Hong", 1.1), ("Jeon", 1.1), ("Ko", 0.9), ("Moon", 0.9), ("Yang", 1.0),
    ("Son", 0.9), ("Bae", 0.8), ("Baek", 0.7), ("Heo", 0.6), ("Nam", 0.5), ("Noh", 0.4),
]
JAPANESE_SURNAMES: list[tuple[str, float]] = [
    ("Sato", 1.5), ("Suzuki", 1.4), ("Takahashi", 1.1), ("Tanaka", 1.1), ("Watanabe", 0.9),
    ("Ito", 0.9), ("Yamamoto", 0.9), ("Nakamura", 0.9), ("Kobayashi", 0.8), ("Kato", 0.7),
    ("Yoshida", 0.7), ("Yamada", 0.6), ("Sasaki", 0.55), ("Yamaguchi", 0.5), ("Matsumoto", 0.5),
    ("Inoue", 0.5), ("Kimura", 0.45), ("Hayashi", 0.45), ("Shimizu", 0.45), ("Yamazaki", 0.4),
    ("Mori", 0.4), ("Abe", 0.4), ("Ikeda", 0.4), ("Hashimoto", 0.4), ("Yamashita", 0.35),
    ("Ishikawa", 0.35), ("Nakajima", 0.35), ("Maeda", 0.35), ("Fujita", 0.35), ("Ogawa", 0.3),
    ("Goto", 0.3), ("Okada", 0.3), ("Hasegawa", 0.3), ("Murakami", 0.3), ("Kondo", 0.3),
]
VIETNAMESE_SURNAMES: list[tuple[str, float]] = [
    ("Nguyen", 38), ("Tran", 11), ("Le", 9.5), ("Pham", 7.1), ("Hoang", 5.1), ("Phan", 4.5),
    ("Vu", 3.9), ("Dang", 2.1), ("Bui", 2.0), ("Do", 1.4), ("Ho", 1.3), ("Ngo", 1.3), ("Duong", 1.0),
    ("Ly", 0.5),
]
INDIAN_SURNAMES: list[str] = [
    "Kumar", "Singh", "Sharma", "Gupta", "Patel", "Shah", "Das", "Reddy", "Rao", "Jain", "Mishra",
    "Agarwal", "Verma", "Yadav", "Iyer", "Nair", "Mehta", "Joshi", "Chatterjee", "Banerjee",
    "Mukherjee", "Krishnan", "Pandey", "Srivastava", "Chaudhary", "Bose", "Ghosh", "Sen", "Saha",
    "Dutta", "Menon", "Pillai", "Bhat", "Kulkarni", "Desai", "Naik", "Tiwari", "Dubey", "Sinha",
    "Malhotra", "Kapoor", "Chopra", "Bhattacharya", "Roy", "Mandal", "Prasad", "Varma", "Goyal",
]

# (first syllable, weight): common first syllables of pinyin given names
CHINESE_GIVEN_FIRST: list[tuple[str, float]] = [
    ("Yu", 5), ("Yi", 4), ("Yan", 3), ("Ying", 2.5), ("Yong", 2), ("Yun", 1.5), ("Yang", 1.5),
    ("Xiao", 5), ("Xin", 3), ("Xue", 1.5), ("Xiu", 1), ("Xiang", 1.5),
    ("Jia", 3.5), ("Jian", 3), ("Jing", 3), ("Jun", 2), ("Jie", 1.5), ("Jin", 1.5),
    ("Zhi", 3), ("Zhen", 1.5), ("Zi", 2), ("Zhong", 1), ("Ze", 1),
    ("Hao", 2), ("Hong", 2.5), ("Hui", 2), ("Hai", 1.5), ("Hua", 1.5),
    ("Li", 2), ("Lei", 1.5), ("Ling", 1.5), ("Lin", 1), ("Long", 0.8),
    ("Wei", 3.5), ("Wen", 2), ("Chen", 1), ("Chun", 1.5), ("Cheng", 1.5), ("Chao", 1),
    ("Shu", 1.5), ("Si", 1.5), ("Shi", 1), ("Qing", 1.5), ("Qi", 1.5), ("Qian", 1),
    ("Ming", 2), ("Mei", 1), ("Tian", 1.5), ("Tao", 1), ("Bo", 1.5), ("Bin", 1), ("Feng", 1.5),
    ("Fang", 1), ("Guo", 1), ("Kai", 1.5), ("Rui", 1.5), ("Peng", 1), ("Dong", 1.5), ("Ning", 1),
    ("Ruo", 0.5), ("Pei", 0.5), ("Gang", 0.8), ("De", 0.8), ("An", 0.8),
]
CHINESE_GIVEN_SECOND: list[tuple[str, float]] = [
    ("ming", 3), ("wei", 3), ("hua", 2.5), ("jie", 2), ("yu", 3), ("yi", 2), ("xin", 2.5),
    ("jun", 2), ("hao", 2), ("lin", 2), ("han", 2), ("tao", 1.5), ("feng", 2), ("long", 1.5),
    ("qiang", 1.5), ("bo", 1.5), ("yang", 2), ("fei", 1.5), ("ting", 2), ("jing", 2), ("lei", 1.5),
    ("ping", 1.5), ("rui", 1.5), ("hui", 1.5), ("kai", 1), ("chen", 1.5), ("yan", 2), ("na", 1),
    ("li", 1.5), ("xuan", 1.5), ("ran", 1.5), ("fan", 1.5), ("zhe", 1), ("wen", 1.5), ("dong", 1.5),
    ("peng", 1), ("qi", 1), ("ying", 1.5), ("song", 1), ("bin", 1), ("cheng", 1.5), ("heng", 1),
]
KOREAN_GIVEN_FIRST = ["Min", "Ji", "Seung", "Jae", "Hyun", "Sung", "Young", "Dong", "Jin", "Soo",
                      "Hye", "Eun", "Joon", "Sang", "Kyung", "Hee", "Yoon", "Tae", "Woo", "Ho"]
KOREAN_GIVEN_SECOND = ["jun", "hoon", "woo", "ho", "min", "young", "soo", "jin", "hyun", "seok",
                       "won", "hee", "kyu", "sung", "yeon", "bin", "ji", "eun", "jae", "su"]
JAPANESE_GIVENS = ["Hiroshi", "Takashi", "Yuki", "Kenji", "Satoshi", "Masato", "Naoki", "Akira",
                   "Daisuke", "Yusuke", "Takuya", "Kazuki", "Shota", "Yuta", "Haruka", "Yui",
                   "Ayumi", "Kenta", "Ryo", "Tomoya", "Koji", "Makoto", "Shinji", "Keisuke", "Hiroki"]
VIETNAMESE_GIVENS = ["Minh", "Anh", "Tuan", "Hung", "Duc", "Thanh", "Huy", "Long", "Nam", "Quang",
                     "Linh", "Trang", "Hoa", "Khanh", "Phuong", "Son", "Dung", "Hieu", "Thao", "Vinh"]
INDIAN_GIVENS_MORE = INDIAN_GIVENS + [
    "Rohit", "Ankit", "Nikhil", "Sandeep", "Abhishek", "Manish", "Rajesh", "Neha", "Shreya",
    "Karthik", "Siddharth", "Varun", "Aparna", "Gaurav", "Harsh", "Ishaan", "Meera", "Pranav",
]

_WEST_ONSETS = ["B", "C", "D", "F", "G", "H", "K", "L", "M", "N", "P", "R", "S", "T", "V", "W",
                "Br", "Ch", "Dr", "Fr", "Gr", "Kl", "Kr", "Pr", "St", "Tr", "Sch", "Al", "El", "Or"]
_WEST_VOWELS = ["a", "e", "i", "o", "u", "au", "ei", "ie", "oe"]
_WEST_MIDS = ["ll", "rn", "nd", "rt", "ss", "k", "m", "v", "l", "r", "t", "n", "rg", "st", "z"]
_WEST_ENDS = ["er", "son", "ski", "ov", "ova", "ini", "ez", "ard", "mann", "berg", "enko", "ic",
              "sen", "elli", "ier", "ley", "ton", "an", "o", "es", "ek", "in", "ing", "ens", "ault",
              "off", "uk", "is", "ata", "eau"]


def _western_tail() -> list[str]:
    """~120,000 distinct surname-like strings built from syllables, in a fixed order."""
    out: list[str] = []
    seen: set[str] = set()  # membership only
    for end in _WEST_ENDS:
        for mid in _WEST_MIDS:
            for vowel in _WEST_VOWELS:
                for onset in _WEST_ONSETS:
                    name = onset + vowel + mid + end
                    if name not in seen:
                        seen.add(name)
                        out.append(name)
    # interleave so that the rank order mixes endings (a Zipf head not made of one ending)
    n, step = len(out), 7919  # a prime: with gcd 1 a fixed permutation of the list
    return [out[(i * step) % n] for i in range(n)] if math.gcd(n, step) == 1 else out


def _zipf(names: list[str], offset: float, exponent: float = 1.0) -> list[tuple[str, float]]:
    return [(name, 1.0 / (rank + offset) ** exponent) for rank, name in enumerate(names, start=1)]


class HeavyTailedNames:
    """Draws (given, family, suffix) with the distribution of the module docstring."""

    def __init__(self) -> None:
        western = list(dict.fromkeys(WESTERN_FAMILIES))
        head = set(western)  # membership only
        tail = [n for n in _western_tail() if n not in head]
        self.western = _zipf(western + tail, offset=10.0)
        self.indian = _zipf(INDIAN_SURNAMES, offset=2.0)
        self.japanese = JAPANESE_SURNAMES + _zipf([n + "moto" for n in ("Oka", "Hashi", "Kawa", "Saka", "Hira",
                                                                      "Miya", "Tsuka", "Fuji", "Nishi", "Higa")],
                                                  offset=30.0)

    def draw(self, rng: random.Random) -> tuple[str, str, str | None]:
        origin = weighted(rng, ORIGINS)
        if origin == "chinese":
            family = weighted(rng, CHINESE_SURNAMES)
            given = weighted(rng, CHINESE_GIVEN_FIRST)
            if rng.random() >= 0.15:
                given += weighted(rng, CHINESE_GIVEN_SECOND)
            return given, family, None
        if origin == "korean":
            return f"{rng.choice(KOREAN_GIVEN_FIRST)}-{rng.choice(KOREAN_GIVEN_SECOND)}", weighted(rng, KOREAN_SURNAMES), None
        if origin == "japanese":
            return rng.choice(JAPANESE_GIVENS), weighted(rng, self.japanese), None
        if origin == "vietnamese":
            return rng.choice(VIETNAMESE_GIVENS), weighted(rng, VIETNAMESE_SURNAMES), None
        if origin == "indian":
            return rng.choice(INDIAN_GIVENS_MORE), weighted(rng, self.indian), None
        given = rng.choice(WESTERN_GIVENS)
        if rng.random() < 0.25:
            given += " " + rng.choice(WESTERN_MIDDLES)
        suffix = rng.choice(["Jr", "Jr.", "III"]) if rng.random() < 0.015 else None
        return given, weighted(rng, self.western), suffix
