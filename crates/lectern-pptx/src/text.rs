//! Rich HTML text to paragraphs and runs: block elements (`p`, `div`, `h1`–`h6`, `li`, ...)
//! start paragraphs, inline elements and inline styles set the run formatting (inherited
//! as CSS inherits it), `br` breaks lines, whitespace collapses as a browser collapses it
//! (kept inside `pre`), and lists give bullets or numbers with their nesting level.

use scraper::ElementRef;
use scraper::node::Node;

use crate::css;
use crate::model::{Align, List, ListKind, Paragraph, Rgb, Run};

/// A node of the parsed tree (`ego_tree::NodeRef`, which `scraper` does not re-export).
pub(crate) type NodeRef<'a> = <ElementRef<'a> as std::ops::Deref>::Target;

/// The text held something that cannot become text (an image, a table, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unmappable;

/// Elements whose content is not text: a text block or free slide holding one is drawn
/// as a picture instead.
pub(crate) fn is_unmappable(name: &str) -> bool {
    matches!(
        name,
        "img"
            | "svg"
            | "table"
            | "iframe"
            | "video"
            | "audio"
            | "canvas"
            | "object"
            | "embed"
            | "math"
            | "picture"
            | "form"
            | "input"
            | "button"
            | "select"
            | "textarea"
            | "section"
    )
}

/// Elements that are never shown.
pub(crate) fn is_hidden(e: &ElementRef<'_>) -> bool {
    let v = e.value();
    matches!(
        v.name(),
        "script" | "style" | "template" | "noscript" | "head" | "title" | "meta" | "link"
    ) || (v.name() == "aside" && v.classes().any(|c| c == "notes"))
        || v.attr("hidden").is_some()
        || v.attr("style")
            .and_then(|s| css::property(s, "display"))
            .is_some_and(|d| d.eq_ignore_ascii_case("none"))
}

/// Font size of a heading relative to its parent's, as Lectern's viewer styles them.
pub(crate) fn heading_scale(name: &str) -> Option<f64> {
    Some(match name {
        "h1" => 2.5,
        "h2" => 1.6,
        "h3" => 1.3,
        "h4" | "h5" | "h6" => 1.0,
        _ => return None,
    })
}

/// The formatting in force at a point of the tree (what CSS would inherit).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Context {
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub size_px: f64,
    pub colour: Option<Rgb>,
    pub link: Option<String>,
    pub align: Align,
    /// Colours for headings and links when the markup gives none.
    pub heading_colour: Option<Rgb>,
    pub link_colour: Option<Rgb>,
    /// Inside `pre`: whitespace and newlines are kept.
    pub preserve: bool,
    /// The typeface in force, and those headings and code switch to.
    pub font: Option<String>,
    pub heading_font: Option<String>,
    pub code_font: Option<String>,
    /// The kinds of the lists around this point, outermost first.
    pub lists: Vec<ListKind>,
}

impl Context {
    pub(crate) fn new(size_px: f64, colour: Option<Rgb>, align: Align) -> Self {
        Context {
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            size_px,
            colour,
            link: None,
            align,
            heading_colour: None,
            link_colour: None,
            preserve: false,
            font: None,
            heading_font: None,
            code_font: None,
            lists: Vec::new(),
        }
    }

    fn run(&self, text: String) -> Run {
        Run {
            text,
            bold: self.bold,
            italic: self.italic,
            underline: self.underline,
            strike: self.strike,
            size_px: Some(self.size_px),
            colour: self.colour,
            link: self.link.clone(),
            font: self.font.clone(),
        }
    }

    /// Applies an element's inline `style` (and `align`) on top of what it inherits.
    pub(crate) fn apply_style(&mut self, e: &ElementRef<'_>) {
        if let Some(align) = e.value().attr("align").and_then(parse_align) {
            self.align = align;
        }
        let Some(style) = e.value().attr("style") else {
            return;
        };
        for (name, value) in css::declarations(style) {
            match name.as_str() {
                "color" => {
                    if let Some(paint) = css::parse_paint(value) {
                        self.colour = paint.colour();
                    }
                }
                "font-size" => {
                    if let Some(px) = css::length(value, self.size_px).filter(|px| *px > 0.0) {
                        self.size_px = px;
                    }
                }
                "font-weight" => {
                    let v = value.to_ascii_lowercase();
                    match v.as_str() {
                        "bold" | "bolder" => self.bold = true,
                        "normal" | "lighter" => self.bold = false,
                        n => {
                            if let Ok(weight) = n.parse::<u32>() {
                                self.bold = weight >= 600;
                            }
                        }
                    }
                }
                "font-style" => {
                    let v = value.to_ascii_lowercase();
                    self.italic = v.starts_with("italic") || v.starts_with("oblique");
                }
                "text-decoration" | "text-decoration-line" => {
                    let v = value.to_ascii_lowercase();
                    if v.contains("none") {
                        self.underline = false;
                        self.strike = false;
                    }
                    if v.contains("underline") {
                        self.underline = true;
                    }
                    if v.contains("line-through") {
                        self.strike = true;
                    }
                }
                "text-align" => {
                    if let Some(align) = parse_align(value) {
                        self.align = align;
                    }
                }
                "white-space" => {
                    let v = value.to_ascii_lowercase();
                    self.preserve = v.starts_with("pre") || v == "break-spaces";
                }
                _ => {}
            }
        }
    }
}

