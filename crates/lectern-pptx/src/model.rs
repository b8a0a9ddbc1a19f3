//! The slide model the writer takes: a canvas in CSS pixels and, per slide, a background,
//! positioned items (text boxes, shapes, pictures) in paint order and speaker notes. Also
//! the unit conversions (pixels to EMU, font pixels to hundredths of a point).

/// EMU (English Metric Units, what Office Open XML measures in) per CSS pixel: 914,400 EMU
/// make an inch and a CSS pixel is 1/96 inch.
pub const EMU_PER_PX: i64 = 9_525;

/// A length in CSS pixels as EMU, rounded to the nearest.
pub fn px_to_emu(px: f64) -> i64 {
    (px * EMU_PER_PX as f64).round() as i64
}

/// A font size in CSS pixels as PowerPoint's `sz` (hundredths of a point, 0.75 pt per
/// pixel), rounded to the nearest and kept within what PowerPoint accepts (1 to 4000 pt;
/// NaN counts as the smallest).
pub fn px_to_font_size(px: f64) -> u32 {
    if px.is_nan() {
        return 100;
    }
    (px * 75.0).round().clamp(100.0, 400_000.0) as u32
}

/// A whole presentation: the canvas every slide is drawn on and the slides in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Presentation {
    /// Canvas width in CSS pixels (reveal.js's `width`, 960 or 1280 say).
    pub width_px: u32,
    /// Canvas height in CSS pixels.
    pub height_px: u32,
    /// The document title (`docProps/core.xml`); may be empty.
    pub title: String,
    pub slides: Vec<Slide>,
}

/// One slide.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slide {
    /// A solid background colour; `None` keeps the master's (white).
    pub background: Option<Rgb>,
    /// What the slide shows, back to front.
    pub items: Vec<Item>,
    /// Speaker notes as plain text, one paragraph a line; `None` (or blank) writes no
    /// notes page.
    pub notes: Option<String>,
}

/// A colour as red, green and blue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// As DrawingML's `srgbClr` value: six upper-case hex digits.
    pub fn hex(self) -> String {
        format!("{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }
}

/// A rectangle on the canvas in CSS pixels: top-left corner and size.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Rect { x, y, w, h }
    }

    /// The largest rectangle of the aspect ratio `content_w`:`content_h` that fits in this
    /// one, centred (CSS's `object-fit: contain`): for a picture whose pixel size the caller
    /// knows and that should not be stretched. A degenerate size gives this rectangle back.
    pub fn contain(&self, content_w: f64, content_h: f64) -> Rect {
        if content_w <= 0.0 || content_h <= 0.0 || self.w <= 0.0 || self.h <= 0.0 {
            return *self;
        }
        let scale = (self.w / content_w).min(self.h / content_h);
        let (w, h) = (content_w * scale, content_h * scale);
        Rect::new(
            self.x + (self.w - w) / 2.0,
            self.y + (self.h - h) / 2.0,
            w,
            h,
        )
    }
}

/// Something drawn on a slide.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Text(TextBox),
    Shape(Shape),
    Picture(Picture),
    Table(Table),
}

/// A table: a grid of text cells with a rule under each row but the last, as the slides draw
/// tables; no fill.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub rect: Rect,
    /// Column widths in px (they add up to the rectangle's width).
    pub columns: Vec<f64>,
    pub rows: Vec<TableRow>,
    /// The rules' colour (the text's); `None` for black.
    pub rule: Option<Rgb>,
}

/// One row of a [`Table`]: its height in px and each cell's paragraphs (as many cells as
/// the table has columns).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableRow {
    pub height: f64,
    pub cells: Vec<Vec<Paragraph>>,
}

/// A text box: wrapped text in a rectangle, anchored at the top, no insets, no fill.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextBox {
    pub rect: Rect,
    /// Clockwise rotation in degrees about the rectangle's centre; 0 for none.
    pub rotation: f64,
    pub paragraphs: Vec<Paragraph>,
}

/// A paragraph of a text box.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Paragraph {
    pub align: Align,
    /// Set for a list item: bullet or number, and nesting level.
    pub list: Option<List>,
    /// The text; a `\n` in a run's text is a line break (`a:br`) within the paragraph.
    pub runs: Vec<Run>,
}

impl Paragraph {
    /// The paragraph's text, runs joined.
    pub fn text(&self) -> String {
        self.runs.iter().map(|r| r.text.as_str()).collect()
    }
}

/// Horizontal alignment of a paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    Left,
    Center,
    Right,
    Justify,
}

/// A list item's marker and level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct List {
    pub kind: ListKind,
    /// Nesting depth, 0 for a top-level item; PowerPoint has levels 0 to 8 (more is
    /// written as 8).
    pub level: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// A bullet (•).
    Bullet,
    /// Arabic numbers with a period (1. 2. 3.), counted by PowerPoint.
    Numbered,
}

