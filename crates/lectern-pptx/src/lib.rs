//! Lectern's PowerPoint export: a small slide model ([`model`]), a writer that turns it
//! into an Office Open XML presentation (.pptx) ([`write`]), and a reader that turns one
//! reveal.js `<section>` into that model's items ([`blocks::read_slide`]).
//!
//! The writer builds the package by hand: each part is PresentationML / DrawingML written
//! as a string and zipped with the `zip` crate. The Rust crates that write .pptx (`pptx`,
//! `ppt-rs`, `pptx-rs`) were young when this was written (first releases weeks or months
//! old, one maintainer each, large APIs still moving, and dependencies such as an old
//! `zip`, `reqwest` or `regex` that Lectern does not otherwise need), while the subset
//! Lectern needs (text boxes, a few preset shapes, pictures, backgrounds and notes) is a
//! few hundred lines of XML. Writing it here keeps the output small, deterministic and
//! checked by this crate's own tests (every part well-formed; python-pptx and LibreOffice
//! read the result back).
//!
//! The package has what PowerPoint, LibreOffice and python-pptx expect: content types,
//! package and document properties, `ppt/presentation.xml` with the slide and notes sizes,
//! one slide master with one blank layout and a theme, the slides, a notes master (with
//! its own theme) and a notes page for each slide with notes, the media, and the
//! presentation, view and table-style properties.
//!
//! Units: the model is in CSS pixels, as reveal.js lays slides out; 1 px is 9,525 EMU
//! and a font pixel is 0.75 pt.

pub mod blocks;
mod css;
pub mod model;
mod parts;
mod text;
mod writer;
mod xml;

pub use blocks::{Pending, ReadOptions, SlideContent, read_slide, read_slide_with};
pub use model::{
    Align, EMU_PER_PX, Image, ImageFormat, Item, List, ListKind, Paragraph, Picture, Presentation,
    Rect, Rgb, Run, Shape, ShapeKind, Slide, Stroke, TextBox, px_to_emu, px_to_font_size,
};
pub use writer::{Error, write};
