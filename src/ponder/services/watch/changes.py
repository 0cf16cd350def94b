"""What changed between two runs of a watch: by source and by claim, never by wording.

A source is *new* when it was not there before (a document absent from the earlier run's
folders; a page that run did not read), *gone* when the document is no longer there, and
*changed* when its content hash moved. A claim (a cited sentence) is *new* when the text it
rests on is: its source is new, or changed and the quoted span was not in it before. A
claim *no longer holds* when its source is gone, or changed and the span is no longer in
it. Two reports worded differently over the same sources therefore change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ponder.core.sources import source_key
from ponder.services.watch.snapshot import Snapshot, flat, is_file

NEW, GONE, CHANGED, SAME = "new", "gone", "changed", "same"


@dataclass(frozen=True)
class Finding:
    sentence: str
    quote: str
    url: str
    title: str


@dataclass(frozen=True)
class SourceChange:
    kind: str  # new, changed or gone
    url: str
    title: str


@dataclass
class Changes:
    new_findings: list[Finding] = field(default_factory=list)
    gone_findings: list[Finding] = field(default_factory=list)
    sources: list[SourceChange] = field(default_factory=list)

    @property
    def nothing(self) -> bool:
        return not (self.new_findings or self.gone_findings or self.sources)

    def counts(self) -> dict[str, int]:
        kinds = [change.kind for change in self.sources]
        return {
            "new_findings": len(self.new_findings),
            "gone_findings": len(self.gone_findings),
            "new_sources": kinds.count(NEW),
            "changed_sources": kinds.count(CHANGED),
            "gone_sources": kinds.count(GONE),
        }


def compare(before: Snapshot, after: Snapshot) -> Changes:
    """What changed from the run ``before`` to the run ``after``."""
    status = _Status(before, after)
    changes = Changes()
    for key in sorted(status.keys()):
        kind = status.of(key)
        if kind != SAME and status.read_by_either(key):
            source = status.source(key)
            changes.sources.append(SourceChange(kind, source["url"], source["title"]))
    earlier_texts = before.get("sources") or {}
    later_texts = after.get("sources") or {}
    for claim in _distinct(after.get("claims") or []):
        key = source_key(claim.url)
        kind = status.of(key)
        earlier = earlier_texts.get(key)
        # A document changed that the earlier run did not read: its text then is unknown,
        # so its findings are not called new (the document is listed as changed).
        if kind == NEW or (kind == CHANGED and earlier and not _holds(claim, earlier)):
            changes.new_findings.append(claim)
    for claim in _distinct(before.get("claims") or []):
        key = source_key(claim.url)
        kind = status.of(key)
        if kind == GONE or (kind == CHANGED and not _holds(claim, later_texts.get(key))):
            changes.gone_findings.append(claim)
    return changes


class _Status:
    """Each source's fate between the two runs."""

    def __init__(self, before: Snapshot, after: Snapshot) -> None:
        self.before = before.get("sources") or {}
        self.after = after.get("sources") or {}
        self.manifest = before.get("manifest") or {}

    def keys(self) -> set[str]:
        return set(self.before) | set(self.after)

    def read_by_either(self, key: str) -> bool:
        return any((side.get(key) or {}).get("read") for side in (self.before, self.after))

    def source(self, key: str) -> dict[str, Any]:
        found: dict[str, Any] = self.after.get(key) or self.before[key]
        return found

    def of(self, key: str) -> str:
        earlier, later = self.before.get(key), self.after.get(key)
        if not is_file(earlier or later or {}):
            # A page or an article: not fetched again, so new only when first read.
            return NEW if earlier is None and later is not None else SAME
        was = earlier["digest"] if earlier else self._listed(later)
        now = later["digest"] if later else None
        if was is None:
            return NEW if now is not None else SAME
        if now is None:
            return GONE
        return SAME if was == now else CHANGED

    def _listed(self, later: dict[str, Any] | None) -> str | None:
        """A document the earlier run did not read: its hash then, if it was there."""
        entry = self.manifest.get((later or {}).get("url", ""))
        return entry[2] if entry else None


def _distinct(claims: list[dict[str, Any]]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    found = []
    for claim in claims:
        finding = Finding(claim["sentence"], claim["quote"], claim["url"], claim["title"])
        mark = (source_key(finding.url), flat(finding.quote))
        if mark not in seen:
            seen.add(mark)
            found.append(finding)
    return found


def _holds(claim: Finding, source: dict[str, Any] | None) -> bool:
    """Whether the span the claim rests on is in the source's text."""
    if not source or not claim.quote.strip():
        return False
    return flat(claim.quote) in flat(source.get("text") or "")
