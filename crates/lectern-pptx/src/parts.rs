//! The package parts that do not depend on the slides' content: the theme, the slide
//! master and its one blank layout, the notes master, the presentation, view and table
//! style properties, the document properties, and the relationship and content-type
//! lists. Each is PresentationML / DrawingML written out by hand.

use std::fmt::Write as _;

use crate::xml::escape;

pub(crate) const DECL: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
/// The namespace declarations of every PresentationML part.
pub(crate) const NS: &str = "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
     xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\" \
     xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"";

/// Relationship types (`Type` of a relationship).
pub(crate) mod rel {
    const OFFICE: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
    pub const OFFICE_DOCUMENT: &str = concat!(
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/",
        "officeDocument"
    );
    pub const CORE_PROPERTIES: &str =
        "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties";
    pub const EXTENDED_PROPERTIES: &str = concat!(
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/",
        "extended-properties"
    );

    /// An officeDocument relationship type by its last segment (`slide`, `theme`, ...).
    pub fn office(kind: &str) -> String {
        format!("{OFFICE}{kind}")
    }
}

/// A relationships part (`*.rels`) from (id, type, target, external) entries.
pub(crate) fn relationships<'a>(
    entries: impl IntoIterator<Item = (&'a str, &'a str, &'a str, bool)>,
) -> String {
    let mut out = String::with_capacity(512);
    out.push_str(DECL);
    out.push_str(
        "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">",
    );
    for (id, kind, target, external) in entries {
        let mode = if external {
            " TargetMode=\"External\""
        } else {
            ""
        };
        write!(
            out,
            "<Relationship Id=\"{id}\" Type=\"{}\" Target=\"{}\"{mode}/>",
            escape(kind),
            escape(target)
        )
        .expect("writing to a String never fails");
    }
    out.push_str("</Relationships>");
    out
}

/// `[Content_Types].xml`: defaults for `.rels`, `.xml` and the media extensions, and an
/// override for every other XML part (`(part name, content type)`, names starting `/`).
pub(crate) fn content_types<'a>(
    media_extensions: impl IntoIterator<Item = (&'a str, &'a str)>,
    overrides: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut out = String::with_capacity(4096);
    out.push_str(DECL);
    out.push_str(
        "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>",
    );
    for (extension, content_type) in media_extensions {
        write!(
            out,
            "<Default Extension=\"{extension}\" ContentType=\"{content_type}\"/>"
        )
        .expect("writing to a String never fails");
    }
    for (part, content_type) in overrides {
        write!(
            out,
            "<Override PartName=\"{}\" ContentType=\"{content_type}\"/>",
            escape(part)
        )
        .expect("writing to a String never fails");
    }
    out.push_str("</Types>");
    out
}

/// Content types of the parts (`application/vnd.openxmlformats-...`).
pub(crate) mod ct {
    pub const PRESENTATION: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml";
    pub const SLIDE: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
    pub const SLIDE_LAYOUT: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml";
    pub const SLIDE_MASTER: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml";
    pub const NOTES_SLIDE: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml";
    pub const NOTES_MASTER: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml";
    pub const THEME: &str = "application/vnd.openxmlformats-officedocument.theme+xml";
    pub const PRES_PROPS: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.presProps+xml";
    pub const VIEW_PROPS: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.viewProps+xml";
    pub const TABLE_STYLES: &str =
        "application/vnd.openxmlformats-officedocument.presentationml.tableStyles+xml";
    pub const CORE: &str = "application/vnd.openxmlformats-package.core-properties+xml";
    pub const APP: &str = "application/vnd.openxmlformats-officedocument.extended-properties+xml";
}

/// `docProps/core.xml`: title and fixed dates (the output is the same for the same input).
pub(crate) fn core_properties(title: &str) -> String {
    format!(
        "{DECL}<cp:coreProperties \
         xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:dcterms=\"http://purl.org/dc/terms/\" \
         xmlns:dcmitype=\"http://purl.org/dc/dcmitype/\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\
         <dc:title>{}</dc:title><dc:creator>Lectern</dc:creator>\
         <cp:lastModifiedBy>Lectern</cp:lastModifiedBy><cp:revision>1</cp:revision>\
         <dcterms:created xsi:type=\"dcterms:W3CDTF\">2000-01-01T00:00:00Z</dcterms:created>\
         <dcterms:modified xsi:type=\"dcterms:W3CDTF\">2000-01-01T00:00:00Z</dcterms:modified>\
         </cp:coreProperties>",
        escape(title)
    )
}

