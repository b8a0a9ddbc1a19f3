// The slide canvas: the selected slide's blocks (Slides.com block markup: div.sl-block with
// data-block-type, data-block-id and left/top/width/height in its style, around
// div.sl-block-content) drawn at their places on the deck's canvas, scaled to fit the page.
// A person clicks a block to select it (Shift+click or a rectangle dragged on the empty
// canvas selects several), drags to move the selection, drags the corner to resize and the
// top knob to rotate (moves and resizes snap to the canvas's edges and centre and to the
// other blocks' edges and centres; rotation to 15° steps), double-clicks text or code to
// edit it in place, and adds, deletes, duplicates, copies, pastes and restacks blocks.
// Positions are stored in canvas pixels: the screen distance divided by the scale, whole
// pixels.
//
// The canvas edits a model: the slide's <section> parsed by the editor. Every change is
// made to the model's block (the one at the same index), and `onChange` gets the model's
// new HTML; blocks the person did not touch keep their markup as it was. Content outside
// the blocks (free reveal.js HTML) is drawn behind them but edited as HTML, not here.

import { drawable, drawableChildren } from "./inert.js";

/** Screen pixels within which a moved edge snaps to the canvas's edges and centre. */
const SNAP = 6;

/** The block copied last (its HTML), pasted by Ctrl+V on any slide of the page. */
let copied = null;

/** Tags and attributes pasted rich text keeps (what slides keep and the toolbar makes). */
const PASTE_TAGS = new Set(["P", "BR", "B", "STRONG", "I", "EM", "U", "S", "STRIKE", "A", "UL", "OL", "LI", "H1", "H2", "H3", "SPAN", "CODE", "PRE", "BLOCKQUOTE"]);

/** Pasted HTML reduced to text, emphasis, links (http, https, mailto) and lists. */
function cleanPasted(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const clean = (node) => {
    for (const child of [...node.childNodes]) {
      if (child.nodeType === Node.TEXT_NODE) continue;
      if (child.nodeType !== Node.ELEMENT_NODE || ["SCRIPT", "STYLE", "TEMPLATE", "IFRAME", "OBJECT"].includes(child.tagName)) {
        child.remove();
        continue;
      }
      clean(child);
      if (!PASTE_TAGS.has(child.tagName)) {
        child.replaceWith(...child.childNodes);
        continue;
      }
      const href = child.tagName === "A" ? child.getAttribute("href") || "" : "";
      for (const attr of [...child.attributes]) child.removeAttribute(attr.name);
      if (/^(https?:|mailto:)/i.test(href)) child.setAttribute("href", href);
    }
  };
  clean(doc.body);
  return doc.body.innerHTML;
}

/** Reads a pixel length from a block's inline style. */
const px = (element, side) => Math.round(Number.parseFloat(element.style.getPropertyValue(side)) || 0);

export class Canvas {
  /**
   * @param {HTMLElement} frame the element the canvas fills (its width decides the scale)
   * @param {(html: string) => void} onChange called with the slide's HTML after each change
   */
  constructor(frame, onChange) {
    this.frame = frame;
    this.onChange = onChange;
    this.board = document.createElement("div");
    this.board.className = "canvas-board";
    this.free = document.createElement("div");
    this.free.className = "canvas-free";
    this.board.append(this.free);
    frame.replaceChildren(this.board);
    frame.tabIndex = 0;
    this.section = null;
    this.width = 960;
    this.height = 700;
    this.selected = -1; // the block last selected (the one the handles and tools act on)
    this.selection = new Set(); // every selected block's index
    this.theme = ""; // the deck's theme classes (themes.css)
    this.editing = null; // the view's content element being edited in place
    frame.addEventListener("pointerdown", (event) => this.pointerDown(event));
    frame.addEventListener("dblclick", (event) => this.doubleClick(event));
    frame.addEventListener("keydown", (event) => this.key(event));
    frame.addEventListener("copy", (event) => this.copy(event));
    frame.addEventListener("paste", (event) => this.paste(event));
    new ResizeObserver(() => this.fit()).observe(frame.parentElement || frame);
    window.addEventListener("resize", () => this.fit());
  }

