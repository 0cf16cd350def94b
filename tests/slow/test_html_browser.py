"""The HTML report in a real browser (Debian's Chromium, driven by Playwright): hovering a
citation shows the passage it rests on; clicking it shows that passage, marked, in the
source's entry. A screenshot of the hover is kept in ``test-output/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import over_corpus

from ponder import Report, research
from ponder.interfaces.html import render_html
from ponder.testing import Rig, ScriptedBackend

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"


def opened(browser: object, report: Report, tmp_path: Path, **context: str) -> Any:
    """The report's HTML export written to a file and opened in a new tab."""
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    page = browser.new_page(**context)  # type: ignore[attr-defined]
    page.goto(page_file.as_uri())
    return page


def test_a_citation_shows_its_passage_on_hover_and_marks_it_on_click(
    rig: Rig, corpus: Path, tmp_path: Path, browser: object
) -> None:
    report = research("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    assert report.citations, "the rig's model cites its notes"
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    first = report.citations[0]
    source = next(s for s in report.cited_sources() if s.number == first.number)

    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(page_file.as_uri())
    cite = page.locator(".cited a.cite").first
    evidence = page.locator(".cited .evidence").first
    assert not evidence.is_visible()
    cite.hover()
    assert evidence.is_visible()
    shown = " ".join(evidence.inner_text().split())
    assert first.quote[:60] in shown and source.title in shown
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "html-citation-hover.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")

    passages = page.locator("ol.sources blockquote.passage")
    assert passages.count() and not any(
        passages.nth(i).is_visible() for i in range(passages.count())
    ), "the sources' passages are folded: the report comes first"
    cite.click()
    assert page.url.endswith(f"#source-{first.number}")
    marked = page.locator(f"#source-{first.number} mark").first
    assert marked.is_visible() and first.quote[:40] in " ".join(marked.inner_text().split())
    page.close()


def _luminance(rgb: str) -> float:
    """Relative luminance (WCAG) of a computed ``rgb(r, g, b)``."""
    values = [int(v) / 255 for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_in_the_dark_theme_every_link_is_readable(
    rig: Rig, corpus: Path, tmp_path: Path, browser: object
) -> None:
    """WCAG's 4.5:1 for text, between each link and the page (it was browser blue on black)."""
    report = research("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    page = opened(browser, report, tmp_path, color_scheme="dark")
    background = _luminance(page.evaluate("getComputedStyle(document.body).backgroundColor"))
    colours = page.eval_on_selector_all("a", "els => els.map(e => getComputedStyle(e).color)")
    assert colours, "the report has links (its citations)"
    for colour in set(colours):
        light, dark = sorted((_luminance(colour), background), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, colour
    page.close()


def _printed(page: object) -> str:
    """What the browser prints of the page (its PDF's text, as a printer gets it)."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(page.pdf())  # type: ignore[attr-defined]
    text = "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    return " ".join(text.replace("\ufffe", "-").split())  # pdfium's mark of a line broken at "-"


def test_printed_the_sources_paths_stay_and_their_passages_only_when_opened(
    rig: Rig, corpus: Path, tmp_path: Path, browser: object
) -> None:
    report = research("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    source = report.cited_sources()[0]
    # A stretch of what was read that the report's own sentences do not repeat.
    body = " ".join(report.markdown.split())
    unread = next(
        " ".join(words[i : i + 6])
        for words in (p.split() for p in source.passages)
        for i in range(len(words) - 6)
        if " ".join(words[i : i + 6]) not in body
    )
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(page_file.as_uri())
    printed = _printed(page)
    unwrapped = printed.replace(" ", "")  # a long path wraps anywhere
    assert source.url.replace(" ", "") in unwrapped, "a source's address is printed"
    assert unread not in printed, "the passages are left out of a print"
    heading = report.markdown.splitlines()[0].lstrip("# ").strip()
    assert printed.count(heading) == 1, "the title is printed once"
    page.evaluate(f"document.querySelector('#source-{source.number} details').open = true")
    assert unread in _printed(page), "a source opened before printing prints its passages"
    page.close()


# What the rig's model writes for the report: a comparison as a pipe table, citing the
# corpus' pages, as a capable model writes one.
TABLE_REPORT = (
    "# Tides\n\nSpring and neap tides differ in how the Sun and Moon line up [1].\n\n"
    "| Tide | When it happens |\n|---|---|\n"
    "| Spring tide | the Sun and Moon align [1] |\n"
    "| Neap tide | the Sun and Moon are at right angles [1] |\n"
)


def test_a_table_the_model_writes_is_a_table_on_screen_and_printed(
    scripted: ScriptedBackend, rig: Rig, corpus: Path, tmp_path: Path, browser: object
) -> None:
    scripted.overrides["text"] = lambda _r: TABLE_REPORT
    report = research("How do spring and neap tides differ?", **over_corpus(rig, corpus))
    page = opened(browser, report, tmp_path)
    for media in ("screen", "print"):
        page.emulate_media(media=media)
        rows = page.locator("table.written tr")
        assert rows.count() == 3, media
        for index in range(3):
            cells = [rows.nth(index).locator("th, td").nth(i).bounding_box() for i in (0, 1)]
            assert cells[0] and cells[1] and cells[0]["y"] == cells[1]["y"], (media, index)
            assert cells[0]["x"] + cells[0]["width"] <= cells[1]["x"], "side by side"
    printed = _printed(page)
    assert "Neap tide" in printed and "| Neap" not in printed and "|---" not in printed
    page.close()