/// `docProps/app.xml`: the application and the slide and notes counts.
pub(crate) fn app_properties(slides: usize, notes: usize) -> String {
    format!(
        "{DECL}<Properties \
         xmlns=\"http://schemas.openxmlformats.org/officeDocument/2006/extended-properties\" \
         xmlns:vt=\"http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes\">\
         <TotalTime>0</TotalTime><PresentationFormat>Custom</PresentationFormat>\
         <Slides>{slides}</Slides><Notes>{notes}</Notes><HiddenSlides>0</HiddenSlides>\
         <Application>Lectern</Application></Properties>"
    )
}

/// Nine levels of paragraph defaults (`a:lvl1pPr` to `a:lvl9pPr`), indented half an inch a
/// level, `size` hundredths of a point, theme text colour and minor (body) font.
fn text_levels(out: &mut String, size: u32) {
    for level in 1..=9u32 {
        write!(
            out,
            "<a:lvl{level}pPr marL=\"{}\" algn=\"l\" defTabSz=\"914400\" rtl=\"0\" eaLnBrk=\"1\" \
             latinLnBrk=\"0\" hangingPunct=\"1\"><a:defRPr sz=\"{size}\" kern=\"1200\">\
             <a:solidFill><a:schemeClr val=\"tx1\"/></a:solidFill><a:latin typeface=\"+mn-lt\"/>\
             <a:ea typeface=\"+mn-ea\"/><a:cs typeface=\"+mn-cs\"/></a:defRPr></a:lvl{level}pPr>",
            (level - 1) * 457_200
        )
        .expect("writing to a String never fails");
    }
}

/// `ppt/presentation.xml` for a slide size in EMU and the relationship ids of the slides
/// (the master is `rId1`, the notes master `rId2`).
pub(crate) fn presentation(width_emu: i64, height_emu: i64, slide_rids: &[String]) -> String {
    let mut out = String::with_capacity(2048 + slide_rids.len() * 40);
    out.push_str(DECL);
    write!(
        out,
        "<p:presentation {NS} saveSubsetFonts=\"1\">\
         <p:sldMasterIdLst><p:sldMasterId id=\"2147483648\" r:id=\"rId1\"/></p:sldMasterIdLst>\
         <p:notesMasterIdLst><p:notesMasterId r:id=\"rId2\"/></p:notesMasterIdLst>"
    )
    .expect("writing to a String never fails");
    if !slide_rids.is_empty() {
        out.push_str("<p:sldIdLst>");
        for (i, rid) in slide_rids.iter().enumerate() {
            write!(out, "<p:sldId id=\"{}\" r:id=\"{rid}\"/>", 256 + i)
                .expect("writing to a String never fails");
        }
        out.push_str("</p:sldIdLst>");
    }
    write!(
        out,
        "<p:sldSz cx=\"{width_emu}\" cy=\"{height_emu}\"/>\
         <p:notesSz cx=\"{NOTES_WIDTH}\" cy=\"{NOTES_HEIGHT}\"/><p:defaultTextStyle>\
         <a:defPPr><a:defRPr lang=\"en-US\"/></a:defPPr>"
    )
    .expect("writing to a String never fails");
    text_levels(&mut out, 1800);
    out.push_str("</p:defaultTextStyle></p:presentation>");
    out
}

/// The notes page size (portrait letter, 7.5 × 10 in) in EMU.
pub(crate) const NOTES_WIDTH: i64 = 6_858_000;
pub(crate) const NOTES_HEIGHT: i64 = 9_144_000;

/// A group shape tree's own properties: its id 1 and an identity transform.
pub(crate) const TREE_START: &str = "<p:spTree><p:nvGrpSpPr><p:cNvPr id=\"1\" name=\"\"/>\
     <p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x=\"0\" y=\"0\"/>\
     <a:ext cx=\"0\" cy=\"0\"/><a:chOff x=\"0\" y=\"0\"/><a:chExt cx=\"0\" cy=\"0\"/></a:xfrm>\
     </p:grpSpPr>";

const CLR_MAP: &str = "<p:clrMap bg1=\"lt1\" tx1=\"dk1\" bg2=\"lt2\" tx2=\"dk2\" \
     accent1=\"accent1\" accent2=\"accent2\" accent3=\"accent3\" accent4=\"accent4\" \
     accent5=\"accent5\" accent6=\"accent6\" hlink=\"hlink\" folHlink=\"folHlink\"/>";

