// The slide canvas: draws the selected slide as the deck pages do (slide-frame.js: the same
// DOM, stylesheet, code and math), scaled to fit the page, with the selection's handles over
// its blocks; the slide's free reveal.js HTML is drawn behind them. Only blocks that changed since the last drawing are drawn again (the
// model's untouched blocks are the same objects), and never the one whose text is being
// edited in place. Pointer and keyboard input is canvas-input.js; both only call actions.

import { drawable, drawableChildren } from "./inert.js";
import { blockHtml, blockOf, blockType, blocksOf, freeHtml, px, sectionAttr, serializeSlide } from "../model/slide.js";
import { resizeBlock, selectBlocks } from "../actions/blocks.js";
import { setBlockContent, setCodeText } from "../actions/format.js";
import { cleanPasted } from "./paste.js";
import { installInput } from "./canvas-input.js";
import { centreSlide, deckSize, dressFrame, renderSlides, slideFrame } from "./slide-frame.js";

/** Pastes longer than this many characters are asked about first. */
const LARGE_PASTE = 20000;

/** An element parsed from `html` in a document that runs and loads nothing. */
function parsed(html, selector) {
  return new DOMParser().parseFromString(`<!doctype html><body>${html}`, "text/html").body.querySelector(selector);
}

export class CanvasView {
  /**
   * @param {HTMLElement} frame the element the canvas fills (its width decides the scale)
   * @param store the editor's store
   * @param {{ editFree: () => void }} hooks what a double-click on free HTML does
   */
  constructor(frame, store, hooks) {
    this.frame = frame;
    this.store = store;
    this.hooks = hooks;
    this.slide = slideFrame("canvas-board");
    this.board = this.slide.section;
    this.free = document.createElement("div");
    this.free.className = "canvas-free";
    this.board.append(this.free);
    frame.replaceChildren(this.slide.root);
    frame.tabIndex = 0;
    this.scale = 1;
    this.size = { width: 960, height: 700 };
    this.drawn = new Map(); // block key -> { block, view }
    this.drawnFree = null; // the free HTML drawn
    this.editing = null; // { key, content } while a block's text is edited in place
    this.preview = null; // the state a drag shows before it is dispatched
    installInput(this);
    new ResizeObserver(() => this.fit()).observe(frame.parentElement || frame);
    window.addEventListener("resize", () => this.fit());
    store.subscribe((state) => {
      if (!this.preview) this.draw(state);
    });
  }

  /** The state on screen: a drag's preview, or the store's. */
  get state() {
    return this.preview || this.store.state;
  }

  /** The drawn block view of `key`. */
  view(key) {
    const drawn = this.drawn.get(key);
    return drawn ? drawn.view : null;
  }

  /** Scales the canvas to the stage's width and to the window's height below its top (with
   * the page scrolled to the top), so that the whole slide shows without scrolling. */
  fit() {
    const room = (this.frame.parentElement || this.frame).clientWidth - 2; // less the border (whole pixels)
    const top = this.frame.getBoundingClientRect().top + window.scrollY;
    const below = Math.floor(Math.max(window.innerHeight - top - 12, window.innerHeight * 0.35));
    const { width, height } = this.size;
    this.scale = Math.min(room / width, below / height) || 1;
    this.slide.slides.style.transform = `scale(${this.scale})`;
    this.frame.style.width = `${Math.round(width * this.scale)}px`;
    this.frame.style.height = `${Math.round(height * this.scale)}px`;
  }

  /** Draws `state`'s selected slide. */
  draw(state) {
    const deck = state.deck || {};
    this.size = deckSize(deck);
    const model = state.slide ? state.slide.model : null;
    if (this.editing && !(model && state.selection.includes(this.editing.key))) this.stopEditing();
    const background = { color: sectionAttr(model, "data-background-color"), image: sectionAttr(model, "data-background-image") };
    dressFrame(this.slide, "canvas-frame", deck, this.scale, background);
    this.fit();
    this.drawFree(model);
    const blocks = blocksOf(model);
    const keep = new Set(blocks.map((b) => b.key));
    for (const [key, { view }] of this.drawn) {
      if (!keep.has(key)) {
        view.remove();
        this.drawn.delete(key);
      }
    }
    let previous = this.free;
    for (const block of blocks) {
      let view = this.view(block.key);
      const editing = this.editing && this.editing.key === block.key;
      if (!view || (!editing && this.drawn.get(block.key).block !== block)) {
        const fresh = document.importNode(drawable(parsed(blockHtml(block), "div")), true);
        fresh.dataset.key = block.key;
        renderSlides(fresh);
        if (view) view.replaceWith(fresh);
        view = fresh;
        this.drawn.set(block.key, { block, view });
      }
      if (view.previousElementSibling !== previous) previous.after(view);
      previous = view;
    }
    centreSlide(this.slide, deck);
    this.decorate(state);
  }

