// Code text as reveal.js's highlight plugin prepares it; no DOM, so Node tests it.

/** `text` without its blank first and last lines and the indentation all its lines share. */
export function trimCode(text) {
  const lines = text.split("\n");
  while (lines.length && lines[0].trim() === "") lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  const indents = lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(common)).join("\n");
}
