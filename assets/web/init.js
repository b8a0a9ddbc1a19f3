// Starts reveal.js for a Lectern deck page. The page carries its settings as JSON in
// <script id="lectern-config" type="application/json">, so no inline script is needed and the
// Content-Security-Policy can forbid every script but Lectern's own files.
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("lectern-config").textContent);
  var options = Object.assign({}, cfg.reveal, { plugins: [RevealNotes] });
  // The main deck is the global Reveal (the first .reveal on the page), as tools that drive
  // reveal.js decks (decktape, the notes plugin) expect.
  var deck = Reveal;
  // Exports print with reveal.js's print view (?print-pdf); tell the printer when it is laid out.
  deck.on("pdf-ready", function () { document.body.setAttribute("data-pdf-ready", "1"); });
  deck.initialize(options).then(function () {
    if (cfg.mode === "present") {
      presenter(deck);
    }
  });

  // The speaker view: the current slide, the next one, the notes and a timer.
  function presenter(main) {
    var nextRoot = document.querySelector(".reveal.next");
    var next = new Reveal(nextRoot, Object.assign({}, cfg.reveal, {
      embedded: true, controls: false, progress: false, keyboard: false, touch: false,
      hash: false, history: false, transition: "none", backgroundTransition: "none"
    }));
    var notes = document.getElementById("lectern-notes");
    var clock = document.getElementById("lectern-timer");
    var started = Date.now();
    next.initialize().then(sync);
    main.on("slidechanged", sync);
    main.on("fragmentshown", sync);
    main.on("fragmenthidden", sync);
    function sync() {
      var state = main.getState();
      next.setState(state);
      next.next();
      notes.textContent = main.getSlideNotes() || "";
    }
    setInterval(function () {
      var s = Math.floor((Date.now() - started) / 1000);
      var pad = function (n) { return (n < 10 ? "0" : "") + n; };
      clock.textContent = pad(Math.floor(s / 3600)) + ":" + pad(Math.floor(s / 60) % 60) + ":" + pad(s % 60);
    }, 1000);
  }
})();
