//! The .pptx writer: lays out the package (which parts, their names, relationships and
//! content types), writes each slide's shape tree and notes page, and zips it all.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{Cursor, Write as _};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::model::{
    Align, Image, Item, ListKind, Paragraph, Picture, Presentation, Rect, Rgb, Run, Shape,
    ShapeKind, Slide, Table, TextBox, px_to_emu, px_to_font_size,
};
use crate::parts::{self, DECL, NS, TREE_START, ct, rel};
use crate::xml::{push_escaped, uri_target};

mod slide;

use slide::*;

/// Why a presentation could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// PowerPoint's slide size is 1 to 56 inches a side (96 to 5,376 px).
    #[error(
        "a slide of {width_px}×{height_px} px is outside what PowerPoint allows (96 to 5376 px a side)"
    )]
    CanvasSize { width_px: u32, height_px: u32 },
    #[error("zip: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// The smallest and largest slide side PowerPoint accepts, in EMU.
const MIN_SIDE_EMU: i64 = 914_400;
const MAX_SIDE_EMU: i64 = 51_206_400;

/// Writes `p` as a .pptx file. The same presentation always gives the same bytes (fixed
/// dates, parts in a fixed order).
pub fn write(p: &Presentation) -> Result<Vec<u8>, Error> {
    let (width, height) = (
        px_to_emu(f64::from(p.width_px)),
        px_to_emu(f64::from(p.height_px)),
    );
    if !(MIN_SIDE_EMU..=MAX_SIDE_EMU).contains(&width)
        || !(MIN_SIDE_EMU..=MAX_SIDE_EMU).contains(&height)
    {
        return Err(Error::CanvasSize {
            width_px: p.width_px,
            height_px: p.height_px,
        });
    }

    // Every distinct image once, numbered in order of first use.
    let mut media: Vec<&Image> = Vec::new();
    let mut media_index: HashMap<&[u8], usize> = HashMap::new();
    for slide in &p.slides {
        for item in &slide.items {
            if let Item::Picture(picture) = item {
                media_index
                    .entry(picture.image.bytes.as_slice())
                    .or_insert_with(|| {
                        media.push(&picture.image);
                        media.len()
                    });
            }
        }
    }
    let has_notes: Vec<bool> = p.slides.iter().map(|s| notes_text(s).is_some()).collect();
    let notes_count = has_notes.iter().filter(|&&n| n).count();

    let mut zip = Zip::new();

    // [Content_Types].xml first, as Office writes it.
    let mut extensions: Vec<(&str, &str)> = Vec::new();
    for image in &media {
        let entry = (image.format.extension(), image.format.content_type());
        if !extensions.contains(&entry) {
            extensions.push(entry);
        }
    }
    let slide_names: Vec<String> = (1..=p.slides.len())
        .map(|n| format!("/ppt/slides/slide{n}.xml"))
        .collect();
    let notes_names: Vec<String> = (1..=p.slides.len())
        .map(|n| format!("/ppt/notesSlides/notesSlide{n}.xml"))
        .collect();
    let mut overrides: Vec<(&str, &str)> = vec![
        ("/ppt/presentation.xml", ct::PRESENTATION),
        ("/ppt/slideMasters/slideMaster1.xml", ct::SLIDE_MASTER),
        ("/ppt/slideLayouts/slideLayout1.xml", ct::SLIDE_LAYOUT),
        ("/ppt/notesMasters/notesMaster1.xml", ct::NOTES_MASTER),
        ("/ppt/theme/theme1.xml", ct::THEME),
        ("/ppt/theme/theme2.xml", ct::THEME),
        ("/ppt/presProps.xml", ct::PRES_PROPS),
        ("/ppt/viewProps.xml", ct::VIEW_PROPS),
        ("/ppt/tableStyles.xml", ct::TABLE_STYLES),
        ("/docProps/core.xml", ct::CORE),
        ("/docProps/app.xml", ct::APP),
    ];
    for (i, name) in slide_names.iter().enumerate() {
        overrides.push((name, ct::SLIDE));
        if has_notes[i] {
            overrides.push((&notes_names[i], ct::NOTES_SLIDE));
        }
    }
    zip.add(
        "[Content_Types].xml",
        parts::content_types(extensions, overrides).as_bytes(),
    )?;

    zip.add(
        "_rels/.rels",
        parts::relationships([
            ("rId1", rel::OFFICE_DOCUMENT, "ppt/presentation.xml", false),
            ("rId2", rel::CORE_PROPERTIES, "docProps/core.xml", false),
            ("rId3", rel::EXTENDED_PROPERTIES, "docProps/app.xml", false),
        ])
        .as_bytes(),
    )?;
    zip.add(
        "docProps/core.xml",
        parts::core_properties(&p.title).as_bytes(),
    )?;
    zip.add(
        "docProps/app.xml",
        parts::app_properties(p.slides.len(), notes_count).as_bytes(),
    )?;

    // The presentation and its relationships: master, notes master, properties, theme,
    // then the slides from rId7 on.
    let first_slide_rid = 7;
    let slide_rids: Vec<String> = (0..p.slides.len())
        .map(|i| format!("rId{}", first_slide_rid + i))
        .collect();
    zip.add(
        "ppt/presentation.xml",
        parts::presentation(width, height, &slide_rids).as_bytes(),
    )?;
    let (master, notes_master, pres_props, view_props, theme, table_styles) = (
        rel::office("slideMaster"),
        rel::office("notesMaster"),
        rel::office("presProps"),
        rel::office("viewProps"),
        rel::office("theme"),
        rel::office("tableStyles"),
    );
    let slide_rel = rel::office("slide");
    let slide_targets: Vec<String> = (1..=p.slides.len())
        .map(|n| format!("slides/slide{n}.xml"))
        .collect();
    let mut entries: Vec<(&str, &str, &str, bool)> = vec![
        ("rId1", &master, "slideMasters/slideMaster1.xml", false),
        (
            "rId2",
            &notes_master,
            "notesMasters/notesMaster1.xml",
            false,
        ),
        ("rId3", &pres_props, "presProps.xml", false),
        ("rId4", &view_props, "viewProps.xml", false),
        ("rId5", &theme, "theme/theme1.xml", false),
        ("rId6", &table_styles, "tableStyles.xml", false),
    ];
    for (rid, target) in slide_rids.iter().zip(&slide_targets) {
        entries.push((rid, &slide_rel, target, false));
    }
    zip.add(
        "ppt/_rels/presentation.xml.rels",
        parts::relationships(entries).as_bytes(),
    )?;

    zip.add(
        "ppt/slideMasters/slideMaster1.xml",
        parts::slide_master().as_bytes(),
    )?;
    let layout_rel = rel::office("slideLayout");
    zip.add(
        "ppt/slideMasters/_rels/slideMaster1.xml.rels",
        parts::relationships([
            (
                "rId1",
                layout_rel.as_str(),
                "../slideLayouts/slideLayout1.xml",
                false,
            ),
            ("rId2", theme.as_str(), "../theme/theme1.xml", false),
        ])
        .as_bytes(),
    )?;
    zip.add(
        "ppt/slideLayouts/slideLayout1.xml",
        parts::slide_layout().as_bytes(),
    )?;
    zip.add(
        "ppt/slideLayouts/_rels/slideLayout1.xml.rels",
        parts::relationships([(
            "rId1",
            master.as_str(),
            "../slideMasters/slideMaster1.xml",
            false,
        )])
        .as_bytes(),
    )?;
    zip.add("ppt/theme/theme1.xml", parts::theme("Lectern").as_bytes())?;
    zip.add(
        "ppt/notesMasters/notesMaster1.xml",
        parts::notes_master(width, height).as_bytes(),
    )?;
    zip.add(
        "ppt/notesMasters/_rels/notesMaster1.xml.rels",
        parts::relationships([("rId1", theme.as_str(), "../theme/theme2.xml", false)]).as_bytes(),
    )?;
    zip.add(
        "ppt/theme/theme2.xml",
        parts::theme("Lectern Notes").as_bytes(),
    )?;
    zip.add(
        "ppt/presProps.xml",
        parts::presentation_properties().as_bytes(),
    )?;
    zip.add("ppt/viewProps.xml", parts::view_properties().as_bytes())?;
    zip.add("ppt/tableStyles.xml", parts::table_styles().as_bytes())?;

    let media_names: Vec<String> = media
        .iter()
        .enumerate()
        .map(|(i, image)| format!("image{}.{}", i + 1, image.format.extension()))
        .collect();
    let kinds = RelKinds {
        layout: layout_rel,
        notes_slide: rel::office("notesSlide"),
        image: rel::office("image"),
        hyperlink: rel::office("hyperlink"),
    };
    let mut xml = String::new();
    for (i, slide) in p.slides.iter().enumerate() {
        let n = i + 1;
        let mut rels = SlideRels::new(&kinds);
        if has_notes[i] {
            rels.add(
                &kinds.notes_slide,
                format!("../notesSlides/notesSlide{n}.xml"),
                false,
            );
        }
        xml.clear();
        write_slide(&mut xml, slide, &mut rels, |bytes| {
            let index = media_index[bytes];
            format!("../media/{}", media_names[index - 1])
        });
        zip.add(&format!("ppt/slides/slide{n}.xml"), xml.as_bytes())?;
        zip.add(
            &format!("ppt/slides/_rels/slide{n}.xml.rels"),
            rels.xml().as_bytes(),
        )?;
        if let Some(notes) = notes_text(slide) {
            xml.clear();
            write_notes(&mut xml, notes, width, height);
            zip.add(
                &format!("ppt/notesSlides/notesSlide{n}.xml"),
                xml.as_bytes(),
            )?;
            zip.add(
                &format!("ppt/notesSlides/_rels/notesSlide{n}.xml.rels"),
                parts::relationships([
                    (
                        "rId1",
                        notes_master.as_str(),
                        "../notesMasters/notesMaster1.xml",
                        false,
                    ),
                    (
                        "rId2",
                        slide_rel.as_str(),
                        &format!("../slides/slide{n}.xml"),
                        false,
                    ),
                ])
                .as_bytes(),
            )?;
        }
    }
    for (image, name) in media.iter().zip(&media_names) {
        zip.add_stored(&format!("ppt/media/{name}"), &image.bytes)?;
    }
    zip.finish()
}

