// Copy buttons (drawn by the server with each report, shown once this script runs): a
// report as Markdown (its citations and Sources with it), and each source as one line to
// paste. One listener for the page: a report drawn later (a run that finishes while it is
// open) copies as well, and nothing is added to a report once it is drawn.
import { el } from "./dom.js";

// The clipboard API needs a secure context (localhost is one; a team's server on plain
// http is not): there the older copy command still works.
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (error) { /* refused (no focus, a policy): the older way below */ }
  }
  const area = el("textarea", { readonly: "", class: "offscreen" }, text);
  document.body.append(area);
  area.select();
  const done = document.execCommand("copy");
  area.remove();
  return done;
}

async function reportMarkdown(article) {
  const run = article.closest("[data-run]");
  const turn = article.dataset.turn ? `?turn=${encodeURIComponent(article.dataset.turn)}` : "";
  const response = await fetch(`/runs/${encodeURIComponent(run.dataset.run)}/export.md${turn}`);
  return response.ok ? response.text() : article.innerText;
}

function copied(button) {
  if (button.dataset.copy === "report") return reportMarkdown(button.closest("article.report"));
  const card = button.closest("li[data-cite]");
  return Promise.resolve(`[${card.value}] ${card.dataset.cite}`);
}

async function onClick(event) {
  const button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  const done = await copyText(await copied(button));
  button.textContent = done ? "Copied" : "Could not copy";
  setTimeout(() => { button.textContent = label; }, 1500);
}

export function wireCopying() {
  document.documentElement.classList.add("scripted"); // the buttons work: show them
  document.addEventListener("click", onClick);
}
