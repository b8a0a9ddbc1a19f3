use super::*;
use crate::model::{List, ListKind, Run};

const W: u32 = 960;
const H: u32 = 700;

fn items(html: &str) -> Vec<Pending> {
    match read_slide(html, W, H) {
        SlideContent::Items { items, .. } => items,
        other => panic!("expected items, got {other:?}"),
    }
}

fn text(p: &Pending) -> &TextBox {
    match p {
        Pending::Item(Item::Text(t)) => t,
        other => panic!("expected a text box, got {other:?}"),
    }
}

fn shape(p: &Pending) -> &Shape {
    match p {
        Pending::Item(Item::Shape(s)) => s,
        other => panic!("expected a shape, got {other:?}"),
    }
}

fn block(kind: &str, style: &str, content: &str) -> String {
    format!(
        "<div class=\"sl-block\" data-block-type=\"{kind}\" data-block-id=\"b\" style=\"{style}\">\
         <div class=\"sl-block-content\">{content}</div></div>"
    )
}

fn run(text: &str, size: f64) -> Run {
    Run {
        size_px: Some(size),
        ..Run::plain(text)
    }
}

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn the_example_text_block() {
    let html = r##"<section data-background-color="#112233"><div class="sl-block" data-block-type="text" data-block-id="x" style="left: 80px; top: 60px; width: 400px; height: 120px; z-index: 1; transform: rotate(15deg);"><div class="sl-block-content" style="font-size: 32px; color: #ff0000; text-align: center;"><h2>Title <strong>bold</strong></h2><p>Para <em>it</em> <u>u</u> <a href="https://x">link</a></p><ul><li>one</li></ul></div></div></section>"##;
    let SlideContent::Items { background, items } = read_slide(html, W, H) else {
        panic!("block markup maps");
    };
    assert_eq!(background, Some(Rgb(0x11, 0x22, 0x33)));
    assert_eq!(items.len(), 1);
    let t = text(&items[0]);
    assert_eq!(t.rect, Rect::new(80.0, 60.0, 400.0, 120.0));
    assert_eq!(t.rotation, 15.0);
    let red = Some(Rgb(255, 0, 0));
    let plain = |s: &str| Run {
        colour: red,
        ..run(s, 32.0)
    };
    assert_eq!(t.paragraphs.len(), 3);
    let title = &t.paragraphs[0];
    assert_eq!(title.align, Align::Center);
    assert_eq!(
        title.runs,
        vec![Run {
            bold: true,
            colour: red,
            ..run("Title bold", 32.0 * 1.6)
        }]
    );
    let para = &t.paragraphs[1];
    assert_eq!(
        para.runs,
        vec![
            plain("Para "),
            Run {
                italic: true,
                ..plain("it")
            },
            plain(" "),
            Run {
                underline: true,
                ..plain("u")
            },
            plain(" "),
            Run {
                link: Some("https://x".into()),
                ..plain("link")
            },
        ]
    );
    let item = &t.paragraphs[2];
    assert_eq!(
        item.list,
        Some(List {
            kind: ListKind::Bullet,
            level: 0
        })
    );
    assert_eq!(item.runs, vec![plain("one")]);
}

#[test]
fn formatting_is_inherited_and_nested() {
    let html = format!(
        "<section>{}</section>",
        block(
            "text",
            "left:0;top:0;width:500px;height:300px",
            "<div style=\"color: rgb(0, 0, 255); font-size: 20px\"><p>a <span style=\"font-size: 2em\">b <b>c <i>d</i></b></span> \
             <s>s</s><strike>t</strike><del>u</del> <span style=\"font-weight: 700; text-decoration: underline line-through\">w</span></p></div>"
        )
    );
    let items = items(&html);
    let runs = &text(&items[0]).paragraphs[0].runs;
    let blue = Some(Rgb(0, 0, 255));
    let r = |t: &str, size: f64| Run {
        colour: blue,
        ..run(t, size)
    };
    assert_eq!(
        runs,
        &vec![
            r("a ", 20.0),
            r("b ", 40.0),
            Run {
                bold: true,
                ..r("c ", 40.0)
            },
            Run {
                bold: true,
                italic: true,
                ..r("d", 40.0)
            },
            r(" ", 20.0),
            Run {
                strike: true,
                ..r("stu", 20.0)
            },
            r(" ", 20.0),
            Run {
                bold: true,
                underline: true,
                strike: true,
                ..r("w", 20.0)
            },
        ]
    );
}

