// The slide list as the server would order it after a change the editor could not send yet
// (offline): the change is shown at once and sent later, and the server's answer then
// replaces this guess. The rules are the interface's: a slide added or moved next to a
// slide in a vertical group joins that group, otherwise it stands on its own.

/** The list's slides as stacks (one array of slides per horizontal place). */
function stacksOf(slides) {
  const stacks = [];
  for (const slide of slides) {
    const last = stacks[stacks.length - 1];
    if (last && slide.position.vertical != null && last[0].position.horizontal === slide.position.horizontal) {
      last.push(slide);
    } else stacks.push([slide]);
  }
  return stacks;
}

/** The stacks as a list again, with positions numbered. */
function listOf(stacks) {
  return stacks
    .filter((stack) => stack.length > 0)
    .flatMap((stack, h) =>
      stack.map((slide, v) => ({ ...slide, position: { horizontal: h, vertical: stack.length > 1 ? v : null } })),
    );
}

/** Where slide `id` is: [stack index, index in the stack], or null. */
function find(stacks, id) {
  for (let h = 0; h < stacks.length; h += 1) {
    const v = stacks[h].findIndex((s) => s.id === id);
    if (v >= 0) return [h, v];
  }
  return null;
}

/** `moved` put before or after slide `target`: into its group when it has one. */
function insertAt(stacks, moved, target, after) {
  const at = find(stacks, target);
  if (!at) return false;
  const [h, v] = at;
  if (stacks[h].length > 1) stacks[h].splice(after ? v + 1 : v, 0, ...moved);
  else stacks.splice(after ? h + 1 : h, 0, ...moved.map((s) => [s]));
  return true;
}

/**
 * The list after `change` ({ kind, payload, slide? }): kind "add" (the new slide in
 * `slide`), "delete", "move" or "group", with the payload the REST operation takes.
 * Answers null when the change names slides the list does not hold.
 */
export function reorder(slides, { kind, payload, slide }) {
  const stacks = stacksOf(slides);
  const ids = new Set(kind === "add" ? [] : payload.slide_ids);
  const moved = [...ids].map((id) => slides.find((s) => s.id === id));
  if (moved.some((s) => !s)) return null;
  const rest = stacks.map((stack) => stack.filter((s) => !ids.has(s.id))).filter((stack) => stack.length > 0);
  if (kind === "delete") return rest.length > 0 ? listOf(rest) : null;
  const coming = kind === "add" ? [{ ...slide, position: { horizontal: 0, vertical: null } }] : moved;
  const p = payload;
  let placed;
  if (p.below_slide_id) {
    const at = find(rest, p.below_slide_id);
    placed = Boolean(at) && (rest[at[0]].splice(at[1] + 1, 0, ...coming), true);
  } else if (p.after_stack_of_slide_id) {
    const at = find(rest, p.after_stack_of_slide_id);
    placed = Boolean(at) && (rest.splice(at[0] + 1, 0, ...coming.map((s) => [s])), true);
  } else if (p.insert_before_slide_id || p.insert_after_slide_id) {
    const after = Boolean(p.insert_after_slide_id);
    placed = insertAt(rest, coming, p.insert_after_slide_id || p.insert_before_slide_id, after);
  } else {
    rest.push(...coming.map((s) => [s]));
    placed = true;
  }
  return placed ? listOf(rest) : null;
}

/** `payload` with every slide id that `ids` maps (a local id to the server's) replaced. */
export function withIds(payload, ids) {
  const one = (v) => (typeof v === "string" && ids.has(v) ? ids.get(v) : v);
  return Object.fromEntries(
    Object.entries(payload).map(([k, v]) => [k, Array.isArray(v) ? v.map(one) : one(v)]),
  );
}
