// The panels about the whole deck: its settings (each change one update_deck), its private
// share links, and adding images (uploaded, by URL, or dropped on the stage).

import { changeSetting } from "../actions/slides.js";
import { addImage } from "../actions/create.js";
import { errorOf } from "../sync/api.js";
import { createShare, listShares, revokeShare } from "../sync/shares.js";

const $ = (id) => document.getElementById(id);

function labelled(text, control, wide = false) {
  const label = document.createElement("label");
  if (wide) label.className = "wide";
  label.append(text, control);
  return label;
}

/** How the visibility values read to a person. */
const VALUE_LABELS = { all: "Public", self: "Private", team: "Team" };

/** The colour presets drawn as small slides (background, heading and link colours from
 * themes.css); a click chooses one, as the menu beside them does. Answers the `grid` and
 * `mark`, which shows the menu's choice among them. */
function themeSwatches(select, values) {
  const grid = document.createElement("div");
  grid.className = "theme-swatches";
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", "Colours");
  for (const value of values) {
    const swatch = document.createElement("button");
    swatch.type = "button";
    swatch.className = `theme-swatch theme-${value}`;
    swatch.dataset.theme = value;
    swatch.title = value;
    const heading = document.createElement("strong");
    heading.textContent = "Aa";
    const link = document.createElement("span");
    swatch.append(heading, link, value);
    swatch.addEventListener("click", () => {
      select.value = value;
      select.dispatchEvent(new Event("change"));
    });
    grid.append(swatch);
  }
  const mark = () => {
    for (const swatch of grid.children) swatch.setAttribute("aria-pressed", String(swatch.dataset.theme === select.value));
  };
  select.addEventListener("change", mark);
  return { grid, mark };
}

/**
 * Draws the settings form: a select per setting of `choices` ({ field: [values] }), the
 * description, width and height, filled from `deck`; each change goes through `saver`.
 */
export function settingsPanel(store, saver, choices) {
  const grid = $("settings-grid");
  const names = { theme_color: "Colours", theme_font: "Fonts", visibility: "Visibility" };
  const controls = [];
  const marks = []; // what shows the chosen preset among the swatches
  for (const [field, values] of Object.entries(choices)) {
    const select = document.createElement("select");
    select.dataset.setting = field;
    for (const v of values) select.append(new Option(VALUE_LABELS[v] || v, v));
    controls.push(labelled(names[field] || field, select));
    if (field === "theme_color") {
      const swatches = themeSwatches(select, values);
      controls.push(swatches.grid);
      marks.push(swatches.mark);
    }
  }
  const input = (field, type) => {
    const i = document.createElement("input");
    i.dataset.setting = field;
    if (type) {
      i.type = type;
      i.min = "1";
    }
    return i;
  };
  controls.push(labelled("Description", input("description"), true));
  controls.push(labelled("Width", input("width", "number")), labelled("Height", input("height", "number")));
  grid.replaceChildren(...controls);
  for (const control of grid.querySelectorAll("[data-setting]")) {
    control.addEventListener("change", () => saver.setting(changeSetting(store.state, control.dataset.setting, control.value)));
  }
  store.subscribe((state, tr) => {
    if (!tr.changed.includes("deck")) return;
    for (const control of grid.querySelectorAll("[data-setting]")) {
      const value = String(state.deck[control.dataset.setting] ?? "");
      if (document.activeElement !== control && control.value !== value) control.value = value;
    }
    for (const mark of marks) mark();
  });
}