#[test]
fn default_size_headings_breaks_and_lists() {
    let html = format!(
        "<section>{}</section>",
        block(
            "text",
            "left:0;top:0;width:500px;height:300px",
            "<h1>One</h1><h3>Three</h3><h6>Six</h6><p>line one<br>line   two <br></p><p><br></p>\
             <p class=\"fragment\">shown</p><ol><li>first<ul><li>inner</li></ul></li><li>second</li></ol>"
        )
    );
    let items = items(&html);
    let ps = &text(&items[0]).paragraphs;
    let heading = |t: &str, size: f64| Run {
        bold: true,
        ..run(t, size)
    };
    assert_eq!(ps[0].runs, vec![heading("One", 100.0)]);
    assert_eq!(ps[1].runs, vec![heading("Three", 52.0)]);
    assert_eq!(ps[2].runs, vec![heading("Six", 40.0)]);
    assert_eq!(ps[3].runs, vec![run("line one\nline two", 40.0)]);
    // `<p><br></p>` is a blank line.
    assert_eq!(ps[4].runs, vec![run("", 40.0)]);
    assert_eq!(ps[5].text(), "shown");
    let numbered = |level| {
        Some(List {
            kind: ListKind::Numbered,
            level,
        })
    };
    assert_eq!((ps[6].text(), ps[6].list), ("first".into(), numbered(0)));
    assert_eq!(
        (ps[7].text(), ps[7].list),
        (
            "inner".into(),
            Some(List {
                kind: ListKind::Bullet,
                level: 1
            })
        )
    );
    assert_eq!((ps[8].text(), ps[8].list), ("second".into(), numbered(0)));
    assert_eq!(ps.len(), 9);
    // Block text is centred, as the slides draw it.
    assert!(ps.iter().all(|p| p.align == Align::Center));
}

#[test]
fn alignment_per_paragraph() {
    let html = format!(
        "<section>{}</section>",
        block(
            "text",
            "left:0;top:0;width:500px;height:300px",
            "<p style=\"text-align:right\">r</p><p style=\"text-align: justify\">j</p><p align=\"center\">c</p><p style=\"text-align: left\">l</p>"
        )
    );
    let items = items(&html);
    let aligns: Vec<Align> = text(&items[0]).paragraphs.iter().map(|p| p.align).collect();
    assert_eq!(
        aligns,
        [Align::Right, Align::Justify, Align::Center, Align::Left]
    );
}

#[test]
fn options_give_theme_colours() {
    let html = format!(
        "<section>{}</section>",
        block(
            "text",
            "left:0;top:0;width:500px;height:300px",
            "<h2>H</h2><p>p <a href=\"/x\">a</a></p>"
        )
    );
    let options = ReadOptions {
        font_px: 30.0,
        text_colour: Some(Rgb(1, 1, 1)),
        heading_colour: Some(Rgb(2, 2, 2)),
        link_colour: Some(Rgb(3, 3, 3)),
        background: Some(Rgb(4, 4, 4)),
        ..ReadOptions::default()
    };
    let SlideContent::Items { background, items } = read_slide_with(&html, W, H, &options) else {
        panic!("maps");
    };
    assert_eq!(background, Some(Rgb(4, 4, 4)));
    let ps = &text(&items[0]).paragraphs;
    assert_eq!(ps[0].runs[0].colour, Some(Rgb(2, 2, 2)));
    assert_eq!(ps[0].runs[0].size_px, Some(48.0));
    assert_eq!(ps[1].runs[0].colour, Some(Rgb(1, 1, 1)));
    assert_eq!(ps[1].runs[1].colour, Some(Rgb(3, 3, 3)));
    assert_eq!(ps[1].runs[1].link.as_deref(), Some("/x"));
}

