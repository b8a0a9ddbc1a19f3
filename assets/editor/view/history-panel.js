// The History dialog: the deck's revisions, newest first (what changed, who, through what,
// when), each but the current one with Restore, which brings it back as a new revision.

const $ = (id) => document.getElementById(id);

/** Operation names as a person reads them. */
const DONE = {
  create_deck: "Created the deck",
  update_deck: "Changed the deck's settings",
  add_slide: "Added a slide",
  update_slide: "Changed a slide",
  remove_slides: "Removed slides",
  move_slides: "Moved slides",
  trash_deck: "Put the deck in the trash",
  recover_deck: "Recovered the deck",
  restore: "Restored a revision",
};

/** How a revision reads in the list: "#12 Changed a slide · alice (web) · 2026-11-29 12:40". */
export function describe(r) {
  const what = r.operation === "restore" && r.restored_revision ? `Restored #${r.restored_revision}` : DONE[r.operation] || r.operation;
  const slides = r.slide_ids && r.slide_ids.length > 1 ? ` (${r.slide_ids.length} slides)` : "";
  const who = r.author ? `${r.author.username || "a removed account"} (${r.author.label || r.author.via})` : "";
  const when = (r.created_at || "").replace("T", " ").slice(0, 16);
  return `#${r.revision} ${what}${slides} · ${who} · ${when}`;
}

export function historyPanel(store, api, saver) {
  const list = $("history-list");
  const draw = async () => {
    const r = await api.request("GET", `/v1/decks/${api.deckId}/revisions?per_page=50`);
    if (r.status !== 200) {
      list.textContent = "The history could not be read.";
      return;
    }
    const current = store.state.deck && store.state.deck.revision;
    list.replaceChildren(
      ...r.json.data.map((revision) => {
        const item = document.createElement("li");
        item.textContent = describe(revision);
        if (revision.revision === current) {
          item.append(" (now)");
        } else {
          const restore = document.createElement("button");
          restore.type = "button";
          restore.className = "secondary";
          restore.textContent = "Restore";
          restore.dataset.revision = String(revision.revision);
          restore.addEventListener("click", async () => {
            if (await saver.restore(revision.revision)) await draw();
          });
          item.append(" ", restore);
        }
        return item;
      }),
    );
  };
  $("history").addEventListener("open", draw);
}
