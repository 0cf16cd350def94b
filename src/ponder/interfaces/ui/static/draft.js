// The report as it is written: the server renders the draft with the report's own renderer
// (Markdown and tables, raw HTML escaped) and sends it on the run's event stream: the blocks
// the model finished once (appended), and the block being written each time (replaced).
// It sits where the report will be; the page brings it into view once, then keeps its
// newest line in view unless the person scrolled away. Why a draft was discarded or cut is
// said above it, and stays above the report.

const NEAR = 120; // px from the page's bottom that still count as "reading the newest line"

export class DraftView {
  constructor() {
    this.section = document.getElementById("draft");
    this.body = document.getElementById("draft-text");
    this.settled = document.createElement("div");
    this.writing = document.createElement("div");
    this.body.replaceChildren(this.settled, this.writing);
    this.note = document.getElementById("report-note");
    this.shownOnce = false;
  }

  draw(draft) {
    if (this.closed) return;
    const reading = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - NEAR;
    if (draft.reset) this.settled.innerHTML = draft.settled;
    else if (draft.settled) this.settled.insertAdjacentHTML("beforeend", draft.settled);
    this.writing.innerHTML = draft.writing;
    this.body.dataset.chars = String(draft.chars);
    const empty = !this.settled.hasChildNodes() && !this.writing.hasChildNodes();
    this.section.hidden = empty;
    if (empty) return;
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
    this.section.hidden = true;
  }

  // A resume or a follow-up writes a draft of its own.
  reopen() {
    this.closed = false;
    this.shownOnce = false;
    this.section.hidden = true;
    this.settled.replaceChildren();
    this.writing.replaceChildren();
    delete this.body.dataset.chars;
    this.note.hidden = true;
  }
}
