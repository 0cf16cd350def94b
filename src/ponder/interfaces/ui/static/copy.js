// Copy buttons: a report as Markdown (its citations and Sources with it), and each source
// as one line to paste. Added wherever a report appears, including one drawn after the page
// loaded (a run that finishes while it is open).
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

function copyButton(label, what, text) {
  const button = el("button", { type: "button", class: "quiet copy", "aria-label": what }, label);
  button.addEventListener("click", async () => {
    const copied = await copyText(await text());
    button.textContent = copied ? "Copied" : "Could not copy";
    setTimeout(() => { button.textContent = label; }, 1500);
  });
  return button;
}

async function reportMarkdown(article) {
  const run = article.closest("[data-run]");
  const turn = article.dataset.turn ? `?turn=${encodeURIComponent(article.dataset.turn)}` : "";
  const response = await fetch(`/runs/${encodeURIComponent(run.dataset.run)}/export.md${turn}`);
  return response.ok ? response.text() : article.innerText;
}

function wire(root) {
  // A report drawn again (the run finished while open) loses its bar with its old content.
  for (const article of root.querySelectorAll("article.report")) {
    if (article.querySelector(":scope > .copy-bar") || !article.querySelector("ol.sources")) continue;
    if (!article.closest("[data-run]")) continue;
    article.prepend(el("div", { class: "copy-bar" },
      copyButton("Copy report", "Copy the report as Markdown", () => reportMarkdown(article))));
  }
  for (const card of root.querySelectorAll("ol.sources > li[data-cite]:not([data-copy])")) {
    card.dataset.copy = "1";
    const line = `[${card.value}] ${card.dataset.cite}`;
    card.append(copyButton("Copy", `Copy source ${card.value} as a reference`, () => line));
  }
}

export function wireCopying() {
  const main = document.getElementById("main");
  if (!main) return;
  wire(main);
  new MutationObserver((changes) => {
    const grew = changes.some((change) => [...change.addedNodes].some(
      (node) => node.nodeType === 1 && (node.matches("ol.sources") || node.querySelector("ol.sources"))));
    if (grew) wire(main);
  }).observe(main, { childList: true, subtree: true });
}
