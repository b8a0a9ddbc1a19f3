//! Lectern's PowerPoint export: a small slide model ([`model`]), a writer that turns it
//! into an Office Open XML presentation (.pptx) ([`write()`]), and a reader that turns one
//! reveal.js `<section>` into that model's items ([`blocks::read_slide`]).
//!
//! The writer builds the package by hand: each part is PresentationML / DrawingML written
//! as a string and zipped with the `zip` crate. No Rust crate that writes .pptx was mature
//! enough to take on: `pptx` and `pptx-rs` had a single 0.1 release each, and `ppt-rs`
//! (0.2, many releases in quick succession, one yanked) pulls in an old `zip` (0.6),
//! `regex`, `chrono`, `syntect` and `xml-rs`, none of which Lectern otherwise needs. The
//! subset Lectern needs (text boxes, a few preset shapes, lines, pictures, backgrounds and
//! notes) is a few hundred lines of XML; writing it here keeps the output small,
//! deterministic and checked by this crate's own tests (every part well-formed, every part
//! named in the content types and reachable; python-pptx and LibreOffice read it back).
//!
//! The package has what PowerPoint, LibreOffice and python-pptx expect: content types,
//! package and document properties, `ppt/presentation.xml` with the slide and notes sizes,
//! one slide master with one blank layout and a theme, the slides, a notes master (with
//! its own theme) and a notes page for each slide with notes, the media, and the
//! presentation, view and table-style properties.
//!
//! Units: the model is in CSS pixels, as reveal.js lays slides out; 1 px is 9,525 EMU
//! and a font pixel is 0.75 pt.
//!
//! A caller reads each slide, completes what the reader leaves to it (fetching images,
//! rendering snapshots with a browser), and writes:
//!
//! ```
//! use lectern_pptx::{Item, Pending, Presentation, Slide, SlideContent, read_slide, write};
//!
//! let html = r#"<section><div class="sl-block" data-block-type="text"
//!     style="left: 80px; top: 60px; width: 400px; height: 120px">
//!     <div class="sl-block-content"><h2>Hello</h2></div></div></section>"#;
//! let SlideContent::Items { background, items } = read_slide(html, 960, 700) else {
//!     unreachable!("a text block maps");
//! };
//! let items: Vec<Item> = items
//!     .into_iter()
//!     .filter_map(|p| match p {
//!         Pending::Item(item) => Some(item),
//!         // Fetch `src` / render the block, then make a `Picture`.
//!         Pending::Image { .. } | Pending::Snapshot { .. } => None,
//!     })
//!     .collect();
//! let deck = Presentation {
//!     width_px: 960,
//!     height_px: 700,
//!     title: "Hello".into(),
//!     slides: vec![Slide { background, items, notes: Some("Say hello".into()) }],
//! };
//! let pptx: Vec<u8> = write(&deck).expect("a 960×700 deck is a valid size");
//! assert!(pptx.starts_with(b"PK"));
//! ```

pub mod blocks;
mod css;
pub mod model;
mod parts;
mod text;
mod writer;
mod xml;

pub use blocks::{Pending, ReadOptions, SlideContent, read_slide, read_slide_with};
pub use css::parse_colour;
pub use model::{
    Align, EMU_PER_PX, Image, ImageFormat, Item, List, ListKind, Paragraph, Picture, Presentation,
    Rect, Rgb, Run, Shape, ShapeKind, Slide, Stroke, Table, TableRow, TextBox, px_to_emu,
    px_to_font_size,
};
pub use writer::{Error, write};