#[test]
fn editor_shapes_painted_with_css() {
    let html = format!(
        "<section>{}{}{}{}</section>",
        "<div class=\"sl-block\" data-block-type=\"shape\" style=\"left: 10px; top: 20px; width: 300px; height: 200px;\">\
         <div class=\"sl-block-content\" data-shape-type=\"rect\" style=\"width: 100%; height: 100%; background-color: #2a76dd;\"></div></div>",
        "<div class=\"sl-block\" data-block-type=\"shape\" style=\"left: 10px; top: 20px; width: 300px; height: 200px;\">\
         <div class=\"sl-block-content\" data-shape-type=\"ellipse\" style=\"width: 100%; height: 100%; background-color: red; border-radius: 50%; border: 4px solid #00ff00\"></div></div>",
        "<div class=\"sl-block\" data-block-type=\"shape\" style=\"left: 10px; top: 20px; width: 300px; height: 200px;\">\
         <div class=\"sl-block-content\" data-shape-type=\"triangle\" style=\"width: 100%; height: 100%; background-color: #000; clip-path: polygon(50% 0%, 100% 100%, 0% 100%);\"></div></div>",
        "<div class=\"sl-block\" data-block-type=\"shape\" style=\"left: 10px; top: 20px; width: 300px; height: 200px;\">\
         <div class=\"sl-block-content\" style=\"width: 100%; height: 100%; background-color: #fff; border-radius: 24px\"></div></div>",
    );
    let items = items(&html);
    let rect = Rect::new(10.0, 20.0, 300.0, 200.0);
    let s: Vec<&Shape> = items.iter().map(shape).collect();
    assert_eq!(s[0].kind, ShapeKind::Rectangle);
    assert_eq!(s[0].fill, Some(Rgb(0x2a, 0x76, 0xdd)));
    assert_eq!(s[0].stroke, None);
    assert_eq!(s[0].rect, rect);
    assert_eq!(s[1].kind, ShapeKind::Ellipse);
    assert_eq!(s[1].fill, Some(Rgb(255, 0, 0)));
    assert_eq!(
        s[1].stroke,
        Some(Stroke {
            colour: Rgb(0, 255, 0),
            width_px: 4.0
        })
    );
    assert_eq!(s[2].kind, ShapeKind::Triangle);
    assert_eq!(s[2].rect, rect);
    assert!(!s[2].flip_v);
    assert_eq!(s[3].kind, ShapeKind::RoundedRectangle { radius_px: 24.0 });
    assert!(s.iter().all(|s| s.rect == rect && s.rotation == 0.0));
}

#[test]
fn shape_attributes_win() {
    let html = "<section><div class=\"sl-block\" data-block-type=\"shape\" data-shape-type=\"circle\" \
        data-shape-fill=\"#123456\" data-shape-stroke=\"blue\" data-shape-stroke-width=\"3\" \
        style=\"left:0;top:0;width:100px;height:100px\"><div class=\"sl-block-content\" style=\"background-color:#fff\"></div></div></section>";
    let items = items(html);
    let s = shape(&items[0]);
    assert_eq!(s.kind, ShapeKind::Ellipse);
    assert_eq!(s.fill, Some(Rgb(0x12, 0x34, 0x56)));
    assert_eq!(
        s.stroke,
        Some(Stroke {
            colour: Rgb(0, 0, 255),
            width_px: 3.0
        })
    );
}

#[test]
fn svg_shapes() {
    let svg = |body: &str| {
        block(
            "shape",
            "left: 100px; top: 50px; width: 200px; height: 100px",
            &format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" height=\"100%\" preserveAspectRatio=\"none\" viewBox=\"0 0 400 200\">{body}</svg>"
            ),
        )
    };
    let html = format!(
        "<section>{}{}{}{}{}{}</section>",
        svg(
            "<rect width=\"400\" height=\"200\" rx=\"20\" fill=\"#abcdef\" stroke=\"#000\" stroke-width=\"4\"></rect>"
        ),
        svg(
            "<rect x=\"0\" y=\"0\" width=\"400\" height=\"200\" class=\"shape-element\" fill=\"rgb(1,2,3)\"></rect>"
        ),
        svg("<ellipse cx=\"200\" cy=\"100\" rx=\"200\" ry=\"100\" style=\"fill: red\"></ellipse>"),
        svg("<circle cx=\"100\" cy=\"100\" r=\"100\" fill=\"none\" stroke=\"lime\"></circle>"),
        svg("<polygon points=\"200,0 400,200 0,200\" fill=\"#00f\"></polygon>"),
        svg("<polygon points=\"0,0 400,0 200,200\"></polygon>"),
    );
    let items = items(&html);
    let s: Vec<&Shape> = items.iter().map(shape).collect();
    let whole = Rect::new(100.0, 50.0, 200.0, 100.0);
    assert_eq!(s[0].kind, ShapeKind::RoundedRectangle { radius_px: 10.0 });
    assert_eq!(s[0].rect, whole);
    assert_eq!(s[0].fill, Some(Rgb(0xab, 0xcd, 0xef)));
    assert_eq!(
        s[0].stroke,
        Some(Stroke {
            colour: Rgb(0, 0, 0),
            width_px: 2.0
        })
    );
    assert_eq!(s[1].kind, ShapeKind::Rectangle);
    assert_eq!(s[1].fill, Some(Rgb(1, 2, 3)));
    assert_eq!(s[2].kind, ShapeKind::Ellipse);
    assert_eq!(s[2].rect, whole);
    assert_eq!(s[2].fill, Some(Rgb(255, 0, 0)));
    assert_eq!(s[3].kind, ShapeKind::Ellipse);
    assert_eq!(s[3].rect, Rect::new(100.0, 50.0, 100.0, 100.0));
    assert_eq!(s[3].fill, None);
    assert_eq!(s[3].stroke.map(|s| s.colour), Some(Rgb(0, 255, 0)));
    assert_eq!(s[4].kind, ShapeKind::Triangle);
    assert_eq!(s[4].rect, whole);
    assert!(!s[4].flip_v);
    assert_eq!(s[5].kind, ShapeKind::Triangle);
    assert!(s[5].flip_v);
    assert_eq!(s[5].fill, Some(Rgb(0, 0, 0)), "SVG's default fill is black");
}

