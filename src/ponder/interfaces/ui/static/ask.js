// The ask form: the models the server really has, and the health of a run with the one
// the picker shows (asked again when the person picks another); the web searches that
// cannot be reached now (no network), each with why.

import { el } from "./dom.js";

async function checkModels(select, health) {
  health.textContent = "asking the model server…";
  try {
    const wanted = encodeURIComponent(select.value || "");
    const response = await fetch(`/api/models?model=${wanted}`, { headers: { accept: "application/json" } });
    const info = await response.json();
    if (info.models.length) {
      select.replaceChildren(...info.models.map((name) => el("option", { value: name }, name)));
      select.value = info.chosen;
    }
    health.className = "health " + (info.ok ? "ok" : "bad");
    const note = info.note ? ` · ${info.note}` : "";
    health.textContent = info.ok ? `${info.kind}: ${info.models.length} model(s)${note}` : info.error;
  } catch (error) {
    health.className = "health bad";
    health.textContent = "The UI server did not answer — is `ponder ui` still running?";
  }
}

async function markUnreachable() {
  const choices = document.querySelectorAll("input[name=search]");
  if (!choices.length) return;
  let unreachable = {};
  try {
    unreachable = await (await fetch("/api/searches", { headers: { accept: "application/json" } })).json();
  } catch (error) { return; } // the model line says the server is gone
  for (const input of choices) {
    const why = unreachable[input.value];
    if (!why || input.disabled) continue;
    input.closest("label").append(el("span", { class: "hint unreachable" }, ` — not reachable now: ${why}`));
  }
}

export function loadModels() {
  markUnreachable();
  const select = document.getElementById("model");
  const health = document.getElementById("model-health");
  if (!select || !health) return;
  select.addEventListener("change", () => checkModels(select, health));
  checkModels(select, health);
}