  /** Draws the slide's HTML apart from its blocks, when it changed. */
  drawFree(model) {
    const free = model ? serializeSlide({ ...model, parts: model.parts.filter((p) => "free" in p) }) : "";
    if (free === this.drawnFree) return;
    this.drawnFree = free;
    const section = model && freeHtml(model).trim() ? parsed(free, "section") : null;
    this.free.replaceChildren(...(section ? drawableChildren(section) : []));
    renderSlides(this.free);
  }

  /** Marks the selected blocks; the only selected block also gets its resize and rotate
   * handles. */
  decorate(state) {
    const one = state.selection.length === 1 ? state.lead : null;
    for (const [key, { view }] of this.drawn) {
      view.classList.toggle("canvas-selected", state.selection.includes(key));
      const handles = view.querySelectorAll(":scope > .canvas-handle, :scope > .canvas-rotate");
      if (key !== one) {
        for (const h of handles) h.remove();
      } else if (handles.length === 0) {
        // Eight handles, the bottom-right corner first.
        const handles = ["se", "nw", "n", "ne", "e", "s", "sw", "w"].map((side) => {
          const handle = document.createElement("div");
          handle.className = "canvas-handle";
          handle.dataset.handle = side;
          handle.title = "Drag to resize (Shift: keep the proportions)";
          return handle;
        });
        const rotate = document.createElement("div");
        rotate.className = "canvas-rotate";
        rotate.title = "Drag to rotate (snaps to 15°)";
        view.append(...handles, rotate);
      }
    }
  }

  /** Makes block `key`'s content editable in place; `selectAll` selects its text so that
   * typing replaces it. Code is typed into its <code> element. */
  startEditing(key, selectAll = false) {
    this.store.run(selectBlocks, [key]);
    const view = this.view(key);
    const block = this.drawn.get(key)?.block;
    if (!view || !block) return;
    const code = blockType(block) === "code" && view.querySelector("code");
    const content = code || view.querySelector(".sl-block-content");
    if (!content) return;
    // What is typed into is the model's markup, not the highlighted code or drawn math.
    const raw = drawable(parsed(blockHtml(block), "div")).querySelector(code ? "code" : ".sl-block-content");
    if (raw) content.replaceChildren(...[...raw.childNodes].map((n) => document.importNode(n, true)));
    if (code) for (const step of view.querySelectorAll("pre > code ~ code")) step.remove();
    this.editing = { key, content };
    content.contentEditable = "true";
    content.addEventListener("paste", (event) => {
      // Pasted rich text keeps only what a slide keeps: text, emphasis, links, lists.
      const html = event.clipboardData && event.clipboardData.getData("text/html");
      const text = (event.clipboardData && event.clipboardData.getData("text/plain")) || "";
      const size = Math.max(text.length, html ? html.length : 0);
      if (size > LARGE_PASTE && !window.confirm(`Paste ${size.toLocaleString("en")} characters into this block? A slide shows a few hundred.`)) {
        event.preventDefault();
        return;
      }
      if (!html) return;
      event.preventDefault();
      document.execCommand("insertHTML", false, cleanPasted(html));
    });
    content.addEventListener("input", () => {
      if (this.editing && this.editing.content === content) {
        this.store.run(code ? setCodeText : setBlockContent, key, content.innerHTML);
        if (!code) this.growToText(key, view, content);
      }
    });
    content.focus();
    if (selectAll) {
      const range = document.createRange();
      range.selectNodeContents(content);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
  }

  /** A text block as tall as its text (Slides.com's auto-height): it grows while it is typed
   * into, never shrinks by itself. */
  growToText(key, view, content) {
    const needed = Math.ceil(content.scrollHeight);
    const block = blockOf(this.store.state.slide?.model, key);
    if (!block || needed <= view.offsetHeight) return;
    view.style.height = `${needed}px`;
    this.store.run(resizeBlock, key, px(block, "width"), needed);
  }

  /** Shows thin lines at `guides` ({x: [...], y: [...]}, canvas pixels) over the slide, or
   * none (null). */
  showGuides(guides) {
    for (const line of this.slide.slides.querySelectorAll(":scope > .canvas-guide")) line.remove();
    if (!guides) return;
    const { width, height } = this.size;
    for (const [axis, lines] of [["x", guides.x], ["y", guides.y]]) {
      for (const at of lines) {
        const line = document.createElement("div");
        line.className = `canvas-guide canvas-guide-${axis}`;
        Object.assign(line.style, axis === "x"
          ? { left: `${at}px`, top: "0px", height: `${height}px` }
          : { top: `${at}px`, left: "0px", width: `${width}px` });
        this.slide.slides.append(line);
      }
    }
  }

  /** Ends editing in place; the block is drawn again from the model. */
  stopEditing() {
    if (!this.editing) return;
    this.editing.content.contentEditable = "false";
    const drawn = this.drawn.get(this.editing.key);
    if (drawn) drawn.block = null;
    this.editing = null;
  }
}