fn parse_align(value: &str) -> Option<Align> {
    Some(match value.trim().to_ascii_lowercase().as_str() {
        "left" | "start" => Align::Left,
        "center" | "middle" => Align::Center,
        "right" | "end" => Align::Right,
        "justify" => Align::Justify,
        _ => return None,
    })
}

/// Collects paragraphs while walking a tree.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    done: Vec<Paragraph>,
    open: Option<Paragraph>,
    /// The list marker for the next paragraph opened (set by `li`, used once).
    pending_list: Option<List>,
}

impl Builder {
    /// The paragraphs, the last one closed.
    pub(crate) fn finish(mut self) -> Vec<Paragraph> {
        self.close();
        self.done
    }

    /// Walks the children of `parent` (the element itself only gives its style, which the
    /// caller has applied to `ctx`).
    pub(crate) fn children(
        &mut self,
        parent: NodeRef<'_>,
        ctx: &Context,
    ) -> Result<(), Unmappable> {
        for child in parent.children() {
            self.node(child, ctx)?;
        }
        Ok(())
    }

    /// Walks one node.
    pub(crate) fn node(&mut self, node: NodeRef<'_>, ctx: &Context) -> Result<(), Unmappable> {
        match node.value() {
            Node::Text(text) => {
                self.text(text, ctx);
                Ok(())
            }
            Node::Element(_) => {
                let e = ElementRef::wrap(node).expect("an element node wraps as an element");
                self.element(e, ctx)
            }
            _ => Ok(()),
        }
    }

    fn element(&mut self, e: ElementRef<'_>, ctx: &Context) -> Result<(), Unmappable> {
        if is_hidden(&e) {
            return Ok(());
        }
        let name = e.value().name();
        if is_unmappable(name) {
            return Err(Unmappable);
        }
        let mut inner = ctx.clone();
        match name {
            "br" => {
                self.line_break(ctx);
                return Ok(());
            }
            "hr" | "wbr" => return Ok(()),
            "ul" | "ol" | "menu" => {
                self.close();
                inner.lists.push(if name == "ol" {
                    ListKind::Numbered
                } else {
                    ListKind::Bullet
                });
                inner.apply_style(&e);
                self.children(*e, &inner)?;
                self.close();
                return Ok(());
            }
            "li" => {
                self.close();
                let depth = inner.lists.len();
                self.pending_list = Some(List {
                    kind: inner.lists.last().copied().unwrap_or(ListKind::Bullet),
                    level: depth.saturating_sub(1).min(8) as u8,
                });
                inner.apply_style(&e);
                self.children(*e, &inner)?;
                self.close();
                self.pending_list = None;
                return Ok(());
            }
            _ => {}
        }
        let block = is_block(name);
        if block {
            self.close();
        }
        if let Some(scale) = heading_scale(name) {
            inner.bold = true;
            inner.size_px *= scale;
            if inner.heading_colour.is_some() {
                inner.colour = inner.heading_colour;
            }
            if inner.heading_font.is_some() {
                inner.font = inner.heading_font.clone();
            }
        }
        match name {
            "strong" | "b" => inner.bold = true,
            "em" | "i" | "cite" | "var" | "dfn" | "address" => inner.italic = true,
            "u" | "ins" => inner.underline = true,
            "s" | "strike" | "del" => inner.strike = true,
            "small" => inner.size_px *= 5.0 / 6.0,
            "big" => inner.size_px *= 1.2,
            "pre" => {
                // As slides.css draws code: left-aligned, 0.55 em, in the code face.
                inner.preserve = true;
                inner.align = Align::Left;
                inner.size_px *= 0.55;
                inner.font = inner.code_font.clone().or(inner.font);
            }
            "code" | "kbd" | "samp" | "tt" => {
                inner.font = inner.code_font.clone().or(inner.font);
            }
            "a" => {
                if let Some(href) = e.value().attr("href").map(str::trim) {
                    if !href.is_empty() {
                        inner.link = Some(href.to_owned());
                    }
                    if inner.link_colour.is_some() {
                        inner.colour = inner.link_colour;
                    }
                }
            }
            "font" => {
                if let Some(colour) = e.value().attr("color").and_then(css::parse_colour) {
                    inner.colour = Some(colour);
                }
            }
            _ => {}
        }
        inner.apply_style(&e);
        self.children(*e, &inner)?;
        if block {
            self.close();
        }
        Ok(())
    }

