// Lectern's deck editor: the slide list with vertical groups, adding, deleting and moving
// slides, the slide's blocks on a canvas (canvas.js), each slide's HTML and speaker notes,
// and the deck's title and settings, saved
// automatically through the REST API with the session's CSRF token and the deck's revision
// as a precondition (If-Match). A conflict with another writer keeps the person's text on
// screen and offers to reload the slide.

import { Canvas } from "./canvas.js";
import { drawableChildren } from "./inert.js";

const body = document.body;
const deckId = body.dataset.deckId;
const csrf = body.dataset.csrf;
const viewUrl = body.dataset.view;

const $ = (id) => document.getElementById(id);
const list = $("slide-list");
const htmlBox = $("slide-html");
const notesBox = $("slide-notes");
const titleBox = $("deck-title");
const stateBox = $("save-state");
const conflictBox = $("conflict");
const preview = $("preview");

/** How long after the last keystroke a change is saved (ms). */
const SAVE_DELAY = 700;

const editor = {
  revision: 0,
  slides: [], // {id, position: {horizontal, vertical}, title}
  selected: null, // slide id
  loaded: null, // {id, html, notes} as last read or saved
  dirty: new Set(), // "slide" | "title"
  htmlOf: new Map(), // slide id -> its HTML, for the thumbnails
  theme: `theme-${body.dataset.themeColor} font-${body.dataset.themeFont}`, // themes.css
  width: Number(body.dataset.width) || 960,
  height: Number(body.dataset.height) || 700,
  timer: null,
  saving: false,
  conflict: false,
  // Every write waits for the one before it: each carries the revision the previous one
  // answered, so two quick changes never race each other into a 412.
  queue: Promise.resolve(),
};

/** Runs `task` after every task queued before it. */
function serially(task) {
  const next = editor.queue.then(task, task);
  editor.queue = next.catch(() => {});
  return next;
}

function setState(text, kind) {
  stateBox.textContent = text;
  stateBox.dataset.state = kind;
}

/** Revisions to go back to (each the deck's revision before one of this page's writes),
 * and to go forward to again after an undo. */
const undoable = { undo: [], redo: [] };

async function api(method, path, payload, precondition, remember = true) {
  const headers = { "X-CSRF-Token": csrf, Accept: "application/json" };
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  const before = editor.revision;
  if (precondition) headers["If-Match"] = `"${deckId}-${before}"`;
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  let json = null;
  try {
    json = await response.json();
  } catch (_) {
    json = null;
  }
  const changed = json && json.data && json.data.revision > before;
  if (precondition && remember && response.ok && changed) {
    undoable.undo.push(before);
    undoable.redo = [];
  }
  return { status: response.status, json };
}

function followRevision(json) {
  const r = json && json.data && json.data.revision;
  if (typeof r === "number" && r > editor.revision) editor.revision = r;
}

async function loadSlides() {
  const slides = [];
  for (let page = 1; ; page += 1) {
    const r = await api("GET", `/v1/decks/${deckId}/slides?per_page=200&page=${page}`);
    if (r.status !== 200) throw new Error((r.json && r.json.error) || `status ${r.status}`);
    slides.push(...r.json.data);
    if (slides.length >= r.json.meta.total || r.json.data.length === 0) break;
  }
  editor.slides = slides;
}

async function loadDeck() {
  const r = await api("GET", `/v1/decks/${deckId}?include_deck_html=true`);
  if (r.status !== 200) throw new Error((r.json && r.json.error) || `status ${r.status}`);
  editor.revision = r.json.data.revision;
  editor.width = r.json.data.width;
  editor.height = r.json.data.height;
  editor.theme = `theme-${r.json.data.theme_color} font-${r.json.data.theme_font}`;
  // Every slide's HTML, for the thumbnails: the deck's sections that carry a slide id.
  const doc = new DOMParser().parseFromString(r.json.data.deck_html || "", "text/html");
  editor.htmlOf = new Map([...doc.querySelectorAll("section[data-id]")].map((s) => [s.dataset.id, s.outerHTML]));
  if (!editor.dirty.has("title")) titleBox.value = r.json.data.title;
}

