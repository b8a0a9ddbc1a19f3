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
//! - anything else (`code`, `html`, `iframe`, `video`, `math`, groups, unknown types), and a
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
//! Any other slide is *free HTML*. Its top-level headings, paragraphs, blockquotes and lists
//! (looking through wrapper `div`s) become text boxes stacked top to bottom, centred on the
//! canvas as reveal.js centres a slide, headings at [`ReadOptions::title_px`] and the rest at
//! [`ReadOptions::body_px`], shrunk once if they would overflow. A free slide with anything
//! that is not text (`img`, `svg`, `table`, `pre`, `code`, `iframe`, `video`, `canvas`,
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

fn text_block(
    block: ElementRef<'_>,
    content: ElementRef<'_>,
    geometry: &Geometry,
    options: &ReadOptions,
) -> Option<Vec<Item>> {
    let mut ctx = Context::new(options.font_px, options.text_colour, Align::Left);
    ctx.heading_colour = options.heading_colour;
    ctx.link_colour = options.link_colour;
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

/// A shape painted with CSS on the block's content.
fn css_shape(content: ElementRef<'_>, geometry: &Geometry) -> Option<Shape> {
    let style = content.value().attr("style").unwrap_or("");
    let rect = geometry.rect;
    let fill = css::property(style, "background-color")
        .or_else(|| css::property(style, "background"))
        .map(|v| css::parse_paint(v).ok_or(()))
        .transpose()
        .ok()? // a background that is not a colour (a gradient, an image): snapshot
        .and_then(Paint::colour);
    let stroke = border(style);
    let shape_type = content.value().attr("data-shape-type");
    if fill.is_none() && stroke.is_none() && shape_type.is_none() {
        return None;
    }
    let mut kind = ShapeKind::Rectangle;
    let mut shape_box = rect;
    let mut flip_v = false;
    let mut rotation = 0.0;
    if let Some(radius) = css::property(style, "border-radius") {
        let first = radius.split_whitespace().next().unwrap_or("");
        let shorter = rect.w.min(rect.h);
        let px = match first.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0 * shorter),
            None => css::length(first, 40.0),
        };
        if let Some(px) = px.filter(|px| *px > 0.0) {
            kind = if px >= shorter / 2.0 && first.ends_with('%') {
                ShapeKind::Ellipse
            } else {
                ShapeKind::RoundedRectangle { radius_px: px }
            };
        }
    }
    if let Some(clip) = css::property(style, "clip-path") {
        let lower = clip.to_ascii_lowercase();
        let (name, args) = lower
            .find('(')
            .and_then(|i| Some((&lower[..i], lower[i + 1..].strip_suffix(')')?)))?;
        if name.trim() != "polygon" {
            return None;
        }
        let points: Option<Vec<(f64, f64)>> = args
            .split(',')
            .map(|pair| {
                let mut xy = pair.split_whitespace();
                let x = percent_or_px(xy.next()?, rect.w)?;
                let y = percent_or_px(xy.next()?, rect.h)?;
                Some((rect.x + x, rect.y + y))
            })
            .collect();
        let (k, box_, f, turn) = polygon_kind(&points?)?;
        kind = k;
        shape_box = box_;
        flip_v = f;
        rotation = turn;
    }
    let (rect, base) = geometry.place(shape_box);
    Some(Shape {
        kind,
        rect,
        rotation: base + rotation,
        flip_h: false,
        flip_v,
        fill,
        stroke,
    })
}

fn percent_or_px(value: &str, whole: f64) -> Option<f64> {
    match value.strip_suffix('%') {
        Some(p) => Some(p.parse::<f64>().ok()? / 100.0 * whole),
        None => css::length(value, 40.0),
    }
}

