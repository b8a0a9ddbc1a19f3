//! The slide HTML rules of interface 2.9.1, in one place: a slide is exactly one `<section>`,
//! with no `<section>` inside it and only known attributes on it. The input is parsed with
//! html5ever (through `scraper`), which builds the same tree a browser would; the stored form
//! is re-serialised from that tree with `data-id` set to the slide id.

use scraper::{ElementRef, Html, Node};

mod nesting;
mod urls;

use crate::{Error, Result};

/// Largest accepted slide HTML, in bytes. The interface sets no limit; this keeps one slide
/// from filling the database and is far above any hand-made slide.
pub const MAX_SLIDE_HTML_BYTES: usize = 1_000_000;

/// Largest speaker notes, in characters (interface section 8).
pub const MAX_NOTES_CHARS: usize = 10_000;

/// Attributes allowed on a slide's `<section>` besides the `data-background*` and
/// `data-auto-animate*` families: the reveal.js per-slide settings and the global
/// presentation attributes.
pub const ALLOWED_SECTION_ATTRIBUTES: &[&str] = &[
    "class",
    "id",
    "style",
    "title",
    "lang",
    "dir",
    "hidden",
    "data-id",
    "data-transition",
    "data-transition-speed",
    "data-autoslide",
    "data-state",
    "data-visibility",
    "data-timing",
    "data-notes",
    "data-menu-title",
    "data-markdown",
    "data-separator",
    "data-separator-vertical",
    "data-separator-notes",
    "data-charset",
];

/// Whether `name` may appear on a slide's `<section>`.
pub fn is_allowed_section_attribute(name: &str) -> bool {
    ALLOWED_SECTION_ATTRIBUTES.contains(&name)
        || name.starts_with("data-background")
        || name.starts_with("data-auto-animate")
}

/// Longest `text_preview` of a slide summary, in characters.
pub const TEXT_PREVIEW_CHARS: usize = 200;

/// A slide's HTML that passed the rules: one `<section>` with allowed attributes, stored
/// without its `data-id` (the id is added by [`SlideHtml::render`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlideHtml {
    /// Attributes of the section in document order, without `data-id`.
    attributes: Vec<(String, String)>,
    /// The section's content, serialised by html5ever.
    inner: String,
    /// Text of the first heading (`h1`-`h6`), whitespace collapsed; empty without one.
    pub title: String,
    /// The visible text, whitespace collapsed, at most [`TEXT_PREVIEW_CHARS`] characters.
    pub text_preview: String,
}

impl SlideHtml {
    /// The blank slide: an empty `<section>`.
    pub fn blank() -> Self {
        SlideHtml {
            attributes: Vec::new(),
            inner: String::new(),
            title: String::new(),
            text_preview: String::new(),
        }
    }

    /// Checks `input` against the slide rules.
    pub fn parse(input: &str) -> Result<Self> {
        let slide = Self::parse_once(input)?;
        // Most input is already in the stored form but for the slide id: the section's
        // attributes quoted as `render` quotes them, the content as html5ever serialises it.
        // Its stored form is then the input with a `data-id` first, which html5ever reads as
        // it read the input (an attribute of a <section> changes nothing in the tree built),
        // so it reads back as itself without being read again.
        let stored = slide.render("x");
        let in_stored_form = input
            .strip_prefix("<section")
            .is_some_and(|rest| stored.strip_prefix("<section data-id=\"x\"") == Some(rest));
        if in_stored_form {
            return Ok(slide);
        }
        Self::parse_until_stable(stored)
    }

    /// The slide read from `stored` (a stored form, with the id `x`), read again from its
    /// own stored form until that reads back as itself.
    fn parse_until_stable(mut stored: String) -> Result<Self> {
        // html5ever repairs misnested markup (an <a> inside an <a>, formatting elements
        // across a <template>) and may repair its own output differently when it reads it
        // again; keep reading until the stored form reads back as itself, so a stored slide
        // is stable across round trips.
        for _ in 0..4 {
            let again = Self::parse_once(&stored)?;
            let rendered = again.render("x");
            if rendered == stored {
                return Ok(again);
            }
            stored = rendered;
        }
        Err(Error::invalid(
            "html is too malformed to store in a stable form; check that its elements are closed and nested",
        ))
    }

