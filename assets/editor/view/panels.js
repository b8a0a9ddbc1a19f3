// The fields around the canvas: the deck's title, the side panel's speaker notes and HTML, the
// block panel (each block's place in pixels and its content as HTML), the save state, the
// conflict box and the preview frame. A field being typed in is never rewritten under the
// cursor; the others follow the state.

import { editHtml, editNotes, editTitle } from "../actions/slides.js";
import { moveBlocks, resizeBlock } from "../actions/blocks.js";
import { setBlockContent } from "../actions/format.js";
import { blockAttr, blockOf, blocksOf, px } from "../model/slide.js";
import { showPane } from "./side-tabs.js";

const $ = (id) => document.getElementById(id);
const PLACE = ["left", "top", "width", "height"];

/** Sets a field's value unless it is being typed in or already holds it. */
function show(field, value) {
  if (document.activeElement !== field && field.value !== value) field.value = value;
}

export class PanelsView {
  constructor(store, viewUrl) {
    this.store = store;
    this.viewUrl = viewUrl;
    this.blockKeys = null; // the blocks the panel lists, to redraw it only when they change
    $("deck-title").addEventListener("input", () => store.run(editTitle, $("deck-title").value));
    $("slide-notes").addEventListener("input", () => store.run(editNotes, $("slide-notes").value));
    $("slide-html").addEventListener("input", () => store.run(editHtml, $("slide-html").value));
    $("block-list").addEventListener("input", (event) => this.blockInput(event.target));
    store.subscribe((state) => this.draw(state));
  }

  /** Moves focus to the slide's HTML (a double-click on free HTML). */
  editFree() {
    showPane("html");
    $("slide-html").focus();
  }

  draw(state) {
    if (state.deck) {
      show($("deck-title"), state.deck.title);
      document.title = `Edit: ${state.deck.title} · Lectern`;
    }
    // Notes of a slide opened offline are not known: they are read when back online.
    const notes = $("slide-notes");
    notes.disabled = Boolean(state.slide) && state.slide.notes === null;
    notes.placeholder = notes.disabled ? "The notes are read when back online" : "";
    show(notes, state.slide?.notes ?? "");
    show($("slide-html"), state.slide ? state.slide.html : "");
    this.drawBlocks(state);
    this.drawPreview(state);
  }

  /** The block panel: drawn anew when the slide's blocks change, else its fields updated. */
  drawBlocks(state) {
    const blocks = blocksOf(state.slide?.model);
    const keys = `${state.slide?.id} ${blocks.map((b) => b.key).join(" ")}`;
    const list = $("block-list");
    $("blocks").hidden = blocks.length === 0;
    $("no-blocks").hidden = blocks.length > 0;
    if (keys !== this.blockKeys) {
      this.blockKeys = keys;
      list.replaceChildren(...blocks.map((b, i) => this.blockItem(b, i)));
    }
    blocks.forEach((block, index) => {
      for (const side of PLACE) {
        const input = list.querySelector(`input[data-block='${index}'][data-side='${side}']`);
        if (input && document.activeElement !== input) input.value = String(px(block, side));
      }
      const text = list.querySelector(`.block-content[data-block='${index}']`);
      if (text && block.content) show(text, block.content.html);
    });
  }

  blockItem(block, index) {
    const item = document.createElement("li");
    item.className = "block";
    item.dataset.key = block.key;
    const heading = document.createElement("div");
    heading.className = "block-heading";
    heading.textContent = `${blockAttr(block, "data-block-type") || "block"} ${blockAttr(block, "data-block-id") || index + 1}`;
    const place = document.createElement("div");
    place.className = "block-place";
    for (const side of PLACE) {
      const label = document.createElement("label");
      label.textContent = side;
      const input = document.createElement("input");
      input.type = "number";
      input.dataset.block = String(index);
      input.dataset.side = side;
      label.append(input);
      place.append(label);
    }
    item.append(heading, place);
    if (block.content) {
      const text = document.createElement("textarea");
      text.className = "block-content";
      text.rows = 2;
      text.dataset.block = String(index);
      text.setAttribute("aria-label", `Content of block ${index + 1}`);
      item.append(text);
    }
    return item;
  }

  /** A block panel field typed in: the same actions as the canvas's. */
  blockInput(field) {
    const key = field.closest(".block")?.dataset.key;
    const block = blockOf(this.store.state.slide?.model, key);
    if (!block) return;
    if (field.classList.contains("block-content")) return this.store.run(setBlockContent, key, field.value);
    const value = Math.round(Number(field.value) || 0);
    const side = field.dataset.side;
    if (side === "left") this.store.run(moveBlocks, [key], value - px(block, "left"), 0);
    else if (side === "top") this.store.run(moveBlocks, [key], 0, value - px(block, "top"));
    else if (side === "width") this.store.run(resizeBlock, key, value, px(block, "height"));
    else this.store.run(resizeBlock, key, px(block, "width"), value);
  }

  /** The preview frame shows the saved deck at the selected slide. */
  drawPreview(state) {
    const preview = $("preview");
    const slide = state.slides.find((s) => s.id === state.slide?.id);
    if (!slide || !state.deck) {
      if (preview.hasAttribute("src")) preview.removeAttribute("src");
      return;
    }
    const p = slide.position;
    const hash = p.vertical == null ? `#/${p.horizontal}` : `#/${p.horizontal}/${p.vertical}`;
    // A new query for each revision, so the frame reloads the saved deck.
    const src = `${this.viewUrl}/fullscreen?r=${state.deck.revision}${hash}`;
    if (preview.getAttribute("src") !== src) preview.src = src;
  }

  /** The save state in the header. */
  status(text, kind) {
    $("save-state").textContent = text;
    $("save-state").dataset.state = kind;
  }

  /** Shows a conflict: reload the slide (the person's text to the clipboard) or overwrite. */
  conflict(message, { reload, overwrite }) {
    const box = $("conflict");
    box.hidden = false;
    const text = document.createElement("p");
    text.textContent = message;
    const again = document.createElement("button");
    again.type = "button";
    again.textContent = "Reload this slide (your text stays in the clipboard)";
    again.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText($("slide-html").value);
      } catch (_) {
        /* the clipboard may be unavailable; the text was on screen */
      }
      box.hidden = true;
      reload();
    });
    const keep = document.createElement("button");
    keep.type = "button";
    keep.className = "secondary";
    keep.textContent = "Overwrite with my version";
    keep.addEventListener("click", () => {
      box.hidden = true;
      overwrite();
    });
    box.replaceChildren(text, again, keep);
  }
}