/// What a polygon (canvas coordinates) is as a preset shape: kind, the unrotated box,
/// flipped top to bottom, extra rotation. Triangles must be isosceles and point up, down,
/// left or right; four points must make an axis-aligned rectangle.
fn polygon_kind(points: &[(f64, f64)]) -> Option<(ShapeKind, Rect, bool, f64)> {
    let (min_x, max_x, min_y, max_y) = points.iter().fold(
        (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
        |(a, b, c, d), &(x, y)| (a.min(x), b.max(x), c.min(y), d.max(y)),
    );
    let bbox = Rect::new(min_x, min_y, max_x - min_x, max_y - min_y);
    let tolerance = (bbox.w.max(bbox.h) * 0.02).max(0.5);
    let near = |a: f64, b: f64| (a - b).abs() <= tolerance;
    match points.len() {
        3 => {
            // Which side the apex is on: the one point alone on its extreme edge.
            let count = |f: &dyn Fn(&(f64, f64)) -> bool| points.iter().filter(|p| f(p)).count();
            let mid_x = min_x + bbox.w / 2.0;
            let mid_y = min_y + bbox.h / 2.0;
            let turned = |rect: Rect| {
                let (cx, cy) = (rect.x + rect.w / 2.0, rect.y + rect.h / 2.0);
                Rect::new(cx - rect.h / 2.0, cy - rect.w / 2.0, rect.h, rect.w)
            };
            if count(&|p| near(p.1, min_y)) == 1
                && count(&|p| near(p.1, max_y)) == 2
                && points.iter().any(|p| near(p.1, min_y) && near(p.0, mid_x))
            {
                Some((ShapeKind::Triangle, bbox, false, 0.0))
            } else if count(&|p| near(p.1, max_y)) == 1
                && count(&|p| near(p.1, min_y)) == 2
                && points.iter().any(|p| near(p.1, max_y) && near(p.0, mid_x))
            {
                Some((ShapeKind::Triangle, bbox, true, 0.0))
            } else if count(&|p| near(p.0, max_x)) == 1
                && count(&|p| near(p.0, min_x)) == 2
                && points.iter().any(|p| near(p.0, max_x) && near(p.1, mid_y))
            {
                Some((ShapeKind::Triangle, turned(bbox), false, 90.0))
            } else if count(&|p| near(p.0, min_x)) == 1
                && count(&|p| near(p.0, max_x)) == 2
                && points.iter().any(|p| near(p.0, min_x) && near(p.1, mid_y))
            {
                Some((ShapeKind::Triangle, turned(bbox), false, 270.0))
            } else {
                None
            }
        }
        4 => points
            .iter()
            .all(|p| {
                (near(p.0, min_x) || near(p.0, max_x)) && (near(p.1, min_y) || near(p.1, max_y))
            })
            .then_some((ShapeKind::Rectangle, bbox, false, 0.0)),
        _ => None,
    }
}

/// How an `<svg>`'s user units map onto the block: `canvas = offset + unit * scale`.
struct SvgFrame {
    scale_x: f64,
    scale_y: f64,
    offset_x: f64,
    offset_y: f64,
}

impl SvgFrame {
    fn of(svg: ElementRef<'_>, rect: Rect) -> Self {
        let view_box: Option<Vec<f64>> = svg
            .value()
            .attr("viewBox")
            .or_else(|| svg.value().attr("viewbox"))
            .map(|v| {
                v.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .filter_map(|s| s.parse().ok())
                    .collect()
            });
        let Some([min_x, min_y, vb_w, vb_h]) = view_box
            .as_deref()
            .and_then(|v| <[f64; 4]>::try_from(v).ok())
        else {
            return SvgFrame {
                scale_x: 1.0,
                scale_y: 1.0,
                offset_x: rect.x,
                offset_y: rect.y,
            };
        };
        if vb_w <= 0.0 || vb_h <= 0.0 {
            return SvgFrame {
                scale_x: 1.0,
                scale_y: 1.0,
                offset_x: rect.x,
                offset_y: rect.y,
            };
        }
        let (mut sx, mut sy) = (rect.w / vb_w, rect.h / vb_h);
        let aspect = svg
            .value()
            .attr("preserveAspectRatio")
            .or_else(|| svg.value().attr("preserveaspectratio"))
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let (mut dx, mut dy) = (0.0, 0.0);
        if !aspect.starts_with("none") {
            // xMidYMid meet (or slice): one scale, the drawing centred.
            let s = if aspect.contains("slice") {
                sx.max(sy)
            } else {
                sx.min(sy)
            };
            dx = (rect.w - vb_w * s) / 2.0;
            dy = (rect.h - vb_h * s) / 2.0;
            sx = s;
            sy = s;
        }
        SvgFrame {
            scale_x: sx,
            scale_y: sy,
            offset_x: rect.x + dx - min_x * sx,
            offset_y: rect.y + dy - min_y * sy,
        }
    }

    fn point(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.offset_x + x * self.scale_x,
            self.offset_y + y * self.scale_y,
        )
    }

    fn rect(&self, x: f64, y: f64, w: f64, h: f64) -> Rect {
        let (cx, cy) = self.point(x, y);
        Rect::new(cx, cy, w * self.scale_x, h * self.scale_y)
    }

    /// A stroke width in canvas pixels (the mean scale for a stretched drawing).
    fn width(&self, w: f64) -> f64 {
        w * (self.scale_x * self.scale_y).sqrt()
    }
}