    /// One parse: the section's attributes and content as html5ever builds them.
    fn parse_once(input: &str) -> Result<Self> {
        if input.len() > MAX_SLIDE_HTML_BYTES {
            return Err(Error::invalid(format!(
                "html is larger than {MAX_SLIDE_HTML_BYTES} bytes"
            )));
        }
        check_nesting(input)?;
        let doc = Html::parse_fragment(input);
        // A fragment parses into <html> holding the top-level nodes.
        let root = doc
            .root_element()
            .children()
            .find_map(ElementRef::wrap)
            .filter(|e| e.value().name() == "html")
            .unwrap_or_else(|| doc.root_element());
        let mut section = None;
        for child in root.children() {
            match child.value() {
                Node::Element(el) => {
                    if el.name() != "section" {
                        return Err(Error::invalid(format!(
                            "html must be a single <section> element; found <{}> outside it",
                            el.name()
                        )));
                    }
                    if section.is_some() {
                        return Err(Error::invalid(
                            "html must contain exactly one <section> element; found more than one",
                        ));
                    }
                    section = ElementRef::wrap(child);
                }
                Node::Text(text) if text.trim().is_empty() => {}
                Node::Text(_) => {
                    return Err(Error::invalid(
                        "html must be a single <section> element; found text outside it",
                    ));
                }
                // Comments, doctypes and processing instructions outside the section are
                // dropped.
                _ => {}
            }
        }
        let section = section.ok_or_else(|| {
            Error::invalid("html must contain exactly one <section> element; found none")
        })?;
        if section
            .descendants()
            .skip(1)
            .filter_map(ElementRef::wrap)
            .any(|e| e.value().name() == "section")
        {
            return Err(Error::invalid(
                "nested <section> elements are not allowed in a slide",
            ));
        }
        if tree_depth(section) > MAX_NESTING_DEPTH {
            return Err(too_deep());
        }
        for element in section.descendants().filter_map(ElementRef::wrap) {
            for (name, value) in element.value().attrs() {
                if let Some(problem) = urls::loaded_url_problem(name, value) {
                    return Err(Error::invalid(format!(
                        "<{}>: {problem}",
                        element.value().name()
                    )));
                }
            }
        }
        let mut attributes = Vec::new();
        for (name, value) in section.value().attrs() {
            if !is_allowed_section_attribute(name) {
                return Err(Error::invalid(format!(
                    "attribute '{name}' is not allowed on a slide's <section>"
                )));
            }
            if name != "data-id" {
                attributes.push((name.to_string(), value.to_string()));
            }
        }
        let title = section
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| matches!(e.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
            .map(|h| collapse_whitespace(&visible_text(h), usize::MAX))
            .unwrap_or_default();
        Ok(SlideHtml {
            attributes,
            // A carriage return (only reachable as `&#13;`) would come back as a line feed
            // when the stored form is parsed again; keep it a reference so it round-trips.
            inner: section.inner_html().replace('\r', "&#13;"),
            title,
            text_preview: collapse_whitespace(&visible_text(section), TEXT_PREVIEW_CHARS),
        })
    }

    /// The title and text preview of a slide's stored form (which already follows the
    /// rules and reads back as itself, so one parse is enough); empty for anything else.
    pub fn summarize_stored(stored: &str) -> (String, String) {
        // Only what the summary needs: no checks and no serialisation of the content.
        let doc = Html::parse_fragment(stored);
        let Some(section) = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "section")
        else {
            return Default::default();
        };
        let title = section
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| matches!(e.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
            .map(|h| collapse_whitespace(&visible_text(h), usize::MAX))
            .unwrap_or_default();
        (
            title,
            collapse_whitespace(&visible_text(section), TEXT_PREVIEW_CHARS),
        )
    }

    /// The stored and returned form: the section with `data-id` equal to the slide id first.
    pub fn render(&self, slide_id: &str) -> String {
        let mut out = String::with_capacity(self.inner.len() + 64);
        out.push_str("<section data-id=\"");
        push_attribute_value(&mut out, slide_id);
        out.push('"');
        for (name, value) in &self.attributes {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            push_attribute_value(&mut out, value);
            out.push('"');
        }
        out.push('>');
        out.push_str(&self.inner);
        out.push_str("</section>");
        out
    }
}

/// The text a reader sees: every text node except those inside `script`, `style`,
/// `template`, `noscript` and speaker notes (`aside.notes`).
fn visible_text(root: ElementRef<'_>) -> String {
    let mut out = String::new();
    for node in root.descendants() {
        if let Node::Text(text) = node.value() {
            let hidden = node.ancestors().filter_map(ElementRef::wrap).any(|e| {
                matches!(
                    e.value().name(),
                    "script" | "style" | "template" | "noscript"
                ) || (e.value().name() == "aside" && e.value().classes().any(|c| c == "notes"))
            });
            if !hidden {
                out.push_str(text);
                out.push(' ');
            }
        }
    }
    out
}

/// Joins words with single spaces and keeps at most `max_chars` characters.
fn collapse_whitespace(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        let sep = usize::from(!out.is_empty());
        if count + sep >= max_chars {
            break;
        }
        if sep == 1 {
            out.push(' ');
            count += 1;
        }
        for c in word.chars() {
            if count == max_chars {
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// The allowlist for rendering slides to visitors: what authors use (inline styles, classes,
/// `data-*`, images, SVG shapes, tables, code, fragments, absolutely positioned blocks), and
/// nothing that runs script: no `script`, no event handlers, no `javascript:` URLs.
fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: std::sync::OnceLock<ammonia::Builder<'static>> = std::sync::OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.add_tags([
            "section",
            "aside",
            "figure",
            "figcaption",
            "video",
            "audio",
            "source",
            "svg",
            "g",
            "path",
            "circle",
            "ellipse",
            "rect",
            "line",
            "polyline",
            "polygon",
            "text",
            "tspan",
            "defs",
            "lineargradient",
            "radialgradient",
            "stop",
            "mark",
            "kbd",
            "s",
            "u",
        ])
        .add_generic_attributes(["class", "id", "style", "title", "lang", "dir", "hidden"])
        .add_generic_attribute_prefixes(["data-"])
        .add_tag_attributes("img", ["width", "height", "loading"])
        .add_tag_attributes(
            "video",
            [
                "src",
                "controls",
                "autoplay",
                "loop",
                "muted",
                "poster",
                "width",
                "height",
                "playsinline",
            ],
        )
        .add_tag_attributes("audio", ["src", "controls", "autoplay", "loop", "muted"])
        .add_tag_attributes("source", ["src", "type"])
        .add_tag_attributes("td", ["colspan", "rowspan"])
        .add_tag_attributes("th", ["colspan", "rowspan"])
        .add_tag_attributes(
            "svg",
            [
                "viewbox",
                "width",
                "height",
                "xmlns",
                "fill",
                "stroke",
                "preserveaspectratio",
            ],
        )
        .add_tag_attributes("path", ["d", "fill", "stroke", "stroke-width", "transform"])
        .add_tag_attributes(
            "circle",
            ["cx", "cy", "r", "fill", "stroke", "stroke-width"],
        )
        .add_tag_attributes(
            "ellipse",
            ["cx", "cy", "rx", "ry", "fill", "stroke", "stroke-width"],
        )
        .add_tag_attributes(
            "rect",
            [
                "x",
                "y",
                "width",
                "height",
                "rx",
                "ry",
                "fill",
                "stroke",
                "stroke-width",
            ],
        )
        .add_tag_attributes("line", ["x1", "y1", "x2", "y2", "stroke", "stroke-width"])
        .add_tag_attributes("polyline", ["points", "fill", "stroke", "stroke-width"])
        .add_tag_attributes("polygon", ["points", "fill", "stroke", "stroke-width"])
        .add_tag_attributes("g", ["transform", "fill", "stroke"])
        .add_tag_attributes("text", ["x", "y", "fill", "font-size", "text-anchor"])
        .add_tag_attributes("tspan", ["x", "y", "dx", "dy"])
        .add_tag_attributes("stop", ["offset", "stop-color"])
        .add_url_schemes(["data"])
        // The URLs that reveal.js loads from data-* attributes: stored slides are checked
        // (see `urls`), and what was stored before that rule is dropped here.
        .attribute_filter(|_, name, value| {
            if urls::loaded_url_problem(name, value).is_some() {
                None
            } else {
                Some(value.into())
            }
        })
        .link_rel(Some("noopener noreferrer"));
        b
    })
}

