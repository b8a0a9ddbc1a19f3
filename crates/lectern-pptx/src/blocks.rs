//! The reader: one reveal.js `<section>` to slide items.
//!
//! Slides made by Lectern's editor (and by Slides.com) use *block markup*: absolutely
//! placed `div.sl-block`s with a `data-block-type` and `left/top/width/height` (and maybe
//! `transform: rotate()` and `z-index`) in their style, each around a
//! `div.sl-block-content`. Those map block by block:
//!
//! - `text`: a text box at the block's rectangle (rich text: see below;
//!   the content's `background-color` becomes a rectangle behind it);
//! - `shape`: an `<svg>` shape (`rect` with or without `rx`, `ellipse`, `circle`, a
//!   three-point `polygon` pointing up, down, left or right, an axis-aligned four-point
//!   one, or a `line`), or a `div` painted with CSS (`background-color`, `border`,
//!   `border-radius` — 50 % makes an ellipse —, `clip-path: polygon()` with three points),
//!   with `data-shape-type` / `data-shape-fill` / `data-shape-stroke` /
//!   `data-shape-stroke-width` on the block or its content taking precedence;
//! - `line` / `arrow`: an `<svg>` `line` (a `polygon` near an end, or `marker-start` /
//!   `marker-end`, is an arrow head there), or Slides.com's `data-line-x1` ... `data-line-y2`
//!   (slide coordinates) with `data-line-color`, `data-line-width` and
//!   `data-line-start-type` / `data-line-end-type`;
//! - `image`: [`Pending::Image`] with the `<img>`'s `src`, for the caller to fetch;
//! - `code`: its `<pre>` as light monospace text, whitespace kept, on a dark rectangle (the
//!   slides' code colours, without the highlighting);
//! - anything else (`html`, `iframe`, `video`, `math`, groups, unknown types), and a
//!   `text` or `shape` block this reader cannot map faithfully: [`Pending::Snapshot`], for
//!   the caller to render the block with a browser and insert the picture.
//!
//! Rich text: `p`, `div`, `h1`–`h6`, `blockquote`, `pre` (whitespace kept) and list items
//! are paragraphs; `strong`/`b`, `em`/`i`, `u`, `s`/`strike`/`del` and `a href` format
//! runs, as do inline `font-size` (px, pt, em, rem, %), `color`, `font-weight`,
//! `font-style`, `text-decoration` and `text-align` on any element (the content `div`'s
//! included), inherited as in CSS; headings are bold at 2.5 / 1.6 / 1.3 / 1 em (`h1` /
//! `h2` / `h3` / `h4`–`h6`) as in Lectern's viewer; `br` breaks a line; `ul` / `ol` give
//! bullets / numbers with their nesting level. Text without a size is
//! [`ReadOptions::font_px`] (40 px, the viewer's). A text block holding an image, table,
//! SVG, video and the like is a snapshot.
//!
//! Items come back in paint order (by `z-index`, then document order). A block inside
//! another block is not read on its own: the outer one (a group, say) is a snapshot.
//!
//! Any other slide is *free HTML*. Its top-level headings, paragraphs, blockquotes, lists and
//! code (`pre`, left-aligned) (looking through wrapper `div`s) become text boxes stacked top
//! to bottom, centred on the canvas as reveal.js centres a slide, headings at
//! [`ReadOptions::title_px`] and the rest at [`ReadOptions::body_px`], shrunk once if they
//! would overflow. Runs carry the deck's faces ([`ReadOptions::font`], its heading and code
//! faces). A simple table (rows of text cells, no spans, no table inside) becomes a
//! PowerPoint table, centred, as wide as its text needs, header cells bold, a rule under each
//! row but the last, as the slides draw it. A free slide with anything else that is not text
//! (`img`, `svg`, another `table`, `iframe`, `video`, `canvas`,
//! nested sections, inline positioning, ...) comes back as [`SlideContent::Snapshot`]: the
//! whole slide as one picture, its text not kept as text. So does any slide with a
//! background image, video, iframe or gradient.
//!
//! `class="fragment"` changes nothing (the export shows every fragment), and speaker notes
//! (`aside.notes`) are left to the caller.

use scraper::node::Node;
use scraper::{ElementRef, Html};

