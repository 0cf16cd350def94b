// The ask form: the models the server really has, and the health of a run with the one
// the picker shows (asked again when the person picks another).

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

export function loadModels() {
  const select = document.getElementById("model");
  const health = document.getElementById("model-health");
  if (!select || !health) return;
  select.addEventListener("change", () => checkModels(select, health));
  checkModels(select, health);
}
