// The side panel's tabs (notes, image, blocks, HTML, preview): one pane shown at a time,
// chosen with a click or with the arrow keys on the tab strip (the WAI-ARIA tabs pattern).

/** Shows pane `name` ("notes", "image", "blocks", "html" or "preview"). */
export function showPane(name) {
  for (const tab of document.querySelectorAll(".side-tabs [role=tab]")) {
    const chosen = tab.id === `tab-${name}`;
    tab.setAttribute("aria-selected", String(chosen));
    tab.tabIndex = chosen ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !chosen;
  }
}

export function installSideTabs() {
  const tabs = [...document.querySelectorAll(".side-tabs [role=tab]")];
  const name = (tab) => tab.id.replace(/^tab-/, "");
  for (const tab of tabs) tab.addEventListener("click", () => showPane(name(tab)));
  document.querySelector(".side-tabs").addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    const at = tabs.indexOf(event.target);
    if (!step || at < 0) return;
    const next = tabs[(at + step + tabs.length) % tabs.length];
    showPane(name(next));
    next.focus();
    event.preventDefault();
  });
}
