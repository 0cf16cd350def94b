"""What each benchmark measures and how to run it again, as docs/benchmarks.md says it.

Prose that does not change from run to run; the figures come from bench/results.json
(:mod:`render`). One :class:`Part` per section of the page, in the page's order.
"""

from __future__ import annotations

from dataclasses import dataclass

PY = ".venv/bin/python"


@dataclass(frozen=True)
class Part:
    key: str  # its figures' name in results.json
    title: str
    text: str
    rerun: str
    also: tuple[str, ...] = ()  # other names in results.json whose rows and time it shows

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.key, *self.also)


INTRO = """
Every benchmark runs on one machine against ponder's test rig — scripted replies, or a
real tiny model (gemma3 270M, SmolLM2 135M, multilingual-e5-small) behind the Ollama
API — over corpora generated at run time; nothing leaves 127.0.0.1. A figure with a target
says whether it met it (✓ or ✗). A "before" row is the reference a target is measured
against: the same benchmark run on the code before the change it judged, kept in
`bench/*-before.json`.
"""

RUNNING = """
- `make bench` runs every part below except SmolLM2's and the held-out questions', writes
  `bench/results.json` and rewrites this page and the README's headline figures from it.
- `make bench-quick` measures the headline figures in a few minutes: the 270M model on the
  first 6 quality questions and the first 3 two-part questions, the first 10 strong-prose
  reports of each pass, and the paraphrased questions. It prints each figure beside the
  last full run's figure for the same questions and writes `.bench/quick.json`; it changes
  neither results.json nor this page.
- `make bench-heldout` runs the held-out questions (below) with the 270M model, over the
  three search shapes and both halves (about 45 min; the first run also embeds the docs
  with e5-small, about 40 min more), and adds their rows here.
- `make bench-zim` runs the Kiwix ZIM benchmark (below) with the 270M model (about 40 min)
  and adds its rows here.
- `make bench-smol` runs the quality benchmark's 24 questions with SmolLM2 (about half a
  minute a question on two idle cores) and adds its row to the figures here.
- `.venv/bin/python bench/run.py --only PART …` runs some parts again (names as in
  results.json: `quality`, `multipart`, `strong_prose`, `paraphrase`, `documents`, …); their
  figures replace the old ones and this page is written again.
"""