use crate::css::{self, Paint};
use crate::model::{Align, Item, Paragraph, Rect, Rgb, Shape, ShapeKind, Stroke, TextBox};
use crate::text::{self, Builder, Context, Unmappable};

mod free;
mod shapes;

use free::free_html;
use shapes::*;

/// What a slide's markup turned into.
#[derive(Debug, Clone, PartialEq)]
pub enum SlideContent {
    /// The slide as items in paint order, some still to be completed by the caller.
    Items {
        /// `data-background-color`, else [`ReadOptions::background`].
        background: Option<Rgb>,
        items: Vec<Pending>,
    },
    /// The slide cannot be mapped: render it whole as one picture covering the canvas.
    Snapshot { background: Option<Rgb> },
}

/// An item of a slide, ready or needing the caller.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// Ready to write.
    Item(Item),
    /// A picture whose bytes the caller fetches from `src` (as written in the markup;
    /// relative to the deck), then makes a [`crate::Picture`] with this rectangle,
    /// rotation and description.
    Image {
        rect: Rect,
        rotation: f64,
        src: String,
        /// The `alt` text.
        description: String,
    },
    /// A block the caller renders as a picture: the `block_index`-th `.sl-block` of the
    /// section in document order (nested ones counted too, as
    /// `section.querySelectorAll('.sl-block')` counts), drawn without its rotation; the
    /// picture goes at `rect` turned by `rotation`.
    Snapshot {
        rect: Rect,
        rotation: f64,
        block_index: usize,
    },
}

/// What the markup leaves to the deck's theme: text size and colours, background, and the
/// sizes of the free-HTML layout.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// Font size of block text without one (Lectern's viewer sets 40 px on the slides).
    pub font_px: f64,
    /// Text, heading and link colours when the markup gives none; `None` leaves the
    /// writer's default (black).
    pub text_colour: Option<Rgb>,
    pub heading_colour: Option<Rgb>,
    pub link_colour: Option<Rgb>,
    /// The background of a slide without `data-background-color`.
    pub background: Option<Rgb>,
    /// Free HTML: the size of `h1` and `h2` (other headings get the mean of this and
    /// `body_px`) and of everything else.
    pub title_px: f64,
    pub body_px: f64,
    /// The deck's typefaces as the slides name them: text, headings (the text's when
    /// `None`) and code; `None` keeps the writer's default.
    pub font: Option<String>,
    pub heading_font: Option<String>,
    pub code_font: Option<String>,
}

impl ReadOptions {
    /// The formatting text starts from: `size_px`, aligned by `align`, in the deck's colours
    /// and faces.
    pub(crate) fn context(&self, size_px: f64, align: Align) -> Context {
        let mut ctx = Context::new(size_px, self.text_colour, align);
        ctx.heading_colour = self.heading_colour;
        ctx.link_colour = self.link_colour;
        ctx.font = self.font.clone();
        ctx.heading_font = self.heading_font.clone().or_else(|| self.font.clone());
        ctx.code_font = self.code_font.clone();
        ctx
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            font_px: 40.0,
            text_colour: None,
            heading_colour: None,
            link_colour: None,
            background: None,
            title_px: 48.0,
            body_px: 28.0,
            font: None,
            heading_font: None,
            code_font: None,
        }
    }
}

/// Reads one `<section>` (its outer HTML) of a `width` × `height` px deck with the default
/// [`ReadOptions`].
pub fn read_slide(section_html: &str, width: u32, height: u32) -> SlideContent {
    read_slide_with(section_html, width, height, &ReadOptions::default())
}