    fn paragraph(&mut self, ctx: &Context) -> &mut Paragraph {
        let pending = &mut self.pending_list;
        self.open.get_or_insert_with(|| Paragraph {
            align: ctx.align,
            list: pending.take(),
            runs: Vec::new(),
        })
    }

    /// Appends text in the context's formatting, merging with the last run when that has
    /// the same formatting.
    fn push(&mut self, text: &str, ctx: &Context) {
        let paragraph = self.paragraph(ctx);
        let run = ctx.run(String::new());
        match paragraph.runs.last_mut() {
            Some(last) if same_format(last, &run) => last.text.push_str(text),
            _ => paragraph.runs.push(Run {
                text: text.to_owned(),
                ..run
            }),
        }
    }

    fn text(&mut self, text: &str, ctx: &Context) {
        if ctx.preserve {
            let text = text.replace("\r\n", "\n");
            if !text.is_empty() {
                self.push(&text, ctx);
            }
            return;
        }
        let mut collapsed = String::with_capacity(text.len());
        let mut space = false;
        for c in text.chars() {
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
                space = true;
            } else {
                if space {
                    collapsed.push(' ');
                    space = false;
                }
                collapsed.push(c);
            }
        }
        if space {
            collapsed.push(' ');
        }
        // A space at the start of a line, or after a space, is not shown.
        let after_space = match &self.open {
            None => true,
            Some(p) => p
                .runs
                .last()
                .and_then(|r| r.text.chars().last())
                .is_none_or(|c| c == ' ' || c == '\n'),
        };
        let shown = if after_space {
            collapsed.strip_prefix(' ').unwrap_or(&collapsed)
        } else {
            &collapsed
        };
        if !shown.is_empty() {
            self.push(shown, ctx);
        }
    }

    fn line_break(&mut self, ctx: &Context) {
        if let Some(last) = self.open.as_mut().and_then(|p| p.runs.last_mut())
            && !ctx.preserve
        {
            let trimmed = last.text.trim_end_matches(' ').len();
            last.text.truncate(trimmed);
        }
        self.push("\n", ctx);
    }

    /// Closes the open paragraph: trailing spaces and one trailing line break go (a
    /// browser shows neither), empty runs go; a paragraph left without text is kept only
    /// if it held a line break (`<p><br></p>`, a blank line).
    fn close(&mut self) {
        let Some(mut p) = self.open.take() else {
            return;
        };
        let had_break = p.runs.iter().any(|r| r.text.contains('\n'));
        if let Some(last) = p.runs.iter_mut().rev().find(|r| !r.text.is_empty()) {
            let trimmed = last.text.trim_end_matches(' ').len();
            last.text.truncate(trimmed);
            if last.text.ends_with('\n') {
                last.text.pop();
            }
        }
        let kept = p.runs.iter().position(|r| !r.text.is_empty());
        if kept.is_none() {
            if !had_break {
                return;
            }
            // A blank line: one empty run keeps its size for the line height.
            p.runs.truncate(1);
        } else {
            p.runs.retain(|r| !r.text.is_empty());
        }
        self.done.push(p);
    }
}

fn same_format(a: &Run, b: &Run) -> bool {
    a.bold == b.bold
        && a.italic == b.italic
        && a.underline == b.underline
        && a.strike == b.strike
        && a.size_px == b.size_px
        && a.colour == b.colour
        && a.link == b.link
        && a.font == b.font
}

/// Elements that start and end a paragraph.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "blockquote"
            | "pre"
            | "article"
            | "header"
            | "footer"
            | "main"
            | "nav"
            | "figure"
            | "figcaption"
            | "address"
            | "center"
            | "dl"
            | "dt"
            | "dd"
            | "details"
            | "summary"
            | "fieldset"
            | "caption"
    )
}
