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

/** Draws the code and math of the slides under `root` (once: drawn parts are left alone).
 * `steps`: whether code steps (`data-line-numbers="1|2-3"`) become fragments, as when
 * presenting; the editor draws their first step only. */
export function renderSlides(root, { steps = true } = {}) {
  for (const code of root.querySelectorAll("pre code")) drawCode(code, steps);
  drawMath(root);
}
