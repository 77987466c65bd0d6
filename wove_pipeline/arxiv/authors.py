"""Authors: the ``Author`` value, the arXiv format's author elements, the heuristic split
of arXivRaw's free-text author string, and the printed name suffixes."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from lxml import etree

from wove_pipeline.arxiv.oai_xml import ARXIV_NS, element_line, element_text
from wove_pipeline.arxiv.tex import collapse_ws, tex_to_text


@dataclass(frozen=True)
class Author:
    keyname: str
    forenames: str | None = None
    suffix: str | None = None
    affiliations: tuple[str, ...] = ()
    is_collaboration: bool = False

    @property
    def display_name(self) -> str:
        if self.is_collaboration:
            return self.keyname
        return " ".join(p for p in (self.forenames, self.keyname, self.suffix) if p)

    def as_dict(self) -> dict:
        return {
            "keyname": self.keyname,
            "forenames": self.forenames,
            "suffix": self.suffix,
            "affiliations": list(self.affiliations),
            "is_collaboration": self.is_collaboration,
        }


def clean_name_part(s: str | None) -> str | None:
    """Author name parts: one line; TeX accents converted (legacy records carry ``\\"u``)."""
    if not s:
        return None
    s = collapse_ws(s)
    if any(ch in s for ch in "\\{}$"):
        s = tex_to_text(s)
    return s or None


_HAS_WORD = re.compile(r"\w")
_COLLAB_WORD = re.compile(r"\b(collaboration|consortium)\b", re.IGNORECASE)


def arxiv_format_authors(el: etree._Element, warnings: list[str]) -> tuple[Author, ...]:
    authors: list[Author] = []
    container = el.find(f"{{{ARXIV_NS}}}authors")
    if container is None:
        return ()
    for pos, a in enumerate(container.findall(f"{{{ARXIV_NS}}}author"), start=1):
        keyname = clean_name_part(element_text(a.find(f"{{{ARXIV_NS}}}keyname")))
        forenames = clean_name_part(element_text(a.find(f"{{{ARXIV_NS}}}forenames")))
        suffix = clean_name_part(element_text(a.find(f"{{{ARXIV_NS}}}suffix")))
        affiliations = tuple(
            s for s in (element_line(x) for x in a.findall(f"{{{ARXIV_NS}}}affiliation")) if s
        )
        if not (keyname and _HAS_WORD.search(keyname)):
            if forenames and _HAS_WORD.search(forenames):
                # A mono-name put in <forenames>: keep the person, the name is the keyname.
                warnings.append(f"author {pos}: no keyname, using forenames {forenames!r}")
                keyname, forenames = forenames, None
            else:
                # Legacy artefact: after a collaboration the splitter emits keyname=":".
                warnings.append(f"author {pos}: dropped bogus author with keyname {keyname!r}")
                continue
        is_collab = False
        if keyname.lower() == "collaboration" and forenames:
            # Legacy artefact: "Super-Kamiokande Collaboration" split as forenames/keyname.
            keyname, forenames, is_collab = f"{forenames} Collaboration", None, True
        elif _COLLAB_WORD.search(keyname) or (forenames and _COLLAB_WORD.search(forenames)):
            if forenames:
                keyname = f"{forenames} {keyname}"
            keyname, forenames, is_collab = keyname, None, True
        authors.append(Author(keyname, forenames, suffix, affiliations, is_collab))
    return tuple(authors)



_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
_PARTICLES = {
    "de", "da", "di", "del", "della", "der", "den", "des", "dos", "du", "van", "von",
    "la", "le", "ter", "ten", "zu", "st.", "bin", "ibn", "al", "el",
}
_AND_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b|\\and\b)\s*", re.IGNORECASE)
_REF_KEYS = re.compile(r"[\s,&]+|\band\b", re.IGNORECASE)
_LEGEND_ITEM = re.compile(r"\((\w{1,3})\)\s*([^()]+?)\s*(?=,?\s*\(\w{1,3}\)|$)")


