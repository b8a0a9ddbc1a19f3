//! What the integration tests share: a sample presentation that uses every part of the
//! model (built partly by the reader from editor markup, partly by hand), its expected
//! contents as JSON for `check_pptx.py`, and the rule for tools that may be missing.

#![allow(dead_code)]

use lectern_pptx::{
    Align, Image, ImageFormat, Item, List, ListKind, Paragraph, Pending, Picture, Presentation,
    Rect, Rgb, Run, Shape, ShapeKind, Slide, SlideContent, Stroke, TextBox, read_slide,
};

pub const PNG: &[u8] = include_bytes!("../data/red.png");
pub const JPEG: &[u8] = include_bytes!("../data/blue.jpg");

pub const WIDTH: u32 = 960;
pub const HEIGHT: u32 = 700;

/// The editor's kind of slide: text with formatting, the three CSS shapes, a line, an
/// arrow, an image and an embedded page (a snapshot).
pub const BLOCK_SLIDE: &str = r##"<section data-background-color="#112233">
<div class="sl-block" data-block-type="text" data-block-id="t1" style="left: 80px; top: 60px; width: 400px; height: 160px; z-index: 1; transform: rotate(15deg);"><div class="sl-block-content" style="font-size: 32px; color: #ff0000; text-align: center;"><h2>Title <strong>bold</strong></h2><p>Para <em>it</em> <u>u</u> <a href="https://example.org/a b">link</a></p><ul><li>one</li></ul></div></div>
<div class="sl-block" data-block-type="shape" data-block-id="s1" style="left: 520px; top: 40px; width: 160px; height: 100px;"><div class="sl-block-content" data-shape-type="rect" style="width: 100%; height: 100%; background-color: #2a76dd; border: 4px solid #ffffff"></div></div>
<div class="sl-block" data-block-type="shape" data-block-id="s2" style="left: 700px; top: 40px; width: 160px; height: 100px;"><div class="sl-block-content" data-shape-type="ellipse" style="width: 100%; height: 100%; background-color: #00aa00; border-radius: 50%;"></div></div>
<div class="sl-block" data-block-type="shape" data-block-id="s3" style="left: 520px; top: 160px; width: 160px; height: 100px;"><div class="sl-block-content" data-shape-type="triangle" style="width: 100%; height: 100%; background-color: #ffcc00; clip-path: polygon(50% 0%, 100% 100%, 0% 100%);"></div></div>
<div class="sl-block" data-block-type="shape" data-block-id="s4" style="left: 700px; top: 160px; width: 160px; height: 100px;"><div class="sl-block-content"><svg viewBox="0 0 160 100" preserveAspectRatio="none"><rect width="160" height="100" rx="12" fill="#884488"></rect></svg></div></div>
<div class="sl-block" data-block-type="line" data-block-id="l1" style="left: 80px; top: 400px; width: 300px; height: 40px;"><div class="sl-block-content"><svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 300 40" preserveAspectRatio="none"><line x1="0" y1="20" x2="300" y2="20" stroke="#ffffff" stroke-width="4"></line></svg></div></div>
<div class="sl-block" data-block-type="line" data-block-id="l2" style="left: 80px; top: 460px; width: 300px; height: 40px;"><div class="sl-block-content"><svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 300 40" preserveAspectRatio="none"><line x1="0" y1="20" x2="284" y2="20" stroke="#ff8800" stroke-width="4"></line><polygon points="300,20 282,10 282,30" fill="#ff8800"></polygon></svg></div></div>
<div class="sl-block" data-block-type="image" data-block-id="i1" style="left: 520px; top: 300px; width: 160px; height: 120px;"><div class="sl-block-content"><img src="https://images.example.org/red.png" alt="A red square"></div></div>
<div class="sl-block" data-block-type="iframe" data-block-id="c1" style="left: 700px; top: 300px; width: 200px; height: 120px;"><div class="sl-block-content"><iframe src="https://example.com/"></iframe></div></div>
</section>"##;

/// A free reveal.js slide.
pub const FREE_SLIDE: &str = "<section><h2>Free heading</h2><p>Free body text with <strong>bold</strong> words.</p>\
     <ul><li>Free item one</li><li>Free item two</li></ul></section>";

