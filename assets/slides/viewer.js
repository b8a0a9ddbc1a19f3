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
const options = Object.assign({}, cfg.reveal, { plugins: [RevealNotes] });
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
});

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
