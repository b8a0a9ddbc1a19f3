// The small part of HTML the model reads without a DOM: opening tags and their attributes,
// where an element ends, and inline style declarations. It reads markup as a browser or
// the server serialises it (quoted attributes, every <div> closed), which is what stored
// slides are; anything it does not change is kept as the exact text it came from.

/** Elements whose text is not markup: a "<div" inside them is not a tag. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"]);

/** Decodes the character references an attribute value may hold. */
export function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|quot|lt|gt|apos|nbsp);/gi, (all, ref) => {
    const r = ref.toLowerCase();
    if (r.startsWith("#x")) return String.fromCodePoint(Number.parseInt(r.slice(2), 16));
    if (r.startsWith("#")) return String.fromCodePoint(Number.parseInt(r.slice(1), 10));
    return { amp: "&", quot: '"', lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" }[r] ?? all;
  });
}

/** An attribute value as a serialiser writes it between double quotes. */
export function escapeAttr(value) {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/\u00a0/g, "&nbsp;");
}

/**
 * The tag that starts at `at` in `html` (which holds "<" there): its lower-case name, its
 * attributes as [name, decoded value] pairs in order, whether it closes an element, and
 * where it ends. Null when no tag starts there.
 */
export function readTag(html, at) {
  const head = /^<(\/?)([a-zA-Z][^\s/>]*)/.exec(html.slice(at, at + 64));
  if (!head) return null;
  const attrs = [];
  let i = at + head[0].length;
  const attr = /\s*([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?|\s*\/|\s+/y;
  while (i < html.length && html[i] !== ">") {
    attr.lastIndex = i;
    const m = attr.exec(html);
    if (!m || m[0].length === 0) {
      i += 1;
      continue;
    }
    if (m[1]) attrs.push([m[1].toLowerCase(), decode(m[2] ?? m[3] ?? m[4] ?? "")]);
    i = attr.lastIndex;
  }
  return { name: head[2].toLowerCase(), closing: head[1] === "/", attrs, end: Math.min(i + 1, html.length) };
}

/**
 * Walks the tags of `html` from `from`, skipping comments and the text of raw-text
 * elements, calling `visit(tag, start)` for each; stops when `visit` returns true, and goes
 * on from an index it returns.
 */
export function walkTags(html, from, visit) {
  let i = from;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) return;
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    const tag = readTag(html, lt);
    if (!tag) {
      i = lt + 1;
      continue;
    }
    const next = visit(tag, lt);
    if (next === true) return;
    i = typeof next === "number" ? next : tag.end;
    if (!tag.closing && RAW_TEXT.has(tag.name)) {
      const close = html.toLowerCase().indexOf(`</${tag.name}`, i);
      i = close < 0 ? html.length : close;
    }
  }
}

/**
 * Where the element opened by `tag` ends: `inner` where its closing tag starts, `end` just
 * after it, counting nested elements of the same name; the end of `html` when unclosed.
 */
export function elementEnd(html, tag) {
  let depth = 0;
  let found = { inner: html.length, end: html.length };
  walkTags(html, tag.end, (t, at) => {
    if (t.name !== tag.name) return false;
    if (!t.closing) depth += 1;
    else if (depth > 0) depth -= 1;
    else {
      found = { inner: at, end: t.end };
      return true;
    }
    return false;
  });
  return found;
}

/** The value of attribute `name` in `attrs` ([name, value] pairs), or null. */
export function attr(attrs, name) {
  const found = attrs.find(([n]) => n === name);
  return found ? found[1] : null;
}

/** `attrs` with attribute `name` set to `value` (in its place, or last), or removed (null). */
export function withAttr(attrs, name, value) {
  if (value === null || value === undefined) return attrs.filter(([n]) => n !== name);
  if (!attrs.some(([n]) => n === name)) return [...attrs, [name, value]];
  return attrs.map(([n, v]) => (n === name ? [n, value] : [n, v]));
}

/** An opening tag written from its name and attributes. */
export function openTag(name, attrs) {
  return `<${name}${attrs.map(([n, v]) => ` ${n}="${escapeAttr(v)}"`).join("")}>`;
}

/** An inline style's declarations as [property, value] pairs, in order. */
export function parseStyle(text) {
  const out = [];
  let depth = 0;
  let quote = null;
  let start = 0;
  const take = (end) => {
    const part = text.slice(start, end);
    const colon = part.indexOf(":");
    if (colon > 0) {
      const property = part.slice(0, colon).trim().toLowerCase();
      const value = part.slice(colon + 1).trim();
      if (property && value) out.push([property, value]);
    }
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth += 1;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === ";" && depth === 0) {
      take(i);
      start = i + 1;
    }
  }
  take(text.length);
  return out;
}

/** Declarations written as a browser serialises an inline style: "a: 1px; b: 2px;". */
export function styleText(declarations) {
  return declarations.map(([p, v]) => `${p}: ${v};`).join(" ");
}

/** `declarations` with `property` set to `value` (in its place, or last), or removed (null). */
export function withDeclaration(declarations, property, value) {
  if (value === null || value === undefined || value === "") return declarations.filter(([p]) => p !== property);
  if (!declarations.some(([p]) => p === property)) return [...declarations, [property, value]];
  return declarations.map(([p, v]) => (p === property ? [p, value] : [p, v]));
}