function label(slide) {
  const p = slide.position;
  const number = p.vertical == null ? `${p.horizontal + 1}` : `${p.horizontal + 1}.${p.vertical + 1}`;
  return `${number} ${slide.title || "Untitled slide"}`;
}

function renderList() {
  // The list is drawn anew: keyboard focus stays on the selected slide.
  const hadFocus = list.contains(document.activeElement);
  list.replaceChildren();
  for (const slide of editor.slides) {
    const item = document.createElement("li");
    if (slide.position.vertical != null && slide.position.vertical > 0) item.className = "below";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "slide-item";
    button.dataset.slideId = slide.id;
    button.append(thumbnail(slide.id));
    const caption = document.createElement("span");
    caption.className = "slide-label";
    caption.textContent = label(slide);
    button.append(caption);
    button.setAttribute("aria-current", slide.id === editor.selected ? "true" : "false");
    button.addEventListener("click", () => serially(() => select(slide.id)));
    item.append(button);
    list.append(item);
    if (hadFocus && slide.id === editor.selected) button.focus();
  }
}

/** A small picture of slide `id` as its HTML draws it (blocks at their places). */
function thumbnail(id) {
  const thumb = document.createElement("div");
  thumb.className = "thumb";
  const scale = 96 / editor.width;
  thumb.style.height = `${Math.round(editor.height * scale)}px`;
  const board = document.createElement("div");
  board.className = `thumb-board ${editor.theme}`;
  board.style.width = `${editor.width}px`;
  board.style.height = `${editor.height}px`;
  board.style.transform = `scale(${scale})`;
  const html = editor.htmlOf.get(id);
  if (html) {
    const section = new DOMParser().parseFromString(html, "text/html").body.querySelector("section");
    if (section) {
      board.replaceChildren(...drawableChildren(section));
      const background = section.getAttribute("data-background-color");
      if (background) board.style.background = background;
    }
  }
  thumb.append(board);
  return thumb;
}

// Dragging slides in the list with the mouse (or a finger): press on a slide, move, and let
// go on another: its upper or lower half puts the slide before or after it, its right part
// below it. A press that does not move is a click (it selects the slide).
let listDrag = null; // {id, x, y, pointerId, moving, target}
list.addEventListener("pointerdown", (event) => {
  const button = event.target.closest(".slide-item");
  if (!button || event.button !== 0) return;
  listDrag = { id: button.dataset.slideId, x: event.clientX, y: event.clientY, pointerId: event.pointerId, moving: false, target: null };
});
list.addEventListener("pointermove", (event) => {
  if (!listDrag || event.pointerId !== listDrag.pointerId) return;
  if (!listDrag.moving) {
    if (Math.abs(event.clientX - listDrag.x) + Math.abs(event.clientY - listDrag.y) < 6) return;
    listDrag.moving = true;
    list.setPointerCapture(event.pointerId);
    list.classList.add("dragging");
  }
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const target = under && under.closest(".slide-item");
  if (listDrag.target && listDrag.target !== target) delete listDrag.target.dataset.drop;
  listDrag.target = target && target.dataset.slideId !== listDrag.id ? target : null;
  if (listDrag.target) listDrag.target.dataset.drop = dropKind(event, listDrag.target);
});
const endListDrag = (event) => {
  const drag = listDrag;
  listDrag = null;
  if (!drag || !drag.moving) return;
  list.classList.remove("dragging");
  // The click that ends a drag is not a selection.
  const swallow = (e) => e.stopPropagation();
  list.addEventListener("click", swallow, { capture: true, once: true });
  setTimeout(() => list.removeEventListener("click", swallow, { capture: true }), 0);
  if (!drag.target) return;
  const kind = drag.target.dataset.drop || dropKind(event, drag.target);
  delete drag.target.dataset.drop;
  if (event.type === "pointerup") dropSlide(drag.id, drag.target.dataset.slideId, kind);
};
list.addEventListener("pointerup", endListDrag);
list.addEventListener("pointercancel", endListDrag);

/** Where a slide dropped on `button` goes: its right part puts it below that slide (a
 * vertical group); the upper and lower halves before and after it. */