const THEME_BACKGROUND: &str =
    "<p:bg><p:bgRef idx=\"1001\"><a:schemeClr val=\"bg1\"/></p:bgRef></p:bg>";

/// `ppt/slideMasters/slideMaster1.xml`: white background, no placeholders, its one layout
/// as `rId1`, plain text styles (18 pt body, 44 pt title).
pub(crate) fn slide_master() -> String {
    let mut out = String::with_capacity(8192);
    write!(
        out,
        "{DECL}<p:sldMaster {NS}><p:cSld>{THEME_BACKGROUND}{TREE_START}</p:spTree></p:cSld>\
         {CLR_MAP}<p:sldLayoutIdLst><p:sldLayoutId id=\"2147483649\" r:id=\"rId1\"/>\
         </p:sldLayoutIdLst><p:txStyles><p:titleStyle>"
    )
    .expect("writing to a String never fails");
    text_levels(&mut out, 4400);
    out.push_str("</p:titleStyle><p:bodyStyle>");
    text_levels(&mut out, 1800);
    out.push_str("</p:bodyStyle><p:otherStyle><a:defPPr><a:defRPr lang=\"en-US\"/></a:defPPr>");
    text_levels(&mut out, 1800);
    out.push_str("</p:otherStyle></p:txStyles></p:sldMaster>");
    out
}

/// `ppt/slideLayouts/slideLayout1.xml`: the blank layout every slide uses.
pub(crate) fn slide_layout() -> String {
    format!(
        "{DECL}<p:sldLayout {NS} type=\"blank\" preserve=\"1\"><p:cSld name=\"Blank\">\
         {TREE_START}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr>\
         </p:sldLayout>"
    )
}

/// The rectangle of the slide picture on a notes page for a slide of the given aspect,
/// in EMU: as wide as the notes text below it, or as tall as the upper half allows.
pub(crate) fn notes_slide_image(width_emu: i64, height_emu: i64) -> (i64, i64, i64, i64) {
    let (max_w, max_h) = (5_486_400i64, 3_657_600i64);
    let mut w = max_w;
    let mut h = ((max_w as f64) * height_emu as f64 / width_emu as f64).round() as i64;
    if h > max_h {
        h = max_h;
        w = ((max_h as f64) * width_emu as f64 / height_emu as f64).round() as i64;
    }
    ((NOTES_WIDTH - w) / 2, 685_800, w, h)
}

/// The rectangle of the notes text on a notes page, in EMU.
pub(crate) const NOTES_BODY: (i64, i64, i64, i64) = (685_800, 4_572_000, 5_486_400, 3_886_200);

/// `ppt/notesMasters/notesMaster1.xml`: a slide image and a notes body placeholder, its
/// theme as `rId1`.
pub(crate) fn notes_master(width_emu: i64, height_emu: i64) -> String {
    let (ix, iy, iw, ih) = notes_slide_image(width_emu, height_emu);
    let (bx, by, bw, bh) = NOTES_BODY;
    let mut out = String::with_capacity(8192);
    write!(
        out,
        "{DECL}<p:notesMaster {NS}><p:cSld>{THEME_BACKGROUND}{TREE_START}\
         <p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Slide Image Placeholder 1\"/><p:cNvSpPr>\
         <a:spLocks noGrp=\"1\" noRot=\"1\" noChangeAspect=\"1\"/></p:cNvSpPr><p:nvPr>\
         <p:ph type=\"sldImg\" idx=\"2\"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm>\
         <a:off x=\"{ix}\" y=\"{iy}\"/><a:ext cx=\"{iw}\" cy=\"{ih}\"/></a:xfrm>\
         <a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom><a:noFill/><a:ln w=\"12700\">\
         <a:solidFill><a:prstClr val=\"black\"/></a:solidFill></a:ln></p:spPr></p:sp>\
         <p:sp><p:nvSpPr><p:cNvPr id=\"3\" name=\"Notes Placeholder 2\"/><p:cNvSpPr>\
         <a:spLocks noGrp=\"1\"/></p:cNvSpPr><p:nvPr><p:ph type=\"body\" sz=\"quarter\" idx=\"3\"/>\
         </p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x=\"{bx}\" y=\"{by}\"/>\
         <a:ext cx=\"{bw}\" cy=\"{bh}\"/></a:xfrm><a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom>\
         </p:spPr><p:txBody><a:bodyPr vert=\"horz\" lIns=\"91440\" tIns=\"45720\" rIns=\"91440\" \
         bIns=\"45720\" rtlCol=\"0\"/><a:lstStyle/><a:p><a:pPr lvl=\"0\"/>\
         <a:endParaRPr lang=\"en-US\"/></a:p></p:txBody></p:sp></p:spTree></p:cSld>{CLR_MAP}\
         <p:notesStyle>"
    )
    .expect("writing to a String never fails");
    text_levels(&mut out, 1200);
    out.push_str("</p:notesStyle></p:notesMaster>");
    out
}

