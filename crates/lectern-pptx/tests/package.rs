//! The package the writer makes: every XML part well-formed, `[Content_Types].xml`
//! naming every part, every internal relationship pointing at a part, slide and notes
//! sizes and counts, media written once, escaping and determinism.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::io::{Cursor, Read};

use lectern_pptx::{Align, Error, Item, Paragraph, Presentation, Rect, Run, Slide, TextBox, write};

/// The parts of a written file by name.
fn unzip(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("the output is a zip");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).expect("every entry reads");
            let mut data = Vec::new();
            file.read_to_end(&mut data).expect("every entry inflates");
            let name = file.name().expect("entry names are UTF-8").into_owned();
            (name, data)
        })
        .collect()
}

fn xml(parts: &BTreeMap<String, Vec<u8>>, name: &str) -> String {
    String::from_utf8(parts[name].clone()).expect("XML parts are UTF-8")
}

/// `target` relative to the folder of the part whose relationships name it.
fn resolve(rels_part: &str, target: &str) -> String {
    // `ppt/slides/_rels/slide1.xml.rels` describes `ppt/slides/slide1.xml`.
    let source_dir = rels_part
        .rsplit_once("_rels/")
        .map_or("", |(dir, _)| dir)
        .to_owned();
    let mut segments: Vec<&str> = source_dir.split('/').filter(|s| !s.is_empty()).collect();
    for segment in target.split('/') {
        match segment {
            ".." => {
                segments.pop();
            }
            "." | "" => {}
            s => segments.push(s),
        }
    }
    segments.join("/")
}

#[test]
fn every_part_is_well_formed_named_and_reachable() {
    let bytes = write(&common::sample()).expect("the sample writes");
    let parts = unzip(&bytes);

    for (name, data) in &parts {
        if name.ends_with(".xml") || name.ends_with(".rels") {
            let text = std::str::from_utf8(data).expect("XML parts are UTF-8");
            roxmltree::Document::parse(text)
                .unwrap_or_else(|e| panic!("{name} is not well-formed: {e}"));
        }
    }

    let types_xml = xml(&parts, "[Content_Types].xml");
    let types = roxmltree::Document::parse(&types_xml).expect("content types parse");
    let mut defaults = HashSet::new();
    let mut overrides = HashSet::new();
    for node in types.root_element().children().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "Default" => {
                defaults.insert(
                    node.attribute("Extension")
                        .expect("a default has an extension"),
                );
            }
            "Override" => {
                let part = node
                    .attribute("PartName")
                    .expect("an override names a part");
                assert!(
                    parts.contains_key(&part[1..]),
                    "{part} is named but not in the package"
                );
                overrides.insert(&part[1..]);
            }
            other => panic!("unexpected {other} in [Content_Types].xml"),
        }
    }
    for name in parts.keys().filter(|n| *n != "[Content_Types].xml") {
        let extension = name
            .rsplit('.')
            .next()
            .expect("every part has an extension");
        if extension == "xml" {
            assert!(overrides.contains(name.as_str()), "{name} has no override");
        } else {
            assert!(defaults.contains(extension), "{name} has no content type");
        }
    }

    let mut targets = 0;
    for (name, data) in parts.iter().filter(|(n, _)| n.ends_with(".rels")) {
        let text = std::str::from_utf8(data).expect("XML parts are UTF-8");
        let doc = roxmltree::Document::parse(text).expect("relationships parse");
        let mut ids = HashSet::new();
        for rel in doc.root_element().children().filter(|n| n.is_element()) {
            assert!(
                ids.insert(rel.attribute("Id").expect("an id")),
                "{name}: duplicate id"
            );
            if rel.attribute("TargetMode") == Some("External") {
                continue;
            }
            let target = resolve(name, rel.attribute("Target").expect("a target"));
            assert!(
                parts.contains_key(&target),
                "{name} points at missing {target}"
            );
            targets += 1;
        }
    }
    assert!(targets > 20);
}

