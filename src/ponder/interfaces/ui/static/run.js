// A run's page: its live progress (server-sent events, replayed from the start or from
// Last-Event-ID, so a reload shows no gap and no duplicate), then its report.

import { el } from "./dom.js";
import { isNewTurn, turnStart } from "./turns.js";

const PHASES = {
  take_question: "checking what can be searched", generate_query: "planning searches", web_research: "searching",
  summarize_sources: "reading and summarising", reflect: "reflecting",
  finalize_summary: "writing the report", clarify_with_user: "checking the question",
  ask_user: "waiting for your answer", write_research_brief: "writing the research brief",
  supervisor: "planning sub-topics", researcher: "researching sub-topics",
  final_report: "writing the report",
};
const STATUS_WORDS = {
  running: "running", waiting: "waiting for your answer", done: "done",
  interrupted: "interrupted", failed: "failed",
};

export class RunView {
  constructor(root) {
    this.root = root;
    this.id = root.dataset.run;
    this.last = turnStart(root); // the latest turn's events only: earlier turns are drawn
    this.pending = ""; // streamed report text not drawn yet
    this.frame = 0;
    this.state = { phase: "starting", round: 0, max: 0, sources: 0, tokens: 0 };
    this.started = Date.now();
    this.timeline = document.getElementById("timeline");
    this.researchers = document.getElementById("researchers");
    this.draft = document.getElementById("draft");
    this.draftText = document.getElementById("draft-text");
    this.headline = document.getElementById("headline");
    this.live = document.getElementById("live");
  }