function dropKind(event, button) {
  const box = button.getBoundingClientRect();
  if (event.clientX > box.left + box.width * 0.6) return "below";
  return event.clientY < box.top + box.height / 2 ? "before" : "after";
}

/** Drag and drop in the slide list: the same operations as the buttons. */
function dropSlide(moved, target, kind) {
  const path = kind === "below" ? "group" : "move";
  const payload = { slide_ids: [moved] };
  if (kind === "below") payload.below_slide_id = target;
  else if (kind === "before") payload.insert_before_slide_id = target;
  else payload.insert_after_slide_id = target;
  structural("PATCH", `/v1/decks/${deckId}/slides/${path}`, payload, () => moved);
}

function showPreview() {
  const slide = editor.slides.find((s) => s.id === editor.selected);
  if (!slide) {
    preview.removeAttribute("src");
    return;
  }
  const p = slide.position;
  const hash = p.vertical == null ? `#/${p.horizontal}` : `#/${p.horizontal}/${p.vertical}`;
  // A new query each time, so the frame reloads the saved deck.
  preview.src = `${viewUrl}/fullscreen?r=${editor.revision}${hash}`;
}

async function select(id) {
  if (editor.dirty.has("slide")) await save();
  if (editor.dirty.has("slide")) return; // the save failed: stay on the unsaved slide
  const r = await api("GET", `/v1/decks/${deckId}/slides/${encodeURIComponent(id)}`);
  if (r.status !== 200) {
    setState((r.json && r.json.error) || "This slide could not be read", "error");
    return;
  }
  followRevision(r.json);
  editor.selected = id;
  editor.loaded = { id, html: r.json.data.html, notes: r.json.data.notes || "" };
  htmlBox.value = editor.loaded.html;
  notesBox.value = editor.loaded.notes;
  renderBlocks();
  showCanvas();
  renderList();
  showPreview();
}

// Slides in Slides.com block markup (div.sl-block with data-block-type and a style giving
// left/top/width/height, around div.sl-block-content): each block's content and place are
// edited on their own; the rest of the slide's markup is left as it was.
const PLACE = ["left", "top", "width", "height"];

function parsedSlide() {
  const doc = new DOMParser().parseFromString(htmlBox.value, "text/html");
  return doc.body.querySelector("section");
}

// The canvas edits the slide's blocks in place; its changes come back as the slide's HTML.
const canvas = new Canvas($("canvas"), (html) => {
  htmlBox.value = html;
  changed("slide");
  if (!(document.activeElement instanceof Element && document.activeElement.closest("#blocks"))) renderBlocks();
});

/** Draws the selected slide (as the HTML field holds it) on the canvas. */
function showCanvas() {
  canvas.theme = editor.theme;
  canvas.show(editor.loaded ? parsedSlide() : null, editor.width, editor.height);
}

function renderBlocks() {
  const panel = $("blocks");
  const blockList = $("block-list");
  blockList.replaceChildren();
  const section = parsedSlide();
  const blocks = section ? [...section.querySelectorAll(".sl-block")] : [];
  panel.hidden = blocks.length === 0;
  blocks.forEach((block, index) => {
    const item = document.createElement("li");
    item.className = "block";
    const heading = document.createElement("div");
    heading.className = "block-heading";
    heading.textContent = `${block.dataset.blockType || "block"} ${block.dataset.blockId || index + 1}`;
    item.append(heading);
    const place = document.createElement("div");
    place.className = "block-place";
    for (const side of PLACE) {
      const label = document.createElement("label");
      label.textContent = side;
      const input = document.createElement("input");
      input.type = "number";
      input.dataset.block = String(index);
      input.dataset.side = side;
      input.value = Number.parseFloat(block.style.getPropertyValue(side)) || 0;
      input.addEventListener("input", () => editBlock(index, (b) => {
        b.style.setProperty(side, `${Math.round(Number(input.value) || 0)}px`);
      }));
      label.append(input);
      place.append(label);
    }
    item.append(place);
    const content = block.querySelector(".sl-block-content");
    if (content) {
      const text = document.createElement("textarea");
      text.className = "block-content";
      text.rows = 2;
      text.dataset.block = String(index);
      text.value = content.innerHTML;
      text.setAttribute("aria-label", `Content of block ${index + 1}`);
      text.addEventListener("input", () => editBlock(index, (b) => {
        b.querySelector(".sl-block-content").innerHTML = text.value;
      }));
      item.append(text);
    }
    blockList.append(item);
  });
}