/// A slide's notes if they have any visible text.
fn notes_text(slide: &Slide) -> Option<&str> {
    slide.notes.as_deref().filter(|n| {
        n.chars()
            .any(|c| !c.is_whitespace() && crate::xml::is_xml_char(c))
    })
}

/// Parts smaller than this are stored: deflating them saves a few hundred bytes at most,
/// and each deflated entry costs a compressor set-up (most of the writing time in a debug
/// build).
const STORE_BELOW: usize = 1024;
/// Fast deflate: XML compresses nearly as well at level 1 as at 6, in half the time.
const DEFLATE_LEVEL: i64 = 1;

/// The zip being written: XML parts deflated (small ones stored), media stored, all
/// dated 1980-01-01.
struct Zip {
    inner: ZipWriter<Cursor<Vec<u8>>>,
}

impl Zip {
    fn new() -> Self {
        Zip {
            inner: ZipWriter::new(Cursor::new(Vec::new())),
        }
    }

    fn options(method: CompressionMethod, level: Option<i64>) -> SimpleFileOptions {
        SimpleFileOptions::default()
            .compression_method(method)
            .compression_level(level)
            .last_modified_time(DateTime::default())
            .unix_permissions(0o644)
    }

    fn add(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        let options = if bytes.len() < STORE_BELOW {
            Self::options(CompressionMethod::Stored, None)
        } else {
            Self::options(CompressionMethod::Deflated, Some(DEFLATE_LEVEL))
        };
        self.inner.start_file(name, options)?;
        self.inner.write_all(bytes)?;
        Ok(())
    }