/// A presentation attribute of an SVG element (`fill`, `stroke`, ...), from its `style`
/// or the attribute, inherited from its ancestors up to the `<svg>`.
fn svg_property<'a>(e: ElementRef<'a>, name: &str) -> Option<&'a str> {
    std::iter::once(e)
        .chain(e.ancestors().filter_map(ElementRef::wrap))
        .take_while(|a| a.value().name() != "body")
        .find_map(|a| {
            let found = a
                .value()
                .attr("style")
                .and_then(|s| css::property(s, name))
                .or_else(|| a.value().attr(name))
                .map(str::trim);
            if a.value().name() == "svg" && found.is_none() {
                return Some(None);
            }
            found.map(Some)
        })
        .flatten()
}

/// Whether an SVG element or a group around it has a `transform` (not read here: such a
/// drawing is a snapshot).
fn transformed(e: ElementRef<'_>) -> bool {
    std::iter::once(e)
        .chain(e.ancestors().filter_map(ElementRef::wrap))
        .take_while(|a| a.value().name() != "svg")
        .any(|a| a.value().attr("transform").is_some())
}

/// A number attribute of an SVG element; a percentage is of `whole`.
fn svg_number(e: ElementRef<'_>, name: &str, whole: f64) -> Option<f64> {
    let v = e.value().attr(name)?.trim();
    match v.strip_suffix('%') {
        Some(p) => Some(p.trim().parse::<f64>().ok()? / 100.0 * whole),
        None => v.trim_end_matches("px").trim().parse().ok(),
    }
}

/// Fill and stroke of an SVG shape element; `None` when one is not a plain colour.
fn svg_paints(e: ElementRef<'_>, frame: &SvgFrame) -> Option<(Option<Rgb>, Option<Stroke>)> {
    let fill = match svg_property(e, "fill") {
        Some(v) => css::parse_paint(v)?.colour(),
        None => Some(Rgb(0, 0, 0)),
    };
    let stroke = match svg_property(e, "stroke") {
        Some(v) => css::parse_paint(v)?.colour(),
        None => None,
    };
    let width = svg_property(e, "stroke-width")
        .and_then(|w| css::length(w, 16.0))
        .unwrap_or(1.0);
    let stroke = stroke.filter(|_| width > 0.0).map(|colour| Stroke {
        colour,
        width_px: frame.width(width),
    });
    Some((fill, stroke))
}

fn svg_shape(svg: ElementRef<'_>, geometry: &Geometry) -> Option<Shape> {
    let frame = SvgFrame::of(svg, geometry.rect);
    let element = svg.descendent_elements().find(|e| {
        matches!(
            e.value().name(),
            "rect"
                | "ellipse"
                | "circle"
                | "polygon"
                | "line"
                | "path"
                | "polyline"
                | "text"
                | "image"
        )
    })?;
    if transformed(element) {
        return None;
    }
    let name = element.value().name();
    if name == "line" {
        return svg_line(svg, geometry, false);
    }
    let (fill, stroke) = svg_paints(element, &frame)?;
    let (vb_w, vb_h) = (
        geometry.rect.w / frame.scale_x,
        geometry.rect.h / frame.scale_y,
    );
    let num = |n: &str, whole: f64| svg_number(element, n, whole);
    let (kind, rect, flip_v, turn) = match name {
        "rect" => {
            let r = frame.rect(
                num("x", vb_w).unwrap_or(0.0),
                num("y", vb_h).unwrap_or(0.0),
                num("width", vb_w).unwrap_or(vb_w),
                num("height", vb_h).unwrap_or(vb_h),
            );
            let rx = num("rx", vb_w).or_else(|| num("ry", vb_h)).unwrap_or(0.0);
            let kind = if rx > 0.0 {
                ShapeKind::RoundedRectangle {
                    radius_px: rx * frame.scale_x.min(frame.scale_y),
                }
            } else {
                ShapeKind::Rectangle
            };
            (kind, r, false, 0.0)
        }
        "ellipse" | "circle" => {
            let cx = num("cx", vb_w).unwrap_or(0.0);
            let cy = num("cy", vb_h).unwrap_or(0.0);
            let (rx, ry) = if name == "circle" {
                let r = num("r", vb_w.min(vb_h)).unwrap_or(0.0);
                (r, r)
            } else {
                (
                    num("rx", vb_w).unwrap_or(0.0),
                    num("ry", vb_h).unwrap_or(0.0),
                )
            };
            (
                ShapeKind::Ellipse,
                frame.rect(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry),
                false,
                0.0,
            )
        }
        "polygon" => {
            let numbers: Vec<f64> = element
                .value()
                .attr("points")?
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<f64>().ok())
                .collect::<Option<_>>()?;
            let points: Vec<(f64, f64)> = numbers
                .chunks_exact(2)
                .map(|xy| frame.point(xy[0], xy[1]))
                .collect();
            polygon_kind(&points)?
        }
        _ => return None,
    };
    let (rect, base) = geometry.place(rect);
    Some(Shape {
        kind,
        rect,
        rotation: base + turn,
        flip_h: false,
        flip_v,
        fill,
        stroke,
    })
}

