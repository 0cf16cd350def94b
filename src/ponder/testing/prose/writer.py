"""The model that writes a generated report in a real research run.

A full ``ponder.stream`` run searches a folder holding the report's pages (``search=local``)
against the rig, whose scripted model plans one query per section, summarises each source
block it is shown as one finding citing that block's number, and then streams the report a
word at a time. The report must cite the run's own source numbers, and the model only
knows those from its prompt, as a real model would: the REPORT prompt's excerpts name
each page's number and address, and its notes cite each page's finding with its number,
so each page's number is read from there (a note only when one page alone holds it), and,
for a page neither names, from the source block the model was shown while summarising.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ponder.core.result import Report
from ponder.testing.prose.markdown import render
from ponder.testing.prose.model import GeneratedReport, contains, tokens
from ponder.testing.replies import ChatRequest, Reply, ScriptedBackend
from ponder.testing.server import Rig

_BLOCK = re.compile(r'<source n="(\d+)"[^>]*url="([^"]*)"[^>]*>\n(.*?)\n</source>', re.S)
_NOTE = re.compile(r"^- (.*?)((?:\s*\[\d+\])+)\s*$", re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# A capable model's budgets: room for a long report, every source shown to the summary.
RUN_SETTINGS: dict[str, Any] = {
    "mode": "loop",
    "max_loops": 1,
    "allow_clarification": False,
    "num_ctx": 16384,
    "num_predict": 8192,
    "queries_per_round": 8,
    "results_per_query": 10,
    "evidence_tokens": 8000,
    "cache": False,
}


@dataclass
class ProseWriter:
    report: GeneratedReport
    shown: dict[int, int] = field(default_factory=dict)  # page -> number, from source blocks
    numbers: dict[int, int] = field(default_factory=dict)  # page -> number the report cites
    written: list[str] = field(default_factory=list)  # the report text of every attempt

    def backend(self) -> ScriptedBackend:
        overrides = {"QueryPlan": self.queries, "SummaryUpdate": self.summary, "text": self.write}
        return ScriptedBackend(overrides=overrides)

    def page_of(self, url: str) -> int | None:
        name = Path(url).name
        return next((i for i, e in enumerate(self.report.pages) if e.file_name == name), None)

    def queries(self, request: ChatRequest) -> dict[str, Any]:
        """One query a page: its subject and its first section's heading."""
        schema = request.format if isinstance(request.format, dict) else {}
        limit = int(schema.get("properties", {}).get("queries", {}).get("maxItems", 1))
        queries = [
            f"{e.subject} {next(w.heading for w in e.windows if w.level > 1)}"[:120]
            for e in self.report.pages
            if any(w.level > 1 for w in e.windows)
        ]
        return {"rationale": "One search for each page of the report.", "queries": queries[:limit]}

    def summary(self, request: ChatRequest) -> dict[str, Any]:
        """One finding per source block: a sentence of the report that the block holds."""
        findings = []
        for number, url, text in _BLOCK.findall(str(request.messages[-1]["content"])):
            page = self.page_of(url)
            if page is not None:
                self.shown.setdefault(page, int(number))
            statement = self._sentence_in(page, tokens(text)) or _first_sentence(text)
            if statement:
                findings.append({"statement": statement, "sources": [int(number)]})
        return {"findings": findings[:8]}

    def _sentence_in(self, page: int | None, block: list[str]) -> str:
        for unit in self.report.units():
            sentence = "\t" not in unit.text and len(unit.text) <= 240
            long_enough = len(unit.text.split()) >= 6
            if (
                unit.page == page
                and sentence
                and long_enough
                and contains(block, tokens(unit.text))
            ):
                return unit.text
        return ""

    def write(self, request: ChatRequest) -> Reply:
        prompt = str(request.messages[-1]["content"])
        for number, url, _ in _BLOCK.findall(prompt):  # an excerpt names its page
            page = self.page_of(url)
            if page is not None:
                self.numbers.setdefault(page, int(number))
        texts = [e.words for e in self.report.pages]
        for statement, cites in _NOTE.findall(prompt):  # a note only if one page holds it
            number = int(re.findall(r"\d+", cites)[0])
            holders = [p for p, text in enumerate(texts) if contains(text, tokens(statement))]
            if len(holders) == 1 and number not in self.numbers.values():
                self.numbers.setdefault(holders[0], number)
        for page, number in self.shown.items():
            self.numbers.setdefault(page, number)
        markdown = render(self.report, self.numbers)
        self.written.append(markdown)
        return Reply(pieces=re.findall(r"\S+\s*", markdown))


def _first_sentence(text: str) -> str:
    """The first sentence of five words or more in a block, within one passage."""
    for passage in text.split("…"):
        for sentence in _SENTENCE_END.split(" ".join(passage.split())):
            if len(sentence.split()) >= 5:
                return sentence[:240]
    return ""


@dataclass
class Written:
    """A finished run of one generated report."""

    report: GeneratedReport
    writer: ProseWriter
    result: Report
    discarded: list[str]  # why each withdrawn attempt was withdrawn (progress events)
    wall_seconds: float


async def write_in_a_run(report: GeneratedReport, folder: Path, **settings: Any) -> Written:
    """Research ``report.title`` over its pages with the rig's model writing ``report``."""
    import ponder

    report.write_pages(folder)
    writer = ProseWriter(report)
    discarded: list[str] = []
    result: Report | None = None
    with Rig(writer.backend(), models=("scripted",)) as rig:
        config = {**RUN_SETTINGS, **settings}
        started = time.perf_counter()
        stream = ponder.stream(
            report.topic,
            model="scripted",
            ollama_base_url=rig.url,
            search="local",
            docs=[str(folder)],
            **config,
        )
        async for item in stream:
            if isinstance(item, Report):
                result = item
            elif item.kind == "discarded":
                discarded.append(str(item.data.get("reason", "")))
        wall = time.perf_counter() - started
    assert result is not None, "a run always ends with its report"
    return Written(report, writer, result, discarded, round(wall, 3))