PARTS = [
    Part(
        "quality",
        "Research quality",
        """
24 questions written as a user asks them ("How do I insert items into a list and keep it
sorted?"), each answered by one page of a corpus rendered at run time from pydoc: the
answer pages and distractors that share their vocabulary. Each question is researched with
`search=local`, `max_loops=2`, `mode=loop` and otherwise default settings (`num_predict`
1024, as a new user has it). A question's answer page is *found* when it is among the run's
sources and *cited* when the report cites it. Two checks are made here, independently of
ponder's own guards: six consecutive words of a prompt in the report (ponder's stream check
stops a text at ten), and a line of the report repeated. The model's own text is a report
the model wrote, whole or cut where it degenerated and completed from the findings;
otherwise the report is the extractive one.

Three models: the scripted rig (deterministic replies), gemma3 270M (a base model that
echoes its prompt and loops) and SmolLM2-135M-Instruct (topical prose that cites nothing;
`make bench-smol`). Target with gemma3 270M: the answer page found for at least 90 % of the
questions, at fewer tokens per question than before the guards. The tiny models sample and
their prompts hold the date and the run's temporary paths, so from run to run their
"cited" moves by a question or two. The question keyword search misses (`enum`, "a set of
named constant values as a class") shares no distinctive word with its page; semantic
search can find it.
""",
        f"{PY} bench/quality.py --backend tiny|smol|scripted|all [--limit N] [--samples DIR]",
        also=("smol",),
    ),
    Part(
        "multipart",
        "Questions with several parts",
        """
12 questions that join two things two pydoc pages answer ("How do I send pickled objects
over a socket?": pickle and socket), researched as the quality benchmark's are, over its
pages plus socket, datetime and xml.etree.ElementTree. Figures: both pages among the
sources, both cited, sources kept, tokens and wall time per question. "Before" is the code
before a question's parts were searched each on its own. Target with gemma3 270M: both
pages cited for at least 10 of the 12, at no more tokens per question than the quality
benchmark's single-part questions. The scripted rig writes its report from the last
round's summary only, so it cites both pages only when both are in that summary.
""",
        f"{PY} bench/multipart.py --backend tiny|scripted|all [--limit N]",
    ),
    Part(
        "heldout",
        "Held-out questions",
        """
Questions nobody at ponder wrote, and no rule of ponder's was fitted to: those of the Python
FAQ (`faq/library.html`, `faq/programming.html` in Debian's `python3.11-doc`) whose own
answer links one or two library pages, 43 in all (22 with one page, 21 with two). The
linked pages are the answer ("gold") pages; the FAQ pages are left out of the corpus, which
is every other page of the HTML docs. Each set is split by a fixed rule, the first byte of
the question's SHA-1: even is the **development half** (24 questions), odd the **test
half** (19). Rules may be tuned on the development half; the test half is only read.

Each question is researched as a new user would (`mode=loop`, `max_loops=2`, defaults
otherwise) over the search shapes users have: `local`, `search=local` over the pages;
`web`, a SearXNG-shaped server over the same pages that answers with snippets only, as
most web search does, ranking by SQLite FTS5's own BM25 over each page's text (not
ponder's); and `hybrid`, `search=local` with semantic search on (`embed_model=e5-small`,
inside ponder), as a user who embedded the folder has it (the pages are embedded once, about
35 min on two cores, and kept in `.cache/heldout`). *Found*: every gold page is among the
run's sources; *cited*: every gold page is cited by the report; a found but uncited gold
page is a failure. Tokens are per question.
"Before" is the code before found pages were quoted for certain (issue 33). The 270M model
is run as users run it, so its answers, and the tokens of `local` runs, vary a little from
run to run. Targets on the test half: cited for at least 90 % of one-page
questions and both pages for at least 80 % of two-page ones, at no more tokens than before.
""",
        f"{PY} bench/heldout.py [--backend tiny|scripted] [--shape local|web|hybrid|all] "
        "[--half dev|test|all]",
    ),
    Part(
        "zim",
        "Kiwix ZIM archives",
        """
The Python docs' 317 library pages (Debian's `python3.11-doc`) written at run time into two
ZIM archives with libzim, as Kiwix's scrapers write them: one with a full-text (Xapian)
index, one with titles only. The quality benchmark's 24 questions are asked of each
archive (`search=zim`) and of the same pages as documents (`search=local`): the answer page
among the first three results without a model (and for the Python FAQ's 43 questions),
then found and cited by a run with gemma3 270M (`mode=loop`, `max_loops=2`). Targets: the
full-text archive's answer page cited as often as the folder's, the titles-only archive's at
least two thirds as often. Latency is one search through the backend as a run makes it (the
archive searched and its three articles read in a parsing worker), median and slowest over
the 24 questions, on archives of 100 pages, the whole HTML docs (530) and four copies of
them (2,120).
""",
        f"{PY} bench/zim.py [--backend tiny|scripted] [--limit N]",
    ),
    Part(
        "strong_prose",
        "Strong prose: a capable model's report",
        """
What ponder does to a report a capable model writes. Human-written text stands in for the
model: `ponder.testing.prose` arranges 3–6 related pages of Debian's `python3.11-doc` (a
HOWTO or tutorial chapter and pages it links to, fetched by `make docs`) into
report-shaped Markdown, every sentence, list item and table row the documentation's own and
cited to its page. Only the arrangement is generated, by seed: a title repeated as the
first heading, an uncited introduction of more than 200 words, an outline whose items
return as headings, one sub-heading under several sections, a table "at a glance", closing
"key takeaways" that repeat sentences, code blocks. Each report is written in a full run
(`search=local` over its pages, `mode=loop`, one round, `num_ctx` 16,384 and `num_predict`
8,192, as a capable model has them), the scripted model streaming it a word at a time.

*Kept whole*: the body is the model's text; only the title line, the Sources list and the
citations' numbering differ. A second pass points 30 % of the citations at another
retrieved page: *citation precision* is the share of cited sentences whose citations all
name a page that holds them. Misdirected citations that stay wrong are those whose sentence
the run never read (a one-round local search reads only part of the cited text): such a
sentence is marked `[unsupported]` rather than re-pointed on a guess. Targets: at least
98 % kept whole, at least 95 % precise with citations misdirected, and no supported
sentence losing its citation.
""",
        f"{PY} bench/strong_prose.py [--reports 50] [--misdirect 0.3]",
    ),
    Part(
        "paraphrase",
        "What semantic search buys",
        """
36 questions worded unlike their answer page ("How do I reflow a long paragraph so that no
line is wider than 70 columns?" → `textwrap`), over pydoc pages of their modules and of
distractors; multilingual-e5-small answers the rig's `/api/embed`, as ponder calls Ollama.
The first 16 questions shaped the score fusion, the next 12 were written down before any method's
ranking of them was seen, the last 8 were held out until the fusion was settled. Two checks
of what keyword search does well: questions naming an identifier of their page ("What does
limit_denominator return?" → `fractions`) and the quality benchmark's questions whose page
is in this corpus. Columns are these sets (with their sizes); each cell is the answer page
ranked first / among the first three. Target: hybrid in the first three for at least 90 %
of the paraphrased questions, losing none that BM25 finds. The corpus and its vectors are
kept in `.cache/paraphrase`: only a first run (or `--fresh`) embeds, and only such a run
measures the embedding rate.
""",
        f"{PY} bench/paraphrase.py [--fresh]",
    ),
    Part(
        "documents",
        "Indexing your documents",
        """
A corpus generated at run time: the page pydoc's HTML renderer writes for every
standard-library module that imports, and PDFs typeset from pydoc's text with reportlab.
Text extraction alone, in one process, against what local files were read with before
(trafilatura for HTML, pypdf for PDF); then whole index builds (read, extract, cut
passages, write SQLite) in one process and in ponder's parsing workers, one per core.
Targets: at least 100 HTML files/s on two cores; PDF pages/s at least 5× pypdf's.
Extraction rates swing with the machine's load: read the ratios.
""",
        f"{PY} bench/documents.py",
    ),
    Part(
        "formats",
        "Your documents in every format",
        """
Sixty pages of Debian's python3.11-doc, written at run time by pandoc as DOCX, ODT, EPUB,
PPTX, Jupyter notebooks, LaTeX, Org and Markdown with front matter, beside the pages' own
HTML. The questions are the Python FAQ's (written by people for another purpose) whose
answer links one library page: twelve of them give their answer pages, and pages other
answers link, then other library pages, fill the corpus. Each format's folder is indexed
as `ponder index` does it and each question searched as a run's first query is (the
question itself, the three best files). Target: every format finds the answer pages the
HTML originals find. Before, every format but Markdown found none: their files were left
out of the index. The HTML originals' own figure is the search's reach on these questions,
not the readers'.
""",
        f"{PY} bench/formats.py",
    ),
    Part(
        "semantic",
        "Vector store and hybrid query cost",
        """
100,000 random unit vectors of 768 dimensions stored as `ponder index --embed-model` stores
them: query latency of ponder's exact search over a memory-mapped float32 matrix (numpy)
against the sqlite-vec extension (float32 and int8, loaded through apsw). Then pydoc's text
for about 150 modules, embedded through the rig's deterministic trigram embedder: a query with
BM25 alone and with BM25 and vectors fused, the query's embedding included. And gemma3
270M embedding passages on this CPU, to show what a chat model costs as an embedder.
""",
        f"{PY} bench/vectors.py",
    ),
    Part(
        "search",
        "Local search and the page reader",
        """
1,000 and 10,000 generated documents indexed: documents per second and query latency
(targets: at least 300 documents/s, p50 under 10 ms and p95 under 50 ms at 10,000). Ten
pages read at once from a server that waits 0.3 s per page, against one (target: at most
twice the time).
""",
        f"{PY} bench/bench_search.py",
    ),
    Part(
        "growth_scripted",
        "Cost per run and prompt growth",
        """
Prompt tokens per round over the eight rounds of one run, with the scripted model (writing
long findings, so the summary is at its budget from round 2) and with gemma3 270M: no round
after the second may cost more than 15 % above the larger of the first two. A round that
read nothing new makes no summary call, and the last round asks no reflection, so the
figures fall and vary rather than stay flat. Then what runs cost with gemma3 270M: focused
runs of 1, 2 and 3 rounds (its "sufficient" overruled so every round runs) and a deep run
with three researchers, and ponder's own time in the 3-round run — the wall time not spent
waiting on the model or search (target under 2 %). The tiny model answers one request at a
time, so its deep run shows cost, not parallelism (measured below, with the scripted rig).
""",
        f"{PY} bench/run.py --only growth_scripted tiny --tiny-growth",
        also=("tiny",),
    ),
    Part(
        "parallel_queries",
        "Parallelism",
        """
A round of 5 queries against a SearXNG that answers each after 0.5 s, against a round of
one (target: at most 1.5×). Three researchers at once against one at a time, the rig
answering each call after 0.3 s (target: the researcher phase at least 2.5× faster; the
brief, supervisor and report steps stay serial). A deep run with 4 researchers on two
Ollama hosts that each answer one call at a time, against one such host (target at least
1.7× faster; 1.8× is the ceiling for its 32 research calls and 4 serial ones).
""",
        f"{PY} bench/run.py --only parallel_queries parallel_researchers several_hosts",
        also=("parallel_researchers", "several_hosts"),
    ),
    Part(
        "ui",
        "The web page",
        """
The same focused runs of the scripted model through the Python API and through `ponder ui`
with a browser tab following them, in turns, at two paces of model answers: 0.2 s (the
page's fixed cost shows whole) and 3 s (about what a 4B model on a laptop GPU takes for a
structured answer; the target applies here: the page adds under 1 %). The time from the
click to the checked report on the page; each streamed piece's way from the rig to the
page's draft (target: median under 100 ms); the first contentful paint of the ask page and
of a report's page (target under 300 ms). Chromium is Debian's, driven by Playwright.
How much page a finished focused report takes, its sources folded as the page shows them:
the quality benchmark's first question, researched by the scripted rig over that
benchmark's corpus and asked from the page, its height in window heights (target at
1280×900: at most 1.5; issue 46 measured 6,264 px, 7 windows, before the sources folded).
""",
        f"{PY} bench/run.py --only ui ui_height",
        also=("ui_height",),
    ),
    Part(
        "hostile",
        "Hostile pages",
        """
One focused run whose search results lead to pages built to hurt a reader — title and
script floods, 100,000 nested elements, a 2.9 MB page on one line, gzip inside gzip, a page
trickling a byte every 2 s, an endless stream, silence after the headers, a redirect loop,
a PDF of 200,000 pages and one that inflates to 2 GB — beside an honest page, read in full.
Wall time and the peak memory of the run's process tree, ponder's parsing workers included
(targets: under 30 s and 1 GB). Before ponder read untrusted bytes under hard limits, the
run was stopped at 300 s.
""",
        f"{PY} bench/run.py --only hostile",
    ),
    Part(
        "exports",
        "Exports",
        """
The deep pipeline's report of twenty and more cited sources over the Python docs' HTML
pages (the scripted rig, ten researchers in two rounds), exported in each format the page,
the command line and `ponder.export` offer, on this machine with nothing from the network:
the first export of a process (it loads Typst's compiler and fonts, or python-docx's
template) and the median of the next five (target: the PDF in under 5 s).
""",
        f"{PY} bench/run.py --only exports",
    ),
    Part(
        "budgets",
        "Budgets",
        """
A focused run of six rounds over the Python docs' HTML pages, with the scripted rig paced
as a slow local model (2 s a call and 30 ms a token written): with a time budget of 60 %
of the unbudgeted run's time (target: it ends no later than 10 % past its budget, with a
cited report), and with token budgets of 50, 70 and 90 % of the unbudgeted run's tokens as
the rig counts them (target: never more, always a cited report). A budget keeps room for a
round a quarter costlier than the average and for a report at least 256 tokens long at the
pace the run measured, so a budgeted run ends early rather than late. The unbudgeted
run's estimates of its time left, one each round, beside the time it really had left, and
those of a deep run of four rounds of researchers (target: within 25 % from mid-run on).
""",
        f"{PY} bench/run.py --only budgets",
    ),
    Part(
        "budgets_tiny",
        "Budgets with the tiny model",
        """
The tiny model (gemma3 270M) as a newcomer runs it: the default mode, where a broad verdict
hands the question to the deep pipeline and its researchers share the one model server,
over the Python docs' HTML pages. An unbudgeted run, then a time budget of 60 % of its
wall time (target: it ends no later than 10 % past it, with a cited report) and a token
budget of 60 % of its tokens as the model server counts them (target: never more, with a
cited report).
""",
        f"{PY} bench/run.py --only budgets_tiny",
    ),
    Part(
        "watches",
        "Watches",
        """
A watched question over the Python docs' HTML pages with the tiny model (gemma3 270M, one
round a run), run again after each change to the folder: none; a fact changed in a page the
first report cites; that page removed; a page added. Targets: the unchanged folder gives
"nothing changed" however the model words its report; the change report names exactly the
page changed, removed or added (the added one when the run read it) and no other.
""",
        f"{PY} bench/run.py --only watches",
    ),
    Part(
        "startup",
        "Start-up",
        """
`import ponder` and `ponder --help` in fresh processes, beside a bare Python (median of 5).
""",
        f"{PY} bench/run.py --only startup",
    ),
]