fn line_block(
    block: ElementRef<'_>,
    content: ElementRef<'_>,
    geometry: &Geometry,
    arrow: bool,
) -> Option<Item> {
    let coordinate = |name: &str| data(block, content, name).and_then(|v| css::length(v, 40.0));
    if let (Some(x1), Some(y1), Some(x2), Some(y2)) = (
        coordinate("data-line-x1"),
        coordinate("data-line-y1"),
        coordinate("data-line-x2"),
        coordinate("data-line-y2"),
    ) {
        // Slides.com's line blocks: ends in slide coordinates.
        let colour = data(block, content, "data-line-color")
            .and_then(css::parse_colour)
            .unwrap_or(Rgb(0, 0, 0));
        let width = coordinate("data-line-width").unwrap_or(2.0);
        let head = |name: &str| {
            data(block, content, name).is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                !t.is_empty() && t != "none"
            })
        };
        let ends = LineEnds {
            from: (x1, y1),
            to: (x2, y2),
            arrow_start: head("data-line-start-type"),
            arrow_end: head("data-line-end-type") || (arrow && !head("data-line-start-type")),
        };
        let unrotated = Geometry {
            rect: geometry.rect,
            rotation: 0.0,
        };
        return Some(Item::Shape(ends.shape(
            &unrotated,
            Some(Stroke {
                colour,
                width_px: width,
            }),
        )));
    }
    let svg = content
        .descendent_elements()
        .find(|e| e.value().name() == "svg")?;
    svg_line(svg, geometry, arrow).map(Item::Shape)
}

/// A line's ends in canvas coordinates and its arrow heads.
struct LineEnds {
    from: (f64, f64),
    to: (f64, f64),
    arrow_start: bool,
    arrow_end: bool,
}

impl LineEnds {
    fn shape(&self, geometry: &Geometry, stroke: Option<Stroke>) -> Shape {
        let (from, to) = (self.from, self.to);
        let rect = Rect::new(
            from.0.min(to.0),
            from.1.min(to.1),
            (to.0 - from.0).abs(),
            (to.1 - from.1).abs(),
        );
        let (rect, rotation) = geometry.place(rect);
        Shape {
            kind: ShapeKind::Line {
                arrow_start: self.arrow_start,
                arrow_end: self.arrow_end,
            },
            rect,
            rotation,
            flip_h: to.0 < from.0,
            flip_v: to.1 < from.1,
            fill: None,
            stroke,
        }
    }
}

