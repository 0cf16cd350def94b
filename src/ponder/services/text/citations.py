"""Citations are checked in code after every writing step.

A ``[n]`` that is not a retrieved source is removed and counted; the final report's
sources are renumbered 1..k in order of first citation and listed exactly. Code — fenced
blocks and inline spans — is never touched: ``[30]`` in a listing is not a citation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ponder.core.sources import Source, byline

Check = Callable[[str], str | None]  # a reason to reject a text, or None

# [3], [3, 5], [3][5] — groups of numbers in square brackets (not Markdown links).
# Not after a word character (``arr[0]``) and at most three digits (``[2023]`` is a year).
_GROUP = re.compile(r"(?<!\w)\[(\s*\d{1,3}\s*(?:[,;]\s*\d{1,3}\s*)*)\](?!\()")
# A group with the blanks before it, and the punctuation right after (to tidy a removal).
_SPACED_GROUP = re.compile(r"([ \t]*)" + _GROUP.pattern + r"(?=([.,;:]?))")
_CODE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)|`[^`\n]*`", re.M | re.S)


def in_prose(text: str, apply: Callable[[str], str]) -> str:
    """``apply`` to the parts of ``text`` outside code blocks and inline code."""
    out, last = [], 0
    for code in _CODE.finditer(text):
        out += [apply(text[last : code.start()]), code.group()]
        last = code.end()
    return "".join([*out, apply(text[last:])])


def prose_only(text: str) -> str:
    """``text`` with its code blanked out (same length, so offsets hold)."""
    return _CODE.sub(lambda m: " " * len(m.group()), text)


def cited_numbers(text: str) -> list[int]:
    """Numbers cited in text (outside code), in order of first appearance."""
    seen: list[int] = []
    for match in _GROUP.finditer(prose_only(text)):
        for number in _numbers(match.group(1)):
            if number not in seen:
                seen.append(number)
    return seen


def remove_invalid(text: str, valid: Iterable[int]) -> tuple[str, int]:
    """Drop citations to numbers that are not in ``valid``; return text and how many."""
    allowed = set(valid)
    removed = 0

    def keep_valid(match: re.Match[str]) -> str:
        nonlocal removed
        numbers = _numbers(match.group(2))
        good = [n for n in numbers if n in allowed]
        removed += len(numbers) - len(good)
        if not good:  # no blanks left before the punctuation that followed
            return "" if match.group(3) else match.group(1)
        return match.group(1) + "".join(f"[{n}]" for n in dict.fromkeys(good))

    return in_prose(text, lambda part: _SPACED_GROUP.sub(keep_valid, part)), removed


def renumber(text: str, sources: list[Source]) -> tuple[str, list[Source]]:
    """Renumber cited sources 1..k by first citation; return text and the cited sources."""
    registry = {s["number"]: s for s in sources}
    order = [n for n in cited_numbers(text) if n in registry]
    mapping = {old: new for new, old in enumerate(order, start=1)}

    def apply(match: re.Match[str]) -> str:
        return "".join(f"[{mapping[n]}]" for n in _numbers(match.group(1)) if n in mapping)

    renumbered = in_prose(text, lambda part: _GROUP.sub(apply, part))
    cited = [dict(registry[old], number=new) for old, new in mapping.items()]
    return renumbered, cited  # type: ignore[return-value]


def sources_section(cited: list[Source]) -> str:
    """The Markdown ``Sources`` list for exactly the cited sources."""
    lines = ["## Sources", ""]
    for source in cited:
        title = source["title"] or source["url"]
        by = byline(source)
        link = source.get("link")
        lines.append(
            f"{source['number']}. {title}{f' — {by}' if by else ''}{f' — {link}' if link else ''}"
            f" — {source['url']}"
        )
    return "\n".join(lines) + "\n"


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.split(r"[,;]", group) if n.strip().isdigit()]


def remap(text: str, mapping: dict[int, int]) -> str:
    """Rewrite citation numbers through ``mapping``; numbers it lacks are dropped."""

    def apply(match: re.Match[str]) -> str:
        return "".join(f"[{mapping[n]}]" for n in _numbers(match.group(1)) if n in mapping)

    return in_prose(text, lambda part: _GROUP.sub(apply, part))


def defuse(text: str) -> str:
    """Quoted source text must not carry citations of its own: ``[2]`` becomes ``(2)``."""
    return _GROUP.sub(lambda m: f"({m.group(1)})", text)
