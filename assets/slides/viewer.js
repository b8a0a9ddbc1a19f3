// Starts reveal.js for a Lectern deck page. The page carries its settings as JSON in
// <script id="lectern-config" type="application/json">, so no inline script is needed and the
// Content-Security-Policy can forbid every script but Lectern's own files. Code and math are
// drawn first, by `/assets/slides.js` (render.js), as in the editor.

/* global Reveal, RevealNotes, LecternSlides */
const cfg = JSON.parse(document.getElementById("lectern-config").textContent);
// Without it (a page that does not load it), slides still present, their code and math raw.
if (typeof LecternSlides !== "undefined") {
  for (const slides of document.querySelectorAll(".reveal .slides")) LecternSlides.renderSlides(slides);
}
// The deck page's address without its mode; a share page (/s/...) has no speaker view.
const base = location.pathname.replace(/\/(fullscreen|present)\/?$/, "").replace(/\/$/, "");
const speakerUrl = base.startsWith("/s/") ? null : `${base}/present`;
const options = Object.assign({}, cfg.reveal, { plugins: [RevealNotes] });
// S (reveal.js's speaker-notes key) opens Lectern's speaker view, which drives this window;
// the notes plugin's own popup cannot run under the page's Content-Security-Policy.
if (cfg.mode !== "present" && speakerUrl) {
  options.keyboard = Object.assign({}, options.keyboard, {
    83: () => window.open(speakerUrl, "lectern-speaker-view"),
  });
}
// The main deck is the global Reveal (the first .reveal on the page), as tools that drive
// reveal.js decks (decktape, the notes plugin) expect.
const deck = Reveal;
// Exports print with reveal.js's print view (?print-pdf); tell the printer when it is laid
// out and its fonts are loaded.
deck.on("pdf-ready", () => {
  document.fonts.ready.then(() => document.body.setAttribute("data-pdf-ready", "1"));
});
deck.initialize(options).then(() => {
  if (cfg.mode === "present") presenter(deck);
  follow(deck);
  const live = cfg.live || {};
  const printing = new URLSearchParams(location.search).has("print-pdf");
  if (!printing && window.self === window.top) {
    if (cfg.mode === "present" && live.presenter) announce(deck, live);
    else if (cfg.mode !== "present" && live.follow) followPresenter(deck, live.follow);
  }
});

/** The speaker view says where it is (through the REST API, in order), so that audience
 * pages on any device follow; and that it stopped when it closes. */
function announce(main, live) {
  let queue = Promise.resolve();
  const send = (isLive) => {
    const i = main.getIndices();
    const body = JSON.stringify({ indexh: i.h, indexv: i.v || 0, fragment: typeof i.f === "number" ? i.f : -1, live: isLive });
    const put = () => fetch(live.presenter, {
      method: "PUT",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": live.csrf },
      credentials: "same-origin",
      keepalive: !isLive,
      body,
    }).catch(() => {});
    queue = queue.then(put, put);
  };
  for (const event of ["slidechanged", "fragmentshown", "fragmenthidden"]) main.on(event, () => send(true));
  send(true);
  window.addEventListener("pagehide", () => send(false));
}

/** Audience pages follow the owner presenting from the speaker view, wherever it runs; a
 * button stops following (so does moving on one's own) and catches up again. */
function followPresenter(main, url) {
  if (typeof EventSource === "undefined") return;
  let following = true;
  let latest = null;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "lectern-follow";
  button.hidden = true;
  document.body.append(button);
  const draw = () => {
    button.hidden = !(latest && latest.live);
    button.textContent = following ? "Following the presenter · Stop" : "Catch up with the presenter";
    button.setAttribute("aria-pressed", String(following));
  };
  const there = () => {
    const i = main.getIndices();
    return latest && i.h === latest.indexh && (i.v || 0) === latest.indexv;
  };
  const go = () => {
    if (latest && latest.live) main.slide(latest.indexh, latest.indexv, latest.fragment);
  };
  button.addEventListener("click", () => {
    following = !following;
    if (following) go();
    draw();
  });
  // Moving to another slide than the presenter's is reading on alone.
  main.on("slidechanged", () => {
    if (following && latest && latest.live && !there()) {
      following = false;
      draw();
    }
  });
  new EventSource(url).addEventListener("presenter", (event) => {
    latest = JSON.parse(event.data);
    if (following) go();
    draw();
  });
}

/** The windows of one deck in one browser move together: the speaker view drives the
 * audience's windows and follows them (a BroadcastChannel per deck address). A window that
 * opens asks where the others are and goes there (the speaker view S opens starts on the
 * audience's slide). */
function follow(main) {
  // Not a page printing, nor one framed (the editor's preview shows the slide being edited).
  if (typeof BroadcastChannel === "undefined" || new URLSearchParams(location.search).has("print-pdf")) return;
  if (window.self !== window.top) return;
  const channel = new BroadcastChannel(`lectern-deck:${base}`);
  let applying = false;
  const send = () => {
    if (!applying) channel.postMessage(main.getIndices());
  };
  for (const event of ["slidechanged", "fragmentshown", "fragmenthidden"]) main.on(event, send);
  channel.onmessage = (message) => {
    if (message.data && message.data.hello) return send();
    const { h, v, f } = message.data || {};
    const now = main.getIndices();
    if (typeof h !== "number" || (now.h === h && now.v === v && now.f === f)) return;
    applying = true;
    try {
      main.slide(h, v, f);
    } finally {
      applying = false;
    }
  };
  channel.postMessage({ hello: true });
}

/** The speaker view: the current slide, the next one, the notes and a timer. */
function presenter(main) {
  const next = new Reveal(document.querySelector(".reveal.next"), Object.assign({}, cfg.reveal, {
    embedded: true, controls: false, progress: false, keyboard: false, touch: false,
    hash: false, history: false, transition: "none", backgroundTransition: "none",
  }));
  const notes = document.getElementById("lectern-notes");
  const clock = document.getElementById("lectern-timer");
  const started = Date.now();
  const sync = () => {
    next.setState(main.getState());
    next.next();
    notes.textContent = main.getSlideNotes() || "";
  };
  next.initialize().then(sync);
  main.on("slidechanged", sync);
  main.on("fragmentshown", sync);
  main.on("fragmenthidden", sync);
  const pad = (n) => (n < 10 ? "0" : "") + n;
  setInterval(() => {
    const s = Math.floor((Date.now() - started) / 1000);
    clock.textContent = `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  }, 1000);
}
