"""What one run of a watch read, kept so that the next run can say what changed.

A snapshot holds:

- the *manifest* of the run's document folders: every file with its size, modification
  time and content hash (the hash the index uses), so that a file the next run reads for
  the first time is told apart from a file that is new;
- the text of each source the run read, and of each document the run before it read
  (read again now), so that a claim is compared with the text it rests on;
- the report's claims: each cited sentence with the span of the passage it rests on.

Documents are read again through the index's readers, in its parsing workers, under the
same limits (:mod:`ponder.services.search.backends.local.reading`). A web page is not
fetched again: what the run read of it stands for it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ponder.core.result import Report
from ponder.core.sources import source_key
from ponder.services.search.backends.local.files import discover
from ponder.services.search.backends.local.formats import SkipFile
from ponder.services.search.backends.local.index import resolve_roots
from ponder.services.search.backends.local.indexer import MAX_FILE_BYTES
from ponder.services.search.backends.local.reading import (
    Job,
    content_hash,
    extracted,
    pool_size,
    read_bytes,
)

Snapshot = dict[str, Any]
Manifest = dict[str, list[Any]]  # path -> [mtime_ns, size, digest]


def take(
    report: Report, roots: list[str], previous: Snapshot | None, hidden: bool = False
) -> Snapshot:
    """The snapshot of a finished run whose document folders are ``roots`` (``hidden``:
    their hidden files and links out are documents too, as the operator allows)."""
    before = previous or {}
    manifest = _manifest(roots, before.get("manifest") or {}, hidden)
    sources: dict[str, dict[str, Any]] = {}
    for ref in report.sources:
        sources[source_key(ref.url)] = {
            "url": ref.url, "title": ref.title, "origin": ref.origin, "read": True,
            "digest": "", "text": "\n".join(ref.passages),
        }  # fmt: skip
    for key, earlier in (before.get("sources") or {}).items():
        if earlier.get("read") and is_file(earlier) and key not in sources:
            sources[key] = {**earlier, "read": False}  # its text: read again below
    _read_files(sources, manifest, before.get("sources") or {})
    return {
        "taken": time.time(),
        "thread_id": report.thread_id,
        "manifest": manifest,
        "sources": sources,
        "claims": findings_of(report),
    }


def flat(text: str) -> str:
    """Text as quotes are compared: whitespace collapsed, an ellipsis a gap."""
    return " ".join(text.replace("…", " ").split())


def is_file(source: dict[str, Any]) -> bool:
    """A document of the person's own (read again from disk), not a page or an article."""
    return source.get("origin") == "local" and os.path.isabs(str(source.get("url") or ""))


def findings_of(report: Report) -> list[dict[str, Any]]:
    """The report's findings: each cited sentence with the span it rests on, or, for an
    extractive report, each passage it quotes."""
    by_url = {ref.url: ref for ref in report.sources}
    claims = []
    for citation in report.citations:
        ref = by_url.get(citation.url)
        passages = ref.passages if ref else []
        passage = passages[citation.passage] if 0 <= citation.passage < len(passages) else ""
        claims.append(
            {
                "sentence": citation.sentence,
                "url": citation.url,
                "title": ref.title if ref else citation.url,
                "quote": citation.quote or passage,
            }
        )
    return claims or _quoted(report)


def _quoted(report: Report) -> list[dict[str, Any]]:
    """An extractive report's findings (a small model's prose was unusable): each passage
    it quotes, with the cited source whose passages hold it."""
    cited = report.cited_sources()
    claims = []
    for quote in _block_quotes(report.markdown):
        said = flat(quote)
        for ref in cited:
            if any(said in flat(passage) for passage in ref.passages):
                sentence = said if len(said) <= 200 else said[:199] + "…"
                claims.append({"sentence": sentence, "url": ref.url, "title": ref.title,
                               "quote": said})  # fmt: skip
                break
    return claims


def _block_quotes(markdown: str) -> list[str]:
    """The paragraphs of the Markdown's block quotes (an attribution line left out)."""
    paragraphs, lines = [], []
    for line in [*markdown.splitlines(), ""]:
        text = line[1:].strip() if line.startswith(">") else None
        if text:
            lines.append(text)
            continue
        if lines and not lines[0].startswith("—"):
            paragraphs.append(" ".join(lines))
        lines = []
    return paragraphs


def _manifest(roots: list[str], earlier: Manifest, hidden: bool) -> Manifest:
    """Every file under ``roots`` with its content hash: read again only when its size or
    modification time moved since ``earlier``."""
    if not roots:
        return {}
    found = discover(resolve_roots(roots), hidden=hidden)
    manifest: Manifest = {}
    for path, (mtime_ns, size) in found.files.items():
        if path in found.refused:
            continue
        kept = earlier.get(path)
        if kept and kept[0] == mtime_ns and kept[1] == size:
            manifest[path] = kept
        elif (digest := _digest(path, mtime_ns, size)) is not None:
            manifest[path] = [mtime_ns, size, digest]
    return manifest


def _digest(path: str, mtime_ns: int, size: int) -> str | None:
    """The file's content hash, as the index computes it; None when it cannot be read."""
    try:
        data = read_bytes(Job(path, (mtime_ns, size), None, MAX_FILE_BYTES))
    except (OSError, SkipFile):
        return None
    return content_hash(data)


def _read_files(
    sources: dict[str, dict[str, Any]], manifest: Manifest, earlier: dict[str, dict[str, Any]]
) -> None:
    """Each document's hash and whole text as it is now; one that is gone, or can no
    longer be read, is left out (the comparison says it is gone)."""
    jobs: list[tuple[str, Job]] = []
    for key, source in list(sources.items()):
        if not is_file(source):
            source["digest"] = _text_digest(source["text"])
            continue
        path = source["url"]
        entry = manifest.get(path) or _outside(path)
        if entry is None:
            del sources[key]
            continue
        source["digest"] = entry[2]
        before = earlier.get(key)
        if before and before.get("digest") == entry[2] and before.get("text"):
            source["text"] = before["text"]  # unchanged: no need to read it again
        else:
            jobs.append((key, Job(path, (entry[0], entry[1]), None, MAX_FILE_BYTES)))
    reading = [job for _, job in jobs]
    for (key, _), result in zip(jobs, extracted(reading, pool_size(reading)), strict=True):
        if result.skipped:
            del sources[key]
        else:
            sources[key]["text"] = result.text


def _outside(path: str) -> list[Any] | None:
    """A document the run read that lies outside its folders (a named file, a library's
    paper): its manifest entry, made now."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    digest = _digest(path, info.st_mtime_ns, info.st_size)
    return None if digest is None else [info.st_mtime_ns, info.st_size, digest]


def _text_digest(text: str) -> str:
    return content_hash(text.encode("utf-8"))