  connect() {
    const source = new EventSource(`/runs/${encodeURIComponent(this.id)}/events?after=${this.last}`);
    this.source = source;
    source.addEventListener("progress", (message) => {
      const seq = Number(message.lastEventId);
      if (seq <= this.last) return; // already shown: a replay overlaps what we have
      this.last = seq;
      this.apply(seq, JSON.parse(message.data));
    });
    // A lost server (killed, a network gone) is said at once; the browser keeps retrying,
    // and the line goes when the stream is back.
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.OPEN) this.connection(false);
    });
    source.addEventListener("open", () => this.connection(true));
    source.addEventListener("end", (message) => {
      this.connection(true);
      source.close();
      const ended = JSON.parse(message.data);
      const shown = document.getElementById("status").className;
      // A run killed with the server last logged "running": say how it really stands.
      if (ended.status !== "done" && !shown.endsWith(`status-${ended.status}`)) this.status(ended);
    });
  }

  connection(up) {
    document.getElementById("connection").hidden = up;
  }

  item(seq, className, ...children) {
    const li = el("li", { class: className, "data-seq": String(seq) }, ...children);
    this.timeline.append(li);
    return li;
  }

  apply(seq, event) {
    const data = event.data || {};
    const where = (event.path || []).includes("researcher") ? "researcher · " : "";
    switch (event.kind) {
      case "status": this.status(event); break;
      case "node_start":
        this.state.phase = PHASES[event.node] || event.node.replaceAll("_", " ");
        break;
      case "node_end": this.state.tokens += Number(data.tokens || 0); break;
      case "round_start": {
        this.state.round = Number(data.round || 0);
        this.state.max = Number(data.max_rounds || 0);
        const queries = el("ul", { class: "queries" },
          ...(data.queries || []).map((q) => el("li", {}, String(q))));
        this.item(seq, "round", el("strong", {}, `${where}Round ${data.round}`), queries);
        break;
      }
      case "source":
        if (data.failed) {
          this.item(seq, "source failed", `Could not read ${data.url}: ${data.failed}`);
        } else {
          this.item(seq, "source", el("span", { class: "num" }, `[${data.number}]`), " ",
            String(data.title || data.url), " ", el("span", { class: "url" }, String(data.url)));
        }
        break;
      case "sources": this.state.sources = Math.max(this.state.sources, Number(data.total || 0)); break;
      case "reflection": {
        const verdict = data.sufficient ? "enough to write" : "not enough yet";
        const gap = data.gap ? ` — next: ${data.gap}` : "";
        this.item(seq, "reflection", el("strong", {}, `${where}Reflection: `), verdict + gap);
        break;
      }
      case "overruled": this.item(seq, "note", "The reflection was overruled: the findings so far are too thin."); break;
      case "warning": this.warning(seq, String(data.message || ""), String(data.shape || "")); break;
      case "handoff": {
        // The event carries the sources themselves (number and address), not a count.
        const carried = Array.isArray(data.sources) ? data.sources.length : Number(data.sources) || 0;
        this.item(seq, "handoff", el("strong", {}, "Handed to the deep pipeline"),
          ` with ${carried} source(s) already read`);
        break;
      }
      case "supervisor":
        this.item(seq, "supervisor", el("strong", {}, `Supervisor round ${data.round}: `),
          (data.subtopics || []).join(" · "));
        break;
      case "researcher": this.researcher(String(data.topic || ""), String(data.status || "")); break;
      case "token":
        this.pending += String(data.text || "");
        break;
      case "discarded":
        this.drawDraft();
        this.draftText.textContent = "";
        this.item(seq, "note", `Draft discarded: ${data.reason || "unusable"}`);
        break;
      case "cut":
        this.drawDraft();
        this.draftText.textContent = this.draftText.textContent.slice(0, Number(data.keep || 0));
        this.item(seq, "note", `Draft cut: ${data.reason || "it degenerated"}`);
        break;
      case "report":
        this.item(seq, "done", `Report written: ${data.cited || 0} source(s) cited`);
        break;
      default: break;
    }
    this.schedule();
  }

  // Drawn once per frame, not once per token: the page stays light on a busy laptop.
  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawDraft();
      this.showHeadline();
    });
  }

  drawDraft() {
    if (!this.pending) return;
    this.draft.hidden = false;
    this.draftText.append(this.pending);
    this.pending = "";
  }

  // The same warning for another query: one line, with its count.
  warning(seq, message, shape) {
    const key = shape || message;
    this.warnings = this.warnings || new Map();
    const known = this.warnings.get(key);
    if (known) {
      known.times += 1;
      known.count.textContent = ` (and ${known.times} more like it)`;
      return;
    }
    const count = el("span", { class: "count" });
    this.warnings.set(key, { times: 0, count });
    this.item(seq, "warning", message, count);
  }

  researcher(topic, status) {
    let card = [...this.researchers.children].find((c) => c.dataset.topic === topic);
    if (!card) {
      card = el("div", { class: "researcher", "data-topic": topic }, el("p", {}, topic), el("span", {}));
      this.researchers.append(card);
    }
    card.dataset.status = status;
    card.lastChild.textContent = status;
  }

  showHeadline() {
    const s = this.state;
    const parts = [s.phase];
    if (s.round) parts.push(`round ${s.round} of ${s.max || "?"}`);
    parts.push(`${s.sources} source${s.sources === 1 ? "" : "s"}`, `${s.tokens.toLocaleString()} tokens`);
    const text = parts.join(" · ");
    // Unchanged text is left alone: no repaint, and no repeat for a screen reader.
    if (this.headline.textContent !== text) this.headline.textContent = text;
  }

  status(event) {
    if (isNewTurn(this.root, event)) { location.reload(); return; }
    const status = event.status;
    const badge = document.getElementById("status");
    badge.textContent = STATUS_WORDS[status] || status;
    badge.className = `status status-${status}`;
    this.state.phase = status === "running" ? "starting" : STATUS_WORDS[status] || status;
    for (const form of document.querySelectorAll("form[data-action]")) {
      const action = form.dataset.action;
      if (action === "stop") form.hidden = status !== "running";
      if (action === "resume") form.hidden = !["interrupted", "failed"].includes(status);
    }
    const message = document.getElementById("message");
    message.hidden = !event.message;
    message.textContent = event.message || "";
    const clarify = document.getElementById("clarify");
    clarify.hidden = status !== "waiting";
    if (status === "waiting") {
      document.getElementById("question").textContent = event.question || "";
      document.getElementById("answer").focus();
    }
    if (status === "running") {
      this.turn = (this.turn || 0) + 1; // a resume or a follow-up: a report fetched before is stale
      this.pending = "";
      this.draftText.textContent = "";
      this.live.hidden = false;
      this.live.open = true;
    }
    document.getElementById("follow").hidden = status !== "done";
    if (status === "done") {
      this.drawDraft();
      this.finished(event.stats || {});
    }
  }

  async finished(stats) {
    const turn = this.turn;
    const response = await fetch(`/runs/${encodeURIComponent(this.id)}/report`);
    if (response.status !== 200 || turn !== this.turn) return;
    document.getElementById("report").innerHTML = await response.text(); // rendered and escaped by the server
    this.draft.hidden = true;
    this.live.open = false;
    document.getElementById("exports").hidden = false;
    const tokens = Number(stats.prompt_tokens || 0) + Number(stats.completion_tokens || 0);
    document.getElementById("cost").textContent =
      ` · ${Math.round(stats.wall_seconds || 0)} s · ${stats.llm_calls || 0} model calls · ` +
      `${tokens.toLocaleString()} tokens · ${stats.rounds || 0} round(s)`;
  }
}
