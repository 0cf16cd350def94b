// The Export menus (a <details> each, whole without script): Escape or a click elsewhere
// closes an open one, as a menu does, and Escape gives the focus back to its button.

function closeMenus(except) {
  for (const open of document.querySelectorAll("details.exports[open]")) {
    if (open !== except) open.open = false;
  }
}

export function wireMenus() {
  document.addEventListener("click", (event) => {
    closeMenus(event.target.closest && event.target.closest("details.exports"));
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const open = document.querySelector("details.exports[open]");
    if (!open) return;
    open.open = false;
    open.querySelector("summary").focus();
  });
}