/// A slide from the reader, its pending items completed as the caller would: images
/// fetched (the PNG), snapshots rendered (the JPEG).
fn from_markup(html: &str, notes: Option<&str>) -> Slide {
    let SlideContent::Items { background, items } = read_slide(html, WIDTH, HEIGHT) else {
        panic!("the sample slide maps to items");
    };
    let items = items
        .into_iter()
        .map(|p| match p {
            Pending::Item(item) => item,
            Pending::Image {
                rect,
                rotation,
                description,
                ..
            } => Item::Picture(Picture {
                rect,
                rotation,
                image: Image::sniff(PNG.to_vec()).expect("the sample PNG is a PNG"),
                description,
            }),
            Pending::Snapshot { rect, rotation, .. } => Item::Picture(Picture {
                rect,
                rotation,
                image: Image {
                    bytes: JPEG.to_vec(),
                    format: ImageFormat::Jpeg,
                },
                description: "Snapshot".into(),
            }),
        })
        .collect();
    Slide {
        background,
        items,
        notes: notes.map(str::to_owned),
    }
}

fn run(text: &str) -> Run {
    Run::plain(text)
}

/// A slide built by hand: every run format, alignments, a numbered list, a line break,
/// text that needs escaping, a backwards line and a rotated picture.
fn by_hand() -> Slide {
    let formatted = Paragraph {
        align: Align::Right,
        list: None,
        runs: vec![
            Run {
                bold: true,
                size_px: Some(40.0),
                ..run("Bold ")
            },
            Run {
                italic: true,
                colour: Some(Rgb(0x12, 0x34, 0x56)),
                ..run("italic ")
            },
            Run {
                underline: true,
                size_px: Some(20.0),
                ..run("under ")
            },
            Run {
                strike: true,
                ..run("struck ")
            },
            Run {
                link: Some("https://lectern.example/deck?a=1&b=2".into()),
                ..run("linked")
            },
        ],
    };
    let escaped = Paragraph {
        runs: vec![run("Escapes <&>\"' and\u{1}controls\u{FFFF} dropped")],
        ..Paragraph::default()
    };
    let broken = Paragraph {
        align: Align::Center,
        runs: vec![run("first line\nsecond line")],
        ..Paragraph::default()
    };
    let numbered = |text: &str, level| Paragraph {
        align: Align::Left,
        list: Some(List {
            kind: ListKind::Numbered,
            level,
        }),
        runs: vec![Run {
            size_px: Some(24.0),
            ..run(text)
        }],
    };
    Slide {
        background: None,
        items: vec![
            Item::Text(TextBox {
                rect: Rect::new(40.0, 40.0, 880.0, 200.0),
                rotation: 0.0,
                paragraphs: vec![formatted, escaped, broken],
            }),
            Item::Text(TextBox {
                rect: Rect::new(40.5, 300.25, 500.0, 200.0),
                rotation: -30.0,
                paragraphs: vec![
                    numbered("Step one", 0),
                    numbered("Step one point one", 1),
                    Paragraph {
                        align: Align::Justify,
                        ..numbered("Step two", 0)
                    },
                ],
            }),
            Item::Shape(Shape {
                kind: ShapeKind::Line {
                    arrow_start: true,
                    arrow_end: true,
                },
                rect: Rect::new(600.0, 300.0, 200.0, 100.0),
                rotation: 0.0,
                flip_h: true,
                flip_v: false,
                fill: None,
                stroke: Some(Stroke {
                    colour: Rgb(0, 0, 0),
                    width_px: 2.0,
                }),
            }),
            Item::Picture(Picture {
                rect: Rect::new(600.0, 450.0, 120.0, 90.0),
                rotation: 45.0,
                image: Image::sniff(PNG.to_vec()).expect("the sample PNG is a PNG"),
                description: "Same picture again \"quoted\"".into(),
            }),
        ],
        notes: None,
    }
}

/// The sample: four slides (block markup, by hand, free HTML, empty with a background).
pub fn sample() -> Presentation {
    Presentation {
        width_px: WIDTH,
        height_px: HEIGHT,
        title: "Sample <deck> & co".into(),
        slides: vec![
            from_markup(
                BLOCK_SLIDE,
                Some("Speaker notes, line one\nLine two with <&> \"quotes\""),
            ),
            by_hand(),
            from_markup(FREE_SLIDE, Some("Notes for the free slide — ünïcødé ✓")),
            Slide {
                background: Some(Rgb(0xfa, 0xfa, 0xd2)),
                items: Vec::new(),
                notes: Some("Only notes here".into()),
            },
        ],
    }
}

/// What a run's text shows: the characters XML cannot hold are dropped.
pub fn shown(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        })
        .collect()
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_opt_string(s: Option<&str>) -> String {
    s.map_or("null".into(), json_string)
}

fn json_colour(c: Option<Rgb>) -> String {
    json_opt_string(c.map(Rgb::hex).as_deref())
}

