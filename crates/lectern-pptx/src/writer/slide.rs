//! One slide's shape tree (text boxes, shapes, pictures) and its notes page, as DrawingML.

use super::*;

/// Slide-writing state: the relationships, the next shape id and the media names.
pub(super) struct SlideWriter<'a, 'k, M> {
    pub(super) out: &'a mut String,
    pub(super) rels: &'a mut SlideRels<'k>,
    pub(super) kinds: &'k RelKinds,
    pub(super) next_id: u32,
    pub(super) media_target: M,
}

pub(super) fn write_slide<'k>(
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
            Item::Table(table) => w.table(table),
        }
    }
    w.out
        .push_str("</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>");
}

impl<M: Fn(&[u8]) -> String> SlideWriter<'_, '_, M> {
    pub(super) fn id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub(super) fn text_box(&mut self, t: &TextBox) {
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

    /// A table as a graphic frame holding DrawingML's `a:tbl`: one grid column per column,
    /// each cell's paragraphs without insets but the slides' padding, a rule under every row
    /// but the last.
    pub(super) fn table(&mut self, t: &Table) {
        let id = self.id();
        write!(
            self.out,
            "<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id=\"{id}\" name=\"Table {}\"/>\
             <p:cNvGraphicFramePr><a:graphicFrameLocks noGrp=\"1\"/></p:cNvGraphicFramePr><p:nvPr/>\
             </p:nvGraphicFramePr><p:xfrm><a:off x=\"{}\" y=\"{}\"/><a:ext cx=\"{}\" cy=\"{}\"/></p:xfrm>\
             <a:graphic><a:graphicData uri=\"http://schemas.openxmlformats.org/drawingml/2006/table\">\
             <a:tbl><a:tblPr firstRow=\"1\"/><a:tblGrid>",
            id - 1,
            px_to_emu(t.rect.x),
            px_to_emu(t.rect.y),
            px_to_emu(t.rect.w).max(1),
            px_to_emu(t.rect.h).max(1),
        )
        .expect("writing to a String never fails");
        for w in &t.columns {
            write!(self.out, "<a:gridCol w=\"{}\"/>", px_to_emu(*w).max(1))
                .expect("writing to a String never fails");
        }
        self.out.push_str("</a:tblGrid>");
        let rule = t.rule.unwrap_or(Rgb(0, 0, 0)).hex();
        for (r, row) in t.rows.iter().enumerate() {
            write!(self.out, "<a:tr h=\"{}\">", px_to_emu(row.height).max(1))
                .expect("writing to a String never fails");
            for cell in &row.cells {
                self.out
                    .push_str("<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>");
                if cell.is_empty() {
                    self.out
                        .push_str("<a:p><a:endParaRPr lang=\"en-US\"/></a:p>");
                }
                for paragraph in cell {
                    self.paragraph(paragraph);
                }
                // The padding is 0.2 em by 0.5 em of the cell's text.
                let em = cell
                    .iter()
                    .flat_map(|p| p.runs.iter())
                    .find_map(|r| r.size_px)
                    .unwrap_or(24.0);
                let (x, y) = (px_to_emu(em * 0.5), px_to_emu(em * 0.2));
                write!(
                    self.out,
                    "</a:txBody><a:tcPr marL=\"{x}\" marR=\"{x}\" marT=\"{y}\" marB=\"{y}\">\
                     <a:lnL w=\"0\"><a:noFill/></a:lnL><a:lnR w=\"0\"><a:noFill/></a:lnR>\
                     <a:lnT w=\"0\"><a:noFill/></a:lnT>"
                )
                .expect("writing to a String never fails");
                if r + 1 < t.rows.len() {
                    write!(
                        self.out,
                        "<a:lnB w=\"12700\"><a:solidFill><a:srgbClr val=\"{rule}\"/></a:solidFill></a:lnB>"
                    )
                    .expect("writing to a String never fails");
                } else {
                    self.out.push_str("<a:lnB w=\"0\"><a:noFill/></a:lnB>");
                }
                self.out.push_str("<a:noFill/></a:tcPr></a:tc>");
            }
            self.out.push_str("</a:tr>");
        }
        self.out
            .push_str("</a:tbl></a:graphicData></a:graphic></p:graphicFrame>");
    }

    pub(super) fn paragraph(&mut self, p: &Paragraph) {
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

    pub(super) fn run(&mut self, run: &Run) {
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

    pub(super) fn shape(&mut self, s: &Shape) {
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

    pub(super) fn picture(&mut self, pic: &Picture) {
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
pub(super) const MAX_COORDINATE: i64 = 27_273_042_316_900;
/// The widest line DrawingML allows (`ST_LineWidth`), in EMU.
pub(super) const MAX_LINE_WIDTH: i64 = 20_116_800;

/// `a:xfrm`: rotation (60,000ths of a degree, 0 to 360°), flips, offset and size in EMU.
/// NaN and infinities count as 0, sizes are at least 0, and everything is kept within
/// what DrawingML allows.
pub(super) fn xfrm(out: &mut String, r: Rect, rotation: f64, flip_h: bool, flip_v: bool) {
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
pub(super) fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

pub(super) fn solid_fill(out: &mut String, colour: Rgb) {
    write!(
        out,
        "<a:solidFill><a:srgbClr val=\"{}\"/></a:solidFill>",
        colour.hex()
    )
    .expect("writing to a String never fails");
}

/// `a:rPr` of a run (used for its line breaks too, without the link).
pub(super) fn run_properties(out: &mut String, run: &Run, link_rid: Option<&str>) {
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
    if run.colour.is_none() && link_rid.is_none() && run.font.is_none() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    if let Some(colour) = run.colour {
        solid_fill(out, colour);
    }
    if let Some(font) = &run.font {
        let font = crate::xml::escape(font);
        write!(
            out,
            "<a:latin typeface=\"{font}\"/><a:cs typeface=\"{font}\"/>"
        )
        .expect("writing to a String never fails");
    }
    if let Some(rid) = link_rid {
        write!(out, "<a:hlinkClick r:id=\"{rid}\"/>").expect("writing to a String never fails");
    }
    out.push_str("</a:rPr>");
}

/// A notes page (`ppt/notesSlides/notesSlideN.xml`): the slide image and the notes text,
/// one paragraph a line. Its relationships are the notes master (`rId1`) and the slide.
pub(super) fn write_notes(out: &mut String, notes: &str, width: i64, height: i64) {
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