/// Reads one `<section>` (its outer HTML; without a `<section>`, the whole fragment is the
/// slide) of a `width` × `height` px deck.
pub fn read_slide_with(
    section_html: &str,
    width: u32,
    height: u32,
    options: &ReadOptions,
) -> SlideContent {
    let html = Html::parse_fragment(section_html);
    let root = html.root_element();
    let section = root
        .descendent_elements()
        .find(|e| e.value().name() == "section")
        .unwrap_or(root);
    let attr = |name: &str| section.value().attr(name).map(str::trim);

    let mut background = attr("data-background-color")
        .and_then(css::parse_paint)
        .map(Paint::colour)
        .unwrap_or(options.background);
    if let Some(shorthand) = attr("data-background").filter(|v| !v.is_empty()) {
        match css::parse_paint(shorthand) {
            Some(paint) => background = paint.colour(),
            None => return SlideContent::Snapshot { background },
        }
    }
    let painted = [
        "data-background-image",
        "data-background-video",
        "data-background-iframe",
        "data-background-gradient",
    ];
    if painted
        .iter()
        .any(|name| attr(name).is_some_and(|v| !v.is_empty()))
    {
        return SlideContent::Snapshot { background };
    }

    let canvas = (f64::from(width), f64::from(height));
    let blocks: Vec<ElementRef<'_>> = section
        .descendent_elements()
        .skip(1)
        .filter(is_block)
        .collect();
    let items = if blocks.is_empty() {
        free_html(section, canvas, options)
    } else {
        block_markup(section, &blocks, canvas, options)
    };
    match items {
        Some(items) => SlideContent::Items { background, items },
        None => SlideContent::Snapshot { background },
    }
}

fn is_block(e: &ElementRef<'_>) -> bool {
    e.value().classes().any(|c| c == "sl-block")
}

fn is_content(e: &ElementRef<'_>) -> bool {
    e.value().classes().any(|c| c == "sl-block-content")
}

/// Whether an element shows anything: text, or an element that is not text.
fn shows_something(e: ElementRef<'_>) -> bool {
    if text::is_hidden(&e) {
        return false;
    }
    e.children().any(|child| match child.value() {
        Node::Text(t) => !t.trim().is_empty(),
        Node::Element(el) => {
            text::is_unmappable(el.name())
                || el.name() == "hr"
                || ElementRef::wrap(child).is_some_and(shows_something)
        }
        _ => false,
    })
}