/** Changes block `index` of the slide with `change` and keeps everything else as it was. */
function editBlock(index, change) {
  const section = parsedSlide();
  const block = section && section.querySelectorAll(".sl-block")[index];
  if (!block) return;
  change(block);
  htmlBox.value = section.outerHTML;
  changed("slide");
  showCanvas();
}

function changed(what) {
  editor.dirty.add(what);
  setState("Unsaved changes", "dirty");
  clearTimeout(editor.timer);
  editor.timer = setTimeout(() => serially(save), SAVE_DELAY);
}

function showConflict(message) {
  editor.conflict = true;
  conflictBox.hidden = false;
  conflictBox.replaceChildren();
  const text = document.createElement("p");
  text.textContent = message;
  const reload = document.createElement("button");
  reload.type = "button";
  reload.textContent = "Reload this slide (your text stays in the clipboard)";
  reload.addEventListener("click", () => serially(async () => {
    try {
      await navigator.clipboard.writeText(htmlBox.value);
    } catch (_) {
      /* the clipboard may be unavailable; the text was on screen */
    }
    editor.dirty.delete("slide");
    editor.conflict = false;
    conflictBox.hidden = true;
    await refresh(editor.selected);
  }));
  const keep = document.createElement("button");
  keep.type = "button";
  keep.className = "secondary";
  keep.textContent = "Overwrite with my version";
  keep.addEventListener("click", () => serially(async () => {
    editor.conflict = false;
    conflictBox.hidden = true;
    await loadDeck();
    await save();
  }));
  conflictBox.append(text, reload, keep);
  setState("Conflict", "conflict");
}

async function save() {
  clearTimeout(editor.timer);
  if (editor.saving || editor.conflict) return;
  editor.saving = true;
  setState("Saving…", "saving");
  try {
    if (editor.dirty.has("title")) {
      const title = titleBox.value;
      const r = await api("PATCH", `/v1/decks/${deckId}`, { title }, true);
      if (r.status === 412) return showConflict("The deck changed elsewhere (another tab, a program or an assistant) since you opened it.");
      if (r.status !== 200) return setState((r.json && r.json.error) || "Not saved", "error");
      followRevision(r.json);
      // Typed on while the request was under way: saved next time.
      if (titleBox.value === title) editor.dirty.delete("title");
    }
    if (editor.dirty.has("slide") && editor.loaded) {
      const patch = {};
      if (htmlBox.value !== editor.loaded.html) patch.html = htmlBox.value;
      if (notesBox.value !== editor.loaded.notes) patch.notes = notesBox.value;
      if (Object.keys(patch).length > 0) {
        const id = editor.loaded.id;
        const r = await api("PATCH", `/v1/decks/${deckId}/slides/${encodeURIComponent(id)}`, patch, true);
        if (r.status === 412) return showConflict("This deck changed elsewhere (another tab, a program or an assistant) while you were typing. Your text is still here.");
        if (r.status !== 200) return setState((r.json && r.json.error) || "Not saved", "error");
        followRevision(r.json);
        editor.loaded = {
          id,
          html: patch.html === undefined ? editor.loaded.html : patch.html,
          notes: patch.notes === undefined ? editor.loaded.notes : patch.notes,
        };
        if (patch.html !== undefined) {
          editor.htmlOf.set(id, patch.html);
          await loadSlides(); // titles follow the HTML
          renderList();
        }
        showPreview();
      }
      // Edits made while the request was under way (a drag, a key) are saved next time.
      if (htmlBox.value === editor.loaded.html && notesBox.value === editor.loaded.notes) {
        editor.dirty.delete("slide");
      }
    }
    if (editor.dirty.size > 0) {
      setState("Unsaved changes", "dirty");
      clearTimeout(editor.timer);
      editor.timer = setTimeout(() => serially(save), SAVE_DELAY);
      return;
    }
    setState("All changes saved", "saved");
  } catch (_) {
    setState("Offline: changes kept, retrying", "offline");
    editor.timer = setTimeout(() => serially(save), 3000);
  } finally {
    editor.saving = false;
  }
}

