"""The report's Markdown as HTML, on text people wrote for another purpose: the Python
docs' own examples (Debian's python3.11-doc, unpacked by `make docs`). Python names keep
their underscores, and a quoted interpreter session keeps its lines."""

from __future__ import annotations

import html
import re

from support import python_docs

from ponder.interfaces.html import markdown_to_html


def doc_sessions(page: str) -> list[str]:
    """The ``>>>`` sessions of a docs page, as plain text (as a model would quote them)."""
    text = (python_docs() / page).read_text(encoding="utf-8")
    blocks = re.findall(r"<pre>(.*?)</pre>", text, re.S)
    plain = [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]
    return [block.strip() for block in plain if block.lstrip().startswith(">>>")]


def test_a_quoted_session_keeps_each_line_and_its_names() -> None:
    sessions = doc_sessions("library/functools.html")
    assert sessions, "functools' page has examples"
    for session in sessions:
        rendered = markdown_to_html(f"The docs show it [1]:\n\n{session}\n\nThat is all.", {1})
        block = re.search(r"<pre><code[^>]*>(.*?)</code></pre>", rendered, re.S)
        assert block is not None, session
        assert html.unescape(block.group(1)).strip() == session.strip(), "every line, as written"
        assert "<blockquote>" not in rendered
        assert '<a class="cite" href="#source-1"' in rendered


def test_dunder_names_in_prose_are_not_bold() -> None:
    names = sorted(
        set(re.findall(r"\b__\w+__\b", " ".join(doc_sessions("library/functools.html"))))
    )
    text = (python_docs() / "library/functools.html").read_text(encoding="utf-8")
    names += sorted(set(re.findall(r"\b__[a-z]+__\b", text)))[:20]
    assert "__doc__" in names
    for name in names:
        rendered = markdown_to_html(f"Set `{name}` or {name} or obj.{name} on it [1].", {1})
        assert "<strong>" not in rendered and "<em>" not in rendered, name
        assert rendered.count(name) == 3, rendered


def test_emphasis_written_as_emphasis_still_renders() -> None:
    rendered = markdown_to_html("It is **very** likely and _quite_ so, unlike __init__.", set())
    assert "<strong>very</strong>" in rendered and "<em>quite</em>" in rendered
    assert "__init__" in rendered


def test_a_location_two_passages_share_is_named_once() -> None:
    from ponder.core.result import Report, RunStats, SourceRef
    from ponder.interfaces.html import render_html

    where = "chars 0-891; chars 15546-16731"
    source = SourceRef(
        number=1,
        cited=True,
        url="/docs/json.txt",
        title="json",
        origin="local",
        passages=["dump(obj, fp) writes JSON.", "load(fp) reads JSON."],
        locations=[where, where],
    )
    report = Report(
        topic="JSON",
        markdown="JSON is written with dump [1].",
        summary="",
        sources=[source],
        stats=RunStats(),
        thread_id="t",
    )
    assert render_html(report).count(where) == 1


def test_a_table_in_the_report_is_a_table_and_its_citations_are_links() -> None:
    """The docs' own tables, written as GFM pipe tables by pandoc, as a model writes one."""
    import pypandoc

    page = (python_docs() / "library/stdtypes.html").read_text(encoding="utf-8")
    for table in re.findall(r"<table.*?</table>", page, re.S)[:4]:
        rows = len(re.findall(r"<tr", table))
        written = pypandoc.convert_text(table, "gfm-raw_html", format="html").strip()
        assert written.startswith("|"), written
        rendered = markdown_to_html(f"Compared [1]:\n\n{written}\n\nAs the docs say [1].", {1})
        assert rendered.count('<table class="written">') == 1, rendered
        assert len(re.findall(r"<tr>", rendered)) == rows
        assert "|---" not in rendered and "| " not in rendered
        assert rendered.count('<a class="cite" href="#source-1"') == 2
