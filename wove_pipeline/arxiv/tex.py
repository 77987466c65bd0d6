"""TeX → display text, arXiv identifiers and paper slugs.

Pure functions, no I/O. Titles and abstracts from arXiv carry raw TeX (``$\\alpha$-decay``,
``\\"{u}``, ``\\emph{..}``, author-defined macros such as ``\\ourmethod``). The pipeline keeps
the TeX source and exposes the output of :func:`tex_to_text` as the display form.

Decisions (documented here because other modules rely on them):

* Unknown macros (``\\ourmethod``) are kept as their bare name (``ourmethod``): the word
  stays readable and searchable instead of silently vanishing from the sentence.
* ``%`` not preceded by a backslash is treated as a literal percent sign. In TeX it starts a
  comment, but arXiv abstracts routinely write ``45%`` and would otherwise lose the rest
  of the line.
* Simple super/subscripts made of digits and signs become Unicode (``$^{11}$Be`` → ``¹¹Be``);
  anything else keeps pylatexenc's ``^``/``_`` notation (``fb^-1`` is still readable).
* Old-style ids keep their exact spelling in slugs with ``/`` replaced by ``-``
  (``hep-th/9901001`` → ``hep-th-9901001-…``, ``math.GT/0309136`` → ``math.GT-0309136-…``);
  :func:`arxiv_id_from_slug` turns a route segment back into the id, so
  ``/papers/<id>-<slug>`` and ``/papers/<id-with-dash>`` always resolve by id.
"""

from __future__ import annotations

import logging
import re

from unidecode import unidecode

__all__ = [
    "tex_to_text",
    "collapse_ws",
    "slugify_paper",
    "normalize_arxiv_id",
    "try_normalize_arxiv_id",
    "is_old_style_id",
    "is_valid_arxiv_id",
    "arxiv_id_from_slug",
    "SLUG_TITLE_MAX",
]

# pylatexenc logs a warning for every tolerated parse problem (unbalanced braces, stray
# "$"); on a harvest of thousands of abstracts that floods the run log with noise.
for _name in ("pylatexenc.latexwalker", "pylatexenc.latex2text", "pylatexenc._util"):
    logging.getLogger(_name).setLevel(logging.ERROR)

# ----------------------------------------------------------------------------------------
# tex_to_text

_converter = None  # built lazily: importing pylatexenc's context database costs ~50 ms


def _get_converter():
    global _converter
    if _converter is None:
        from pylatexenc.latex2text import (
            LatexNodes2Text,
            MacroTextSpec,
            get_default_latex_context_db,
        )

        db = get_default_latex_context_db().filter_context()  # a private copy
        # Keep author-defined macros as a readable word; macro_post_space keeps the space
        # TeX swallows after a control word ("\ourmethod is" → "ourmethod is").
        db.set_unknown_macro_spec(
            MacroTextSpec("", simplify_repl=lambda n: n.macroname + (n.macro_post_space or ""))
        )
        # Citations/refs have no display value in an abstract.
        db.add_context_category(
            "wove-overrides",
            prepend=True,
            macros=[
                MacroTextSpec("cite", simplify_repl=""),
                MacroTextSpec("citep", simplify_repl=""),
                MacroTextSpec("citet", simplify_repl=""),
                MacroTextSpec("ref", simplify_repl=""),
                MacroTextSpec("eqref", simplify_repl=""),
                MacroTextSpec("label", simplify_repl=""),
            ],
        )
        _converter = LatexNodes2Text(
            latex_context=db, math_mode="text", strict_latex_spaces=False
        )
    return _converter


_SUP = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUB = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SCRIPT_RE = re.compile(r"([\^_])(?:\{([0-9+\-=()n]+)\}|([0-9]))")
_MATH_RE = re.compile(r"(?<!\\)\$([^$]*)(?<!\\)\$")
_UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")
_HREF_RE = re.compile(r"\\href\s*\{[^{}]*\}")
_URL_RE = re.compile(r"\\url\s*\{([^{}]*)\}")


def _unicode_scripts(math: str) -> str:
    def repl(m: re.Match) -> str:
        body = m.group(2) or m.group(3)
        if m.group(1) == "_":
            if "n" in body:  # there is no subscript n in the common Unicode block
                return m.group(0)
            return body.translate(_SUB)
        return body.translate(_SUP)

    return _SCRIPT_RE.sub(repl, math)


def _preprocess(s: str) -> str:
    s = _UNESCAPED_PERCENT.sub(r"\\%", s)
    s = _HREF_RE.sub("", s)  # keep the link text (the following group), drop the URL
    s = _URL_RE.sub(lambda m: m.group(1), s)
    # Only inside $...$: outside math "_" and "^" are literal characters.
    return _MATH_RE.sub(lambda m: "$" + _unicode_scripts(m.group(1)) + "$", s)