#[test]
fn sizes_counts_notes_and_media() {
    let sample = common::sample();
    let parts = unzip(&write(&sample).expect("the sample writes"));
    let presentation = xml(&parts, "ppt/presentation.xml");
    assert!(presentation.contains("<p:sldSz cx=\"9144000\" cy=\"6667500\"/>"));
    assert!(presentation.contains("<p:notesSz cx=\"6858000\" cy=\"9144000\"/>"));
    assert_eq!(presentation.matches("<p:sldId ").count(), 4);
    for n in 1..=4 {
        assert!(parts.contains_key(&format!("ppt/slides/slide{n}.xml")));
    }
    // Notes pages for slides 1, 3 and 4 only.
    let notes: Vec<&String> = parts
        .keys()
        .filter(|n| n.starts_with("ppt/notesSlides/notesSlide"))
        .collect();
    assert_eq!(
        notes,
        [
            "ppt/notesSlides/notesSlide1.xml",
            "ppt/notesSlides/notesSlide3.xml",
            "ppt/notesSlides/notesSlide4.xml"
        ]
    );
    // The PNG is used twice and stored once.
    let media: Vec<&String> = parts
        .keys()
        .filter(|n| n.starts_with("ppt/media/"))
        .collect();
    assert_eq!(media, ["ppt/media/image1.png", "ppt/media/image2.jpeg"]);
    assert_eq!(parts["ppt/media/image1.png"], common::PNG);
    assert!(
        xml(&parts, "ppt/slides/slide1.xml")
            .contains("<p:bg><p:bgPr><a:solidFill><a:srgbClr val=\"112233\"/>")
    );
    assert!(
        xml(&parts, "docProps/core.xml")
            .contains("<dc:title>Sample &lt;deck&gt; &amp; co</dc:title>")
    );
}

#[test]
fn text_is_escaped_and_formatted() {
    let parts = unzip(&write(&common::sample()).expect("the sample writes"));
    let slide = xml(&parts, "ppt/slides/slide2.xml");
    assert!(slide.contains("<a:t>Escapes &lt;&amp;&gt;&quot;&apos; andcontrols dropped</a:t>"));
    assert!(!slide.contains('\u{1}') && !slide.contains('\u{FFFF}'));
    assert!(slide.contains("<a:br>"));
    assert!(slide.contains(" b=\"1\"") && slide.contains(" i=\"1\""));
    assert!(slide.contains(" u=\"sng\"") && slide.contains(" strike=\"sngStrike\""));
    assert!(slide.contains("sz=\"3000\""));
    assert!(slide.contains("<a:buAutoNum type=\"arabicPeriod\"/>"));
    assert!(slide.contains("<a:hlinkClick r:id=\"rId"));
    assert!(slide.contains("txBox=\"1\"") && slide.contains("wrap=\"square\""));
    let rels = xml(&parts, "ppt/slides/_rels/slide2.xml.rels");
    assert!(
        rels.contains(
            "Target=\"https://lectern.example/deck?a=1&amp;b=2\" TargetMode=\"External\""
        )
    );
}

#[test]
fn output_is_deterministic() {
    let sample = common::sample();
    assert_eq!(write(&sample).unwrap(), write(&sample).unwrap());
}

#[test]
fn canvas_size_is_checked() {
    let tiny = Presentation {
        width_px: 50,
        height_px: 700,
        title: String::new(),
        slides: Vec::new(),
    };
    assert!(matches!(
        write(&tiny),
        Err(Error::CanvasSize {
            width_px: 50,
            height_px: 700
        })
    ));
    let empty = Presentation {
        width_px: 1280,
        ..tiny
    };
    let parts = unzip(&write(&empty).expect("an empty deck writes"));
    assert!(!xml(&parts, "ppt/presentation.xml").contains("sldIdLst"));
}

#[test]
fn fifty_slides_of_five_text_boxes_each_make_a_slide_and_its_notes() {
    let slide = |n: usize| Slide {
        background: None,
        items: (0..5)
            .map(|i| {
                Item::Text(TextBox {
                    rect: Rect::new(40.0, 40.0 + 120.0 * i as f64, 880.0, 100.0),
                    rotation: 0.0,
                    paragraphs: vec![Paragraph {
                        align: Align::Left,
                        list: None,
                        runs: vec![
                            Run {
                                bold: true,
                                size_px: Some(32.0),
                                ..Run::plain(format!("Slide {n}, box {i}: "))
                            },
                            Run::plain("some ordinary text that a slide would have on it"),
                        ],
                    }],
                })
            })
            .collect(),
        notes: Some(format!("Notes for slide {n}")),
    };
    let deck = Presentation {
        width_px: 960,
        height_px: 700,
        title: "Fifty".into(),
        slides: (0..50).map(slide).collect(),
    };
    // Its speed is the benchmark's concern (`lectern-bench export_pptx_50`), not a test's.
    let parts = unzip(&write(&deck).expect("the deck writes"));
    for n in 1..=50 {
        let slide = xml(&parts, &format!("ppt/slides/slide{n}.xml"));
        assert_eq!(slide.matches("<p:sp>").count(), 5, "slide {n}: {slide}");
        assert!(
            slide.contains(&format!("Slide {}, box 4: ", n - 1)),
            "slide {n}"
        );
        let notes = xml(&parts, &format!("ppt/notesSlides/notesSlide{n}.xml"));
        assert!(
            notes.contains(&format!("Notes for slide {}", n - 1)),
            "notes {n}"
        );
    }
}