#[test]
fn svg_without_a_stretch_keeps_its_aspect() {
    // No preserveAspectRatio: xMidYMid meet, so a 100×100 drawing in a 200×100 block is
    // 100 px wide and centred.
    let html = format!(
        "<section>{}</section>",
        block(
            "shape",
            "left: 0px; top: 0px; width: 200px; height: 100px",
            "<svg viewBox=\"0 0 100 100\"><rect width=\"100\" height=\"100\" fill=\"#f00\"></rect></svg>"
        )
    );
    let items = items(&html);
    assert_eq!(shape(&items[0]).rect, Rect::new(50.0, 0.0, 100.0, 100.0));
}

#[test]
fn a_rotated_block_turns_an_off_centre_shape_about_its_centre() {
    let html = format!(
        "<section>{}</section>",
        block(
            "shape",
            "left: 0px; top: 0px; width: 200px; height: 200px; transform: rotate(90deg)",
            "<svg viewBox=\"0 0 200 200\" preserveAspectRatio=\"none\"><rect x=\"150\" y=\"90\" width=\"20\" height=\"20\" fill=\"#f00\"></rect></svg>"
        )
    );
    let items = items(&html);
    let s = shape(&items[0]);
    // The square's centre (160, 100) turns 90° clockwise about (100, 100) to (100, 160).
    assert!(
        approx(s.rect.x, 90.0) && approx(s.rect.y, 150.0),
        "{:?}",
        s.rect
    );
    assert_eq!((s.rect.w, s.rect.h), (20.0, 20.0));
    assert_eq!(s.rotation, 90.0);
}

#[test]
fn editor_lines_and_arrows() {
    let line = |arrow: bool| {
        let head = if arrow {
            "<polygon points=\"300,20 282,10 282,30\" fill=\"#ff0000\"></polygon>"
        } else {
            ""
        };
        let end = if arrow { 284 } else { 300 };
        block(
            "line",
            "left: 330px; top: 330px; width: 300px; height: 40px;",
            &format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" height=\"100%\" viewBox=\"0 0 300 40\" preserveAspectRatio=\"none\"><line x1=\"0\" y1=\"20\" x2=\"{end}\" y2=\"20\" stroke=\"#ff0000\" stroke-width=\"4\"></line>{head}</svg>"
            ),
        )
    };
    let html = format!("<section>{}{}</section>", line(false), line(true));
    let items = items(&html);
    for (i, arrow) in [(0, false), (1, true)] {
        let s = shape(&items[i]);
        assert_eq!(
            s.kind,
            ShapeKind::Line {
                arrow_start: false,
                arrow_end: arrow
            }
        );
        assert_eq!(s.rect, Rect::new(330.0, 350.0, 300.0, 0.0));
        assert_eq!(
            s.stroke,
            Some(Stroke {
                colour: Rgb(255, 0, 0),
                width_px: 4.0
            })
        );
        assert!(!s.flip_h && !s.flip_v);
    }
}