_FALLBACK_MACRO = re.compile(r"\\([A-Za-z]+)\*?\s?")
_FALLBACK_ACCENT = re.compile(r"\\[\"'`^~=.]\{?([A-Za-z])\}?")


def _fallback(s: str) -> str:
    """Regex cleanup used when pylatexenc fails: good enough to read, never raises."""
    s = _FALLBACK_ACCENT.sub(r"\1", s)
    s = s.replace("\\%", "%").replace("\\&", "&").replace("\\$", "$").replace("\\_", "_")
    s = _FALLBACK_MACRO.sub(lambda m: m.group(1) + " ", s)
    s = re.sub(r"[{}$\\]", "", s)
    return s.replace("~", " ")


def collapse_ws(s: str) -> str:
    """Collapse every whitespace run (hard line-wraps, indentation, NBSP) to one space."""
    return " ".join(s.split())  # str.split() splits on exactly what \s matches, faster


_walker_db = None  # pylatexenc's parsing context, built once (it is rebuilt per call otherwise)

# Characters and sequences that make a string TeX rather than plain text.
_TEX_CHARS = re.compile(r"[\\$%{}~^_]|--|``|''")
# Spans that need pylatexenc: math, macros with their arguments (two brace levels), accents,
# escaped characters and bare brace groups. Everything between them is plain text.
_TEX_SPAN = re.compile(
    r"""
      (?<!\\)\$\$.*?(?<!\\)\$\$
    | (?<!\\)\$[^$]*(?<!\\)\$
    | \\[A-Za-z]+\*?(?:\s*\[[^\]]*\])?(?:\s*\{(?:[^{}]|\{[^{}]*\})*\})*
    | \\[^A-Za-z\s](?:\{[^{}]*\}|[A-Za-z])?
    | \{(?:[^{}]|\{[^{}]*\})*\}
    """,
    re.S | re.X,
)
_PLAIN_SPECIALS = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"), ("~", "\u00a0"))
_SEP = "\ue000"  # a private-use character: survives conversion, never in real text


def _convert(tex: str) -> str:
    global _walker_db
    from pylatexenc.latexwalker import LatexWalker, get_default_latex_context_db

    if _walker_db is None:
        _walker_db = get_default_latex_context_db()
    nodes, _, _ = LatexWalker(tex, latex_context=_walker_db, tolerant_parsing=True).get_latex_nodes()
    return _get_converter().nodelist_to_text(nodes)


def _plain(segment: str) -> str:
    for seq, repl in _PLAIN_SPECIALS:
        segment = segment.replace(seq, repl)
    return segment


# Spans already converted: the same few ($\sim$, \emph{...}, $N$, accents in names) recur
# across a day's titles and abstracts. Each span converts on its own (that is what makes
# the one-call split below valid), so a cached conversion is the conversion.
_SPAN_CACHE: dict[str, str] = {}
_SPAN_CACHE_MAX = 200_000


def _convert_spans(s: str) -> str:
    """Convert only the TeX spans, the new ones in one pylatexenc call (its cost is per
    character and per call; most of an abstract is plain prose). Falls back to converting
    the whole string whenever the split is not clean."""
    spans = list(_TEX_SPAN.finditer(s))
    plains = [s[a.end() if a else 0 : b.start() if b else len(s)] for a, b in zip([None] + spans, spans + [None])]
    if any(re.search(r"[\\${}]", p) for p in plains) or _SEP in s:
        return _convert(s)
    texts = [m.group(0) for m in spans]
    misses = list(dict.fromkeys(t for t in texts if t not in _SPAN_CACHE))
    if misses:
        done = _convert(_SEP.join(misses)).split(_SEP)
        if len(done) != len(misses):
            return _convert(s)
        if len(_SPAN_CACHE) > _SPAN_CACHE_MAX:
            _SPAN_CACHE.clear()
        _SPAN_CACHE.update(zip(misses, done))
    converted = [_SPAN_CACHE[t] for t in texts]
    out = [_plain(plains[0])]
    for text, plain in zip(converted, plains[1:]):
        out.append(text)
        out.append(_plain(plain))
    return "".join(out)


def tex_to_text(s: str | None) -> str:
    """Clean, single-line display text from a TeX string. Never raises; ``None`` → ``""``."""
    if not s:
        return ""
    s = str(s)
    if not _TEX_CHARS.search(s):
        return collapse_ws(s)  # plain prose: nothing to convert
    try:
        text = _convert_spans(_preprocess(s))
    except Exception:  # noqa: BLE001 - pylatexenc can fail in many ways on odd input
        try:
            text = _fallback(s)
        except Exception:  # noqa: BLE001 - last resort: never lose the text entirely
            text = str(s)
    return collapse_ws(text)


