// Stored slide markup drawn on the editor's own page (the canvas and the slide list) must
// not act on that page: a copy is drawn, without the elements and attributes that would
// navigate, load, submit, restyle the editor or run anything. The model the editor saves
// keeps the markup as it was; only what is drawn is made inert.

/** Elements never drawn on the editor's page. */
const DROPPED = "script, meta, base, link, style, iframe, frame, frameset, object, embed, form, noscript, template, portal";

/** Attributes never drawn: event handlers and those that move focus or show popovers. */
function dropped(name) {
  return name.startsWith("on") || name === "autofocus" || name === "popover" || name === "formaction";
}

/** Whether a URL attribute's value would run script or load a document. */
function scripted(value) {
  // eslint-disable-next-line no-control-regex -- browsers ignore these characters in URLs
  const url = value.replace(/[\u0000-\u0020]/g, "").toLowerCase();
  return url.startsWith("javascript:") || url.startsWith("vbscript:") || url.startsWith("data:text/html");
}

/**
 * A copy of `node` (an element of the editor's model) that can be put on the page: every
 * element and attribute that could act on the page removed.
 */
export function drawable(node) {
  const copy = node.cloneNode(true);
  const strip = (el) => {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      if (dropped(name) || ((name === "href" || name === "src" || name.endsWith(":href") || name.startsWith("data-")) && scripted(attr.value))) {
        el.removeAttribute(attr.name);
      }
    }
  };
  if (copy.nodeType === 1) {
    if (copy.matches(DROPPED)) return copy.ownerDocument.createTextNode("");
    for (const el of copy.querySelectorAll(DROPPED)) el.remove();
    strip(copy);
    for (const el of copy.querySelectorAll("*")) strip(el);
  }
  return copy;
}

/** The children of `section` (a model element), made inert, for `parent.replaceChildren`. */
export function drawableChildren(section) {
  return [...drawable(section).childNodes].map((n) => document.importNode(n, true));
}
