// A citation's evidence (shown by the report's own style on hover or focus) stays on
// screen: it opens under its line, or above it when the window ends first (a phone, a
// citation near the bottom); the style caps its height, so one of the two always fits.
// Escape closes it until the pointer or the focus leaves that citation.

function place(cited) {
  const box = cited.querySelector(".evidence");
  if (!box) return;
  box.style.top = "";
  const below = box.getBoundingClientRect();
  if (below.bottom <= window.innerHeight) return;
  const line = cited.getBoundingClientRect();
  if (line.top - below.height - 6 < 0) return; // no room above either: stay under the line
  const parent = box.offsetParent || document.body;
  const top = line.top - parent.getBoundingClientRect().top - below.height - 6;
  box.style.top = `${top}px`;
}

function dismiss(event) {
  if (event.key !== "Escape") return;
  for (const open of document.querySelectorAll(".cited:hover, .cited:focus-within")) {
    open.classList.add("dismissed");
    const reopen = () => open.classList.remove("dismissed");
    open.addEventListener("mouseleave", reopen, { once: true });
    open.addEventListener("focusout", reopen, { once: true });
  }
}

function shown(event) {
  const cited = event.target.closest && event.target.closest(".cited");
  if (cited) place(cited);
}

export function wireEvidence() {
  document.addEventListener("keydown", dismiss);
  document.addEventListener("mouseover", shown);
  document.addEventListener("focusin", shown);
}