/// `ppt/presProps.xml`.
pub(crate) fn presentation_properties() -> String {
    format!("{DECL}<p:presentationPr {NS}/>")
}

/// `ppt/viewProps.xml`: the normal view.
pub(crate) fn view_properties() -> String {
    format!(
        "{DECL}<p:viewPr {NS}><p:normalViewPr><p:restoredLeft sz=\"15620\"/>\
         <p:restoredTop sz=\"94660\"/></p:normalViewPr><p:gridSpacing cx=\"76200\" cy=\"76200\"/>\
         </p:viewPr>"
    )
}

/// `ppt/tableStyles.xml`: no table styles, PowerPoint's "Medium Style 2 - Accent 1" as the
/// default.
pub(crate) fn table_styles() -> String {
    format!(
        "{DECL}<a:tblStyleLst xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
         def=\"{{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}}\"/>"
    )
}

/// A theme (`ppt/theme/themeN.xml`): an Office-like colour scheme, Arial for headings and
/// body (Liberation Sans stands in where Arial is missing), and the three entries each
/// format list must have, all plain.
pub(crate) fn theme(name: &str) -> String {
    let colours = [
        ("dk1", "000000"),
        ("lt1", "FFFFFF"),
        ("dk2", "44546A"),
        ("lt2", "E7E6E6"),
        ("accent1", "4472C4"),
        ("accent2", "ED7D31"),
        ("accent3", "A5A5A5"),
        ("accent4", "FFC000"),
        ("accent5", "5B9BD5"),
        ("accent6", "70AD47"),
        ("hlink", "0563C1"),
        ("folHlink", "954F72"),
    ];
    let mut out = String::with_capacity(4096);
    write!(
        out,
        "{DECL}<a:theme xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
         name=\"{}\"><a:themeElements><a:clrScheme name=\"Lectern\">",
        escape(name)
    )
    .expect("writing to a String never fails");
    for (slot, hex) in colours {
        write!(out, "<a:{slot}><a:srgbClr val=\"{hex}\"/></a:{slot}>")
            .expect("writing to a String never fails");
    }
    out.push_str(
        "</a:clrScheme><a:fontScheme name=\"Lectern\">\
         <a:majorFont><a:latin typeface=\"Arial\"/><a:ea typeface=\"\"/><a:cs typeface=\"\"/></a:majorFont>\
         <a:minorFont><a:latin typeface=\"Arial\"/><a:ea typeface=\"\"/><a:cs typeface=\"\"/></a:minorFont>\
         </a:fontScheme><a:fmtScheme name=\"Lectern\"><a:fillStyleLst>",
    );
    let placeholder_fill = "<a:solidFill><a:schemeClr val=\"phClr\"/></a:solidFill>";
    for _ in 0..3 {
        out.push_str(placeholder_fill);
    }
    out.push_str("</a:fillStyleLst><a:lnStyleLst>");
    for width in [6_350, 12_700, 19_050] {
        write!(
            out,
            "<a:ln w=\"{width}\" cap=\"flat\" cmpd=\"sng\" algn=\"ctr\">{placeholder_fill}\
             <a:prstDash val=\"solid\"/><a:miter lim=\"800000\"/></a:ln>"
        )
        .expect("writing to a String never fails");
    }
    out.push_str("</a:lnStyleLst><a:effectStyleLst>");
    for _ in 0..3 {
        out.push_str("<a:effectStyle><a:effectLst/></a:effectStyle>");
    }
    out.push_str("</a:effectStyleLst><a:bgFillStyleLst>");
    for _ in 0..3 {
        out.push_str(placeholder_fill);
    }
    out.push_str(
        "</a:bgFillStyleLst></a:fmtScheme></a:themeElements><a:objectDefaults/>\
         <a:extraClrSchemeLst/></a:theme>",
    );
    out
}
