//! The .pptx writer: lays out the package (which parts, their names, relationships and
//! content types), writes each slide's shape tree and notes page, and zips it all.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{Cursor, Write as _};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::model::{
    Align, Image, Item, ListKind, Paragraph, Picture, Presentation, Rect, Rgb, Run, Shape,
    ShapeKind, Slide, TextBox, px_to_emu, px_to_font_size,
};
use crate::parts::{self, DECL, NS, TREE_START, ct, rel};
use crate::xml::{push_escaped, uri_target};

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

/// Slide-writing state: the relationships, the next shape id and the media names.
struct SlideWriter<'a, 'k, M> {
    out: &'a mut String,
    rels: &'a mut SlideRels<'k>,
    kinds: &'k RelKinds,
    next_id: u32,
    media_target: M,
}

fn write_slide<'k>(
    out: &mut String,
    slide: &Slide,
    rels: &mut SlideRels<'k>,
    media_target: impl Fn(&[u8]) -> String,
) {
    out.push_str(DECL);
    write!(out, "<p:sld {NS}><p:cSld>").expect("writing to a String never fails");
    if let Some(bg) = slide.background {
        write!(
            out,
            "<p:bg><p:bgPr><a:solidFill><a:srgbClr val=\"{}\"/></a:solidFill><a:effectLst/>\
             </p:bgPr></p:bg>",
            bg.hex()
        )
        .expect("writing to a String never fails");
    }
    out.push_str(TREE_START);
    let kinds = rels.kinds;
    let mut w = SlideWriter {
        out,
        rels,
        kinds,
        next_id: 2,
        media_target,
    };
    for item in &slide.items {
        match item {
            Item::Text(text) => w.text_box(text),
            Item::Shape(shape) => w.shape(shape),
            Item::Picture(picture) => w.picture(picture),
        }
    }
    w.out
        .push_str("</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>");
}

impl<M: Fn(&[u8]) -> String> SlideWriter<'_, '_, M> {
    fn id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn text_box(&mut self, t: &TextBox) {
        let id = self.id();
        write!(
            self.out,
            "<p:sp><p:nvSpPr><p:cNvPr id=\"{id}\" name=\"TextBox {}\"/><p:cNvSpPr txBox=\"1\"/>\
             <p:nvPr/></p:nvSpPr><p:spPr>",
            id - 1
        )
        .expect("writing to a String never fails");
        xfrm(self.out, t.rect, t.rotation, false, false);
        self.out.push_str(
            "<a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom><a:noFill/></p:spPr><p:txBody>\
             <a:bodyPr wrap=\"square\" lIns=\"0\" tIns=\"0\" rIns=\"0\" bIns=\"0\" rtlCol=\"0\" \
             anchor=\"t\"><a:noAutofit/></a:bodyPr><a:lstStyle/>",
        );
        if t.paragraphs.is_empty() {
            self.out
                .push_str("<a:p><a:endParaRPr lang=\"en-US\"/></a:p>");
        }
        for paragraph in &t.paragraphs {
            self.paragraph(paragraph);
        }
        self.out.push_str("</p:txBody></p:sp>");
    }

    fn paragraph(&mut self, p: &Paragraph) {
        self.out.push_str("<a:p>");
        let algn = match p.align {
            Align::Left => None,
            Align::Center => Some("ctr"),
            Align::Right => Some("r"),
            Align::Justify => Some("just"),
        };
        if algn.is_some() || p.list.is_some() {
            self.out.push_str("<a:pPr");
            if let Some(list) = p.list {
                let level = i64::from(list.level.min(8));
                // The marker hangs one em (of the paragraph's first size) left of the text.
                let em = p.runs.iter().find_map(|r| r.size_px).unwrap_or(24.0);
                // Nine levels of it stay within `marL`'s limit (51,206,400 EMU).
                let hang = px_to_emu(em.max(12.0)).min(5_689_600);
                write!(
                    self.out,
                    " marL=\"{}\" lvl=\"{level}\" indent=\"{}\"",
                    hang * (level + 1),
                    -hang
                )
                .expect("writing to a String never fails");
            }
            if let Some(algn) = algn {
                write!(self.out, " algn=\"{algn}\"").expect("writing to a String never fails");
            }
            self.out.push('>');
            match p.list.map(|l| l.kind) {
                Some(ListKind::Bullet) => self
                    .out
                    .push_str("<a:buFont typeface=\"Arial\"/><a:buChar char=\"•\"/>"),
                Some(ListKind::Numbered) => self.out.push_str(
                    "<a:buFont typeface=\"+mj-lt\"/><a:buAutoNum type=\"arabicPeriod\"/>",
                ),
                None => {}
            }
            self.out.push_str("</a:pPr>");
        }
        for run in &p.runs {
            self.run(run);
        }
        self.out.push_str("<a:endParaRPr lang=\"en-US\"");
        if let Some(size) = p.runs.last().and_then(|r| r.size_px) {
            write!(self.out, " sz=\"{}\"", px_to_font_size(size))
                .expect("writing to a String never fails");
        }
        self.out.push_str("/></a:p>");
    }