#[test]
fn slides_com_lines_and_backward_lines() {
    let html = "<section><div class=\"sl-block\" data-block-type=\"line\" data-line-x1=\"400\" data-line-y1=\"100\" \
        data-line-x2=\"100\" data-line-y2=\"300\" data-line-color=\"#00ff00\" data-line-width=\"6\" \
        data-line-start-type=\"arrow\" data-line-end-type=\"none\" style=\"width:auto;height:auto\">\
        <div class=\"sl-block-content\"></div></div></section>";
    let items = items(html);
    let s = shape(&items[0]);
    assert_eq!(s.rect, Rect::new(100.0, 100.0, 300.0, 200.0));
    assert!(s.flip_h && !s.flip_v);
    assert_eq!(
        s.kind,
        ShapeKind::Line {
            arrow_start: true,
            arrow_end: false
        }
    );
    assert_eq!(
        s.stroke,
        Some(Stroke {
            colour: Rgb(0, 255, 0),
            width_px: 6.0
        })
    );
}

#[test]
fn images_and_snapshots_keep_block_indexes() {
    // A group: the outer block is a snapshot, the inner one is not read on its own.
    let group = format!(
        "<div class=\"sl-block\" data-block-type=\"group\" style=\"left:10px;top:10px;width:50px;height:50px\">{}</div>",
        block("text", "left:0;top:0;width:5px;height:5px", "<p>inner</p>")
    );
    let html = [
        block(
            "image",
            "left: 900px; top: 60px; width: 300px; height: 200px; transform: rotate(-10deg)",
            "<img src=\"https://images.example.org/logo.png\" alt=\"Logo\">",
        ),
        block(
            "math",
            "left: 1px; top: 2px; width: 3px; height: 4px",
            "<span class=\"math\">x^2</span>",
        ),
        block(
            "iframe",
            "left: 5px; top: 6px; width: 7px; height: 8px",
            "<iframe src=\"https://x\"></iframe>",
        ),
        group,
        block(
            "text",
            "left: 9px; top: 9px; width: 9px; height: 9px",
            "<p>with a picture <img src=\"x.png\"></p>",
        ),
        block(
            "html",
            "left: 0; top: 0; width: 1px; height: 1px",
            "<b>raw</b>",
        ),
    ]
    .concat();
    let html = format!("<section>{html}</section>");
    let items = items(&html);
    assert_eq!(
        items[0],
        Pending::Image {
            rect: Rect::new(900.0, 60.0, 300.0, 200.0),
            rotation: -10.0,
            src: "https://images.example.org/logo.png".into(),
            description: "Logo".into(),
        }
    );
    let snapshots: Vec<(usize, Rect)> = items[1..]
        .iter()
        .map(|p| match p {
            Pending::Snapshot {
                block_index, rect, ..
            } => (*block_index, *rect),
            other => panic!("expected a snapshot, got {other:?}"),
        })
        .collect();
    assert_eq!(
        snapshots,
        vec![
            (1, Rect::new(1.0, 2.0, 3.0, 4.0)),
            (2, Rect::new(5.0, 6.0, 7.0, 8.0)),
            (3, Rect::new(10.0, 10.0, 50.0, 50.0)),
            (5, Rect::new(9.0, 9.0, 9.0, 9.0)),
            (6, Rect::new(0.0, 0.0, 1.0, 1.0)),
        ]
    );
}

#[test]
fn z_index_orders_items() {
    let html = format!(
        "<section>{}{}{}</section>",
        block(
            "text",
            "left:0;top:0;width:1px;height:1px;z-index:3",
            "<p>top</p>"
        ),
        block("text", "left:0;top:0;width:1px;height:1px", "<p>auto</p>"),
        block(
            "text",
            "left:0;top:0;width:1px;height:1px;z-index:-1",
            "<p>below</p>"
        ),
    );
    let order: Vec<String> = items(&html)
        .iter()
        .map(|p| text(p).paragraphs[0].text())
        .collect();
    assert_eq!(order, ["below", "auto", "top"]);
}

#[test]
fn a_text_block_with_a_background_gets_a_rectangle_behind() {
    let html = "<section><div class=\"sl-block\" data-block-type=\"text\" style=\"left:1px;top:2px;width:3px;height:4px\">\
        <div class=\"sl-block-content\" style=\"background-color:#eee\"><p>x</p></div></div></section>";
    let items = items(html);
    assert_eq!(shape(&items[0]).fill, Some(Rgb(0xee, 0xee, 0xee)));
    assert_eq!(text(&items[1]).paragraphs[0].text(), "x");
}

