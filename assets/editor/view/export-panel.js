// The Export dialog: PDF (with the notes and slide-number options), PowerPoint or ZIP; the
// export's progress while it runs, then a link to download it, named after the deck (its slug).

import { runExport } from "../sync/exports.js";

const $ = (id) => document.getElementById(id);

const NAMES = { pdf: "PDF", pptx: "PowerPoint file", zip: "ZIP" };

/** The download's name, as the server gives it: the deck's slug (the last part of its URL). */
export function fileName(deck, format) {
  const slug = deck && deck.url ? deck.url.replace(/\/+$/, "").split("/").pop() : "";
  return `${slug || "deck"}.${format}`;
}

export function exportPanel(store, api) {
  const state = $("export-state");
  const buttons = [...document.querySelectorAll("#export [data-format]")];
  for (const button of buttons) {
    button.addEventListener("click", async () => {
      const format = button.dataset.format;
      const options = { format };
      if (format === "pdf") {
        options.slide_notes = $("export-notes").checked;
        options.slide_number = $("export-numbers").checked;
      }
      for (const b of buttons) b.disabled = true;
      state.textContent = `Making the ${NAMES[format]}…`;
      try {
        const started = Date.now();
        const done = await runExport(api, options, () => {
          state.textContent = `Making the ${NAMES[format]}… ${Math.round((Date.now() - started) / 1000)} s`;
        });
        if (done.status !== "completed") throw new Error(done.error || "the export failed");
        const link = document.createElement("a");
        link.href = done.download_url;
        link.download = fileName(store.state.deck, format);
        link.textContent = `Download ${link.download}`;
        link.className = "button";
        state.replaceChildren(`The ${NAMES[format]} is ready: `, link);
      } catch (e) {
        state.textContent = `No ${NAMES[format]}: ${e.message}`;
        state.dataset.state = "error";
      } finally {
        for (const b of buttons) b.disabled = false;
      }
    });
  }
}