/// A stretch of text in one formatting.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub text: String,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    /// Font size in CSS pixels; `None` keeps the master's default (18 pt).
    pub size_px: Option<f64>,
    /// Text colour; `None` keeps the master's (black).
    pub colour: Option<Rgb>,
    /// A hyperlink target (an absolute URL, say).
    pub link: Option<String>,
    /// The typeface, named as on the slide ("Montserrat", "JetBrains Mono"); `None` keeps the
    /// master's.
    pub font: Option<String>,
}

impl Run {
    /// Unformatted text.
    pub fn plain(text: impl Into<String>) -> Self {
        Run {
            text: text.into(),
            ..Run::default()
        }
    }
}

/// A drawn shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub kind: ShapeKind,
    /// The shape's bounding box; for a line, the box whose top-left and bottom-right
    /// corners are its ends (before flips), so a horizontal line has height 0.
    pub rect: Rect,
    /// Clockwise rotation in degrees about the rectangle's centre; 0 for none.
    pub rotation: f64,
    /// Mirrored left to right (a line then runs from top-right to bottom-left).
    pub flip_h: bool,
    /// Mirrored top to bottom (a triangle then points down; a line runs from bottom-left
    /// to top-right).
    pub flip_v: bool,
    /// Fill colour; `None` for no fill. Lines have no fill.
    pub fill: Option<Rgb>,
    /// Outline; `None` for none. A line without a stroke is drawn 1 px black.
    pub stroke: Option<Stroke>,
}

/// The geometry of a [`Shape`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    Rectangle,
    /// A rectangle with corners rounded to `radius_px` (at most half the shorter side).
    RoundedRectangle {
        radius_px: f64,
    },
    Ellipse,
    /// An isosceles triangle, apex at the top centre.
    Triangle,
    /// A straight line, with arrow heads at its start and end as asked.
    Line {
        arrow_start: bool,
        arrow_end: bool,
    },
}

/// An outline: colour and width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stroke {
    pub colour: Rgb,
    pub width_px: f64,
}

/// A raster picture stretched over its rectangle.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    pub rect: Rect,
    /// Clockwise rotation in degrees about the rectangle's centre; 0 for none.
    pub rotation: f64,
    pub image: Image,
    /// Alternative text (`descr`); may be empty.
    pub description: String,
}

/// Encoded image bytes and their format.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub bytes: Vec<u8>,
    pub format: ImageFormat,
}

impl Image {
    /// The bytes with the format their signature shows; `None` for neither PNG nor JPEG.
    pub fn sniff(bytes: Vec<u8>) -> Option<Self> {
        let format = ImageFormat::sniff(&bytes)?;
        Some(Image { bytes, format })
    }
}

/// The image formats every PowerPoint reader draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    Png,
    Jpeg,
}

impl ImageFormat {
    pub fn content_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
        }
    }

    /// The file extension of its media parts.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
        }
    }

    /// The format from a MIME type (`image/png`, `image/jpeg`, `image/jpg`), any case,
    /// parameters ignored.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("image/png") {
            Some(ImageFormat::Png)
        } else if essence.eq_ignore_ascii_case("image/jpeg")
            || essence.eq_ignore_ascii_case("image/jpg")
        {
            Some(ImageFormat::Jpeg)
        } else {
            None
        }
    }

    /// The format from the file signature (magic bytes).
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_become_emu() {
        assert_eq!(px_to_emu(1.0), 9_525);
        assert_eq!(px_to_emu(960.0), 9_144_000);
        assert_eq!(px_to_emu(0.5), 4_763);
        assert_eq!(px_to_emu(-10.0), -95_250);
    }

    #[test]
    fn font_pixels_become_hundredths_of_a_point() {
        assert_eq!(px_to_font_size(32.0), 2_400);
        assert_eq!(px_to_font_size(40.0), 3_000);
        assert_eq!(px_to_font_size(13.0), 975);
        assert_eq!(px_to_font_size(0.0), 100);
        assert_eq!(px_to_font_size(1e9), 400_000);
        assert_eq!(px_to_font_size(f64::NAN), 100);
    }

    #[test]
    fn colours_print_as_hex() {
        assert_eq!(Rgb(0x11, 0xab, 0).hex(), "11AB00");
    }

    #[test]
    fn contain_centres_and_keeps_the_ratio() {
        let r = Rect::new(0.0, 0.0, 400.0, 200.0).contain(100.0, 100.0);
        assert_eq!(r, Rect::new(100.0, 0.0, 200.0, 200.0));
        let same = Rect::new(1.0, 2.0, 3.0, 4.0);
        assert_eq!(same.contain(0.0, 5.0), same);
    }

    #[test]
    fn image_formats() {
        assert_eq!(
            ImageFormat::sniff(b"\x89PNG\r\n\x1a\n...."),
            Some(ImageFormat::Png)
        );
        assert_eq!(
            ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::sniff(b"GIF89a"), None);
        assert_eq!(
            ImageFormat::from_content_type("Image/JPG; q=1"),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::from_content_type("image/gif"), None);
    }
}
