"""Questions written by people for another purpose: the Python FAQ's, with the library pages
their answers link as the pages that answer them.

Nobody at ponder wrote these questions, and no rule of ponder's was fitted to them. Each is
in a development half or a test half by a fixed rule (the first byte of its SHA-1: even is
the development half): rules may be tuned on the first only.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Question:
    text: str
    pages: tuple[str, ...]  # the library pages its answer links (one or two)
    faq: str  # the FAQ page it comes from

    @property
    def half(self) -> str:
        return "dev" if hashlib.sha1(self.text.encode()).digest()[0] % 2 == 0 else "test"


def faq_questions(root: Path) -> list[Question]:
    """Every question of the FAQ pages of the docs at ``root`` whose own answer (not a
    nested one's) links one or two library pages, once each."""
    from selectolax.lexbor import LexborHTMLParser

    found: dict[str, Question] = {}
    for faq in ("faq/library.html", "faq/programming.html"):
        tree = LexborHTMLParser((root / faq).read_text(encoding="utf-8"))
        for section in tree.css("section"):
            heading = section.css_first("h3")
            if heading is None or heading.parent != section:
                continue
            for nested in section.css("section"):
                if nested != section:
                    nested.decompose()
            text = " ".join(heading.text().replace("¶", "").split())
            pages = sorted(
                {
                    m.group(1)
                    for a in section.css("a[href]")
                    if (m := re.match(r"\.\./library/([\w.]+)\.html", a.attributes["href"] or ""))
                }
            )
            if 1 <= len(pages) <= 2 and text not in found and "index" not in pages:
                found[text] = Question(text, tuple(pages), faq)
    return list(found.values())