/// The first `<line>` of an SVG as a line shape; a `polygon` nearer one end than the
/// other is an arrow head there (the line then reaches the head's tip).
fn svg_line(svg: ElementRef<'_>, geometry: &Geometry, arrow: bool) -> Option<Shape> {
    let frame = SvgFrame::of(svg, geometry.rect);
    let line = svg
        .descendent_elements()
        .find(|e| e.value().name() == "line")
        .filter(|line| !transformed(*line))?;
    let (vb_w, vb_h) = (
        geometry.rect.w / frame.scale_x,
        geometry.rect.h / frame.scale_y,
    );
    let num = |n: &str, whole: f64| svg_number(line, n, whole).unwrap_or(0.0);
    let mut ends = LineEnds {
        from: frame.point(num("x1", vb_w), num("y1", vb_h)),
        to: frame.point(num("x2", vb_w), num("y2", vb_h)),
        arrow_start: line.value().attr("marker-start").is_some(),
        arrow_end: line.value().attr("marker-end").is_some(),
    };
    let distance =
        |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    for polygon in svg
        .descendent_elements()
        .filter(|e| e.value().name() == "polygon")
    {
        let numbers: Vec<f64> = polygon
            .value()
            .attr("points")
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|s| s.parse().ok())
            .collect();
        let points: Vec<(f64, f64)> = numbers
            .chunks_exact(2)
            .map(|xy| frame.point(xy[0], xy[1]))
            .collect();
        if points.is_empty() {
            continue;
        }
        let n = points.len() as f64;
        let centre = (
            points.iter().map(|p| p.0).sum::<f64>() / n,
            points.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let at_end = distance(centre, ends.to) <= distance(centre, ends.from);
        let (near, far) = if at_end {
            (ends.to, ends.from)
        } else {
            (ends.from, ends.to)
        };
        // The tip: the head's point farthest from the other end.
        let tip = points.iter().copied().fold(near, |best, p| {
            if distance(p, far) > distance(best, far) {
                p
            } else {
                best
            }
        });
        if at_end {
            ends.to = tip;
            ends.arrow_end = true;
        } else {
            ends.from = tip;
            ends.arrow_start = true;
        }
    }
    if arrow && !ends.arrow_start {
        ends.arrow_end = true;
    }
    let stroke_colour = svg_property(line, "stroke")
        .and_then(css::parse_paint)
        .map(Paint::colour)
        .unwrap_or(Some(Rgb(0, 0, 0)));
    let width = svg_property(line, "stroke-width")
        .and_then(|w| css::length(w, 16.0))
        .unwrap_or(1.0);
    let stroke = stroke_colour.map(|colour| Stroke {
        colour,
        width_px: frame.width(width),
    });
    Some(ends.shape(geometry, stroke))
}

/// Free HTML: the slide's text as stacked text boxes; `None` when it holds anything else.
fn free_html(
    section: ElementRef<'_>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Option<Vec<Pending>> {
    if !all_text(section) {
        return None;
    }

    // Chunks: (paragraphs, is a heading); each becomes one text box.
    let mut chunks: Vec<Vec<Paragraph>> = Vec::new();
    let base = |size: f64, align: Align| {
        let mut ctx = Context::new(size, options.text_colour, align);
        ctx.heading_colour = options.heading_colour;
        ctx.link_colour = options.link_colour;
        ctx
    };
    let mut section_ctx = base(options.body_px, Align::Center);
    section_ctx.apply_style(&section);
    collect_chunks(section, &section_ctx, options, &base, &mut chunks).ok()?;
    Some(stack(chunks, canvas, options))
}

/// Whether everything shown under `parent` is text that the free layout can place: no
/// element that is not text, no code, no inline positioning. Hidden subtrees (notes,
/// scripts) do not count.
fn all_text(parent: ElementRef<'_>) -> bool {
    parent.child_elements().all(|e| {
        if text::is_hidden(&e) {
            return true;
        }
        let name = e.value().name();
        if text::is_unmappable(name) || matches!(name, "pre" | "code" | "kbd" | "samp") {
            return false;
        }
        let positioned = e.value().attr("style").is_some_and(|style| {
            css::declarations(style).any(|(property, value)| {
                matches!(
                    property.as_str(),
                    "position" | "left" | "top" | "right" | "bottom" | "transform" | "float"
                ) && !matches!(
                    value.to_ascii_lowercase().as_str(),
                    "static" | "none" | "auto"
                )
            })
        });
        !positioned && all_text(e)
    })
}

