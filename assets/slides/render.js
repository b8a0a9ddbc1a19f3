// What every place that draws slides does to them after their HTML is in the page: the
// editor's canvas and slide list, the deck and share pages, the speaker view, PDFs, ZIPs and
// pictures. Code is highlighted by reveal.js's highlight plugin (highlight.js), with its
// `data-trim` and `data-line-numbers` (steps such as "1|2-3" become fragments), and math is
// drawn by KaTeX: `$$...$$` and `\[...\]` as displays, `\(...\)` inline, and the text of a
// `<span class="math">` (pandoc's output, with or without those delimiters).

import Highlight from "reveal.js/plugin/highlight";
import katex from "katex";
import renderMathInElement from "katex/contrib/auto-render";
import { trimCode } from "./code.js";

const highlight = Highlight();

const DELIMITERS = [
  { left: "$$", right: "$$", display: true },
  { left: "\\[", right: "\\]", display: true },
  { left: "\\(", right: "\\)", display: false },
];

/** Highlights one `<pre><code>` as reveal.js's highlight plugin does on a deck's load; with
 * `steps` false, only the first step of `data-line-numbers` is shown (the editor). */
function drawCode(code, steps) {
  if (code.dataset.highlighted) return;
  code.parentElement.classList.add("code-wrapper");
  const lines = code.getAttribute("data-line-numbers");
  if (!steps && lines && lines.includes("|")) code.setAttribute("data-line-numbers", lines.split("|")[0]);
  if (code.hasAttribute("data-trim")) code.textContent = trimCode(code.textContent);
  else if (code.children.length && !code.hasAttribute("data-noescape")) {
    // Markup written inside code shows as written, as reveal.js does; code that another tool
    // already marked up (pandoc's, Shiki's spans and line anchors) is highlighted from its text.
    const marked = [...code.querySelectorAll("*")].every((e) => e.tagName === "SPAN" || e.tagName === "A");
    code.textContent = marked ? code.textContent : code.innerHTML;
  }
  highlight.highlightBlock(code);
}

/** Draws the math inside `root` with KaTeX. */
function drawMath(root) {
  for (const span of root.querySelectorAll(".math")) {
    const tex = span.textContent.trim();
    if (span.querySelector(".katex") || DELIMITERS.some((d) => tex.startsWith(d.left))) continue;
    katex.render(tex, span, { displayMode: span.classList.contains("display"), throwOnError: false });
  }
  renderMathInElement(root, {
    delimiters: DELIMITERS,
    ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code", "option"],
    throwOnError: false,
  });
}

/** Sizes `.r-fit-text` to fill its container's width, as reveal.js does with fitty (at
 * least 24 px, at most 80 % of the slide's height). */
function fitText(element, height) {
  element.style.fontSize = "";
  const parent = element.parentElement;
  const style = getComputedStyle(parent);
  const available = parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const current = parseFloat(getComputedStyle(element).fontSize);
  if (!element.scrollWidth || !available) return;
  const size = Math.min(Math.max((current * available) / element.scrollWidth, 24), height * 0.8);
  element.style.fontSize = `${size}px`;
}

/** Gives `.r-stretch` (a child of the slide) the height its siblings leave, as reveal.js
 * does; pictures and videos keep their proportions within it. */
function stretch(element, width, height) {
  element.style.height = "0px";
  const section = element.parentElement;
  const style = getComputedStyle(element);
  const margins = parseFloat(style.marginTop) + parseFloat(style.marginBottom);
  const remaining = Math.max(height - section.offsetHeight - margins, 0);
  element.style.height = "";
  const natural = [element.naturalWidth || element.videoWidth, element.naturalHeight || element.videoHeight];
  if (natural[0] && natural[1]) {
    const scale = Math.min(width / natural[0], remaining / natural[1]);
    element.style.width = `${natural[0] * scale}px`;
    element.style.height = `${natural[1] * scale}px`;
  } else {
    element.style.width = `${width}px`;
    element.style.height = `${remaining}px`;
  }
}

/** Lays out what reveal.js sizes with script on a slide of `width` x `height` (`r-fit-text`,
 * and `r-stretch` directly in the slide or in `root`), for pages that draw slides without
 * reveal.js (the editor). Only what is on the page can be measured. */
export function layoutSlide(root, { width, height }) {
  if (!root.isConnected) return;
  for (const element of root.querySelectorAll(".r-fit-text")) fitText(element, height);
  for (const element of root.querySelectorAll(".r-stretch")) {
    const parent = element.parentElement;
    if (parent === root || parent.matches("section")) stretch(element, width, height);
  }
}

/** Draws the code and math of the slides under `root` (once: drawn parts are left alone).
 * `steps`: whether code steps (`data-line-numbers="1|2-3"`) become fragments, as when
 * presenting; the editor draws their first step only. `size` (the slide's `{width, height}`),
 * when given, also lays out `r-fit-text` and `r-stretch` as reveal.js would. */
export function renderSlides(root, { steps = true, size = null } = {}) {
  for (const code of root.querySelectorAll("pre code")) drawCode(code, steps);
  drawMath(root);
  if (size) layoutSlide(root, size);
}