  /** Shows `section` (a parsed <section>, the model) on a canvas of `width` x `height`. */
  show(section, width, height) {
    this.section = section;
    this.width = width || 960;
    this.height = height || 700;
    this.editing = null;
    if (this.selected >= this.blocks().length) {
      this.selected = -1;
      this.selection = new Set();
    }
    this.render();
  }

  /** The model's blocks, in order. */
  blocks() {
    return this.section ? [...this.section.querySelectorAll(".sl-block")] : [];
  }

  /** The drawn blocks, in the model's order. */
  views() {
    return [...this.board.querySelectorAll(":scope > .sl-block")];
  }

  /** Scales the canvas to the stage's width, and to at most 70% of the window's height. */
  fit() {
    const room = (this.frame.parentElement || this.frame).clientWidth - 2; // less the border
    const scale = Math.min(room / this.width, (window.innerHeight * 0.7) / this.height) || 1;
    this.scale = scale;
    this.board.style.width = `${this.width}px`;
    this.board.style.height = `${this.height}px`;
    this.board.style.transform = `scale(${scale})`;
    this.frame.style.width = `${Math.round(this.width * scale)}px`;
    this.frame.style.height = `${Math.round(this.height * scale)}px`;
  }

  render() {
    this.fit();
    for (const view of this.views()) view.remove();
    if (!this.section) {
      this.free.replaceChildren();
      return;
    }
    this.board.className = `canvas-board ${this.theme || ""}`;
    this.board.style.background = this.section.getAttribute("data-background-color") || "";
    const image = this.section.getAttribute("data-background-image");
    if (image) this.board.style.backgroundImage = `url("${image.replace(/["\\]/g, "")}")`;
    this.board.style.backgroundSize = "cover";
    const rest = this.section.cloneNode(true);
    for (const block of rest.querySelectorAll(".sl-block")) block.remove();
    this.free.replaceChildren(...drawableChildren(rest));
    this.blocks().forEach((block, index) => {
      const view = document.importNode(drawable(block), true);
      view.dataset.index = String(index);
      if (this.selection.has(index)) this.decorate(view, index === this.selected && this.selection.size === 1);
      this.board.append(view);
    });
  }

  /** Marks `view` as selected; the only selected block also gets its resize and rotate
   * handles. */
  decorate(view, handles) {
    view.classList.add("canvas-selected");
    if (!handles) return;
    const handle = document.createElement("div");
    handle.className = "canvas-handle";
    handle.title = "Drag to resize";
    const rotate = document.createElement("div");
    rotate.className = "canvas-rotate";
    rotate.title = "Drag to rotate (snaps to 15°)";
    view.append(handle, rotate);
  }

  /** Selects block `index` (-1: none); with `add`, adds it to the selection or takes it out. */
  select(index, add = false) {
    if (add && index >= 0) {
      if (this.selection.has(index)) this.selection.delete(index);
      else this.selection.add(index);
      this.selected = this.selection.has(index) ? index : [...this.selection].pop() ?? -1;
    } else {
      this.selection = new Set(index >= 0 ? [index] : []);
      this.selected = index;
    }
    if (!this.editing || !this.selection.has(Number(this.editing.closest(".sl-block")?.dataset.index))) {
      this.stopEditing();
    }
    for (const view of this.views()) {
      view.classList.remove("canvas-selected");
      for (const h of view.querySelectorAll(":scope > .canvas-handle, :scope > .canvas-rotate")) h.remove();
    }
    const views = this.views();
    for (const i of this.selection) {
      if (views[i]) this.decorate(views[i], i === this.selected && this.selection.size === 1);
    }
    this.frame.dispatchEvent(new CustomEvent("blockselect", { detail: { index: this.selected } }));
  }