#[test]
fn content_beside_blocks_makes_a_snapshot() {
    let html = format!(
        "<section>{}<h2>Loose heading</h2></section>",
        block("text", "left:0;top:0;width:1px;height:1px", "<p>x</p>")
    );
    assert_eq!(
        read_slide(&html, W, H),
        SlideContent::Snapshot { background: None }
    );
    // Notes and empty wrappers are fine.
    let html = format!(
        "<section> {} <aside class=\"notes\">say this</aside><div></div></section>",
        block("text", "left:0;top:0;width:1px;height:1px", "<p>x</p>")
    );
    assert_eq!(items(&html).len(), 1);
}

#[test]
fn free_html_stacks_text_boxes() {
    let html = "<section data-background-color=\"rgb(10, 20, 30)\"><h2>Title <em>here</em></h2>\
        <p>Some text</p><ul><li>a</li><li>b</li></ul><aside class=\"notes\">not shown</aside></section>";
    let SlideContent::Items { background, items } = read_slide(html, W, H) else {
        panic!("free HTML maps");
    };
    assert_eq!(background, Some(Rgb(10, 20, 30)));
    assert_eq!(items.len(), 3);
    let boxes: Vec<&TextBox> = items.iter().map(text).collect();
    assert_eq!(boxes[0].paragraphs[0].text(), "Title here");
    assert_eq!(boxes[0].paragraphs[0].runs[0].size_px, Some(48.0));
    assert!(boxes[0].paragraphs[0].runs.iter().all(|r| r.bold));
    assert!(boxes[0].paragraphs[0].runs[1].italic);
    assert_eq!(boxes[0].paragraphs[0].align, Align::Center);
    assert_eq!(boxes[1].paragraphs[0].runs, vec![run("Some text", 28.0)]);
    assert_eq!(boxes[1].paragraphs[0].align, Align::Center);
    assert_eq!(boxes[2].paragraphs.len(), 2);
    assert_eq!(boxes[2].paragraphs[1].text(), "b");
    assert_eq!(boxes[2].paragraphs[0].align, Align::Left);
    assert!(boxes[2].paragraphs.iter().all(|p| p.list.is_some()));
    // Stacked top to bottom without overlap, inside the canvas, same margins.
    for pair in boxes.windows(2) {
        assert!(pair[0].rect.y + pair[0].rect.h <= pair[1].rect.y);
    }
    for b in &boxes {
        assert!(b.rect.x > 0.0 && b.rect.x + b.rect.w < f64::from(W));
        assert!(b.rect.y > 0.0 && b.rect.y + b.rect.h < f64::from(H));
        assert_eq!(b.rect.x, boxes[0].rect.x);
    }
    // Centred vertically.
    let top = boxes[0].rect.y;
    let bottom = f64::from(H) - (boxes[2].rect.y + boxes[2].rect.h);
    assert!((top - bottom).abs() < 1.0, "{top} vs {bottom}");
}

#[test]
fn free_html_looks_through_wrappers_and_shrinks_to_fit() {
    let long: String = (0..60)
        .map(|i| format!("<p>paragraph number {i}</p>"))
        .collect();
    let html = format!("<section><div class=\"wrap\"><h1>T</h1>{long}</div></section>");
    let items = items(&html);
    assert_eq!(items.len(), 61);
    let last = text(&items[60]);
    assert!(last.paragraphs[0].runs[0].size_px < Some(28.0));
    assert!(last.paragraphs[0].runs[0].size_px >= Some(14.0));
}

#[test]
fn free_html_with_anything_else_is_a_snapshot() {
    for inner in [
        "<img src=\"a.png\">",
        "<p>x <img src=\"a.png\"></p>",
        "<svg></svg>",
        "<table><tr><td colspan=\"2\">1</td></tr></table>",
        "<table><tr><td><table><tr><td>1</td></tr></table></td></tr></table>",
        "<table><tr><td><img src=\"a.png\"></td></tr></table>",
        "<iframe src=\"x\"></iframe>",
        "<video src=\"x\"></video>",
        "<canvas></canvas>",
        "<section><p>nested</p></section>",
        "<p style=\"position: absolute; left: 10px\">placed</p>",
        "<div style=\"transform: rotate(3deg)\">turned</div>",
    ] {
        let html = format!("<section data-background-color=\"#fff\"><h2>T</h2>{inner}</section>");
        assert_eq!(
            read_slide(&html, W, H),
            SlideContent::Snapshot {
                background: Some(Rgb(255, 255, 255))
            },
            "{inner}"
        );
    }
    let html = "<section data-background-image=\"bg.png\"><h2>T</h2></section>";
    assert_eq!(
        read_slide(html, W, H),
        SlideContent::Snapshot { background: None }
    );
}

