//! The slide HTML rules of interface 2.9.1, in one place: a slide is exactly one `<section>`,
//! with no `<section>` inside it and only known attributes on it. The input is parsed with
//! html5ever (through `scraper`), which builds the same tree a browser would; the stored form
//! is re-serialised from that tree with `data-id` set to the slide id.

use scraper::{ElementRef, Html, Node};

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
        let mut slide = Self::parse_once(input)?;
        // html5ever repairs misnested markup (an <a> inside an <a>, formatting elements
        // across a <template>) and may repair its own output differently when it reads it
        // again; keep reading until the stored form reads back as itself, so a stored slide
        // is stable across round trips.
        for _ in 0..4 {
            let stored = slide.render("x");
            let again = Self::parse_once(&stored)?;
            if again.render("x") == stored {
                return Ok(again);
            }
            slide = again;
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
        Self::parse_once(stored)
            .map(|s| (s.title, s.text_preview))
            .unwrap_or_default()
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The stored form a fuzz run (in CI) found unstable: html5ever repairs misnesting like
    /// this (an <a> in an <a> across a <template>) again when it reads its own output, so
    /// one parse is not always a stable stored form; `parse` reads until it is.
    #[test]
    fn misnested_markup_is_stored_in_a_form_that_reads_back_as_itself() {
        let input = "<section data-id=\"s1\"><template href=\"javascript:alert(1)\" xlink:href=\"javascript:alert(1)\"><!-- c -->Note:\n---\n<a href=\"javascript:alert(1)\"><!-- c -->&gt;L/ \"yNote:\n<template href=\"javascript:alert(1)\">---\n&amp;&lt;&lt;<img>---\n--\n&amp;&lt;&lt;---\n--\n\n\n\"#&gt;I<a ---=\"\" <![cdata[x]]=\"\" x=\"\"><!-- c -->--\nNote:\n---\n<object><!-- c --> p<div href=\"javascript:alert(1)\" src=\"java\tscript:alert(1)\"></div></object></a></template></a><a ---=\"\" <![cdata[x]]=\"\" x=\"\">Note:\n<object data-background-color=\"#fff\">&amp;&lt;&lt;</object></a></template></section>";
        let stored = ok(input).render("s1");
        assert_eq!(ok(&stored).render("s1"), stored);
        assert_eq!(SlideHtml::parse_once(&stored).unwrap().render("s1"), stored);
    }

    fn ok(input: &str) -> SlideHtml {
        SlideHtml::parse(input).unwrap_or_else(|e| panic!("{input:?} rejected: {e}"))
    }

    fn rejected(input: &str) -> String {
        match SlideHtml::parse(input) {
            Err(Error::Invalid(msg)) => msg,
            other => panic!("{input:?} was not rejected: {other:?}"),
        }
    }

    #[test]
    fn a_simple_section_is_accepted_and_gets_the_slide_id() {
        let html = ok("<section><h1>Hello</h1><p>World</p></section>");
        assert_eq!(
            html.render("abc"),
            "<section data-id=\"abc\"><h1>Hello</h1><p>World</p></section>"
        );
    }

    #[test]
    fn a_carriage_return_reference_survives_a_round_trip() {
        // Found by the fuzz targets: a raw CR in the stored form came back as LF.
        let stored = ok("<section title=\"a&#13;b\">x&#Xd;y</section>").render("s");
        assert_eq!(
            stored,
            "<section data-id=\"s\" title=\"a&#13;b\">x&#13;y</section>"
        );
        assert_eq!(ok(&stored).render("s"), stored);
    }

    #[test]
    fn surrounding_whitespace_and_comments_are_fine() {
        let html = ok("  <!-- intro -->\n<section><!-- inner --><p>x</p></section>\n");
        assert_eq!(
            html.render("s"),
            "<section data-id=\"s\"><!-- inner --><p>x</p></section>"
        );
    }

    #[test]
    fn the_blank_slide_is_an_empty_section() {
        assert_eq!(
            SlideHtml::blank().render("a"),
            "<section data-id=\"a\"></section>"
        );
        assert_eq!(ok("<section></section>"), SlideHtml::blank());
    }

    #[test]
    fn a_client_data_id_never_overrides_the_slide_id() {
        let html = ok("<section data-id=\"evil\" class=\"x\"></section>");
        assert_eq!(
            html.render("real"),
            "<section data-id=\"real\" class=\"x\"></section>"
        );
    }

    #[test]
    fn reveal_attributes_are_accepted() {
        ok(
            r##"<section data-background-color="#fff" data-background-image="a.png"
            data-transition="zoom" data-auto-animate data-auto-animate-id="a"
            class="c" id="i" style="color:red"></section>"##,
        );
    }

    #[test]
    fn nested_sections_are_rejected() {
        assert!(rejected("<section><section>a</section></section>").contains("nested"));
        assert!(rejected("<section><div><section></section></div></section>").contains("nested"));
    }

    #[test]
    fn two_sections_are_rejected() {
        assert!(rejected("<section>a</section><section>b</section>").contains("more than one"));
    }

    #[test]
    fn no_section_is_rejected() {
        assert!(rejected("").contains("found none"));
        assert!(rejected("   ").contains("found none"));
        assert!(rejected("<!-- only a comment -->").contains("found none"));
        assert!(rejected("<div>hi</div>").contains("<div>"));
    }

    #[test]
    fn text_outside_the_section_is_rejected() {
        assert!(rejected("hello <section></section>").contains("text outside"));
        assert!(rejected("<section></section> trailing").contains("text outside"));
    }

    #[test]
    fn unknown_attributes_are_rejected() {
        assert!(rejected("<section onclick=\"x()\"></section>").contains("onclick"));
        assert!(rejected("<section data-foo=\"1\"></section>").contains("data-foo"));
    }

    #[test]
    fn malformed_markup_is_repaired_or_rejected_like_a_browser_would() {
        // An unclosed section is closed by the parser, as in a browser.
        assert_eq!(
            ok("<section><p>hi").render("a"),
            "<section data-id=\"a\"><p>hi</p></section>"
        );
        // A section opened inside an unclosed one is a nested section.
        assert!(rejected("<section><p>a<section>b").contains("nested"));
        // An element outside the section is reported.
        assert!(rejected("<p>x</p><section></section>").contains("<p>"));
    }

    #[test]
    fn attribute_values_are_escaped_on_output() {
        let html = ok("<section title='a\"b&amp;c'></section>");
        assert_eq!(
            html.render("x"),
            "<section data-id=\"x\" title=\"a&quot;b&amp;c\"></section>"
        );
    }

    #[test]
    fn summaries_take_the_first_heading_and_the_visible_text() {
        let html = ok(
            "<section>\n <p>Intro</p><h2>  The   Title </h2><script>x()</script>\n<aside class=\"notes\">secret</aside><p>end</p></section>",
        );
        assert_eq!(html.title, "The Title");
        assert_eq!(html.text_preview, "Intro The Title end");
        assert_eq!(ok("<section><p>no heading</p></section>").title, "");
    }

    #[test]
    fn previews_are_cut_on_a_character_boundary() {
        let long = format!("<section><p>{}</p></section>", "é".repeat(500));
        let html = ok(&long);
        assert_eq!(html.text_preview.chars().count(), TEXT_PREVIEW_CHARS);
        let words = format!("<section>{}</section>", "ab ".repeat(300));
        assert!(ok(&words).text_preview.chars().count() <= TEXT_PREVIEW_CHARS);
    }

    #[test]
    fn viewing_removes_script_but_keeps_layout() {
        let dirty = r##"<section data-id="a" data-background-color="#000"><div class="sl-block" data-block-type="text" style="left:10px;top:20px;width:300px;height:50px;position:absolute"><p class="fragment">Hi</p></div><img src="x.png" onerror="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)">x</a><svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="red"></circle></svg></section>"##;
        let clean = sanitize_for_viewing(dirty);
        assert!(
            !clean.contains("script")
                && !clean.contains("onerror")
                && !clean.contains("javascript:"),
            "{clean}"
        );
        assert!(
            clean.contains(
                r#"style="left:10px;top:20px;width:300px;height:50px;position:absolute""#
            ),
            "{clean}"
        );
        assert!(
            clean.contains(r#"data-block-type="text""#) && clean.contains(r#"class="fragment""#)
        );
        assert!(
            clean.contains("<circle") && clean.contains(r##"data-background-color="#000""##),
            "{clean}"
        );
    }

    #[test]
    fn notes_longer_than_10000_characters_are_rejected() {
        assert!(Notes::parse("é".repeat(10_000)).is_ok());
        assert!(Notes::parse("a".repeat(10_001)).is_err());
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(input in ".{0,300}") {
            let _ = SlideHtml::parse(&input);
        }

        #[test]
        fn accepted_html_reparses_to_the_same_slide(
            inner in "[a-zA-Z0-9 <>/&\"'=-]{0,120}",
            class in "[a-z0-9 \"&<>]{0,20}",
        ) {
            let input = format!("<section class=\"{}\">{inner}</section>", class.replace('"', "&quot;"));
            if let Ok(html) = SlideHtml::parse(&input) {
                let rendered = html.render("id1");
                let again = SlideHtml::parse(&rendered).expect("rendered html is valid");
                prop_assert_eq!(again.render("id1"), rendered);
            }
        }

        #[test]
        fn text_after_the_section_is_always_rejected(text in "[a-z]{1,20}") {
            let input = format!("<section></section>{text}");
            prop_assert!(SlideHtml::parse(&input).is_err());
        }
    }
}