  /** Selects every block in `indices`. */
  selectAll(indices) {
    this.select(-1);
    for (const i of indices) this.select(i, true);
  }

  /** Applies `change` to the model's block `index` (and redraws it unless told not to). */
  change(index, change, redraw = true) {
    this.changeMany([index], change, redraw);
  }

  /** Applies `change` to each of the model's blocks in `indices`, then tells the editor once. */
  changeMany(indices, change, redraw = true) {
    const blocks = this.blocks();
    const changed = indices.map((i) => blocks[i]).filter(Boolean);
    if (changed.length === 0) return;
    for (const block of changed) change(block);
    this.onChange(this.section.outerHTML);
    if (redraw) {
      this.render();
      this.select(this.selected);
      for (const i of indices) if (i !== this.selected) this.select(i, true);
    }
  }

  pointerDown(event) {
    if (event.button !== 0) return;
    const view = event.target.closest(".canvas-board > .sl-block");
    if (this.editing && view && this.editing.closest(".sl-block") === view) return; // text selection
    this.frame.focus({ preventScroll: true });
    if (!view) {
      this.marquee(event);
      return;
    }
    const index = Number(view.dataset.index);
    if (event.shiftKey) {
      this.select(index, true);
      return;
    }
    if (!this.selection.has(index)) this.select(index);
    event.preventDefault();
    if (event.target.classList.contains("canvas-rotate")) return this.rotate(event, index);
    const resizing = event.target.classList.contains("canvas-handle");
    const views = this.views();
    const moving = [...this.selection].map((i) => ({
      i,
      view: views[i],
      left: px(views[i], "left"),
      top: px(views[i], "top"),
      width: px(views[i], "width"),
      height: px(views[i], "height"),
    }));
    const lead = moving.find((m) => m.i === index);
    const x = event.clientX;
    const y = event.clientY;
    let moved = false;
    this.track(event, (e) => {
      const dx = (e.clientX - x) / this.scale;
      const dy = (e.clientY - y) / this.scale;
      if (!moved && Math.abs(dx) + Math.abs(dy) < 1) return;
      moved = true;
      if (resizing) {
        const width = this.snap(lead.left + lead.width + dx, this.lines("x")) - lead.left;
        const height = this.snap(lead.top + lead.height + dy, this.lines("y")) - lead.top;
        lead.view.style.width = `${Math.max(8, Math.round(width))}px`;
        lead.view.style.height = `${Math.max(8, Math.round(height))}px`;
        return;
      }
      // The block pressed snaps; the others of the selection keep their distance to it.
      const left = Math.round(this.snapBox(lead.left + dx, lead.width, this.lines("x")));
      const top = Math.round(this.snapBox(lead.top + dy, lead.height, this.lines("y")));
      for (const m of moving) {
        m.view.style.left = `${m.left + left - lead.left}px`;
        m.view.style.top = `${m.top + top - lead.top}px`;
      }
    }, () => {
      if (!moved) return;
      const sides = resizing ? ["width", "height"] : ["left", "top"];
      const views = this.views();
      this.changeMany(moving.map((m) => m.i), (block) => {
        const view = views[this.blocks().indexOf(block)];
        for (const side of sides) block.style.setProperty(side, `${px(view, side)}px`);
      });
    });
  }

  /** Follows the pointer of `event` until it is released: `move` on every move, `done` after. */
  track(event, move, done) {
    this.frame.setPointerCapture(event.pointerId);
    const up = () => {
      this.frame.removeEventListener("pointermove", move);
      this.frame.removeEventListener("pointerup", up);
      this.frame.removeEventListener("pointercancel", up);
      done();
    };
    this.frame.addEventListener("pointermove", move);
    this.frame.addEventListener("pointerup", up);
    this.frame.addEventListener("pointercancel", up);
  }