#[test]
fn free_html_without_a_section_and_empty_slides() {
    let items = items("<h1>Just <strong>this</strong></h1>");
    assert_eq!(text(&items[0]).paragraphs[0].text(), "Just this");
    assert!(items_of("<section></section>").is_empty());
    assert!(items_of("<section>  <aside class=\"notes\">n</aside> </section>").is_empty());
}

fn items_of(html: &str) -> Vec<Pending> {
    items(html)
}

#[test]
fn transparent_background_is_none() {
    let SlideContent::Items { background, .. } = read_slide(
        "<section data-background-color=\"transparent\"><p>x</p></section>",
        W,
        H,
    ) else {
        panic!("maps");
    };
    assert_eq!(background, None);
}

#[test]
fn percentages_are_of_the_canvas() {
    let html = format!(
        "<section>{}</section>",
        block(
            "text",
            "left: 10%; top: 50%; width: 50%; height: 10%",
            "<p>x</p>"
        )
    );
    let items = items(&html);
    assert_eq!(text(&items[0]).rect, Rect::new(96.0, 350.0, 480.0, 70.0));
}

#[test]
fn sideways_triangles_turn() {
    let html = format!(
        "<section>{}</section>",
        block(
            "shape",
            "left: 0px; top: 0px; width: 200px; height: 100px",
            "<svg viewBox=\"0 0 200 100\" preserveAspectRatio=\"none\"><polygon points=\"0,0 200,50 0,100\" fill=\"#0f0\"></polygon></svg>"
        )
    );
    let found = items(&html);
    let s = shape(&found[0]);
    assert_eq!(s.kind, ShapeKind::Triangle);
    assert_eq!(s.rotation, 90.0);
    // The apex-up triangle 100 wide and 200 tall, turned about the same centre.
    assert_eq!(s.rect, Rect::new(50.0, -50.0, 100.0, 200.0));
    let html = "<section><div class=\"sl-block\" data-block-type=\"shape\" style=\"left:0;top:0;width:200px;height:100px\">\
        <div class=\"sl-block-content\" style=\"background:#000;clip-path: polygon(100% 0%, 100% 100%, 0% 50%)\"></div></div></section>";
    let found = items(html);
    let s = shape(&found[0]);
    assert_eq!((s.kind, s.rotation), (ShapeKind::Triangle, 270.0));
}

#[test]
fn drawings_that_cannot_be_mapped_are_snapshots() {
    for svg in [
        "<g transform=\"translate(5 5)\"><rect width=\"10\" height=\"10\"></rect></g>",
        "<path d=\"M0 0 L10 10\"></path>",
        "<rect width=\"10\" height=\"10\" fill=\"url(#gradient)\"></rect>",
        "<polygon points=\"0,0 10,3 4,10 0,8 1,1\"></polygon>",
    ] {
        let html = format!(
            "<section>{}</section>",
            block(
                "shape",
                "left:0;top:0;width:10px;height:10px",
                &format!("<svg viewBox=\"0 0 10 10\">{svg}</svg>")
            )
        );
        assert!(
            matches!(items(&html)[0], Pending::Snapshot { block_index: 0, .. }),
            "{svg}"
        );
    }
    let gradient = "<section><div class=\"sl-block\" data-block-type=\"shape\" style=\"left:0;top:0;width:10px;height:10px\">\
        <div class=\"sl-block-content\" style=\"background: linear-gradient(red, blue)\"></div></div></section>";
    assert!(matches!(items(gradient)[0], Pending::Snapshot { .. }));
}

#[test]
fn hidden_content_does_not_stop_free_html() {
    let html = "<section><h2>T</h2><aside class=\"notes\"><img src=\"x.png\"></aside><script>var x;</script></section>";
    assert_eq!(items(html).len(), 1);
}

