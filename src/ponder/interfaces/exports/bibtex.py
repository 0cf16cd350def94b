"""The cited sources as BibTeX, for LaTeX (BibTeX or biber) and any reference manager.

Each entry is ``@misc``, the type every style can print from what ponder knows: author,
title, year and month, DOI, URL, and a note naming a document of yours by its path. Text
fields are written for LaTeX: its special characters escaped (``\\%``, ``\\&``, ``\\#``,
``\\_``, ``\\$``), a brace as ``\\textbraceleft{}`` (BibTeX counts braces, even escaped ones,
so an unbalanced one would end the field), and letters beyond ASCII as LaTeX accents
(pylatexenc: ``B{\\'a}sico``), so classic 8-bit BibTeX reads them too. A URL or DOI is
written as it is, as styles print it verbatim, with only a brace or a space encoded.
"""

from __future__ import annotations

from collections.abc import Sequence

from ponder.core.result import Report
from ponder.interfaces.exports.bibliography import Name, Record, records

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"$\lbrace$",
    "}": r"$\rbrace$",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def export_bytes(reports: Sequence[Report]) -> bytes:
    entries = [entry(found) for found in records(reports)]
    header = "% The sources cited in ponder's report, one entry each.\n\n"
    return (header + "\n".join(entries)).encode("utf-8")


def entry(found: Record) -> str:
    fields: list[tuple[str, str]] = []
    if found.authors:
        fields.append(("author", " and ".join(_name(name) for name in found.authors)))
    fields.append(("title", "{" + tex(found.title) + "}"))  # kept as written: no case change
    if found.date:
        fields.append(("year", str(found.date[0])))
        if len(found.date) > 1:
            fields.append(("month", MONTHS[found.date[1] - 1]))
    if found.site:
        fields.append(("howpublished", tex(found.site)))
    if found.doi:
        fields.append(("doi", verbatim(found.doi)))
    if found.url:
        fields.append(("url", verbatim(found.url)))
    if found.path:
        fields.append(("note", tex(f"Document: {found.path}")))
    body = ",\n".join(
        f"  {name} = {value}" if name == "month" else f"  {name} = {{{value}}}"
        for name, value in fields
    )
    return f"@misc{{{found.key},\n{body}\n}}\n"


def tex(text: str) -> str:
    """``text`` as LaTeX: special characters escaped, non-ASCII letters as accents, on one
    line (a line of its own starting with ``@`` would read as a new entry)."""
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    escaped = "".join(_SPECIAL.get(char, char) for char in " ".join(text.split()))
    encoder = UnicodeToLatexEncoder(
        non_ascii_only=True,
        replacement_latex_protection="braces-all",
        unknown_char_policy="keep",  # a script LaTeX has no command for stays as written
        unknown_char_warning=False,
    )
    encoded: str = encoder.unicode_to_latex(escaped)
    return encoded


def verbatim(text: str) -> str:
    """A URL or DOI as styles print it: as written, with what would end the field encoded."""
    return "".join({"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20"}.get(c, c) for c in text)


def _name(name: Name) -> str:
    if name.literal or " and " in f" {name.inverted().lower()} ":
        return "{" + tex(name.literal or name.inverted()) + "}"  # one name, as written
    return tex(name.inverted())
