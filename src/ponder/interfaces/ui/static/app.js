// ponder ui: the live parts of the pages. Every page works without this script; it adds
// the model list (ask.js), a run's live progress (run.js), copy buttons (copy.js), evidence
// kept on screen (evidence.js), Export menus that close as menus do (menus.js), indexing
// progress and uploads (documents.js). Modules, served from the package: the page loads
// nothing from outside.

import { loadModels } from "./ask.js";
import { wireCopying } from "./copy.js";
import { wireDocuments } from "./documents.js";
import { wireEvidence } from "./evidence.js";
import { wireMenus } from "./menus.js";
import { RunView } from "./run.js";

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
  wireCopying();
  wireEvidence();
  wireMenus();
  wireDocuments();
  const run = document.querySelector(".run[data-run]");
  if (run) new RunView(run).connect();
});