/// Splits a container's children into chunks: each heading, paragraph, list or other
/// block alone, runs of inline content together, wrapper `div`s looked through.
fn collect_chunks(
    parent: ElementRef<'_>,
    ctx: &Context,
    options: &ReadOptions,
    base: &dyn Fn(f64, Align) -> Context,
    chunks: &mut Vec<Vec<Paragraph>>,
) -> Result<(), Unmappable> {
    let mut inline = Builder::default();
    let mut has_inline = false;
    let flush = |inline: &mut Builder, has_inline: &mut bool, chunks: &mut Vec<Vec<Paragraph>>| {
        if *has_inline {
            let paragraphs = std::mem::take(inline).finish();
            if !paragraphs.is_empty() {
                chunks.push(paragraphs);
            }
            *has_inline = false;
        }
    };
    for child in parent.children() {
        let Some(e) = ElementRef::wrap(child) else {
            inline.node(child, ctx)?;
            has_inline = true;
            continue;
        };
        if text::is_hidden(&e) {
            continue;
        }
        let name = e.value().name();
        let wrapper = matches!(
            name,
            "div" | "header" | "footer" | "article" | "main" | "center"
        ) && e.child_elements().any(|c| is_chunk(c.value().name()));
        if wrapper {
            flush(&mut inline, &mut has_inline, chunks);
            let mut inner = ctx.clone();
            inner.apply_style(&e);
            collect_chunks(e, &inner, options, base, chunks)?;
        } else if is_chunk(name) || name == "div" {
            flush(&mut inline, &mut has_inline, chunks);
            let mut chunk_ctx = match text::heading_scale(name) {
                Some(scale) => {
                    let size = if matches!(name, "h1" | "h2") {
                        options.title_px
                    } else {
                        (options.title_px + options.body_px) / 2.0
                    };
                    base(size / scale, ctx.align)
                }
                None if matches!(name, "ul" | "ol") => base(options.body_px, Align::Left),
                None => base(options.body_px, ctx.align),
            };
            chunk_ctx.colour = ctx.colour;
            let mut builder = Builder::default();
            builder.node(child, &chunk_ctx)?;
            let paragraphs = builder.finish();
            if !paragraphs.is_empty() {
                chunks.push(paragraphs);
            }
        } else {
            inline.node(child, ctx)?;
            has_inline = true;
        }
    }
    flush(&mut inline, &mut has_inline, chunks);
    Ok(())
}

fn is_chunk(name: &str) -> bool {
    text::heading_scale(name).is_some()
        || matches!(
            name,
            "p" | "ul" | "ol" | "blockquote" | "dl" | "figure" | "address" | "details"
        )
}

/// Lays chunks out top to bottom: side margins of 6 % of the width, a gap of half the body
/// size between boxes, heights estimated from the text (an average glyph half its font
/// size wide, lines 1.2 times the size), the stack centred vertically; when it would not
/// fit, every size is scaled down once (to no less than half).
fn stack(
    mut chunks: Vec<Vec<Paragraph>>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Vec<Pending> {
    let (width, height) = canvas;
    let margin_x = (width * 0.06).max(20.0);
    let margin_y = (height * 0.05).max(20.0);
    let box_w = (width - 2.0 * margin_x).max(1.0);
    let available = (height - 2.0 * margin_y).max(1.0);
    let gap = options.body_px / 2.0;
    let total = |chunks: &[Vec<Paragraph>], gap: f64| {
        chunks
            .iter()
            .map(|c| estimate_height(c, box_w))
            .sum::<f64>()
            + gap * chunks.len().saturating_sub(1) as f64
    };
    let mut gap_now = gap;
    let needed = total(&chunks, gap_now);
    if needed > available {
        let factor = (available / needed).sqrt().max(0.5);
        for run in chunks.iter_mut().flatten().flat_map(|p| p.runs.iter_mut()) {
            run.size_px = run.size_px.map(|s| s * factor);
        }
        gap_now *= factor;
    }
    let needed = total(&chunks, gap_now);
    let mut y = margin_y + ((available - needed) / 2.0).max(0.0);
    let mut items = Vec::with_capacity(chunks.len());
    for paragraphs in chunks {
        let h = estimate_height(&paragraphs, box_w);
        items.push(Pending::Item(Item::Text(TextBox {
            rect: Rect::new(margin_x, y, box_w, h),
            rotation: 0.0,
            paragraphs,
        })));
        y += h + gap_now;
    }
    items
}

/// The height the paragraphs take in a box `width` px wide, roughly.
fn estimate_height(paragraphs: &[Paragraph], width: f64) -> f64 {
    paragraphs
        .iter()
        .map(|p| {
            let size = p
                .runs
                .iter()
                .filter_map(|r| r.size_px)
                .fold(0.0f64, f64::max)
                .max(1.0);
            let indent = p.list.map_or(0.0, |l| size * f64::from(l.level + 1));
            let per_line = ((width - indent).max(size) / (size * 0.5)).floor().max(1.0);
            let lines: f64 = p
                .text()
                .split('\n')
                .map(|line| (line.chars().count() as f64 / per_line).ceil().max(1.0))
                .sum();
            lines * size * 1.2
        })
        .sum::<f64>()
        .ceil()
}

#[cfg(test)]
mod tests;
