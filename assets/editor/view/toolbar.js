// The canvas's toolbar: add blocks, format text, style shapes, stack, duplicate and
// delete blocks, fragments, and the slide's background. Text being edited in place is
// formatted by the browser's editing commands (the canvas then reads the block's new
// content); everything else is an action on the selected blocks.

import { deleteBlocks, duplicateBlock, restackBlock } from "../actions/blocks.js";
import { alignBlocks, distributeBlocks } from "../actions/arrange.js";
import { addCode, addHtml, addLine, addShape, addText } from "../actions/create.js";
import {
  altText, firstTag, setAltText, setBackground, setBackgroundImage, setFill, setFragment, setLanguage, setRadius, setStroke, setTextColour,
  setTextFont, setTextSize, styleContent, textSize,
} from "../actions/format.js";
import { blockAttr, blockOf, blockType, contentStyle, sectionAttr } from "../model/slide.js";

/** The tools that act on a selected block of some types, by id. */
const TEXT_TOOLS = ["fmt-bold", "fmt-italic", "fmt-underline", "fmt-strike", "fmt-list", "fmt-numbers", "fmt-link", "fmt-block", "fmt-left", "fmt-center", "fmt-right"];
const BLOCK_TOOLS = ["block-forward", "block-backward", "block-duplicate", "block-delete", "block-fragment", "fragment-order", "arrange"];
const SHAPE_TOOLS = ["shape-stroke", "shape-stroke-width", "shape-radius"];

/** A colour as `<input type=color>` takes it ("#rrggbb"), from "rgb(r, g, b)" or "#rrggbb". */
function hexColour(value) {
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/i.exec(value || "");
  if (rgb) return `#${rgb.slice(1, 4).map((n) => Number(n).toString(16).padStart(2, "0")).join("")}`;
  return /^#[0-9a-f]{6}$/i.test(value || "") ? value.toLowerCase() : null;
}

const $ = (id) => document.getElementById(id);
const whole = (input) => Math.max(0, Math.round(Number(input.value) || 0));

export class ToolbarView {
  /** @param canvas view/canvas.js (text edited in place, and where new text is typed) */
  constructor(store, canvas, ui) {
    this.store = store;
    this.canvas = canvas;
    this.textRange = null; // the text selection being edited, kept while a control has focus
    const run = (action, ...args) => store.run(action, ...args);
    const lead = () => store.state.lead;
    const selection = () => store.state.selection;
    // Buttons keep the text selection (no focus on mousedown) and act on a loaded slide.
    const tool = (id, act) => {
      $(id).addEventListener("mousedown", (event) => event.preventDefault());
      $(id).addEventListener("click", () => {
        if (store.state.slide) act();
      });
    };
    const change = (id, act, event = "change") => $(id).addEventListener(event, act);
    const edit = (action, ...args) => {
      if (run(action, ...args) && store.state.lead) canvas.startEditing(store.state.lead, true);
    };
    tool("add-text", () => edit(addText));
    tool("add-code", () => edit(addCode, $("code-language").value));
    for (const kind of ["rect", "ellipse", "triangle"]) tool(`add-${kind}`, () => run(addShape, kind, $("shape-fill").value));
    tool("add-line", () => run(addLine, false, $("shape-fill").value));
    tool("add-arrow", () => run(addLine, true, $("shape-fill").value));
    tool("add-html", () => run(addHtml));
    change("code-language", () => run(setLanguage, lead(), $("code-language").value));
    const stroke = () => run(setStroke, selection(), $("shape-stroke").value, whole($("shape-stroke-width")));
    change("shape-stroke", stroke);
    change("shape-stroke-width", stroke);
    change("shape-radius", () => run(setRadius, selection(), whole($("shape-radius"))));
    change("shape-fill", () => run(setFill, selection(), $("shape-fill").value), "input");
    change("slide-background", () => run(setBackground, $("slide-background").value));
    change("slide-background-image", () => {
      const url = $("slide-background-image").value.trim();
      if (url && !/^https?:\/\//i.test(url) && !url.startsWith("/media/")) {
        return ui.status("A background image URL starts with http:// or https://", "error");
      }
      run(setBackgroundImage, url);
    });
    tool("block-forward", () => run(restackBlock, lead(), 1));
    tool("block-backward", () => run(restackBlock, lead(), -1));
    tool("block-duplicate", () => lead() && run(duplicateBlock, lead()));
    tool("block-delete", () => run(deleteBlocks, selection()));
    const fragment = () => run(setFragment, lead(), $("block-fragment").checked ? whole($("fragment-order")) : null);
    change("block-fragment", fragment);
    change("fragment-order", () => $("block-fragment").checked && fragment());
    change("image-alt", () => run(setAltText, lead(), $("image-alt").value));
    change("arrange", () => {
      const how = $("arrange").value;
      if (how === "x" || how === "y") run(distributeBlocks, selection(), how);
      else if (how) run(alignBlocks, selection(), how);
      $("arrange").value = "";
    });

    // Text formatting: the browser's commands on the text being edited.
    const commands = [["fmt-bold", "bold"], ["fmt-italic", "italic"], ["fmt-underline", "underline"], ["fmt-strike", "strikeThrough"], ["fmt-list", "insertUnorderedList"], ["fmt-numbers", "insertOrderedList"]];
    for (const [id, command] of commands) tool(id, () => document.execCommand(command));
    tool("fmt-link", () => {
      const url = window.prompt("Link to (https://…)");
      if (url && /^(https?:\/\/|mailto:)/i.test(url.trim())) this.format("createLink", url.trim());
    });
    for (const [id, command, align] of [["fmt-left", "justifyLeft", "left"], ["fmt-center", "justifyCenter", "center"], ["fmt-right", "justifyRight", "right"]]) {
      tool(id, () => this.format(command) || run(styleContent, lead(), "text-align", align));
    }
    change("fmt-block", () => this.format("formatBlock", $("fmt-block").value));
    change("fmt-size", () => {
      const size = $("fmt-size").value;
      if (size) run(setTextSize, lead(), Number(size));
    });
    change("fmt-font", () => {
      const family = $("fmt-font").value;
      if (!this.format("fontName", family || "inherit")) run(setTextFont, lead(), family);
    });
    change("fmt-colour", () => {
      const colour = $("fmt-colour").value;
      if (!this.format("foreColor", colour)) run(setTextColour, lead(), colour);
    });
    document.addEventListener("selectionchange", () => {
      const editing = canvas.editing && canvas.editing.content;
      const selection = window.getSelection();
      if (editing && selection.rangeCount > 0 && editing.contains(selection.anchorNode)) {
        this.textRange = selection.getRangeAt(0).cloneRange();
      }
    });
    store.subscribe((state, tr) => {
      if (tr.changed.includes("selection") || tr.changed.includes("slide")) this.draw(state);
    });
  }