/// A block slide's items; `None` when content outside the blocks shows something.
fn block_markup(
    section: ElementRef<'_>,
    blocks: &[ElementRef<'_>],
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Option<Vec<Pending>> {
    // Content beside the blocks (not inside one, not a wrapper of blocks) cannot be placed.
    for child in section.children() {
        match child.value() {
            Node::Text(t) if !t.trim().is_empty() => return None,
            Node::Element(_) => {
                let e = ElementRef::wrap(child).expect("an element node wraps as an element");
                let holds_blocks = e.descendent_elements().any(|d| is_block(&d));
                if !holds_blocks && shows_something(e) {
                    return None;
                }
            }
            _ => {}
        }
    }
    let mut placed: Vec<(i64, Vec<Pending>)> = Vec::with_capacity(blocks.len());
    for (index, block) in blocks.iter().enumerate() {
        let nested = block
            .ancestors()
            .filter_map(ElementRef::wrap)
            .take_while(|a| a.id() != section.id())
            .any(|a| is_block(&a));
        if nested {
            continue;
        }
        let geometry = Geometry::of(block, canvas);
        let z = block
            .value()
            .attr("style")
            .and_then(|s| css::property(s, "z-index"))
            .and_then(|z| z.trim().parse::<i64>().ok())
            .unwrap_or(0);
        let items = read_block(*block, &geometry, options).unwrap_or_else(|| {
            vec![Pending::Snapshot {
                rect: geometry.rect,
                rotation: geometry.rotation,
                block_index: index,
            }]
        });
        placed.push((z, items));
    }
    // Stable: equal z-indexes keep document order, as the browser paints them.
    placed.sort_by_key(|(z, _)| *z);
    Some(placed.into_iter().flat_map(|(_, items)| items).collect())
}

/// A block's place on the canvas.
struct Geometry {
    rect: Rect,
    rotation: f64,
}

impl Geometry {
    fn of(block: &ElementRef<'_>, canvas: (f64, f64)) -> Self {
        let style = block.value().attr("style").unwrap_or("");
        // Percentages are of the canvas (the section is the blocks' containing block).
        let get = |name: &str, whole: f64| {
            css::property(style, name).and_then(|v| percent_or_px(v.trim(), whole))
        };
        let x = get("left", canvas.0).unwrap_or(0.0);
        let y = get("top", canvas.1).unwrap_or(0.0);
        let w = get("width", canvas.0).unwrap_or((canvas.0 - x).max(0.0));
        let h = get("height", canvas.1).unwrap_or((canvas.1 - y).max(0.0));
        let rotation = css::property(style, "transform")
            .and_then(css::rotation)
            .unwrap_or(0.0);
        Geometry {
            rect: Rect::new(x, y, w, h),
            rotation,
        }
    }

    /// Places a rectangle given in canvas coordinates of the unrotated block: its centre
    /// turns with the block about the block's centre, and it takes the block's rotation.
    fn place(&self, r: Rect) -> (Rect, f64) {
        if self.rotation == 0.0 {
            return (r, 0.0);
        }
        let (bx, by) = (
            self.rect.x + self.rect.w / 2.0,
            self.rect.y + self.rect.h / 2.0,
        );
        let (dx, dy) = (r.x + r.w / 2.0 - bx, r.y + r.h / 2.0 - by);
        let (sin, cos) = self.rotation.to_radians().sin_cos();
        let (cx, cy) = (bx + dx * cos - dy * sin, by + dx * sin + dy * cos);
        (
            Rect::new(cx - r.w / 2.0, cy - r.h / 2.0, r.w, r.h),
            self.rotation,
        )
    }
}

/// A block's items; `None` when it should be a snapshot.
fn read_block(
    block: ElementRef<'_>,
    geometry: &Geometry,
    options: &ReadOptions,
) -> Option<Vec<Pending>> {
    let content = block.child_elements().find(is_content).unwrap_or(block);
    // A block holding other blocks is a group: drawn as a whole.
    if content.descendent_elements().skip(1).any(|d| is_block(&d)) {
        return None;
    }
    let kind = block
        .value()
        .attr("data-block-type")
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let ready = |items: Vec<Item>| Some(items.into_iter().map(Pending::Item).collect());
    match kind.as_str() {
        "text" => ready(text_block(block, content, geometry, options)?),
        "code" => ready(code_block(content, geometry, options)?),
        "shape" => ready(vec![shape_block(block, content, geometry)?]),
        "line" | "arrow" => ready(vec![line_block(block, content, geometry, kind == "arrow")?]),
        "image" => {
            let img = content
                .descendent_elements()
                .find(|e| e.value().name() == "img")?;
            let src = img
                .value()
                .attr("src")
                .map(str::trim)
                .filter(|s| !s.is_empty())?;
            Some(vec![Pending::Image {
                rect: geometry.rect,
                rotation: geometry.rotation,
                src: src.to_owned(),
                description: img.value().attr("alt").unwrap_or("").to_owned(),
            }])
        }
        _ => None,
    }
}

/// A code block as the slides draw it (monokai): light monospace text, whitespace kept, on a
/// dark rectangle; `None` without a `<pre>`.
fn code_block(
    content: ElementRef<'_>,
    geometry: &Geometry,
    options: &ReadOptions,
) -> Option<Vec<Item>> {
    let pre = content
        .descendent_elements()
        .find(|e| e.value().name() == "pre")?;
    let mut ctx = options.context(options.font_px, Align::Left);
    ctx.colour = Some(Rgb(0xf8, 0xf8, 0xf2));
    let mut builder = Builder::default();
    builder.node(*pre, &ctx).ok()?;
    let background = Item::Shape(Shape {
        kind: ShapeKind::Rectangle,
        rect: geometry.rect,
        rotation: geometry.rotation,
        flip_h: false,
        flip_v: false,
        fill: Some(Rgb(0x27, 0x28, 0x22)),
        stroke: None,
    });
    let text = Item::Text(TextBox {
        rect: geometry.rect,
        rotation: geometry.rotation,
        paragraphs: builder.finish(),
    });
    Some(vec![background, text])
}

fn text_block(
    block: ElementRef<'_>,
    content: ElementRef<'_>,
    geometry: &Geometry,
    options: &ReadOptions,
) -> Option<Vec<Item>> {
    // Block text is centred unless it says otherwise, as the slides draw it.
    let mut ctx = options.context(options.font_px, Align::Center);
    ctx.apply_style(&block);
    if content.id() != block.id() {
        ctx.apply_style(&content);
    }
    let mut builder = Builder::default();
    match builder.children(*content, &ctx) {
        Ok(()) => {}
        Err(Unmappable) => return None,
    }
    let paragraphs = builder.finish();
    let mut items = Vec::new();
    let style = content.value().attr("style").unwrap_or("");
    let fill = css::property(style, "background-color")
        .or_else(|| css::property(style, "background"))
        .and_then(css::parse_colour);
    let stroke = border(style);
    if fill.is_some() || stroke.is_some() {
        items.push(Item::Shape(Shape {
            kind: ShapeKind::Rectangle,
            rect: geometry.rect,
            rotation: geometry.rotation,
            flip_h: false,
            flip_v: false,
            fill,
            stroke,
        }));
    }
    if !paragraphs.is_empty() {
        items.push(Item::Text(TextBox {
            rect: geometry.rect,
            rotation: geometry.rotation,
            paragraphs,
        }));
    }
    Some(items)
}

/// A CSS border (`border`, or `border-width` / `border-color` / `border-style`) as a
/// stroke; `None` for none or zero width.
fn border(style: &str) -> Option<Stroke> {
    let mut width = None;
    let mut colour = None;
    let mut none = false;
    if let Some(shorthand) = css::property(style, "border") {
        for token in shorthand.split_whitespace() {
            if let Some(w) = css::length(token, 40.0) {
                width = Some(w);
            } else if matches!(token.to_ascii_lowercase().as_str(), "none" | "hidden") {
                none = true;
            } else if let Some(paint) = css::parse_paint(token) {
                colour = Some(paint);
            }
        }
    }
    if let Some(w) = css::property(style, "border-width").and_then(|v| css::length(v, 40.0)) {
        width = Some(w);
    }
    if let Some(paint) = css::property(style, "border-color").and_then(css::parse_paint) {
        colour = Some(paint);
    }
    if let Some(s) = css::property(style, "border-style") {
        none = matches!(s.trim().to_ascii_lowercase().as_str(), "none" | "hidden");
    }
    let width = width.unwrap_or(3.0);
    if none || width <= 0.0 {
        return None;
    }
    // `border: 2px solid` without a colour is drawn in the text colour; black here.
    let colour = match colour {
        Some(paint) => paint.colour()?,
        None if css::property(style, "border").is_some() => Rgb(0, 0, 0),
        None => return None,
    };
    Some(Stroke {
        colour,
        width_px: width,
    })
}

/// An attribute of the block or its content (the content's wins).
fn data<'a>(block: ElementRef<'a>, content: ElementRef<'a>, name: &str) -> Option<&'a str> {
    content
        .value()
        .attr(name)
        .or_else(|| block.value().attr(name))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

fn shape_block(
    block: ElementRef<'_>,
    content: ElementRef<'_>,
    geometry: &Geometry,
) -> Option<Item> {
    let mut shape = match content
        .descendent_elements()
        .find(|e| e.value().name() == "svg")
    {
        Some(svg) => svg_shape(svg, geometry)?,
        None => css_shape(content, geometry)?,
    };
    // Explicit attributes win over what the drawing says.
    if let Some(kind) = data(block, content, "data-shape-type") {
        let rect = shape.rect;
        shape.kind = match kind.to_ascii_lowercase().as_str() {
            "rect" | "rectangle" | "square" => ShapeKind::Rectangle,
            "rounded" | "roundrect" | "round-rect" | "rounded-rect" | "rounded-rectangle" => {
                match shape.kind {
                    k @ ShapeKind::RoundedRectangle { .. } => k,
                    _ => ShapeKind::RoundedRectangle {
                        radius_px: rect.w.min(rect.h) / 10.0,
                    },
                }
            }
            "ellipse" | "circle" | "oval" => ShapeKind::Ellipse,
            "triangle" | "triangle-up" => ShapeKind::Triangle,
            _ => shape.kind,
        };
    }
    if let Some(fill) = data(block, content, "data-shape-fill").and_then(css::parse_paint) {
        shape.fill = fill.colour();
    }
    if let Some(paint) = data(block, content, "data-shape-stroke").and_then(css::parse_paint) {
        let width = data(block, content, "data-shape-stroke-width")
            .and_then(|w| css::length(w, 40.0))
            .or(shape.stroke.map(|s| s.width_px))
            .unwrap_or(1.0);
        shape.stroke = paint.colour().map(|colour| Stroke {
            colour,
            width_px: width,
        });
    }
    Some(Item::Shape(shape))
}

#[cfg(test)]
mod tests;
