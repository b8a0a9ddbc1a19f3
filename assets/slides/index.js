// The bundle `/assets/slides.js`: render.js for the pages that draw slides (the deck pages
// and the editor), as the global `LecternSlides`.

import { renderSlides } from "./render.js";

window.LecternSlides = { renderSlides };