fn json_rect(r: Rect, rotation: f64) -> String {
    let emu = |px: f64| (px * 9525.0).round() as i64;
    format!(
        "\"x\": {}, \"y\": {}, \"w\": {}, \"h\": {}, \"rotation\": {}",
        emu(r.x),
        emu(r.y),
        emu(r.w),
        emu(r.h),
        rotation.rem_euclid(360.0)
    )
}

/// What `check_pptx.py` should find in the written file, as JSON: the slide size in
/// EMU and, per slide, notes, background, and the text boxes, shapes, lines and
/// pictures in order with their positions and formatting.
pub fn expectations(p: &Presentation) -> String {
    let mut slides = Vec::new();
    for slide in &p.slides {
        let (mut texts, mut shapes, mut lines, mut pictures) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for item in &slide.items {
            match item {
                // Tables are checked by the server's export tests (pptx_dump.py).
                Item::Table(_) => {}
                Item::Text(t) => {
                    let paragraphs: Vec<String> = t
                        .paragraphs
                        .iter()
                        .map(|p| {
                            let runs: Vec<String> = p
                                .runs
                                .iter()
                                .flat_map(|r| {
                                    shown(&r.text)
                                        .split('\n')
                                        .filter(|s| !s.is_empty())
                                        .map(|s| {
                                            format!(
                                                "{{\"text\": {}, \"bold\": {}, \"italic\": {}, \"underline\": {}, \"strike\": {}, \"size_pt\": {}, \"colour\": {}, \"link\": {}}}",
                                                json_string(s),
                                                r.bold,
                                                r.italic,
                                                r.underline,
                                                r.strike,
                                                r.size_px.map_or("null".into(), |px| format!("{}", (px * 75.0).round() / 100.0)),
                                                json_colour(r.colour),
                                                json_opt_string(r.link.as_deref().map(|l| l.replace(' ', "%20")).as_deref()),
                                            )
                                        })
                                        .collect::<Vec<_>>()
                                })
                                .collect();
                            let align = match p.align {
                                Align::Left => "LEFT",
                                Align::Center => "CENTER",
                                Align::Right => "RIGHT",
                                Align::Justify => "JUSTIFY",
                            };
                            format!(
                                "{{\"text\": {}, \"align\": \"{align}\", \"level\": {}, \"runs\": [{}]}}",
                                json_string(&shown(&p.text()).replace('\n', "\u{b}")),
                                p.list.map_or(0, |l| l.level),
                                runs.join(", ")
                            )
                        })
                        .collect();
                    texts.push(format!(
                        "{{{}, \"paragraphs\": [{}]}}",
                        json_rect(t.rect, t.rotation),
                        paragraphs.join(", ")
                    ));
                }
                Item::Shape(s) => {
                    let stroke = s.stroke.map(|s| s.colour);
                    let kind = match s.kind {
                        ShapeKind::Rectangle => "RECTANGLE",
                        ShapeKind::RoundedRectangle { .. } => "ROUNDED_RECTANGLE",
                        ShapeKind::Ellipse => "OVAL",
                        ShapeKind::Triangle => "ISOSCELES_TRIANGLE",
                        ShapeKind::Line { .. } => {
                            lines.push(format!(
                                "{{{}, \"colour\": {}, \"flip_h\": {}, \"flip_v\": {}}}",
                                json_rect(s.rect, s.rotation),
                                json_colour(stroke),
                                s.flip_h,
                                s.flip_v
                            ));
                            continue;
                        }
                    };
                    shapes.push(format!(
                        "{{{}, \"type\": \"{kind}\", \"fill\": {}, \"stroke\": {}}}",
                        json_rect(s.rect, s.rotation),
                        json_colour(s.fill),
                        json_colour(stroke)
                    ));
                }
                Item::Picture(pic) => pictures.push(format!(
                    "{{{}, \"content_type\": \"{}\", \"description\": {}}}",
                    json_rect(pic.rect, pic.rotation),
                    pic.image.format.content_type(),
                    json_string(&pic.description)
                )),
            }
        }
        let notes = slide
            .notes
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .map(str::trim_end);
        slides.push(format!(
            "{{\"notes\": {}, \"background\": {}, \"texts\": [{}], \"shapes\": [{}], \"lines\": [{}], \"pictures\": [{}]}}",
            json_opt_string(notes),
            json_colour(slide.background),
            texts.join(", "),
            shapes.join(", "),
            lines.join(", "),
            pictures.join(", ")
        ));
    }
    format!(
        "{{\"width\": {}, \"height\": {}, \"slides\": [\n{}\n]}}\n",
        u64::from(p.width_px) * 9525,
        u64::from(p.height_px) * 9525,
        slides.join(",\n")
    )
}

/// Whether a missing tool fails the test: under CI (`CI=true`) it does.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A fresh scratch directory under the system's temporary one.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "lectern-pptx-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}
