// The report as it is written: the server renders the draft so far with the report's own
// renderer (Markdown and tables, raw HTML escaped), and the page asks for it again whenever
// new text arrived, one request at a time. It sits where the report will be; the page
// brings it into view once, then keeps its newest line in view unless the person scrolled
// away. Why a draft was discarded or cut is said above it, and stays above the report.

const NEAR = 120; // px from the page's bottom that still count as "reading the newest line"

export class DraftView {
  constructor(runId) {
    this.url = `/runs/${encodeURIComponent(runId)}/draft`;
    this.section = document.getElementById("draft");
    this.body = document.getElementById("draft-text");
    this.note = document.getElementById("report-note");
    this.wanted = false; // new text arrived since the last request
    this.busy = false;
    this.shownOnce = false;
  }

  // New text (or a part dropped or cut): fetch the draft again, now or when the request
  // in flight returns.
  changed() {
    this.wanted = true;
    if (!this.busy) this.fetch();
  }

  async fetch() {
    this.busy = true;
    try {
      while (this.wanted) {
        this.wanted = false;
        const response = await fetch(this.url);
        if (!response.ok) break;
        const html = await response.text(); // rendered and escaped by the server
        this.draw(html, response.headers.get("x-draft-chars") || "0");
      }
    } catch {
      this.wanted = false; // the connection line says the server is gone
    } finally {
      this.busy = false;
    }
  }

  draw(html, chars) {
    if (this.closed) return;
    const reading = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - NEAR;
    this.section.hidden = !html;
    this.body.innerHTML = html;
    this.body.dataset.chars = chars;
    if (!html) return;
    if (!this.shownOnce) {
      this.shownOnce = true;
      this.section.scrollIntoView({ block: "start" });
    } else if (reading) {
      window.scrollTo(0, document.documentElement.scrollHeight);
    }
  }

  // Said where the report will be, not only in the timeline.
  say(text) {
    this.note.hidden = false;
    this.note.textContent = text;
  }

  // The checked report has come: it takes the draft's place.
  close() {
    this.closed = true;
    this.wanted = false;
    this.section.hidden = true;
  }

  // A resume or a follow-up writes a draft of its own.
  reopen() {
    this.closed = false;
    this.shownOnce = false;
    this.section.hidden = true;
    this.body.textContent = "";
    this.note.hidden = true;
  }
}