  /** Shows the selection's state (the lead block's text style, size, colours, fragment step,
   * the slide's background) and only the tools that apply to it. */
  draw(state) {
    const block = blockOf(state.slide?.model, state.lead);
    const type = block ? blockType(block) : null;
    const editing = Boolean(this.canvas.editing);
    const enable = (ids, on) => {
      for (const id of ids) $(id).disabled = !on;
    };
    enable(TEXT_TOOLS, type === "text" || editing);
    enable(["fmt-size", "fmt-colour", "fmt-font"], type === "text" || type === "code" || editing);
    enable(BLOCK_TOOLS, state.selection.length > 0);
    enable(SHAPE_TOOLS, type === "shape");
    enable(["image-alt"], type === "image");
    // Only the tools that apply show: the text row for text, the block row for a selection,
    // within it the shape's colours for a shape and the alternative text for an image. The
    // others keep their place (unseen), so the canvas below never moves.
    const off = (element, hide) => element.classList.toggle("off", hide);
    off($("tools-text"), $("fmt-size").disabled);
    off($("tools-block"), state.selection.length === 0);
    for (const id of [...SHAPE_TOOLS, "image-alt"]) off($(id).closest(".tool-field"), $(id).disabled);
    if (document.activeElement !== $("image-alt")) $("image-alt").value = (type === "image" && altText(block)) || "";
    const fragment = Boolean(block && (blockAttr(block, "class") || "").split(/\s+/).includes("fragment"));
    $("block-fragment").checked = fragment;
    $("fragment-order").value = (block && blockAttr(block, "data-fragment-index")) || "0";
    const tag = type === "text" ? firstTag(block) : null;
    $("fmt-block").value = ["p", "h1", "h2", "h3"].includes(tag) ? tag : "p";
    const size = type === "text" || type === "code" ? textSize(block) : null;
    $("fmt-size").value = size && [...$("fmt-size").options].some((o) => o.value === String(size)) ? String(size) : "";
    const font = (type === "text" || type === "code") && contentStyle(block, "font-family");
    $("fmt-font").value = font && [...$("fmt-font").options].some((o) => o.value === font) ? font : "";
    const colour = block && hexColour(contentStyle(block, "color"));
    if (colour) $("fmt-colour").value = colour;
    const fill = type === "shape" && hexColour(contentStyle(block, "background-color"));
    if (fill) $("shape-fill").value = fill;
    const background = hexColour(sectionAttr(state.slide?.model, "data-background-color"));
    $("slide-background").value = background || "#ffffff";
  }

  /** Runs an editing command on the text being edited (its selection put back first);
   * false when no text is being edited. */
  format(command, value) {
    const editing = this.canvas.editing && this.canvas.editing.content;
    if (!editing) return false;
    editing.focus();
    if (this.textRange && editing.contains(this.textRange.startContainer)) {
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(this.textRange);
    }
    document.execCommand("styleWithCSS", false, command === "foreColor");
    document.execCommand(command, false, value);
    return true;
  }
}
