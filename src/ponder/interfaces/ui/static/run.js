// A run's page: its live progress (server-sent events, replayed from the start or from
// Last-Event-ID, so a reload shows no gap and no duplicate), then its report. A finished
// run's page has its report drawn by the server already: the replay of the events it
// shows (up to data-seen) only fills the trail, and moves nothing.

import { el } from "./dom.js";
import { DraftView } from "./draft.js";
import { Timeline } from "./timeline.js";
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
    this.seen = Number(root.dataset.seen || 0);
    // A finished run's page: its report is drawn already; the replay must not touch it.
    this.settled = root.dataset.live === "0" && Boolean(document.getElementById("report").textContent.trim());
    this.frame = 0;
    // rounds: search rounds finished (the loop's and every researcher's), as the cost line
    // counts them; sources: the addresses read, as the report's list holds them.
    this.state = { phase: "starting", round: 0, max: 0, rounds: 0, sources: new Set(), tokens: 0 };
    this.started = Date.now();
    this.timeline = new Timeline(document.getElementById("timeline"), document.getElementById("latest"));
    this.researchers = document.getElementById("researchers");
    this.byResearcher = new Map();
    this.draft = new DraftView();
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
    source.addEventListener("draft", (message) => {
      const draft = JSON.parse(message.data); // rendered and escaped by the server
      if (!this.drawn(Number(draft.seq))) this.draft.draw(draft);
    });
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

  // Part of what the server drew already: a finished run's replayed draft is not shown.
  drawn(seq) {
    return this.settled && seq <= this.seen;
  }

  apply(seq, event) {
    const data = event.data || {};
    // Parallel researchers are told apart by their sub-topic.
    const who = data.researcher ? String(data.researcher) : "";
    const inside = (event.path || []).includes("researcher"); // a run logged before names
    const where = who ? `${who} · ` : inside ? "researcher · " : "";
    switch (event.kind) {
      case "status":
        if (event.status === "done" && Array.isArray(event.sources)) this.renumber(event.sources);
        if (!this.drawn(seq)) this.status(event);
        else [this.state.phase, this.ended] = [STATUS_WORDS[event.status] || event.status, event.status];
        break;
      case "node_start":
        this.state.phase = PHASES[event.node] || event.node.replaceAll("_", " ");
        break;
      case "node_end":
        this.state.tokens += Number(data.tokens || 0);
        if (event.node === "web_research") this.roundDone(who);
        break;
      case "round_start": {
        this.state.round = Number(data.round || 0);
        this.state.max = Number(data.max_rounds || 0);
        // The run's estimate of its time left, as this round starts (not for a replay).
        if (data.seconds_left !== undefined && !this.drawn(seq)) this.countDown(Number(data.seconds_left));
        if (who) this.progress(who, { round: this.state.round, max: this.state.max });
        const queries = el("ul", { class: "queries" },
          ...(data.queries || []).map((q) => el("li", {}, String(q))));
        this.item(seq, "round", el("strong", {}, `${where}Round ${data.round}`), queries);
        break;
      }
      case "source":
        if (data.failed) {
          this.item(seq, "source failed", `${where}Could not read ${data.url}: ${data.failed}`);
        } else {
          this.sourceRead(seq, who, data);
        }
        break;
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
        if (data.seconds_left !== undefined && !this.drawn(seq)) this.countDown(Number(data.seconds_left));
        break;
      case "researcher": this.progress(String(data.topic || ""), { status: String(data.status || "") }); break;
      case "clarification":
        this.item(seq, "asked", el("strong", {}, "ponder asked: "), String(data.question || ""));
        break;
      case "answered":
        this.item(seq, "answered", el("strong", {}, "You answered: "), String(data.answer || ""));
        break;
      case "discarded": case "cut": {
        const what = event.kind === "cut"
          ? `Part of the draft was cut: ${data.reason || "it degenerated"}. The rest is completed from the findings.`
          : `A draft was discarded: ${data.reason || "unusable"}. It is written again, or built from the sources' passages.`;
        this.item(seq, "note", what);
        if (event.kind === "discarded") this.lastDiscard = String(data.reason || "unusable");
        if (!this.drawn(seq)) this.draft.say(what);
        break;
      }
      case "report":
        this.item(seq, "done", `Report written: ${data.cited || 0} source(s) cited`);
        if (this.drawn(seq)) break;
        if (data.extractive) {
          this.draft.say("The model's text was unusable: this report is built from the sources' passages.");
        } else if (this.lastDiscard) {
          this.draft.say(`A draft was discarded (${this.lastDiscard}); the report below is the model's next attempt, checked.`);
        }
        break;
      default: break;
    }
    this.schedule();
  }

  // Drawn once per frame, not once per event: the page stays light on a busy laptop.
  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.showHeadline();
    });
  }

  // Live, a source shows its number in the run; a researcher's own numbers would clash
  // with its neighbours', so its sources wait for the report's.
  sourceRead(seq, who, data) {
    const url = String(data.url || "");
    this.state.sources.add(url);
    if (who) this.progress(who, { source: url });
    const number = who ? "[·]" : `[${data.number}]`;
    const li = this.item(seq, "source", el("span", { class: "num" }, number), " ",
      who ? `${who} · ` : "", String(data.title || url), " ", el("span", { class: "url" }, url));
    li.dataset.url = url;
  }

  // The report numbers its cited sources 1..k: the trail's numbers become the report's,
  // and a source read but not cited says so.
  renumber(sources) {
    const byUrl = new Map(sources.map((s) => [String(s.url), s]));
    for (const li of this.timeline.list.querySelectorAll("li.source[data-url]")) {
      const found = byUrl.get(li.dataset.url);
      if (!found) continue;
      li.classList.toggle("uncited", !found.cited);
      li.querySelector(".num").textContent = found.cited ? `[${found.number}]` : "";
      if (!found.cited && !li.querySelector(".unused")) {
        li.append(" ", el("span", { class: "unused" }, "read, not cited"));
      }
    }
  }

  roundDone(who) {
    this.state.rounds += 1;
    if (who) this.progress(who, { rounds: 1 });
  }

  // One card per researcher: its sub-topic, its rounds and sources, how it stands.
  progress(topic, change) {
    if (!topic) return;
    let known = this.byResearcher.get(topic);
    if (!known) {
      const line = el("span", {});
      const card = el("div", { class: "researcher", "data-topic": topic }, el("p", {}, topic), line);
      this.researchers.append(card);
      known = { card, line, round: 0, max: 0, rounds: 0, sources: new Set(), status: "started" };
      this.byResearcher.set(topic, known);
    }
    if (change.status) known.status = change.status;
    if (change.round) Object.assign(known, { round: change.round, max: change.max });
    if (change.rounds) known.rounds += change.rounds;
    if (change.source) known.sources.add(change.source);
    known.card.dataset.status = known.status;
    const n = known.sources.size;
    const words = [known.round ? `round ${known.round} of ${known.max || "?"}` : "",
      `${n} source${n === 1 ? "" : "s"}`, known.status].filter(Boolean);
    known.line.textContent = words.join(" · ");
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

  showHeadline() {
    const s = this.state;
    const parts = [s.phase];
    const researchers = this.byResearcher.size;
    const ended = ["done", "interrupted", "failed"].includes(this.ended);
    if (researchers || ended) {
      // Researchers work side by side: their rounds add up, as the cost line counts them.
      const by = researchers ? ` by ${researchers} researcher${researchers === 1 ? "" : "s"}` : "";
      parts.push(`${s.rounds} round${s.rounds === 1 ? "" : "s"}${by}`);
    } else if (s.round) {
      parts.push(`round ${s.round} of ${s.max || "?"}`);
    }
    const n = s.sources.size;
    parts.push(`${n} source${n === 1 ? "" : "s"} read`, `${s.tokens.toLocaleString()} tokens`);
    if (s.leftUntil && !ended) parts.push(`about ${clock((s.leftUntil - Date.now()) / 1000)} left`);
    const text = parts.join(" · ");
    // Unchanged text is left alone: no repaint, and no repeat for a screen reader.
    if (this.headline.textContent !== text) this.headline.textContent = text;
  }

  countDown(seconds) {
    this.state.leftUntil = Date.now() + seconds * 1000;
    this.ticking ||= setInterval(() => {
      if (["done", "interrupted", "failed"].includes(this.ended)) clearInterval(this.ticking);
      this.showHeadline();
    }, 1000);
  }

  status(event) {
    if (isNewTurn(this.root, event)) { location.reload(); return; }
    const status = event.status;
    this.ended = status;
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
      this.draft.reopen();
      this.lastDiscard = "";
      this.live.hidden = false;
      this.live.open = true;
    }
    const follow = document.getElementById("follow"); // none where follow-ups are not offered
    if (follow) follow.hidden = status !== "done";
    if (status === "done") this.finished(event.stats || {}, event.sources || []);
  }

  async finished(stats, sources) {
    const turn = this.turn;
    const response = await fetch(`/runs/${encodeURIComponent(this.id)}/report`);
    if (response.status !== 200 || turn !== this.turn) return;
    document.getElementById("report").innerHTML = await response.text(); // rendered and escaped by the server
    this.draft.close();
    this.live.open = false;
    document.getElementById("exports").hidden = false;
    const tokens = Number(stats.prompt_tokens || 0) + Number(stats.completion_tokens || 0);
    document.getElementById("cost").textContent =
      ` · ${Math.round(stats.wall_seconds || 0)} s · ${stats.llm_calls || 0} model calls · ` +
      `${tokens.toLocaleString()} tokens · ${stats.rounds || 0} round(s) · ${sources.length} source(s) read`;
  }
}

// Seconds as m:ss (never below 0:00: a round may run past its estimate).
function clock(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
