// Rich text pasted into a block keeps only what slides keep and the toolbar makes.

/** Tags pasted rich text keeps. */
const PASTE_TAGS = new Set(["P", "BR", "B", "STRONG", "I", "EM", "U", "S", "STRIKE", "A", "UL", "OL", "LI", "H1", "H2", "H3", "SPAN", "CODE", "PRE", "BLOCKQUOTE"]);

/** Elements dropped with everything in them. */
const DROPPED = ["SCRIPT", "STYLE", "TEMPLATE", "IFRAME", "OBJECT"];

/** Pasted HTML reduced to text, emphasis, links (http, https, mailto) and lists. */
export function cleanPasted(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const clean = (node) => {
    for (const child of [...node.childNodes]) {
      if (child.nodeType === Node.TEXT_NODE) continue;
      if (child.nodeType !== Node.ELEMENT_NODE || DROPPED.includes(child.tagName)) {
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
