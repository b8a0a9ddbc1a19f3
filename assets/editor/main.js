// Lectern's deck editor. The page shell (editor.html) is static; this script reads the
// deck's id, the session's CSRF token and the setting choices from the edit URL's data
// (`{edit url}.json`), then puts the four parts together:
//
//   model/    the deck and its slides as data, changed only by transactions (store)
//   actions/  one pure function per thing a person can do, each making a transaction
//   view/     the canvas, slide list, toolbar and panels: draw the state, call actions
//   sync/     saving through the REST API with revision preconditions, undo, conflicts
//
// and loads the deck.

import { createStore } from "./model/state.js";
import { SlideHistory } from "./model/undo.js";
import { createApi } from "./sync/api.js";
import { Saver } from "./sync/saver.js";
import { LiveDeck } from "./sync/live.js";
import { Presence } from "./sync/presence.js";
import { drawPresence } from "./view/presence.js";
import { CanvasView } from "./view/canvas.js";
import { SlideListView } from "./view/slide-list.js";
import { ToolbarView } from "./view/toolbar.js";
import { PanelsView } from "./view/panels.js";
import { imageTools, settingsPanel, sharePanel } from "./view/deck-panels.js";
import { addSlide, deleteSlide, duplicateSlide, groupBelow, groupOut, moveSlide } from "./actions/slides.js";
import { renderWhenLoaded } from "./view/slide-frame.js";
import { installDialogs } from "./view/dialogs.js";
import { installSideTabs } from "./view/side-tabs.js";
import { selectBlocks } from "./actions/blocks.js";
import { blocksOf } from "./model/slide.js";
import { exportPanel } from "./view/export-panel.js";
import { historyPanel } from "./view/history-panel.js";

const $ = (id) => document.getElementById(id);

/** Transactions that read or save the selected slide rather than edit it. */
const LOADS = new Set(["openSlide", "discardEdits", "slideSaved", "deckLoaded"]);

async function start() {
  const response = await fetch(`${location.pathname.replace(/\/$/, "")}.json`, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  if (!response.ok) throw new Error(`status ${response.status}`);
  const data = await response.json();
  // "Present" opens the audience's view; the speaker view (notes, next slide, timer) apart.
  const links = [["view-link", ""], ["present-link", "/fullscreen"], ["speaker-link", "/present"]];
  for (const [id, suffix] of links) $(id).href = `${data.view_url}${suffix}`;

  const store = createStore();
  const history = new SlideHistory();
  store.subscribe((_, tr) => history.record(tr));
  const api = createApi(data.deck_id, data.csrf_token, () => store.state.deck?.revision ?? 0);
  const panels = new PanelsView(store, data.view_url);
  const saver = new Saver(store, api, panels);
  const canvas = new CanvasView($("canvas"), store, { editFree: () => panels.editFree() });
  const list = new SlideListView($("slide-list"), store, saver);
  // Code and math drawn late move what reveal.js centres: place the slides again.
  renderWhenLoaded(() => {
    canvas.draw(store.state);
    list.centre(store.state);
  });
  new ToolbarView(store, canvas, panels);
  settingsPanel(store, saver, data.choices);
  sharePanel(api, panels);
  exportPanel(store, api);
  historyPanel(store, api, saver);
  installDialogs();
  installSideTabs();
  imageTools(store, api, panels);
  store.subscribe((state, tr) => {
    if (tr.name === "editTitle" || (tr.changed.includes("slide") && !LOADS.has(tr.name))) saver.changed();
  });

  // The slide list's buttons: requests the server carries out, then the slides read again.
  const slideTool = (id, op) => $(id).addEventListener("click", () => saver.structural(op(store.state)));
  slideTool("add-slide", (s) => addSlide(s, $("slide-layout").value));
  slideTool("move-up", (s) => moveSlide(s, -1));
  slideTool("move-down", (s) => moveSlide(s, 1));
  slideTool("group-below", groupBelow);
  slideTool("group-out", groupOut);
  slideTool("duplicate-slide", duplicateSlide);
  $("delete-slide").addEventListener("click", () => {
    if (deleteSlide(store.state) && window.confirm("Delete this slide? (It can be brought back from the deck's history.)")) {
      saver.structural(deleteSlide(store.state));
    }
  });

  // Undo and redo: the open slide's edits on the page at once (then saved as any edit);
  // past them, and for the deck's structure, the deck restored to the revision before (or
  // after) one of this page's changes, as a new revision. Nothing in the history is lost.
  const travel = (back) => {
    const tr = back ? history.undo(store.state) : history.redo(store.state);
    if (tr) store.dispatch(tr);
    else saver.travel(back);
  };
  $("undo").addEventListener("click", () => travel(true));
  $("redo").addEventListener("click", () => travel(false));
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return;
    // Inside a text field the browser's own undo edits the text.
    if (event.target instanceof Element && event.target.closest("textarea, input, select, [contenteditable=true]")) return;
    event.preventDefault();
    travel(!event.shiftKey);
  });
  // Outside any field: ? shows the shortcuts, Ctrl+A selects the slide's blocks.
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof Element && target.closest("textarea, input, select, button, [contenteditable=true], dialog")) return;
    if (event.key === "?" && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      $("shortcuts").showModal();
    } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "a" && !$("canvas").contains(target)) {
      event.preventDefault();
      store.run(selectBlocks, blocksOf(store.state.slide?.model).map((b) => b.key));
    }
  });
  window.addEventListener("beforeunload", (event) => {
    if (saver.dirty || saver.saving) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
  window.addEventListener("online", () => {
    if (saver.dirty) saver.serially(() => saver.save());
  });
  await saver.serially(() => saver.refresh(null));
  // Who else has the deck open, and where: said on each change of slide or editing.
  const presence = new Presence(
    api.presence,
    () => ({ slide_id: store.state.slide?.id ?? null, editing: Boolean(canvas.editing) }),
    (others) => drawPresence($("slide-list"), others),
  );
  store.subscribe(() => {
    presence.tell();
    drawPresence($("slide-list"), presence.others);
  });
  for (const type of ["focusin", "focusout"]) document.addEventListener(type, () => setTimeout(() => presence.tell(), 0));
  presence.start();
  // Changes made elsewhere (another tab, a program, an assistant) appear as they happen.
  const live = new LiveDeck((last, signal) => api.events(last, signal, presence.client), (event) => {
    if (event.event === "revision") saver.external(event.data);
    else if (event.event === "reset") saver.external(null);
    else if (event.event === "presence") presence.heard(event.data);
  });
  live.run();
}

start().catch((e) => {
  $("save-state").textContent = `The deck could not be loaded: ${e.message}`;
  $("save-state").dataset.state = "error";
});
