// What every place that draws slides does to them after their HTML is in the page: the
// editor's canvas and slide list, the deck and share pages, the speaker view, PDFs, ZIPs and
// pictures. Code is highlighted by reveal.js's highlight plugin (highlight.js), with its
// `data-trim` and `data-line-numbers` (steps such as "1|2-3" become fragments), and math is
// drawn by KaTeX: `$$...$$` and `\[...\]` as displays, `\(...\)` inline, and the text of a
// `<span class="math">` (pandoc's output, with or without those delimiters).

import Highlight from "reveal.js/plugin/highlight";
import katex from "katex";
import renderMathInElement from "katex/contrib/auto-render";

const highlight = Highlight();

const DELIMITERS = [
  { left: "$$", right: "$$", display: true },
  { left: "\\[", right: "\\]", display: true },
  { left: "\\(", right: "\\)", display: false },
];

/** `text` without its blank first and last lines and the indentation all its lines share. */
export function trimCode(text) {
  const lines = text.split("\n");
  while (lines.length && lines[0].trim() === "") lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  const indents = lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(common)).join("\n");
}

/** Highlights one `<pre><code>` as reveal.js's highlight plugin does on a deck's load. */
function drawCode(code) {
  if (code.dataset.highlighted) return;
  code.parentElement.classList.add("code-wrapper");
  if (code.hasAttribute("data-trim")) code.textContent = trimCode(code.textContent);
  else if (code.children.length && !code.hasAttribute("data-noescape")) code.textContent = code.innerHTML;
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

/** Draws the code and math of the slides under `root` (once: drawn parts are left alone). */
export function renderSlides(root) {
  for (const code of root.querySelectorAll("pre code")) drawCode(code);
  drawMath(root);
}