    /// Adds already-compressed bytes (PNG, JPEG) without deflating them again.
    fn add_stored(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        self.inner
            .start_file(name, Self::options(CompressionMethod::Stored, None))?;
        self.inner.write_all(bytes)?;
        Ok(())
    }

    fn finish(self) -> Result<Vec<u8>, Error> {
        Ok(self.inner.finish()?.into_inner())
    }
}

/// Relationship types a slide uses, made once.
struct RelKinds {
    layout: String,
    notes_slide: String,
    image: String,
    hyperlink: String,
}

/// A slide's relationships: the layout as `rId1`, then each distinct target once, in
/// order of first use.
struct SlideRels<'k> {
    kinds: &'k RelKinds,
    entries: Vec<(&'k str, String, bool)>,
    ids: HashMap<(&'k str, String), usize>,
}

impl<'k> SlideRels<'k> {
    fn new(kinds: &'k RelKinds) -> Self {
        let mut rels = SlideRels {
            kinds,
            entries: Vec::new(),
            ids: HashMap::new(),
        };
        rels.add(
            &kinds.layout,
            "../slideLayouts/slideLayout1.xml".into(),
            false,
        );
        rels
    }

    /// The id (`rIdN`) of the relationship to `target`, added if new.
    fn add(&mut self, kind: &'k str, target: String, external: bool) -> String {
        let next = self.entries.len() + 1;
        let n = *self.ids.entry((kind, target.clone())).or_insert_with(|| {
            self.entries.push((kind, target, external));
            next
        });
        format!("rId{n}")
    }

    fn xml(&self) -> String {
        let ids: Vec<String> = (1..=self.entries.len())
            .map(|n| format!("rId{n}"))
            .collect();
        parts::relationships(
            self.entries
                .iter()
                .zip(&ids)
                .map(|((kind, target, external), id)| {
                    (id.as_str(), *kind, target.as_str(), *external)
                }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Rect, Run};

    #[test]
    fn run_formatting() {
        let mut out = String::new();
        run_properties(&mut out, &Run::plain("x"), None);
        assert_eq!(out, "<a:rPr lang=\"en-US\" dirty=\"0\"/>");
        out.clear();
        let run = Run {
            bold: true,
            italic: true,
            underline: true,
            strike: true,
            size_px: Some(32.0),
            colour: Some(Rgb(255, 0, 0x10)),
            ..Run::plain("x")
        };
        run_properties(&mut out, &run, Some("rId3"));
        assert_eq!(
            out,
            "<a:rPr lang=\"en-US\" sz=\"2400\" b=\"1\" i=\"1\" u=\"sng\" strike=\"sngStrike\" \
             dirty=\"0\"><a:solidFill><a:srgbClr val=\"FF0010\"/></a:solidFill>\
             <a:hlinkClick r:id=\"rId3\"/></a:rPr>"
        );
    }

    #[test]
    fn transforms_in_emu() {
        let mut out = String::new();
        xfrm(
            &mut out,
            Rect::new(80.0, 60.0, 400.0, 120.0),
            15.0,
            false,
            false,
        );
        assert_eq!(
            out,
            "<a:xfrm rot=\"900000\"><a:off x=\"762000\" y=\"571500\"/>\
             <a:ext cx=\"3810000\" cy=\"1143000\"/></a:xfrm>"
        );
        out.clear();
        xfrm(
            &mut out,
            Rect::new(-1.0, f64::NAN, -5.0, 2.0),
            -90.0,
            true,
            true,
        );
        assert_eq!(
            out,
            "<a:xfrm rot=\"16200000\" flipH=\"1\" flipV=\"1\"><a:off x=\"-9525\" y=\"0\"/>\
             <a:ext cx=\"0\" cy=\"19050\"/></a:xfrm>"
        );
    }

    #[test]
    fn line_breaks_and_links_in_runs() {
        let kinds = RelKinds {
            layout: "layout".into(),
            notes_slide: "notes".into(),
            image: "image".into(),
            hyperlink: "hyperlink".into(),
        };
        let mut rels = SlideRels::new(&kinds);
        let slide = Slide {
            items: vec![Item::Text(TextBox {
                rect: Rect::default(),
                rotation: 0.0,
                paragraphs: vec![Paragraph {
                    runs: vec![
                        Run {
                            link: Some("https://a.example/x y".into()),
                            ..Run::plain("one\ntwo")
                        },
                        Run {
                            link: Some("https://a.example/x y".into()),
                            bold: true,
                            ..Run::plain("!")
                        },
                    ],
                    ..Paragraph::default()
                }],
            })],
            ..Slide::default()
        };
        let mut out = String::new();
        write_slide(&mut out, &slide, &mut rels, |_| unreachable!("no pictures"));
        assert!(out.contains(
            "<a:r><a:rPr lang=\"en-US\" dirty=\"0\"><a:hlinkClick r:id=\"rId2\"/></a:rPr>\
             <a:t>one</a:t></a:r><a:br><a:rPr lang=\"en-US\" dirty=\"0\"/></a:br><a:r>"
        ));
        // One relationship for the one target, its space escaped.
        assert_eq!(out.matches("r:id=\"rId2\"").count(), 3);
        assert_eq!(
            rels.entries,
            [
                (
                    "layout",
                    "../slideLayouts/slideLayout1.xml".to_owned(),
                    false
                ),
                ("hyperlink", "https://a.example/x%20y".to_owned(), true)
            ]
        );
    }
}
