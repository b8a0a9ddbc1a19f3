// The slide canvas: the selected slide's blocks (Slides.com block markup: div.sl-block with
// data-block-type, data-block-id and left/top/width/height in its style, around
// div.sl-block-content) drawn at their places on the deck's canvas, scaled to fit the page.
// A person clicks a block to select it, drags it to move it, drags its corner to resize it
// (both snap to the canvas's edges and centre), double-clicks text to edit it in place,
// and adds, deletes, duplicates and restacks blocks. Positions are stored in canvas pixels:
// the screen distance divided by the scale, whole pixels.
//
// The canvas edits a model: the slide's <section> parsed by the editor. Every change is
// made to the model's block (the one at the same index), and `onChange` gets the model's
// new HTML; blocks the person did not touch keep their markup as it was. Content outside
// the blocks (free reveal.js HTML) is drawn behind them but edited as HTML, not here.

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
    this.selected = -1;
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
    if (this.selected >= this.blocks().length) this.selected = -1;
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
    this.board.style.background = this.section.getAttribute("data-background-color") || "";
    const rest = this.section.cloneNode(true);
    for (const block of rest.querySelectorAll(".sl-block")) block.remove();
    this.free.innerHTML = rest.innerHTML;
    this.blocks().forEach((block, index) => {
      const view = document.importNode(block, true);
      view.dataset.index = String(index);
      if (index === this.selected) this.decorate(view);
      this.board.append(view);
    });
  }

  /** Marks `view` as the selected block and gives it its resize handle. */
  decorate(view) {
    view.classList.add("canvas-selected");
    const handle = document.createElement("div");
    handle.className = "canvas-handle";
    handle.title = "Drag to resize";
    view.append(handle);
  }

  select(index) {
    if (index !== this.selected) this.stopEditing();
    this.selected = index;
    for (const view of this.views()) {
      view.classList.remove("canvas-selected");
      view.querySelector(":scope > .canvas-handle")?.remove();
    }
    const view = this.views()[index];
    if (view) this.decorate(view);
    this.frame.dispatchEvent(new CustomEvent("blockselect", { detail: { index } }));
  }

  /** Applies `change` to the model's block `index` (and redraws it unless told not to). */
  change(index, change, redraw = true) {
    const block = this.blocks()[index];
    if (!block) return;
    change(block);
    this.onChange(this.section.outerHTML);
    if (redraw) this.render();
  }

  pointerDown(event) {
    if (event.button !== 0) return;
    const view = event.target.closest(".canvas-board > .sl-block");
    if (this.editing && view && this.editing.closest(".sl-block") === view) return; // text selection
    if (!view) {
      this.select(-1);
      return;
    }
    const index = Number(view.dataset.index);
    if (index !== this.selected) this.select(index);
    this.frame.focus({ preventScroll: true });
    const selectedView = this.views()[index];
    const resizing = event.target.classList.contains("canvas-handle");
    const start = {
      x: event.clientX,
      y: event.clientY,
      left: px(selectedView, "left"),
      top: px(selectedView, "top"),
      width: px(selectedView, "width"),
      height: px(selectedView, "height"),
    };
    let moved = false;
    event.preventDefault();
    this.frame.setPointerCapture(event.pointerId);
    const move = (e) => {
      const dx = (e.clientX - start.x) / this.scale;
      const dy = (e.clientY - start.y) / this.scale;
      if (!moved && Math.abs(dx) + Math.abs(dy) < 1) return;
      moved = true;
      if (resizing) {
        const width = this.snap(start.left + start.width + dx, [this.width, this.width / 2]) - start.left;
        const height = this.snap(start.top + start.height + dy, [this.height, this.height / 2]) - start.top;
        selectedView.style.width = `${Math.max(8, Math.round(width))}px`;
        selectedView.style.height = `${Math.max(8, Math.round(height))}px`;
      } else {
        const left = this.snapBox(start.left + dx, start.width, this.width);
        const top = this.snapBox(start.top + dy, start.height, this.height);
        selectedView.style.left = `${Math.round(left)}px`;
        selectedView.style.top = `${Math.round(top)}px`;
      }
    };
    const up = () => {
      this.frame.removeEventListener("pointermove", move);
      this.frame.removeEventListener("pointerup", up);
      this.frame.removeEventListener("pointercancel", up);
      if (!moved) return;
      const sides = resizing ? ["width", "height"] : ["left", "top"];
      this.change(index, (block) => {
        for (const side of sides) block.style.setProperty(side, `${px(selectedView, side)}px`);
      });
      this.select(index);
    };
    this.frame.addEventListener("pointermove", move);
    this.frame.addEventListener("pointerup", up);
    this.frame.addEventListener("pointercancel", up);
  }

  /** `value` moved onto the nearest of `lines` (and 0) when within SNAP screen pixels. */
  snap(value, lines) {
    const reach = SNAP / this.scale;
    for (const line of [0, ...lines]) if (Math.abs(value - line) <= reach) return line;
    return value;
  }

  /** A box's start at `start` with `size` on an axis of `length`, snapped by its edges and
   * centre to the canvas's edges and centre. */
  snapBox(start, size, length) {
    const reach = SNAP / this.scale;
    for (const [edge, line] of [
      [start, 0],
      [start + size, length],
      [start + size / 2, length / 2],
    ]) {
      if (Math.abs(edge - line) <= reach) return start + (line - edge);
    }
    return start;
  }

  doubleClick(event) {
    const view = event.target.closest(".canvas-board > .sl-block");
    if (!view || !["text", "html", "code"].includes(view.dataset.blockType || "text")) return;
    if (this.editing && this.editing.closest(".sl-block") === view) return; // selecting words
    this.startEditing(Number(view.dataset.index));
  }

  /** Makes block `index`'s content editable in place; `selectAll` selects its text so that
   * typing replaces it. */
  startEditing(index, selectAll = false) {
    this.select(index);
    const view = this.views()[index];
    const content = view && view.querySelector(".sl-block-content");
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
        block.querySelector(".sl-block-content").innerHTML = content.innerHTML;
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
    const index = this.selected;
    if (index < 0) return;
    const step = event.shiftKey ? 10 : 1;
    const nudge = { ArrowLeft: ["left", -step], ArrowRight: ["left", step], ArrowUp: ["top", -step], ArrowDown: ["top", step] }[event.key];
    if (nudge) {
      event.preventDefault();
      event.stopPropagation();
      const [side, by] = nudge;
      this.change(index, (block) => block.style.setProperty(side, `${px(block, side) + by}px`));
      this.select(index);
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
    const radius = kind === "ellipse" ? " border-radius: 50%;" : "";
    const block = this.block("shape", "", 300, 200, `width: 100%; height: 100%; background-color: ${fill};${radius}`);
    block.firstChild.dataset.shapeType = kind;
    this.add(block);
  }

  addImage(url) {
    const img = `<img src="${url.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}" alt="" style="width: 100%; height: 100%; object-fit: contain;">`;
    this.add(this.block("image", img, 480, 320));
  }

  remove() {
    const block = this.blocks()[this.selected];
    if (!block) return;
    block.remove();
    this.selected = -1;
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
