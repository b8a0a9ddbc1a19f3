// The slide list: a thumbnail and a label per slide, vertical groups indented, the
// selected slide marked. A click opens a slide, the arrow keys walk the list, and a slide
// dragged onto another goes before, after or below it (a vertical group).

import { drawableChildren } from "./inert.js";
import { deckSize, dressFrame, layoutFrame, renderSlides, slideFrame, slideTop } from "./slide-frame.js";
import { dropSlide, label } from "../actions/slides.js";

/** Where a slide dropped on `button` goes: its right part puts it below that slide (a
 * vertical group); the upper and lower halves before and after it. */
function dropKind(event, button) {
  const box = button.getBoundingClientRect();
  if (event.clientX > box.left + box.width * 0.6) return "below";
  return event.clientY < box.top + box.height / 2 ? "before" : "after";
}

export class SlideListView {
  /** @param saver sync/saver.js: opens slides and sends the list's requests */
  constructor(list, store, saver) {
    this.list = list;
    this.store = store;
    this.saver = saver;
    this.drawnFrom = null;
    this.selected = undefined;
    this.drag = null; // { id, x, y, pointerId, moving, target }
    store.subscribe((state) => this.draw(state));
    list.addEventListener("click", (event) => {
      const button = event.target.closest(".slide-item");
      if (button) saver.serially(() => saver.select(button.dataset.slideId));
    });
    list.addEventListener("keydown", (event) => this.key(event));
    list.addEventListener("pointerdown", (event) => this.pointerDown(event));
    list.addEventListener("pointermove", (event) => this.pointerMove(event));
    list.addEventListener("pointerup", (event) => this.pointerEnd(event));
    list.addEventListener("pointercancel", (event) => this.pointerEnd(event));
  }

  /** Draws the list anew when its slides or their looks changed, and marks the selected
   * slide; focus stays on it. */
  draw(state) {
    const deck = state.deck || {};
    const from = [state.slides, state.thumbs, deck.theme_color, deck.theme_font, deck.width, deck.height];
    const selected = state.slide && state.slide.id;
    const hadFocus = this.list.contains(document.activeElement);
    if (!this.drawnFrom || from.some((v, i) => v !== this.drawnFrom[i])) {
      this.drawnFrom = from;
      this.list.replaceChildren(...state.slides.map((slide) => this.item(state, slide)));
      this.centre(state);
    } else if (selected === this.selected) {
      return;
    }
    this.selected = selected;
    for (const button of this.list.querySelectorAll(".slide-item")) {
      const current = button.dataset.slideId === selected;
      button.setAttribute("aria-current", current ? "true" : "false");
      if (hadFocus && current) button.focus();
    }
  }

  /** A slide's entry: its thumbnail and label, indented below the head of its group. */
  item(state, slide) {
    const item = document.createElement("li");
    if (slide.position.vertical != null && slide.position.vertical > 0) item.className = "below";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "slide-item";
    button.dataset.slideId = slide.id;
    button.append(this.thumbnail(state, state.thumbs[slide.id]));
    const caption = document.createElement("span");
    caption.className = "slide-label";
    caption.textContent = label(slide);
    button.append(caption);
    item.append(button);
    return item;
  }

  /** A small picture of a slide, drawn as the deck pages draw it (slide-frame.js). */
  thumbnail(state, html) {
    const deck = state.deck || {};
    const { width, height } = deckSize(deck);
    const thumb = document.createElement("div");
    thumb.className = "thumb";
    const scale = 96 / width;
    thumb.style.height = `${Math.round(height * scale)}px`;
    const frame = slideFrame("thumb-board");
    const section = html && new DOMParser().parseFromString(html, "text/html").body.querySelector("section");
    const background = section
      ? { color: section.getAttribute("data-background-color"), image: section.getAttribute("data-background-image") }
      : {};
    dressFrame(frame, "thumb-frame", deck, scale, background);
    if (section) frame.section.replaceChildren(...drawableChildren(section));
    thumb.append(frame.root);
    renderSlides(frame.section);
    return thumb;
  }

  /** Places the drawn thumbnails' slides as reveal.js would, once they are on the page. */
  centre(state) {
    const sections = [...this.list.querySelectorAll(".thumb-board")];
    for (const section of sections) layoutFrame(section, state.deck);
    const tops = sections.map((section) => slideTop(section, state.deck)); // all read, then all set
    sections.forEach((section, i) => (section.style.top = tops[i]));
  }

  key(event) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const { slides, slide } = this.store.state;
    const i = slides.findIndex((s) => s.id === slide?.id);
    const next = slides[i + (event.key === "ArrowDown" ? 1 : -1)];
    if (!next) return;
    event.preventDefault();
    this.saver.serially(() => this.saver.select(next.id)).then(() => {
      const button = this.list.querySelector(`[data-slide-id="${next.id}"]`);
      if (button) button.focus();
    });
  }

  // Dragging with the mouse (or a finger): press on a slide, move, and let go on another.
  // A press that does not move is a click (it selects the slide).
  pointerDown(event) {
    const button = event.target.closest(".slide-item");
    if (!button || event.button !== 0) return;
    this.drag = { id: button.dataset.slideId, x: event.clientX, y: event.clientY, pointerId: event.pointerId, moving: false, target: null };
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.moving) {
      if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < 6) return;
      drag.moving = true;
      this.list.setPointerCapture(event.pointerId);
      this.list.classList.add("dragging");
    }
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const target = under && under.closest(".slide-item");
    if (drag.target && drag.target !== target) delete drag.target.dataset.drop;
    drag.target = target && target.dataset.slideId !== drag.id ? target : null;
    if (drag.target) drag.target.dataset.drop = dropKind(event, drag.target);
  }

  pointerEnd(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.moving) return;
    this.list.classList.remove("dragging");
    // The click that ends a drag is not a selection.
    const swallow = (e) => e.stopPropagation();
    this.list.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(() => this.list.removeEventListener("click", swallow, { capture: true }), 0);
    if (!drag.target) return;
    const kind = drag.target.dataset.drop || dropKind(event, drag.target);
    delete drag.target.dataset.drop;
    if (event.type === "pointerup") {
      this.saver.structural(dropSlide(this.store.state, drag.id, drag.target.dataset.slideId, kind));
    }
  }
}