  /** A rectangle dragged on the empty canvas selects the blocks it touches (with Shift, adds
   * them to the selection). */
  marquee(event) {
    const board = this.board.getBoundingClientRect();
    const at = (e) => [(e.clientX - board.left) / this.scale, (e.clientY - board.top) / this.scale];
    const [x0, y0] = at(event);
    const keep = event.shiftKey ? [...this.selection] : [];
    const box = document.createElement("div");
    box.className = "canvas-marquee";
    let area = null;
    event.preventDefault();
    this.track(event, (e) => {
      const [x1, y1] = at(e);
      area = { left: Math.min(x0, x1), top: Math.min(y0, y1), right: Math.max(x0, x1), bottom: Math.max(y0, y1) };
      if (!box.isConnected) this.board.append(box);
      Object.assign(box.style, {
        left: `${area.left}px`,
        top: `${area.top}px`,
        width: `${area.right - area.left}px`,
        height: `${area.bottom - area.top}px`,
      });
    }, () => {
      box.remove();
      if (!area) return this.select(-1);
      const touched = this.blocks().flatMap((b, i) => {
        const left = px(b, "left");
        const top = px(b, "top");
        const inside = left < area.right && left + px(b, "width") > area.left && top < area.bottom && top + px(b, "height") > area.top;
        return inside ? [i] : [];
      });
      this.selectAll([...new Set([...keep, ...touched])]);
    });
  }

  /** Turns block `index` around its centre with the pointer; snaps to multiples of 15°. */
  rotate(event, index) {
    const view = this.views()[index];
    const box = view.getBoundingClientRect();
    const cx = box.left + box.width / 2;
    const cy = box.top + box.height / 2;
    let angle = null;
    this.track(event, (e) => {
      let a = (Math.atan2(e.clientY - cy, e.clientX - cx) * 180) / Math.PI + 90;
      a = ((Math.round(a) % 360) + 360) % 360;
      const nearest = Math.round(a / 15) * 15;
      if (Math.abs(a - nearest) <= 4) a = nearest % 360;
      angle = a;
      view.style.transform = a ? `rotate(${a}deg)` : "";
    }, () => {
      if (angle === null) return;
      this.change(index, (block) => {
        if (angle) block.style.setProperty("transform", `rotate(${angle}deg)`);
        else block.style.removeProperty("transform");
      });
    });
  }

  /** Where edges snap on `axis` ("x" or "y"): the canvas's edges and centre, and the edges
   * and centres of the blocks not selected. */
  lines(axis) {
    const [start, size, length] = axis === "x" ? ["left", "width", this.width] : ["top", "height", this.height];
    const lines = [0, length / 2, length];
    this.blocks().forEach((b, i) => {
      if (this.selection.has(i)) return;
      const a = px(b, start);
      const s = px(b, size);
      lines.push(a, a + s / 2, a + s);
    });
    return lines;
  }

  /** `value` moved onto the nearest of `lines` when within SNAP screen pixels. */
  snap(value, lines) {
    let best = value;
    let distance = SNAP / this.scale;
    for (const line of lines) {
      if (Math.abs(value - line) <= distance) {
        distance = Math.abs(value - line);
        best = line;
      }
    }
    return best;
  }

  /** A box's start at `start` with `size`, moved so that the nearest of its edges or centre
   * within SNAP screen pixels of one of `lines` lies on it. */
  snapBox(start, size, lines) {
    let best = start;
    let distance = SNAP / this.scale;
    for (const line of lines) {
      for (const edge of [start, start + size / 2, start + size]) {
        if (Math.abs(edge - line) <= distance) {
          distance = Math.abs(edge - line);
          best = start + (line - edge);
        }
      }
    }
    return best;
  }