/// Slide HTML made safe to show to another person: see [`sanitizer`].
pub fn sanitize_for_viewing(html: &str) -> String {
    sanitizer().clean(html).to_string()
}

/// Escapes text for HTML element content and for single- or double-quoted attributes: the
/// one escaper of pages, notes and imported text.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes an attribute value for a double-quoted attribute of the stored form (its own
/// rules keep the stored form stable across round trips).
fn push_attribute_value(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

/// Deepest nesting of elements inside a slide's `<section>` (a slide made by hand or by the
/// editor nests a dozen deep; browsers stop nesting at 512).
pub const MAX_NESTING_DEPTH: usize = 100;

/// The estimate of [`nesting::nests_deeper_than`] above which input is refused before it is
/// parsed: the true depth is at most about twice the estimate, and html5ever's cost grows
/// with elements × depth, so this bounds that cost.
const MAX_ESTIMATED_NESTING: usize = 2 * MAX_NESTING_DEPTH + 56;

fn too_deep() -> Error {
    Error::invalid(format!(
        "html nests elements more than {MAX_NESTING_DEPTH} deep"
    ))
}

/// Refuses markup nested so deep that parsing it would be slow, before it is parsed (slides
/// and imported documents).
pub fn check_nesting(input: &str) -> Result<()> {
    if nesting::nests_deeper_than(input, MAX_ESTIMATED_NESTING) {
        return Err(too_deep());
    }
    Ok(())
}

/// How many elements deep the tree under `root` goes (`root` itself is 0).
fn tree_depth(root: ElementRef<'_>) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for edge in root.traverse() {
        match edge {
            ego_tree::iter::Edge::Open(n) if n.value().is_element() => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ego_tree::iter::Edge::Close(n) if n.value().is_element() => depth -= 1,
            _ => {}
        }
    }
    deepest.saturating_sub(1)
}

/// Speaker notes that passed the length rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notes(String);

impl Notes {
    /// Checks the 10,000-character limit (characters, not bytes).
    pub fn parse(input: String) -> Result<Self> {
        if input.chars().count() > MAX_NOTES_CHARS {
            return Err(Error::invalid(format!(
                "notes must be at most {MAX_NOTES_CHARS} characters"
            )));
        }
        Ok(Notes(input))
    }

    /// The notes text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The notes text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests;