async function refresh(selectId) {
  await loadDeck();
  await loadSlides();
  const keep = editor.slides.find((s) => s.id === selectId) ? selectId : editor.slides[0] && editor.slides[0].id;
  editor.selected = null;
  renderList();
  if (keep) await select(keep);
  setState("All changes saved", "saved");
}

function structural(method, path, payload, selectAfter) {
  return serially(() => structuralNow(method, path, payload, selectAfter));
}

async function structuralNow(method, path, payload, selectAfter) {
  await save();
  if (editor.dirty.size > 0 || editor.conflict) return;
  setState("Saving…", "saving");
  const r = await api(method, path, payload, true);
  if (r.status === 412) return showConflict("The deck changed elsewhere; reload to see the current slides.");
  if (r.status !== 200 && r.status !== 201) return setState((r.json && r.json.error) || "Not saved", "error");
  followRevision(r.json);
  const next = selectAfter(r.json);
  await refresh(next);
}

function selectedIndex() {
  return editor.slides.findIndex((s) => s.id === editor.selected);
}

$("add-slide").addEventListener("click", () => {
  // A new horizontal slide after the selected slide's stack.
  const i = selectedIndex();
  let after = null;
  if (i >= 0) {
    const h = editor.slides[i].position.horizontal;
    const stack = editor.slides.filter((s) => s.position.horizontal === h);
    after = stack[stack.length - 1].id;
  }
  const payload = { html: "<section><h2>New slide</h2></section>" };
  if (after) payload.insert_after_slide_id = after;
  structural("POST", `/v1/decks/${deckId}/slides`, payload, (json) => json.data.id);
});

// A copy of the selected slide (HTML and notes) right after it.
$("duplicate-slide").addEventListener("click", () => serially(async () => {
  await save();
  if (editor.dirty.size > 0 || editor.conflict || !editor.loaded) return;
  const section = parsedSlide();
  if (section) section.removeAttribute("data-id");
  const payload = { html: section ? section.outerHTML : htmlBox.value, insert_after_slide_id: editor.loaded.id };
  if (editor.loaded.notes) payload.notes = editor.loaded.notes;
  await structuralNow("POST", `/v1/decks/${deckId}/slides`, payload, (json) => json.data.id);
}));

$("delete-slide").addEventListener("click", () => {
  const i = selectedIndex();
  if (i < 0) return;
  if (!window.confirm("Delete this slide? (It can be brought back from the deck's history.)")) return;
  const neighbour = editor.slides[i + 1] || editor.slides[i - 1];
  editor.dirty.delete("slide");
  structural("DELETE", `/v1/decks/${deckId}/slides`, { slide_ids: [editor.selected] }, () => neighbour && neighbour.id);
});

function move(delta) {
  const i = selectedIndex();
  const j = i + delta;
  if (i < 0 || j < 0 || j >= editor.slides.length) return;
  const id = editor.selected;
  const payload = { slide_ids: [id] };
  if (delta < 0) payload.insert_before_slide_id = editor.slides[j].id;
  else payload.insert_after_slide_id = editor.slides[j].id;
  structural("PATCH", `/v1/decks/${deckId}/slides/move`, payload, () => id);
}

