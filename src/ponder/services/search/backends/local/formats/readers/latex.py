"""LaTeX sources: the document's text through pylatexenc, code and verbatim blocks as they
are written, and the title, authors and date of ``\\title``, ``\\author`` and ``\\date``."""

from __future__ import annotations

import functools
import re
from typing import Any

from ponder.services.search.backends.local.formats.document import Document, SkipFile, clean_title
from ponder.services.search.backends.local.formats.markup import iso_date
from ponder.services.search.backends.local.formats.registry import Reader, register

# Blocks whose body is not LaTeX: kept word for word (set aside while the rest is read).
_VERBATIM = ("verbatim", "Verbatim", "lstlisting", "minted", "Highlighting", "comment")
_BLOCK = re.compile(r"\\begin\{(" + "|".join(_VERBATIM) + r")\*?\}")
# \verb|x|: a delimiter, then text up to it on the same line, kept as written; pandoc's
# \VERB|x| is LaTeX inside (its syntax highlighting's macros), read as such.
_INLINE_VERB = re.compile(r"\\(?:verb|lstinline)\*?([^\w\s{])")
VERB_CHARS = 500  # how far an inline \verb's closing delimiter is looked for
_PANDOC_VERB = re.compile(r"\\VERB\|([^|\n]*)\|")
_MARK = "PONDERVERBATIMMARK"  # letters only, so the LaTeX reader passes it through
# Macros whose argument is their text (links, type faces, pandoc's syntax highlighting).
_SHOWN = ("texttt", "textsf", "textrm", "textsc", "textup", "textmd", "textnormal",
          "underline", "mbox", "url", "nolinkurl")  # fmt: skip
_HIDDEN = ("label", "phantomsection", "protect", "maketitle", "tableofcontents", "index",
           "includegraphics", "bibliographystyle", "pagestyle", "thispagestyle", "newpage",
           "clearpage", "vspace", "hspace", "setlength", "noindent")  # fmt: skip
_HEADINGS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")


def read_latex(data: bytes, name: str) -> Document:
    source = _decoded(data)
    preamble, begun, body = source.partition("\\begin{document}")
    if not begun:
        preamble, body = source, source
    body = body.split("\\end{document}", 1)[0]
    text = _to_text(body)
    if not text.strip():
        raise SkipFile("the LaTeX file has no text")
    title = clean_title(_plain(_argument(preamble, "title") or _argument(body, "title")))
    authors = [
        clean_title(_plain(a))
        for a in re.split(r"\\and\b", _argument(preamble, "author") or "")
        if clean_title(_plain(a))
    ]
    date = iso_date(_plain(_argument(preamble, "date") or ""))
    return Document(title or name, text, authors=authors, date=date)


