// A slide drawn on the editor's page as the deck pages draw it: reveal.js's DOM (`.reveal
// .slides section`) wearing the deck's preset classes, styled by the one slide stylesheet
// (slides.css), its code and math drawn by `/assets/web/slides.js`. The canvas and the slide
// list differ from the viewer only in scale; the canvas draws its handles over this DOM.

/** A frame around one slide: `root` (`.reveal`), `slides` (the deck-sized, scaled layer) and
 * `section` (the slide, with class `sectionClass`). */
export function slideFrame(sectionClass) {
  const root = document.createElement("div");
  const slides = document.createElement("div");
  slides.className = "slides";
  const section = document.createElement("section");
  section.className = sectionClass;
  slides.append(section);
  root.append(slides);
  return { root, slides, section };
}

/** The deck's canvas size. */
export function deckSize(deck) {
  return { width: (deck && deck.width) || 960, height: (deck && deck.height) || 700 };
}

/** Dresses `frame` in the deck's presets and the slide's background (`model` attributes
 * `data-background-color` and `-image`), at `scale`. */
export function dressFrame(frame, kind, deck, scale, background = {}) {
  const { width, height } = deckSize(deck);
  deckStyle(deck);
  frame.root.className = `reveal slide-frame ${kind} theme-${deck.theme_color} font-${deck.theme_font}`;
  frame.root.style.setProperty("--lectern-slide-height", `${height}px`);
  frame.root.style.backgroundColor = background.color || "";
  frame.root.style.backgroundImage = background.image ? `url("${background.image.replace(/["\\]/g, "")}")` : "";
  frame.slides.style.width = `${width}px`;
  frame.slides.style.height = `${height}px`;
  frame.slides.style.transform = `scale(${scale})`;
}

/** The deck CSS the page applies now. */
let appliedCss = "";

/** The deck's own CSS (an imported theme's look, its `<style>`), as the deck pages apply it,
 * limited to the slides drawn on this page (the scope is each frame's parent, so that the
 * frame itself, the `.reveal`, is inside it). Set as text, never parsed as HTML. */
export function deckStyle(deck) {
  const css = (deck && deck.css) || "";
  if (css === appliedCss) return; // every frame dressed asks; the page needs it once
  appliedCss = css;
  let style = document.getElementById("deck-css");
  if (!style) {
    style = document.createElement("style");
    style.id = "deck-css";
    document.head.append(style);
  }
  style.textContent = css ? `@scope (:has(> .slide-frame)) {\n${css}\n}` : "";
}

/** Draws the code and math under `root` (render.js, loaded by the page beside the editor) and
 * sizes `r-fit-text` and `r-stretch` to the deck's size; code steps show their first step.
 * Until that script has arrived, nothing: see `renderWhenLoaded`. */
export function renderSlides(root) {
  if (!window.LecternSlides) return;
  const slides = root.closest(".slides");
  const size = slides && { width: parseFloat(slides.style.width) || 960, height: parseFloat(slides.style.height) || 700 };
  window.LecternSlides.renderSlides(root, { steps: false, size });
}

/** Sizes `r-fit-text` and `r-stretch` in a slide drawn before it was on the page (the slide
 * list's), once it is. */
export function layoutFrame(section, deck) {
  if (window.LecternSlides) window.LecternSlides.layoutSlide(section, deckSize(deck));
}

/** Draws the code and math of the slides already on the page once render.js arrives (it
 * loads beside the editor's script, which does not wait for it), then `after()`. */
export function renderWhenLoaded(after) {
  const script = document.getElementById("slides-script");
  if (window.LecternSlides || !script) return;
  script.addEventListener("load", () => {
    for (const section of document.querySelectorAll(".slide-frame .slides > section")) renderSlides(section);
    after();
  });
}

/** Where reveal.js (`center`) puts `section` from the canvas's top: a slide without blocks is
 * centred vertically; one with blocks is the canvas (slides.css). */
export function slideTop(section, deck) {
  if (section.querySelector(":scope > .sl-block")) return "";
  return `${Math.max((deckSize(deck).height - section.scrollHeight) / 2, 0)}px`;
}

/** Places the frame's slide as reveal.js does. */
export function centreSlide(frame, deck) {
  frame.section.style.top = slideTop(frame.section, deck);
}