def _top_level_groups(s: str) -> list[tuple[int, int]]:
    """(start, end) spans of top-level parenthesised groups; unbalanced tails are ignored."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def _split_name(name: str) -> tuple[str, str | None, str | None]:
    """'Patricio S. de la Cruz Jr.' → ('de la Cruz', 'Patricio S.', 'Jr.')."""
    tokens = name.split()
    suffix = None
    if len(tokens) > 1 and tokens[-1].lower() in _SUFFIXES:
        suffix = tokens.pop()
    if len(tokens) == 1:
        return tokens[0], None, suffix
    i = len(tokens) - 1
    while i > 1 and tokens[i - 1].lower() in _PARTICLES:
        i -= 1
    keyname = " ".join(tokens[i:])
    forenames = " ".join(tokens[:i]) or None
    return keyname, forenames, suffix


def split_raw_authors(text: str | None, warnings: list[str] | None = None) -> tuple[Author, ...]:
    """Heuristic split of an arXivRaw ``<authors>`` string.

    ``"D.V. Shetty, S.J. Yennello, and G.A. Souliotis"`` → three authors. Parenthesised
    groups become affiliations of the author they follow; a trailing legend
    ``((1) MIT, (2) CMU)`` resolves numeric markers like ``A (1), B (1, 2)``.
    """
    warnings = warnings if warnings is not None else []
    if not text:
        return ()
    s = tex_to_text(text) if any(ch in text for ch in "\\{}$") else collapse_ws(text)

    # Pull out top-level (...) groups, remembering after which name they appeared.
    groups = _top_level_groups(s)
    plain_parts: list[str] = []
    group_after: list[tuple[int, str]] = []  # (index of text chunk before it, content)
    last = 0
    for start, end in groups:
        plain_parts.append(s[last:start])
        group_after.append((len(plain_parts) - 1, s[start + 1 : end - 1].strip()))
        last = end
    plain_parts.append(s[last:])

    # Legend: a group whose content starts with "(x)" maps markers to institutions.
    legend: dict[str, str] = {}
    for _, content in group_after:
        if content.startswith("("):
            for key, value in _LEGEND_ITEM.findall(content):
                legend[key.lower()] = value.strip().rstrip(",;").strip()

    names: list[str] = []
    affs: list[list[str]] = []
    for idx, chunk in enumerate(plain_parts):
        for piece in _AND_SPLIT.split(chunk):
            piece = piece.strip(" ,;")
            if piece:
                names.append(piece)
                affs.append([])
        # Groups that follow this chunk attach to the last name seen so far.
        for g_idx, content in group_after:
            if g_idx != idx or not content or content.startswith("(") or not names:
                continue
            keys = [k.lower() for k in _REF_KEYS.split(content) if k]
            if legend and keys and all(k in legend for k in keys):
                # Numeric markers "(1, 2)" that point into the legend.
                affs[-1].extend(legend[k] for k in keys)
            else:
                affs[-1].append(content)

    authors: list[Author] = []
    for name, aff in zip(names, affs):
        if name.lower() in {"et al", "et al.", "others"}:
            warnings.append(f"dropped {name!r} from the author list")
            continue
        if not _HAS_WORD.search(name):
            warnings.append(f"dropped punctuation-only author {name!r}")
            continue
        if _COLLAB_WORD.search(name):
            collab = re.sub(r"^(?:for\s+)?(?:the\s+)", "", name, flags=re.IGNORECASE).strip()
            authors.append(Author(collab, None, None, tuple(aff), True))
            continue
        keyname, forenames, suffix = _split_name(name)
        authors.append(Author(keyname, forenames, suffix, tuple(dict.fromkeys(aff))))
    return tuple(authors)


def printed_suffixes(authors: tuple[Author, ...], raw_text: str | None) -> tuple[Author, ...]:
    """The arXiv format's ``<suffix>`` drops the printed dot ("Robert T. Hayes Jr." gives
    ``<suffix>Jr</suffix>``); arXivRaw's author string keeps the name as printed. A suffix
    is given its dot back when the string prints it so after the author's name (or, for a
    name the string writes otherwise, in TeX, when it prints that suffix with a dot everywhere)."""
    if not raw_text:
        return authors
    out = []
    for a in authors:
        s = a.suffix
        if s and not s.endswith(".") and s.lower() in ("jr", "sr"):
            name = re.escape(" ".join(x for x in (a.forenames, a.keyname) if x)).replace(r"\ ", r"\s+")
            printed = [m.group(1) for m in re.finditer(
                rf"(?<!\w){name},?\s+{re.escape(s)}(\.?)(?!\w)", raw_text)]
            if not printed:  # the string writes the name otherwise (TeX accents): the suffix alone
                printed = [m.group(1) for m in re.finditer(rf"(?<![\w.]){re.escape(s)}(\.?)(?!\w)", raw_text)]
            if printed and all(printed):
                a = dataclasses.replace(a, suffix=s + ".")
        out.append(a)
    return tuple(out)