#[test]
fn odd_markup_still_makes_a_valid_package() {
    let odd = [
        "",
        "<section",
        "<section><div class=\"sl-block\" data-block-type=\"text\" style=\"left: 1e308px; top: -1e308px; width: NaNpx; height: -5px; transform: rotate(1e309deg)\"><div class=\"sl-block-content\" style=\"font-size: 1e300px; color: rgb(999,-1,abc)\"><p>big\u{0}\u{1b}</p></div></div></section>",
        "<section><div class=\"sl-block\" data-block-type=\"shape\" style=\"left:0;top:0;width:0;height:0\"><div class=\"sl-block-content\" style=\"background:#123;border-radius:1e400px;border:1e300px solid red\"></div></div></section>",
        "<section><div class=\"sl-block\" data-block-type=\"line\" data-line-x1=\"inf\" data-line-y1=\"0\" data-line-x2=\"1e308\" data-line-y2=\"-1e308\"><div class=\"sl-block-content\"></div></div></section>",
        "<section><div class=\"sl-block\" data-block-type=\"text\" style=\"left:0;top:0;width:9px;height:9px\"><div class=\"sl-block-content\"><ul><ul><ul><ul><ul><ul><ul><ul><ul><ul><li>deep</li></ul></ul></ul></ul></ul></ul></ul></ul></ul></ul><a href=\" javascript&#58;x \">&lt;&amp;&gt;</a></div></div></section>",
        "<section><h1>\u{FFFE}\u{1F600} ]]> <![CDATA[ x ]]></h1><p>&#0; &#xD800; &#x10FFFF;</p></section>",
    ];
    let slides: Vec<Slide> = odd
        .iter()
        .map(|html| {
            let items = match lectern_pptx::read_slide(html, 960, 700) {
                lectern_pptx::SlideContent::Items { items, .. } => items
                    .into_iter()
                    .filter_map(|p| match p {
                        lectern_pptx::Pending::Item(item) => Some(item),
                        _ => None,
                    })
                    .collect(),
                lectern_pptx::SlideContent::Snapshot { .. } => Vec::new(),
            };
            Slide {
                background: None,
                items,
                notes: Some(format!("notes for {html}\u{0}")),
            }
        })
        .collect();
    let deck = Presentation {
        width_px: 960,
        height_px: 700,
        title: "\u{1}odd".into(),
        slides,
    };
    let parts = unzip(&write(&deck).expect("odd markup still writes"));
    for (name, data) in &parts {
        if name.ends_with(".xml") || name.ends_with(".rels") {
            let text = std::str::from_utf8(data).expect("XML parts are UTF-8");
            let doc = roxmltree::Document::parse(text)
                .unwrap_or_else(|e| panic!("{name} is not well-formed: {e}\n{text}"));
            // Every number of the slides' shapes is an integer within DrawingML's range.
            if !name.starts_with("ppt/slides/slide") {
                continue;
            }
            for node in doc.descendants().filter(|n| n.is_element()) {
                for attr in ["x", "y", "cx", "cy", "sz", "w", "rot", "marL"] {
                    if let Some(v) = node.attribute(attr) {
                        if node.tag_name().name() == "gd" {
                            continue;
                        }
                        let n: i64 = v.parse().unwrap_or_else(|_| panic!("{name}: {attr}={v}"));
                        assert!(n.abs() <= 27_273_042_329_600, "{name}: {attr}={v}");
                    }
                }
            }
        }
    }
}