  doubleClick(event) {
    // The block under the pointer: a press takes pointer capture (to drag), which makes the
    // canvas itself the double-click's target.
    const under = document.elementFromPoint(event.clientX, event.clientY) || event.target;
    const view = under.closest(".canvas-board > .sl-block");
    if (!view && this.free.childNodes.length > 0) {
      // The slide's free reveal.js HTML is one block edited as HTML: the editor opens it.
      this.frame.dispatchEvent(new CustomEvent("editfree"));
      return;
    }
    if (!view || !["text", "html", "code"].includes(view.dataset.blockType || "text")) return;
    if (this.editing && this.editing.closest(".sl-block") === view) return; // selecting words
    this.startEditing(Number(view.dataset.index));
    this.selectWordAt(event.clientX, event.clientY);
  }

  /** Selects the word at the screen point (`x`, `y`) of the text being edited, or puts the
   * caret there: a double-click's selection, which the press's drag handling prevented. */
  selectWordAt(x, y) {
    const caret = document.caretRangeFromPoint && document.caretRangeFromPoint(x, y);
    if (!caret || !this.editing || !this.editing.contains(caret.startContainer)) return;
    const node = caret.startContainer;
    const at = caret.startOffset;
    const range = document.createRange();
    range.setStart(node, at);
    if (node.nodeType === Node.TEXT_NODE) {
      for (const word of new Intl.Segmenter(undefined, { granularity: "word" }).segment(node.data)) {
        if (word.isWordLike && word.index <= at && at <= word.index + word.segment.length) {
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word.segment.length);
          break;
        }
      }
    }
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  /** Makes block `index`'s content editable in place; `selectAll` selects its text so that
   * typing replaces it. */
  startEditing(index, selectAll = false) {
    this.select(index);
    const view = this.views()[index];
    // Code is typed into its <code> element, everything else into the block's content.
    const part = view && view.dataset.blockType === "code" && view.querySelector("code") ? "code" : ".sl-block-content";
    const content = view && view.querySelector(part);
    if (!content) return;
    this.editing = content;
    content.contentEditable = "true";
    content.addEventListener("paste", (event) => {
      // Pasted rich text keeps only what a slide keeps: text, emphasis, links, lists.
      const html = event.clipboardData && event.clipboardData.getData("text/html");
      if (!html) return;
      event.preventDefault();
      document.execCommand("insertHTML", false, cleanPasted(html));
    });
    content.addEventListener("input", () => {
      this.change(index, (block) => {
        const target = block.querySelector(part);
        if (target) target.innerHTML = content.innerHTML;
      }, false);
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

  stopEditing() {
    if (!this.editing) return;
    this.editing.contentEditable = "false";
    this.editing = null;
  }

  key(event) {
    if (this.editing) {
      if (event.key === "Escape") {
        const index = this.selected;
        this.stopEditing();
        this.render();
        this.select(index);
        this.frame.focus();
      }
      return;
    }
    if (event.key === "Tab" && !event.ctrlKey && !event.metaKey) {
      // Tab walks the blocks (Shift+Tab back); past the last one focus leaves the canvas.
      const next = this.selected + (event.shiftKey ? -1 : 1);
      const from = this.selected < 0 && event.shiftKey ? this.blocks().length - 1 : next;
      if (from >= 0 && from < this.blocks().length) {
        event.preventDefault();
        this.select(from);
      }
      return;
    }
    const index = this.selected;
    if (index < 0) return;
    const step = event.shiftKey ? 10 : 1;
    const nudge = { ArrowLeft: ["left", -step], ArrowRight: ["left", step], ArrowUp: ["top", -step], ArrowDown: ["top", step] }[event.key];
    if (nudge) {
      event.preventDefault();
      event.stopPropagation();
      const [side, by] = nudge;
      this.changeMany([...this.selection], (block) => block.style.setProperty(side, `${px(block, side) + by}px`));
    } else if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      this.remove();
    } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "d") {
      event.preventDefault();
      this.duplicate();
    } else if (event.key === "Enter") {
      event.preventDefault();
      this.startEditing(index);
    } else if (event.key === "Escape") {
      this.select(-1);
    }
  }

  /** Adds `block` (an element in block markup) on top of the others and selects it. */
  add(block) {
    if (!this.section) return -1;
    const top = Math.max(0, ...this.blocks().map((b) => Number(b.style.zIndex) || 0));
    block.style.zIndex = String(top + 1);
    this.section.append(block);
    const index = this.blocks().length - 1;
    this.selected = index;
    this.onChange(this.section.outerHTML);
    this.render();
    this.select(index);
    return index;
  }

  /** A new block of `type` around `content` (HTML), `width` x `height`, centred. */
  block(type, content, width, height, contentStyle = "") {
    const doc = this.section.ownerDocument;
    const block = doc.createElement("div");
    block.className = "sl-block";
    block.dataset.blockType = type;
    block.dataset.blockId = Math.random().toString(36).slice(2, 10);
    const left = Math.max(0, Math.round((this.width - width) / 2));
    const top = Math.max(0, Math.round((this.height - height) / 2));
    block.setAttribute("style", `left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px;`);
    const inner = doc.createElement("div");
    inner.className = "sl-block-content";
    if (contentStyle) inner.setAttribute("style", contentStyle);
    inner.innerHTML = content;
    block.append(inner);
    return block;
  }

  addText() {
    const index = this.add(this.block("text", "<p>Text</p>", 600, 120));
    if (index >= 0) this.startEditing(index, true);
  }

  addShape(kind, fill) {
    const radius = {
      ellipse: " border-radius: 50%;",
      triangle: " clip-path: polygon(50% 0%, 100% 100%, 0% 100%);",
    }[kind] || "";
    const block = this.block("shape", "", 300, 200, `width: 100%; height: 100%; background-color: ${fill};${radius}`);
    block.firstChild.dataset.shapeType = kind;
    this.add(block);
  }

  /** A line, or an arrow pointing right, as SVG (what slides keep). */
  addLine(arrow, colour) {
    const head = arrow ? `<polygon points="300,20 282,10 282,30" fill="${colour}"></polygon>` : "";
    const end = arrow ? 284 : 300;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 300 40" preserveAspectRatio="none"><line x1="0" y1="20" x2="${end}" y2="20" stroke="${colour}" stroke-width="4"></line>${head}</svg>`;
    this.add(this.block("line", svg, 300, 40));
  }

  /** A code block in `language`, edited in place like text. */
  addCode(language) {
    const code = `<pre><code class="language-${language}" data-language="${language}">// code</code></pre>`;
    const index = this.add(this.block("code", code, 600, 240));
    if (index >= 0) this.startEditing(index, true);
  }

  /** A block of free HTML, edited in the block list's HTML field. */
  addHtml() {
    this.add(this.block("html", "<div>HTML</div>", 400, 200));
  }

  /** Sets the language of the selected code block. */
  language(language) {
    const block = this.selectedBlock();
    if (!block || block.dataset.blockType !== "code") return;
    this.change(this.selected, (b) => {
      const code = b.querySelector("code");
      if (!code) return;
      code.className = `language-${language}`;
      code.dataset.language = language;
    });
  }

  addImage(url) {
    const img = `<img src="${url.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}" alt="" style="width: 100%; height: 100%; object-fit: contain;">`;
    this.add(this.block("image", img, 480, 320));
  }

  /** Removes every selected block. */
  remove() {
    const blocks = this.blocks();
    const gone = [...this.selection].map((i) => blocks[i]).filter(Boolean);
    if (gone.length === 0) return;
    for (const block of gone) block.remove();
    this.selected = -1;
    this.selection = new Set();
    this.onChange(this.section.outerHTML);
    this.render();
  }

  duplicate() {
    const block = this.blocks()[this.selected];
    if (!block) return;
    const copy = block.cloneNode(true);
    copy.dataset.blockId = Math.random().toString(36).slice(2, 10);
    copy.style.left = `${px(block, "left") + 20}px`;
    copy.style.top = `${px(block, "top") + 20}px`;
    this.add(copy);
  }

  /** Moves the selected block one step up (1) or down (-1) the stacking order. */
  restack(direction) {
    const index = this.selected;
    const blocks = this.blocks();
    if (index < 0) return;
    const order = blocks.map((b, i) => ({ b, i, z: Number(b.style.zIndex) || 0 }));
    order.sort((x, y) => x.z - y.z || x.i - y.i);
    const at = order.findIndex((o) => o.i === index);
    const swap = at + direction;
    if (swap < 0 || swap >= order.length) return;
    [order[at], order[swap]] = [order[swap], order[at]];
    order.forEach((o, z) => {
      o.b.style.zIndex = String(z + 1);
    });
    this.onChange(this.section.outerHTML);
    this.render();
    this.select(index);
  }

  /** The selected block, or null. */
  selectedBlock() {
    return this.blocks()[this.selected] || null;
  }

  /** Sets a style property of the selected block's content (font size, colour, alignment). */
  styleContent(property, value) {
    if (this.selected < 0) return;
    this.change(this.selected, (b) => b.querySelector(".sl-block-content")?.style.setProperty(property, value));
    this.select(this.selected);
  }

  /** Makes the selected block a fragment shown at step `order` (or not one, with null). */
  fragment(order) {
    if (this.selected < 0) return;
    this.change(this.selected, (b) => {
      if (order == null) {
        b.classList.remove("fragment");
        b.removeAttribute("data-fragment-index");
      } else {
        b.classList.add("fragment");
        b.setAttribute("data-fragment-index", String(order));
      }
    });
    this.select(this.selected);
  }

  /** Sets a property of the selected shapes: "stroke" (colour and width) or "radius". */
  shape(property, value, width) {
    const blocks = this.blocks();
    const shapes = [...this.selection].filter((i) => blocks[i] && blocks[i].dataset.blockType === "shape");
    this.changeMany(shapes, (b) => {
      const content = b.querySelector(".sl-block-content");
      if (!content) return;
      if (property === "radius") content.style.setProperty("border-radius", `${value}px`);
      else if (width > 0) content.style.setProperty("border", `${width}px solid ${value}`);
      else content.style.removeProperty("border");
    });
  }

  /** Sets the slide's background image (reveal.js's data-background-image), or removes it. */
  backgroundImage(url) {
    if (!this.section) return;
    if (url) this.section.setAttribute("data-background-image", url);
    else this.section.removeAttribute("data-background-image");
    this.onChange(this.section.outerHTML);
    this.render();
  }

  /** Sets the slide's background colour (reveal.js's data-background-color). */
  background(colour) {
    if (!this.section) return;
    this.section.setAttribute("data-background-color", colour);
    this.onChange(this.section.outerHTML);
    this.render();
  }

  /** Copies the selected block (not while its text is edited: then the text is copied). */
  copy(event) {
    const block = this.selectedBlock();
    if (this.editing || !block) return;
    event.preventDefault();
    copied = block.outerHTML;
    event.clipboardData.setData("text/html", block.outerHTML);
    event.clipboardData.setData("text/plain", block.textContent || "");
  }

  /** Pastes the block copied last (from this slide or another) as a new block. */
  paste(event) {
    if (this.editing || !copied || !this.section) return;
    event.preventDefault();
    const holder = this.section.ownerDocument.createElement("div");
    holder.innerHTML = copied;
    const block = holder.firstElementChild;
    block.dataset.blockId = Math.random().toString(36).slice(2, 10);
    this.add(block);
  }

  /** Sets the selected shape's fill colour. */
  fill(colour) {
    const block = this.blocks()[this.selected];
    if (!block || block.dataset.blockType !== "shape") return;
    this.change(this.selected, (b) => b.querySelector(".sl-block-content").style.setProperty("background-color", colour));
    this.select(this.selected);
  }
}
