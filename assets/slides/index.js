// The bundle `/assets/slides.js`: render.js for the pages that draw slides (the deck pages
// and the editor), as the global `LecternSlides`.

import { layoutSlide, renderSlides } from "./render.js";

window.LecternSlides = { layoutSlide, renderSlides };