    fn run(&mut self, run: &Run) {
        let link = run
            .link
            .as_deref()
            .map(uri_target)
            .filter(|l| !l.is_empty())
            .map(|l| self.rels.add(&self.kinds.hyperlink, l, true));
        for (i, line) in run.text.split('\n').enumerate() {
            if i > 0 {
                self.out.push_str("<a:br>");
                run_properties(self.out, run, None);
                self.out.push_str("</a:br>");
            }
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            self.out.push_str("<a:r>");
            run_properties(self.out, run, link.as_deref());
            self.out.push_str("<a:t>");
            push_escaped(self.out, line);
            self.out.push_str("</a:t></a:r>");
        }
    }

    fn shape(&mut self, s: &Shape) {
        let id = self.id();
        let (prst, name) = match s.kind {
            ShapeKind::Rectangle => ("rect", "Rectangle"),
            ShapeKind::RoundedRectangle { .. } => ("roundRect", "Rounded Rectangle"),
            ShapeKind::Ellipse => ("ellipse", "Oval"),
            ShapeKind::Triangle => ("triangle", "Isosceles Triangle"),
            ShapeKind::Line { .. } => ("line", "Straight Connector"),
        };
        let line = matches!(s.kind, ShapeKind::Line { .. });
        if line {
            write!(
                self.out,
                "<p:cxnSp><p:nvCxnSpPr><p:cNvPr id=\"{id}\" name=\"{name} {}\"/><p:cNvCxnSpPr/>\
                 <p:nvPr/></p:nvCxnSpPr><p:spPr>",
                id - 1
            )
        } else {
            write!(
                self.out,
                "<p:sp><p:nvSpPr><p:cNvPr id=\"{id}\" name=\"{name} {}\"/><p:cNvSpPr/><p:nvPr/>\
                 </p:nvSpPr><p:spPr>",
                id - 1
            )
        }
        .expect("writing to a String never fails");
        xfrm(self.out, s.rect, s.rotation, s.flip_h, s.flip_v);
        write!(self.out, "<a:prstGeom prst=\"{prst}\"><a:avLst>")
            .expect("writing to a String never fails");
        if let ShapeKind::RoundedRectangle { radius_px } = s.kind {
            // The corner radius as a share of the shorter side, 50,000 being half of it.
            let shorter = s.rect.w.min(s.rect.h);
            let adj = if shorter > 0.0 && shorter.is_finite() {
                (radius_px / shorter * 100_000.0)
                    .round()
                    .clamp(0.0, 50_000.0) as i64
            } else {
                0
            };
            write!(self.out, "<a:gd name=\"adj\" fmla=\"val {adj}\"/>")
                .expect("writing to a String never fails");
        }
        self.out.push_str("</a:avLst></a:prstGeom>");
        match s.fill {
            Some(fill) if !line => solid_fill(self.out, fill),
            _ => self.out.push_str("<a:noFill/>"),
        }
        let stroke = s.stroke.or_else(|| {
            line.then_some(crate::model::Stroke {
                colour: Rgb(0, 0, 0),
                width_px: 1.0,
            })
        });
        match stroke {
            Some(stroke) => {
                write!(
                    self.out,
                    "<a:ln w=\"{}\">",
                    px_to_emu(finite(stroke.width_px)).clamp(0, MAX_LINE_WIDTH)
                )
                .expect("writing to a String never fails");
                solid_fill(self.out, stroke.colour);
                if let ShapeKind::Line {
                    arrow_start,
                    arrow_end,
                } = s.kind
                {
                    if arrow_start {
                        self.out.push_str("<a:headEnd type=\"triangle\"/>");
                    }
                    if arrow_end {
                        self.out.push_str("<a:tailEnd type=\"triangle\"/>");
                    }
                }
                self.out.push_str("</a:ln>");
            }
            None => self.out.push_str("<a:ln><a:noFill/></a:ln>"),
        }
        if line {
            self.out.push_str("</p:spPr></p:cxnSp>");
        } else {
            self.out.push_str("</p:spPr></p:sp>");
        }
    }

    fn picture(&mut self, pic: &Picture) {
        let id = self.id();
        let target = (self.media_target)(&pic.image.bytes);
        let rid = self.rels.add(&self.kinds.image, target, false);
        write!(
            self.out,
            "<p:pic><p:nvPicPr><p:cNvPr id=\"{id}\" name=\"Picture {}\" descr=\"",
            id - 1
        )
        .expect("writing to a String never fails");
        push_escaped(self.out, &pic.description);
        write!(
            self.out,
            "\"/><p:cNvPicPr><a:picLocks noChangeAspect=\"1\"/></p:cNvPicPr><p:nvPr/></p:nvPicPr>\
             <p:blipFill><a:blip r:embed=\"{rid}\"/><a:stretch><a:fillRect/></a:stretch>\
             </p:blipFill><p:spPr>"
        )
        .expect("writing to a String never fails");
        xfrm(self.out, pic.rect, pic.rotation, false, false);
        self.out
            .push_str("<a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom></p:spPr></p:pic>");
    }
}

