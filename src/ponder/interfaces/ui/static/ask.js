// The ask form: the models the server really has.

import { el } from "./dom.js";

export async function loadModels() {
  const select = document.getElementById("model");
  const health = document.getElementById("model-health");
  if (!select || !health) return;
  health.textContent = "asking the model server…";
  try {
    const response = await fetch("/api/models", { headers: { accept: "application/json" } });
    const info = await response.json();
    const chosen = select.value;
    if (info.models.length) {
      select.replaceChildren(...info.models.map((name) => el("option", { value: name }, name)));
      select.value = info.models.includes(chosen) ? chosen : info.models[0];
    }
    health.className = "health " + (info.ok ? "ok" : "bad");
    health.textContent = info.ok
      ? `${info.kind}: ${info.models.length} model(s)`
      : info.error;
  } catch (error) {
    health.className = "health bad";
    health.textContent = "The UI server did not answer — is `ponder ui` still running?";
  }
}