// Undo and redo across every kind of change: the deck is restored to the revision before
// (or after) one of this page's changes, as a new revision; nothing in the history is lost.
async function travel(from, to) {
  await save();
  if (editor.dirty.size > 0 || editor.conflict) return;
  const target = from.pop();
  if (target === undefined) return setState("Nothing to undo", "saved");
  setState("Saving…", "saving");
  const current = editor.revision;
  const r = await api("POST", `/v1/decks/${deckId}/revisions/${target}/restore`, undefined, true, false);
  if (r.status === 412) {
    from.push(target);
    return showConflict("The deck changed elsewhere since your last change; reload to see it.");
  }
  if (r.status !== 200) {
    from.push(target);
    return setState((r.json && r.json.error) || "Not restored", "error");
  }
  followRevision(r.json);
  to.push(current);
  await refresh(editor.selected);
}
const undo = () => serially(() => travel(undoable.undo, undoable.redo));
const redo = () => serially(() => travel(undoable.redo, undoable.undo));
$("undo").addEventListener("click", undo);
$("redo").addEventListener("click", redo);
document.addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return;
  // Inside a text field the browser's own undo edits the text.
  if (event.target instanceof Element && event.target.closest("textarea, input, select, [contenteditable=true]")) return;
  event.preventDefault();
  if (event.shiftKey) redo();
  else undo();
});

// Vertical groups (group_slides): below the slide above, or out of the group after it.
$("group-below").addEventListener("click", () => {
  const i = selectedIndex();
  if (i <= 0) return;
  const id = editor.selected;
  const payload = { slide_ids: [id], below_slide_id: editor.slides[i - 1].id };
  structural("PATCH", `/v1/decks/${deckId}/slides/group`, payload, () => id);
});
$("group-out").addEventListener("click", () => {
  const slide = editor.slides[selectedIndex()];
  if (!slide) return;
  const mate = editor.slides.find(
    (s) => s.id !== slide.id && s.position.horizontal === slide.position.horizontal,
  );
  if (slide.position.vertical == null || !mate) {
    return setState("This slide is not in a vertical group", "error");
  }
  const payload = { slide_ids: [slide.id], after_stack_of_slide_id: mate.id };
  structural("PATCH", `/v1/decks/${deckId}/slides/group`, payload, () => slide.id);
});

$("move-up").addEventListener("click", () => move(-1));
$("move-down").addEventListener("click", () => move(1));
// Deck settings: each change is one update_deck with the deck's revision.
for (const control of document.querySelectorAll("[data-setting]")) {
  control.addEventListener("change", () => serially(async () => {
    const field = control.dataset.setting;
    const value = control.type === "number" ? Number(control.value) : control.value;
    await save();
    if (editor.dirty.size > 0 || editor.conflict) return;
    setState("Saving…", "saving");
    const r = await api("PATCH", `/v1/decks/${deckId}`, { [field]: value }, true);
    if (r.status === 412) return showConflict("The deck changed elsewhere; reload to see its current settings.");
    if (r.status !== 200) return setState((r.json && r.json.error) || "Not saved", "error");
    followRevision(r.json);
    setState("All changes saved", "saved");
    if (field === "width" || field === "height") editor[field] = value;
    if (field === "theme_color" || field === "theme_font") {
      editor.theme = `theme-${r.json.data.theme_color} font-${r.json.data.theme_font}`;
      renderList();
    }
    showCanvas();
    showPreview();
  }));
}

/** Puts an image block in the middle of the selected slide. */
function insertImage(url) {
  if (!editor.loaded) return;
  canvas.addImage(url);
}

/** Uploads an image file to the account's media library, then inserts it. */
async function uploadImage(file) {
  setState("Uploading image…", "saving");
  try {
    const response = await fetch(`/v1/media?name=${encodeURIComponent(file.name || "image")}`, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf, "Content-Type": file.type || "application/octet-stream" },
      credentials: "same-origin",
      body: file,
    });
    const json = await response.json().catch(() => null);
    if (!response.ok) return setState((json && json.error) || "The image was not uploaded", "error");
    insertImage(json.data.url);
  } catch (_) {
    setState("Offline: the image was not uploaded", "offline");
  }
}