/// The largest coordinate DrawingML allows (`ST_Coordinate`), in EMU.
const MAX_COORDINATE: i64 = 27_273_042_316_900;
/// The widest line DrawingML allows (`ST_LineWidth`), in EMU.
const MAX_LINE_WIDTH: i64 = 20_116_800;

/// `a:xfrm`: rotation (60,000ths of a degree, 0 to 360°), flips, offset and size in EMU.
/// NaN and infinities count as 0, sizes are at least 0, and everything is kept within
/// what DrawingML allows.
fn xfrm(out: &mut String, r: Rect, rotation: f64, flip_h: bool, flip_v: bool) {
    out.push_str("<a:xfrm");
    let rot = ((finite(rotation).rem_euclid(360.0) * 60_000.0).round() as i64) % 21_600_000;
    if rot != 0 {
        write!(out, " rot=\"{rot}\"").expect("writing to a String never fails");
    }
    if flip_h {
        out.push_str(" flipH=\"1\"");
    }
    if flip_v {
        out.push_str(" flipV=\"1\"");
    }
    let coordinate = |px: f64| px_to_emu(finite(px)).clamp(-MAX_COORDINATE, MAX_COORDINATE);
    write!(
        out,
        "><a:off x=\"{}\" y=\"{}\"/><a:ext cx=\"{}\" cy=\"{}\"/></a:xfrm>",
        coordinate(r.x),
        coordinate(r.y),
        coordinate(r.w).max(0),
        coordinate(r.h).max(0),
    )
    .expect("writing to a String never fails");
}

/// `v`, or 0 for NaN and infinities (which would not make valid XML numbers).
fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

fn solid_fill(out: &mut String, colour: Rgb) {
    write!(
        out,
        "<a:solidFill><a:srgbClr val=\"{}\"/></a:solidFill>",
        colour.hex()
    )
    .expect("writing to a String never fails");
}

/// `a:rPr` of a run (used for its line breaks too, without the link).
fn run_properties(out: &mut String, run: &Run, link_rid: Option<&str>) {
    out.push_str("<a:rPr lang=\"en-US\"");
    if let Some(size) = run.size_px {
        write!(out, " sz=\"{}\"", px_to_font_size(size)).expect("writing to a String never fails");
    }
    if run.bold {
        out.push_str(" b=\"1\"");
    }
    if run.italic {
        out.push_str(" i=\"1\"");
    }
    if run.underline {
        out.push_str(" u=\"sng\"");
    }
    if run.strike {
        out.push_str(" strike=\"sngStrike\"");
    }
    out.push_str(" dirty=\"0\"");
    if run.colour.is_none() && link_rid.is_none() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    if let Some(colour) = run.colour {
        solid_fill(out, colour);
    }
    if let Some(rid) = link_rid {
        write!(out, "<a:hlinkClick r:id=\"{rid}\"/>").expect("writing to a String never fails");
    }
    out.push_str("</a:rPr>");
}

/// A notes page (`ppt/notesSlides/notesSlideN.xml`): the slide image and the notes text,
/// one paragraph a line. Its relationships are the notes master (`rId1`) and the slide.
fn write_notes(out: &mut String, notes: &str, width: i64, height: i64) {
    let (ix, iy, iw, ih) = parts::notes_slide_image(width, height);
    let (bx, by, bw, bh) = parts::NOTES_BODY;
    write!(
        out,
        "{DECL}<p:notes {NS}><p:cSld>{TREE_START}\
         <p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Slide Image Placeholder 1\"/><p:cNvSpPr>\
         <a:spLocks noGrp=\"1\" noRot=\"1\" noChangeAspect=\"1\"/></p:cNvSpPr><p:nvPr>\
         <p:ph type=\"sldImg\"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x=\"{ix}\" y=\"{iy}\"/>\
         <a:ext cx=\"{iw}\" cy=\"{ih}\"/></a:xfrm></p:spPr></p:sp>\
         <p:sp><p:nvSpPr><p:cNvPr id=\"3\" name=\"Notes Placeholder 2\"/><p:cNvSpPr>\
         <a:spLocks noGrp=\"1\"/></p:cNvSpPr><p:nvPr><p:ph type=\"body\" idx=\"1\"/></p:nvPr>\
         </p:nvSpPr><p:spPr><a:xfrm><a:off x=\"{bx}\" y=\"{by}\"/><a:ext cx=\"{bw}\" cy=\"{bh}\"/>\
         </a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>"
    )
    .expect("writing to a String never fails");
    for line in notes.trim_end().lines() {
        out.push_str("<a:p>");
        if !line.is_empty() {
            out.push_str("<a:r><a:rPr lang=\"en-US\" dirty=\"0\"/><a:t>");
            push_escaped(out, line);
            out.push_str("</a:t></a:r>");
        }
        out.push_str("</a:p>");
    }
    out.push_str(
        "</p:txBody></p:sp></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/>\
         </p:clrMapOvr></p:notes>",
    );
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