/** The share panel: the links listed when it opens; create and revoke. */
export function sharePanel(api, ui) {
  const draw = async () => {
    const list = $("share-list");
    const links = await listShares(api);
    list.replaceChildren();
    for (const link of links) {
      const item = document.createElement("li");
      const name = document.createElement("strong");
      name.textContent = link.name || "Link";
      const a = document.createElement("a");
      a.href = link.url;
      a.textContent = link.url;
      a.className = "share-url";
      a.target = "_blank";
      a.rel = "noopener";
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "secondary";
      copy.textContent = "Copy";
      copy.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(link.url);
          copy.textContent = "Copied";
        } catch (_) {
          // Without the clipboard, the link's text is selected for the person to copy.
          window.getSelection().selectAllChildren(a);
          copy.textContent = "Press Ctrl+C";
        }
      });
      const facts = document.createElement("span");
      facts.className = "muted";
      const parts = [`${link.view_count} views`];
      if (link.password_protected) parts.push("password");
      if (link.expires_at) parts.push(`${link.expired ? "expired" : "expires"} ${link.expires_at.slice(0, 10)}`);
      facts.textContent = ` (${parts.join(", ")}) `;
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.className = "danger";
      revoke.textContent = "Revoke";
      revoke.addEventListener("click", async () => {
        const error = await revokeShare(api, link.id);
        if (error) ui.status(error, "error");
        await draw();
      });
      item.append(name, " ", a, " ", copy, facts, revoke);
      list.append(item);
    }
  };
  $("share").addEventListener("open", draw);
  $("share-create").addEventListener("click", async () => {
    const payload = { name: $("share-name").value.trim() };
    if ($("share-password").value) payload.password = $("share-password").value;
    if ($("share-expires").value) payload.expires_at = `${$("share-expires").value}T23:59:59Z`;
    const error = await createShare(api, payload);
    if (error) return ui.status(error, "error");
    for (const id of ["share-name", "share-password", "share-expires"]) $(id).value = "";
    ui.status("Share link created", "saved");
    await draw();
  });
}

/** Adding images: an upload to the media library (chosen or dropped), or a URL. */
export function imageTools(store, api, ui) {
  const insert = (url, at = null) => store.state.slide && store.run(addImage, url, undefined, at);
  /** Where a drop at (`x`, `y`) on the screen is on the slide's canvas, or null off it. */
  const onCanvas = (x, y) => {
    const board = document.querySelector(".canvas-board");
    const deck = store.state.deck;
    if (!board || !deck) return null;
    const r = board.getBoundingClientRect();
    const scale = r.width / deck.width;
    const at = { x: (x - r.left) / scale, y: (y - r.top) / scale };
    return at.x >= 0 && at.y >= 0 && at.x <= deck.width && at.y <= deck.height ? at : null;
  };
  const upload = async (file, at = null) => {
    ui.status("Uploading image…", "saving");
    try {
      const r = await api.upload(file);
      if (r.status !== 201 && r.status !== 200) return ui.status(errorOf(r, "The image was not uploaded"), "error");
      insert(r.json.data.url, at);
    } catch (_) {
      ui.status("Offline: the image was not uploaded", "offline");
    }
  };
  $("image-file").addEventListener("change", (event) => {
    const file = event.target.files && event.target.files[0];
    if (file) upload(file);
    event.target.value = "";
  });
  $("insert-url").addEventListener("click", () => {
    const url = $("image-url").value.trim();
    if (!/^https?:\/\//i.test(url)) return ui.status("An image URL starts with http:// or https://", "error");
    insert(url);
    $("image-url").value = "";
  });
  const stage = document.querySelector(".stage");
  stage.addEventListener("dragover", (event) => {
    if (event.dataTransfer && [...event.dataTransfer.types].includes("Files")) {
      event.preventDefault();
      stage.classList.add("dropping");
    }
  });
  stage.addEventListener("dragleave", () => stage.classList.remove("dropping"));
  stage.addEventListener("drop", (event) => {
    stage.classList.remove("dropping");
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file && file.type.startsWith("image/")) {
      event.preventDefault();
      // It lands where it was dropped (when that is on the slide).
      upload(file, onCanvas(event.clientX, event.clientY));
    } else if (file) {
      event.preventDefault();
      ui.status(`${file.name} is not an image: PNG, JPEG, GIF, WebP and SVG files go on a slide`, "error");
    }
  });
}