$("image-file").addEventListener("change", (event) => {
  const file = event.target.files && event.target.files[0];
  if (file) uploadImage(file);
  event.target.value = "";
});
$("insert-url").addEventListener("click", () => {
  const url = $("image-url").value.trim();
  if (!/^https?:\/\//i.test(url)) return setState("An image URL starts with http:// or https://", "error");
  insertImage(url);
  $("image-url").value = "";
});
const stage = document.querySelector(".stage");
stage.addEventListener("dragover", (event) => {
  if (event.dataTransfer && [...event.dataTransfer.types].includes("Files")) {
    event.preventDefault();
    stage.classList.add("dropping");
  }
});
stage.addEventListener("dragleave", () => stage.classList.remove("dropping"));
stage.addEventListener("drop", (event) => {
  stage.classList.remove("dropping");
  const file = event.dataTransfer && event.dataTransfer.files[0];
  if (file && file.type.startsWith("image/")) {
    event.preventDefault();
    uploadImage(file);
  }
});

// Private share links: the same operations as the API (list, create, revoke).
async function loadShares() {
  const r = await api("GET", `/v1/decks/${deckId}/share`);
  const shares = $("share-list");
  shares.replaceChildren();
  if (r.status !== 200) return;
  for (const link of r.json.data) {
    const item = document.createElement("li");
    const a = document.createElement("a");
    a.href = link.url;
    a.textContent = link.name || link.url;
    a.target = "_blank";
    a.rel = "noopener";
    const facts = document.createElement("span");
    facts.className = "muted";
    const parts = [`${link.view_count} views`];
    if (link.password_protected) parts.push("password");
    if (link.expires_at) parts.push(`${link.expired ? "expired" : "expires"} ${link.expires_at.slice(0, 10)}`);
    facts.textContent = ` (${parts.join(", ")}) `;
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "danger";
    revoke.textContent = "Revoke";
    revoke.addEventListener("click", async () => {
      const gone = await api("DELETE", `/v1/decks/${deckId}/share/${link.id}`);
      if (gone.status !== 204) setState((gone.json && gone.json.error) || "Not revoked", "error");
      await loadShares();
    });
    item.append(a, facts, revoke);
    shares.append(item);
  }
}

$("share").addEventListener("toggle", () => {
  if ($("share").open) loadShares();
});
$("share-create").addEventListener("click", async () => {
  const payload = { name: $("share-name").value.trim() };
  const password = $("share-password").value;
  if (password) payload.password = password;
  const expires = $("share-expires").value;
  if (expires) payload.expires_at = `${expires}T23:59:59Z`;
  const r = await api("POST", `/v1/decks/${deckId}/share`, payload);
  if (r.status !== 201) return setState((r.json && r.json.error) || "The link was not created", "error");
  $("share-name").value = "";
  $("share-password").value = "";
  $("share-expires").value = "";
  setState("Share link created", "saved");
  await loadShares();
});

// Keyboard: arrow keys move through the slide list.
list.addEventListener("keydown", (event) => {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const i = selectedIndex();
  const next = editor.slides[i + (event.key === "ArrowDown" ? 1 : -1)];
  if (!next) return;
  event.preventDefault();
  serially(() => select(next.id)).then(() => {
    const button = list.querySelector(`[data-slide-id="${next.id}"]`);
    if (button) button.focus();
  });
});

htmlBox.addEventListener("input", () => changed("slide"));
htmlBox.addEventListener("change", () => {
  renderBlocks();
  showCanvas();
});

// The canvas's tools. Formatting buttons keep the text selection (no focus on mousedown).
const tool = (id, action) => {
  $(id).addEventListener("mousedown", (event) => event.preventDefault());
  $(id).addEventListener("click", () => {
    if (editor.loaded) action();
  });
};
tool("add-text", () => canvas.addText());
tool("add-rect", () => canvas.addShape("rect", $("shape-fill").value));
tool("add-ellipse", () => canvas.addShape("ellipse", $("shape-fill").value));
tool("add-triangle", () => canvas.addShape("triangle", $("shape-fill").value));
const stroke = () => canvas.shape("stroke", $("shape-stroke").value, Math.max(0, Math.round(Number($("shape-stroke-width").value) || 0)));
$("shape-stroke").addEventListener("change", stroke);
$("shape-stroke-width").addEventListener("change", stroke);
$("shape-radius").addEventListener("change", () => canvas.shape("radius", Math.max(0, Math.round(Number($("shape-radius").value) || 0))));
$("slide-background-image").addEventListener("change", () => {
  const url = $("slide-background-image").value.trim();
  if (url && !/^https?:\/\//i.test(url) && !url.startsWith("/media/")) {
    return setState("A background image URL starts with http:// or https://", "error");
  }
  canvas.backgroundImage(url);
});
tool("add-line", () => canvas.addLine(false, $("shape-fill").value));
tool("add-arrow", () => canvas.addLine(true, $("shape-fill").value));
tool("add-code", () => canvas.addCode($("code-language").value));
tool("add-html", () => canvas.addHtml());
$("code-language").addEventListener("change", () => canvas.language($("code-language").value));
for (const [id, command] of [["fmt-bold", "bold"], ["fmt-italic", "italic"], ["fmt-underline", "underline"], ["fmt-strike", "strikeThrough"], ["fmt-list", "insertUnorderedList"], ["fmt-numbers", "insertOrderedList"]]) {
  tool(id, () => document.execCommand(command));
}
// The text selection being edited on the canvas, kept while a toolbar control has focus.
let textRange = null;
document.addEventListener("selectionchange", () => {
  const selection = window.getSelection();
  if (canvas.editing && selection.rangeCount > 0 && canvas.editing.contains(selection.anchorNode)) {
    textRange = selection.getRangeAt(0).cloneRange();
  }
});

/** Runs a formatting command on the text being edited (its selection put back first);
 * returns false when no text is being edited. */
function formatText(command, value) {
  if (!canvas.editing) return false;
  canvas.editing.focus();
  if (textRange && canvas.editing.contains(textRange.startContainer)) {
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(textRange);
  }
  document.execCommand("styleWithCSS", false, command === "foreColor");
  document.execCommand(command, false, value);
  return true;
}
tool("fmt-link", () => {
  const url = window.prompt("Link to (https://…)");
  if (url && /^(https?:\/\/|mailto:)/i.test(url.trim())) formatText("createLink", url.trim());
});
for (const [id, command, align] of [["fmt-left", "justifyLeft", "left"], ["fmt-center", "justifyCenter", "center"], ["fmt-right", "justifyRight", "right"]]) {
  tool(id, () => formatText(command) || canvas.styleContent("text-align", align));
}
$("fmt-block").addEventListener("change", () => {
  formatText("formatBlock", $("fmt-block").value);
});
$("fmt-size").addEventListener("change", () => {
  const size = $("fmt-size").value;
  if (size) canvas.styleContent("font-size", `${size}px`);
  $("fmt-size").value = "";
});
$("fmt-colour").addEventListener("change", () => {
  const colour = $("fmt-colour").value;
  formatText("foreColor", colour) || canvas.styleContent("color", colour);
});
const fragmentBox = $("block-fragment");
const fragmentOrder = $("fragment-order");
const setFragment = () => canvas.fragment(fragmentBox.checked ? Math.max(0, Math.round(Number(fragmentOrder.value) || 0)) : null);
fragmentBox.addEventListener("change", setFragment);
fragmentOrder.addEventListener("change", () => fragmentBox.checked && setFragment());
$("canvas").addEventListener("blockselect", () => {
  const block = canvas.selectedBlock();
  fragmentBox.checked = Boolean(block && block.classList.contains("fragment"));
  fragmentOrder.value = (block && block.getAttribute("data-fragment-index")) || "0";
});
$("canvas").addEventListener("editfree", () => {
  htmlBox.scrollIntoView({ block: "center" });
  htmlBox.focus();
});
$("slide-background").addEventListener("change", () => canvas.background($("slide-background").value));
tool("block-forward", () => canvas.restack(1));
tool("block-backward", () => canvas.restack(-1));
tool("block-duplicate", () => canvas.duplicate());
tool("block-delete", () => canvas.remove());
$("shape-fill").addEventListener("input", () => canvas.fill($("shape-fill").value));
notesBox.addEventListener("input", () => changed("slide"));
titleBox.addEventListener("input", () => changed("title"));

window.addEventListener("beforeunload", (event) => {
  if (editor.dirty.size > 0 || editor.saving) {
    event.preventDefault();
    event.returnValue = "";
  }
});
window.addEventListener("online", () => {
  if (editor.dirty.size > 0) serially(save);
});

refresh(null).catch((e) => setState(`The deck could not be loaded: ${e.message}`, "error"));