def _decoded(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise SkipFile("binary content")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older sources declare inputenc latin1


def _to_text(body: str) -> str:
    """The body's text: verbatim blocks set aside, the rest read by pylatexenc, the blocks
    put back as their own paragraphs."""
    kept: list[str] = []

    def aside(text: str) -> str:
        kept.append(text)
        return f" {_MARK}{len(kept) - 1}{_MARK} "

    body = _PANDOC_VERB.sub(lambda m: m.group(1), body)
    body = _inline_verbatim(body, aside)
    pieces, position = [], 0
    for found in _BLOCK.finditer(body):
        if found.start() < position:
            continue  # inside a block already set aside
        end = body.find(f"\\end{{{found.group(1)}", found.end())
        end = len(body) if end < 0 else end
        pieces += [body[position : found.start()], "\n\n" + aside(body[found.end() : end]) + "\n\n"]
        position = body.find("}", end) + 1 if end < len(body) else end
    pieces.append(body[position:])
    text = _latex_to_text("".join(pieces))
    for number, code in enumerate(kept):
        text = text.replace(f"{_MARK}{number}{_MARK}", code.strip("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _inline_verbatim(body: str, aside: Any) -> str:
    """Each ``\verb|x|`` set aside; its closing delimiter is looked for on its line within
    VERB_CHARS, so a hostile line of openers costs no more than its length."""
    pieces, position = [], 0
    for found in _INLINE_VERB.finditer(body):
        if found.start() < position:
            continue
        start = found.end()
        end = body.find(found.group(1), start, start + VERB_CHARS)
        if end < 0 or "\n" in body[start:end]:
            continue
        pieces += [body[position : found.start()], aside(body[start:end])]
        position = end + 1
    pieces.append(body[position:])
    return "".join(pieces)


def _latex_to_text(latex: str) -> str:
    """pylatexenc's text of ``latex``. A construct it fails on (a macro used with fewer
    arguments than its table says) costs only its paragraph, kept as written."""
    try:
        return _converted(latex)
    except (IndexError, KeyError, TypeError, ValueError):
        pass
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", latex):
        try:
            paragraphs.append(_converted(paragraph))
        except (IndexError, KeyError, TypeError, ValueError):
            paragraphs.append(paragraph)
    return "\n\n".join(paragraphs)


def _converted(latex: str) -> str:
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import LatexWalker

    walker = LatexWalker(latex, latex_context=_contexts()[0], tolerant_parsing=True)
    nodes, _, _ = walker.get_latex_nodes()
    converter = LatexNodes2Text(latex_context=_contexts()[1], math_mode="verbatim")
    return str(converter.nodelist_to_text(nodes))


@functools.cache
def _contexts() -> tuple[Any, Any]:
    """pylatexenc's macro tables with what papers and pandoc use that they lack (its \\href
    takes no arguments, and would fail on every link)."""
    from pylatexenc import macrospec
    from pylatexenc.latex2text import MacroTextSpec
    from pylatexenc.latex2text import get_default_latex_context_db as text_db
    from pylatexenc.latexwalker import get_default_latex_context_db as parse_db

    parsing = parse_db()
    parsing.add_context_category(
        "ponder",
        macros=[
            macrospec.MacroSpec("href", "{{"),
            macrospec.MacroSpec("hyperref", "[{"),
            macrospec.MacroSpec("texorpdfstring", "{{"),
            *(macrospec.MacroSpec(name, "{") for name in _SHOWN),
            *(macrospec.MacroSpec(name, "*[{") for name in _HEADINGS),
        ],
        prepend=True,
    )
    texts = text_db()
    texts.add_context_category(
        "ponder",
        macros=[
            MacroTextSpec("href", simplify_repl="%(2)s"),
            MacroTextSpec("hyperref", simplify_repl="%(2)s"),
            MacroTextSpec("texorpdfstring", simplify_repl="%(1)s"),
            *(MacroTextSpec(name, simplify_repl="%(1)s") for name in _SHOWN),
            *(MacroTextSpec(name, discard=True) for name in _HIDDEN),
            *(MacroTextSpec(name, simplify_repl="\n\n%(3)s\n\n") for name in _HEADINGS),
        ],
        prepend=True,
    )
    return parsing, texts


def _argument(source: str, macro: str) -> str | None:
    """The braced argument of the first ``\\macro{…}`` (an optional ``[…]`` skipped)."""
    found = re.search(r"\\" + macro + r"\s*(?:\[[^\]\n]*\]\s*)?\{", source)
    if not found:
        return None
    depth, start = 1, found.end()
    for index in range(start, min(len(source), start + 5_000)):
        char = source[index]
        if char == "{" and source[index - 1] != "\\":
            depth += 1
        elif char == "}" and source[index - 1] != "\\":
            depth -= 1
            if depth == 0:
                return source[start:index]
    return None


def _plain(latex: str | None) -> str:
    return " ".join(_latex_to_text(latex).split()) if latex else ""


register(
    Reader(
        "LaTeX",
        (".tex", ".latex"),
        read_latex,
        library="pylatexenc (MIT), a LaTeX parser made to turn LaTeX into text, with the "
        "macros papers and pandoc use that it lacks",
        keeps="the document's text, headings, lists, tables, footnotes; code and verbatim "
        "blocks as written; math as written; title, authors and date",
        drops="the preamble, labels, figures' files, citations' keys (shown as `<cit.>`)",
    )
)