#[test]
fn free_html_code_and_faces_stay_text() {
    let html = "<section><h2>Title <em>here</em></h2><p>Call <code>f()</code> <strong>now</strong></p>\
                <pre><code>fn main() {\n    go();\n}</code></pre></section>";
    let options = ReadOptions {
        font: Some("Montserrat".into()),
        heading_font: Some("League Gothic".into()),
        code_font: Some("JetBrains Mono".into()),
        ..ReadOptions::default()
    };
    let SlideContent::Items { items, .. } = read_slide_with(html, W, H, &options) else {
        panic!("free HTML with code is text, not a picture");
    };
    let runs: Vec<(String, Option<String>, bool, bool)> = items
        .iter()
        .flat_map(|i| text(i).paragraphs.iter().flat_map(|p| p.runs.clone()))
        .map(|r| (r.text, r.font, r.bold, r.italic))
        .collect();
    let face = |s: &str| Some(s.to_string());
    assert_eq!(
        runs[0],
        ("Title ".into(), face("League Gothic"), true, false)
    );
    assert_eq!(runs[1], ("here".into(), face("League Gothic"), true, true));
    assert!(runs.contains(&("f()".into(), face("JetBrains Mono"), false, false)));
    assert!(runs.contains(&("now".into(), face("Montserrat"), true, false)));
    let code = text(items.last().unwrap());
    assert_eq!(code.paragraphs[0].align, Align::Left);
    assert_eq!(
        code.paragraphs[0].text(),
        "fn main() {\n    go();\n}",
        "whitespace kept"
    );
    assert!(
        code.paragraphs[0]
            .runs
            .iter()
            .all(|r| r.font == face("JetBrains Mono"))
    );
}

#[test]
fn a_code_block_is_monospace_text_on_a_dark_rectangle() {
    let html = format!(
        "<section>{}</section>",
        block(
            "code",
            "left: 10px; top: 20px; width: 400px; height: 200px",
            "<pre><code class=\"language-rust\">fn main() {\n    go();\n}</code></pre>",
        )
    );
    let options = ReadOptions {
        code_font: Some("JetBrains Mono".into()),
        ..ReadOptions::default()
    };
    let SlideContent::Items { items, .. } = read_slide_with(&html, W, H, &options) else {
        panic!("a code block maps");
    };
    let Pending::Item(Item::Shape(back)) = &items[0] else {
        panic!("no background: {items:?}");
    };
    assert_eq!(back.fill, Some(Rgb(0x27, 0x28, 0x22)));
    let code = text(&items[1]);
    assert_eq!(code.rect, Rect::new(10.0, 20.0, 400.0, 200.0));
    assert_eq!(code.paragraphs[0].text(), "fn main() {\n    go();\n}");
    assert!(
        code.paragraphs[0]
            .runs
            .iter()
            .all(|r| { r.font.as_deref() == Some("JetBrains Mono") && r.size_px == Some(22.0) })
    );
}

#[test]
fn a_simple_table_on_a_free_slide_is_a_table() {
    let html = "<section><h2>Figures</h2><table><thead><tr><th>Year</th><th align=\"right\">Sales</th></tr></thead>\
                <tbody><tr><td>2025</td><td align=\"right\"><em>7</em></td></tr><tr><td>2026</td></tr></tbody></table></section>";
    let options = ReadOptions {
        text_colour: Some(Rgb(0x22, 0x22, 0x22)),
        ..ReadOptions::default()
    };
    let SlideContent::Items { items, .. } = read_slide_with(html, W, H, &options) else {
        panic!("a simple table maps");
    };
    let [
        Pending::Item(Item::Text(title)),
        Pending::Item(Item::Table(table)),
    ] = &items[..]
    else {
        panic!("a title and a table: {items:?}");
    };
    assert_eq!(title.paragraphs[0].text(), "Figures");
    assert!(
        table.rect.y >= title.rect.y + title.rect.h,
        "below the title"
    );
    assert!(
        (table.rect.x * 2.0 + table.rect.w - f64::from(W)).abs() < 0.01,
        "centred"
    );
    assert_eq!(table.columns.len(), 2);
    assert!((table.columns.iter().sum::<f64>() - table.rect.w).abs() < 0.01);
    assert_eq!(table.rule, Some(Rgb(0x22, 0x22, 0x22)));
    let texts: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|r| {
            r.cells
                .iter()
                .map(|c| c.iter().map(|p| p.text()).collect())
                .collect()
        })
        .collect();
    assert_eq!(texts, [["Year", "Sales"], ["2025", "7"], ["2026", ""]]);
    let header = &table.rows[0].cells;
    assert!(header[0][0].runs[0].bold && header[1][0].align == Align::Right);
    let seven = &table.rows[1].cells[1][0];
    assert!(seven.runs[0].italic && !seven.runs[0].bold && seven.align == Align::Right);
    assert!((table.rows.iter().map(|r| r.height).sum::<f64>() - table.rect.h).abs() < 0.01);
}
