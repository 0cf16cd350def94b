// ponder ui: the live parts of the pages. Every page works without this script; it adds
// the model list (ask.js), a run's live progress (run.js), indexing progress and uploads
// (documents.js). Modules, served from the package: the page loads nothing from outside.

import { loadModels } from "./ask.js";
import { wireDocuments } from "./documents.js";
import { RunView } from "./run.js";

// Escape closes the passage a citation shows (on hover or focus) until the pointer or the
// focus leaves that citation.
function dismissEvidence(event) {
  if (event.key !== "Escape") return;
  for (const open of document.querySelectorAll(".cited:hover, .cited:focus-within")) {
    open.classList.add("dismissed");
    const reopen = () => open.classList.remove("dismissed");
    open.addEventListener("mouseleave", reopen, { once: true });
    open.addEventListener("focusout", reopen, { once: true });
  }
}

document.addEventListener("keydown", dismissEvidence);

// A form that removes something for good (a run, an upload) asks first: data-confirm.
document.addEventListener("submit", (event) => {
  const asks = event.target.dataset && event.target.dataset.confirm;
  if (asks && !window.confirm(asks)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

document.addEventListener("DOMContentLoaded", () => {
  loadModels();
  wireDocuments();
  const run = document.querySelector(".run[data-run]");
  if (run) new RunView(run).connect();
});