# ----------------------------------------------------------------------------------------
# arXiv identifiers

# New style: YYMM.NNNN (2007-04..2014-12) or YYMM.NNNNN (2015 on).
_NEW_ID = re.compile(r"^(\d{4})\.(\d{4,5})$")
# Old style: archive(.SC)?/YYMMNNN, e.g. hep-th/9901001, math.GT/0309136.
_OLD_ID = re.compile(r"^([a-z]+(?:-[a-z]+)?)(\.[a-z]{2})?/(\d{7})$", re.IGNORECASE)
_PREFIXES = re.compile(
    r"^(?:oai:arxiv\.org:|arxiv:|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)",
    re.IGNORECASE,
)
_VERSION = re.compile(r"v\d+$", re.IGNORECASE)


def try_normalize_arxiv_id(s: str | None) -> str | None:
    """Like :func:`normalize_arxiv_id` but returns ``None`` for anything that is not an id."""
    if not isinstance(s, str):
        return None
    t = s.strip()
    # Prefixes can stack ("arXiv:" inside a URL is unusual but harmless to strip twice).
    for _ in range(2):
        t = _PREFIXES.sub("", t)
    t = t.strip().rstrip("/")
    if t.lower().endswith(".pdf"):
        t = t[:-4]
    t = _VERSION.sub("", t)
    if _NEW_ID.match(t):
        return t
    m = _OLD_ID.match(t)
    if m:
        archive, subject, number = m.groups()
        # The archive is lower case and the subject class upper case in canonical ids.
        return f"{archive.lower()}{(subject or '').upper()}/{number}"
    return None


def normalize_arxiv_id(s: str) -> str:
    """Bare, version-less arXiv id from any common spelling.

    Accepts ``oai:arXiv.org:…``, ``arXiv:…``, ``https://arxiv.org/abs/…`` (or ``/pdf/…``),
    with or without a ``vN`` suffix. Raises ``ValueError`` if the result is not an id.
    """
    out = try_normalize_arxiv_id(s)
    if out is None:
        raise ValueError(f"not an arXiv id: {s!r}")
    return out


def is_valid_arxiv_id(s: str) -> bool:
    """True for a bare canonical id (no prefix, no version)."""
    return isinstance(s, str) and bool(_NEW_ID.match(s) or _OLD_ID.match(s))


def is_old_style_id(arxiv_id: str) -> bool:
    """True for pre-2007 ids (``hep-th/9901001``); accepts any spelling normalize accepts."""
    norm = try_normalize_arxiv_id(arxiv_id)
    return norm is not None and "/" in norm


# ----------------------------------------------------------------------------------------
# slugs

SLUG_TITLE_MAX = 100  # characters of the title part; cut on a word ("-") boundary


def _slug_id(arxiv_id: str) -> str:
    return arxiv_id.replace("/", "-")


def slugify_paper(arxiv_id: str, title_text: str | None) -> str:
    """``<id>-<kebab-case ascii title>``, e.g.
    ``2508.06001-knapformer-an-online-load-balancer-for-efficient-diffusion-transformers-training``.

    ``title_text`` should be the clean title (output of :func:`tex_to_text`); raw TeX is
    cleaned here as well so a caller cannot leak macro names with backslashes. The title
    part is capped at :data:`SLUG_TITLE_MAX` characters on a word boundary. An empty title
    gives just the id part.
    """
    norm = try_normalize_arxiv_id(arxiv_id) or arxiv_id.strip()
    text = title_text or ""
    if "\\" in text or "$" in text:
        text = tex_to_text(text)
    words = re.sub(r"[^a-z0-9]+", " ", unidecode(text).lower()).split()
    title = ""
    for w in words:
        candidate = f"{title}-{w}" if title else w
        if len(candidate) > SLUG_TITLE_MAX:
            if not title:  # a single giant word: hard cut rather than an empty slug
                title = w[:SLUG_TITLE_MAX]
            break
        title = candidate
    return f"{_slug_id(norm)}-{title}" if title else _slug_id(norm)


_SLUG_NEW = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?(?:-|$)")
_SLUG_OLD = re.compile(r"^([a-z]+(?:-[a-z]+)*?(?:\.[a-z]{2})?)[-/](\d{7})(?:v\d+)?(?:-|$)", re.I)


def arxiv_id_from_slug(segment: str) -> str | None:
    """The arXiv id at the start of a ``/papers/<segment>`` route, or ``None``.

    Works for a full slug, a bare id, and old-style ids written with ``/`` or ``-``.
    """
    if not isinstance(segment, str):
        return None
    s = segment.strip()
    m = _SLUG_NEW.match(s)
    if m:
        return m.group(1)
    m = _SLUG_OLD.match(s)
    if m:
        return try_normalize_arxiv_id(f"{m.group(1)}/{m.group(2)}")
    return None
