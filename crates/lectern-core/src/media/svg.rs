//! SVG reduced to drawing content: the elements and presentation attributes of static
//! vector art, written out again from a parsed tree (so what is stored is well-formed and
//! holds nothing the parser did not understand). Dropped: `script`, `style`,
//! `foreignObject`, `image`, animation, links and every other element (with its content;
//! `a` and `switch` keep their children), event handlers and every attribute not listed,
//! `style` attributes, references that are not a local `#id` (`href` only on `use`, gradients
//! and patterns; `url(...)` only to `#id`), and `javascript:` anywhere. Comments,
//! processing instructions and the doctype go too. Documents that declare entities are
//! refused (entity expansion is how small XML files become huge).

use roxmltree::{Node, NodeType, ParsingOptions};

use crate::{Error, Result};

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// Deepest element nesting accepted.
const MAX_DEPTH: usize = 256;
/// Most nodes in one document.
const MAX_NODES: u32 = 1_000_000;

/// The elements kept.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "defs",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "mask",
    "pattern",
    "symbol",
    "use",
    "title",
    "desc",
];

/// Elements dropped but whose children are kept.
const UNWRAPPED: &[&str] = &["a", "switch"];

/// Elements that may name another element of the document by `href="#id"`.
const LINKING: &[&str] = &["use", "linearGradient", "radialGradient", "pattern"];

/// The attributes kept (geometry and presentation).
const ATTRIBUTES: &[&str] = &[
    "id",
    "class",
    "version",
    "viewBox",
    "preserveAspectRatio",
    "width",
    "height",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "fr",
    "d",
    "points",
    "pathLength",
    "transform",
    "offset",
    "gradientUnits",
    "gradientTransform",
    "spreadMethod",
    "patternUnits",
    "patternContentUnits",
    "patternTransform",
    "clipPathUnits",
    "maskUnits",
    "maskContentUnits",
    "dx",
    "dy",
    "rotate",
    "textLength",
    "lengthAdjust",
    // Presentation attributes.
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-miterlimit",
    "opacity",
    "color",
    "stop-color",
    "stop-opacity",
    "clip-path",
    "clip-rule",
    "mask",
    "visibility",
    "display",
    "overflow",
    "vector-effect",
    "shape-rendering",
    "text-rendering",
    "paint-order",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "font-variant",
    "text-anchor",
    "dominant-baseline",
    "alignment-baseline",
    "baseline-shift",
    "letter-spacing",
    "word-spacing",
    "text-decoration",
    "writing-mode",
    "direction",
];

/// A sanitized SVG document and its size, when it states one in pixels.
#[derive(Debug)]
pub(super) struct CleanSvg {
    pub text: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

fn as_text(input: &[u8]) -> Option<&str> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    std::str::from_utf8(input).ok()
}

/// Whether the bytes are text that could be an SVG document (decided by parsing it).
pub(super) fn looks_like_svg(input: &[u8]) -> bool {
    as_text(input).is_some_and(|t| t.trim_start().starts_with('<') && t.contains("<svg"))
}

fn not_svg(reason: impl std::fmt::Display) -> Error {
    Error::invalid(format!("the file is not a usable SVG image: {reason}"))
}

/// Parses `input` and writes out what is kept of it.
pub(super) fn sanitize(input: &[u8]) -> Result<CleanSvg> {
    let text = as_text(input).ok_or_else(|| not_svg("it is not UTF-8 text"))?;
    if text.contains("<!ENTITY") {
        return Err(not_svg(
            "documents that declare XML entities are not accepted",
        ));
    }
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(not_svg)?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" || !in_svg_namespace(root) {
        return Err(not_svg("its root element is not <svg>"));
    }
    let mut out = String::with_capacity(text.len().min(1 << 20));
    write_element(root, 0, true, &mut out)?;
    Ok(CleanSvg {
        text: out,
        width: root.attribute("width").and_then(pixels),
        height: root.attribute("height").and_then(pixels),
    })
}

/// SVG elements are in the SVG namespace; a document that forgot `xmlns` is read as SVG too.
fn in_svg_namespace(node: Node) -> bool {
    matches!(node.tag_name().namespace(), None | Some(SVG_NS))
}

/// A length in pixels (`120`, `120.5`, `120px`), rounded; other units give no size.
fn pixels(value: &str) -> Option<u32> {
    let v = value.trim();
    let v = v.strip_suffix("px").unwrap_or(v).trim();
    let n: f64 = v.parse().ok()?;
    (n.is_finite() && n >= 1.0 && n <= f64::from(u32::MAX)).then(|| n.round() as u32)
}

fn write_element(node: Node, depth: usize, is_root: bool, out: &mut String) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(not_svg(format!(
            "elements are nested more than {MAX_DEPTH} deep"
        )));
    }
    let name = node.tag_name().name();
    if !in_svg_namespace(node) {
        return Ok(());
    }
    if UNWRAPPED.contains(&name) {
        return write_children(node, depth, out);
    }
    if !ELEMENTS.contains(&name) {
        return Ok(());
    }
    out.push('<');
    out.push_str(name);
    if is_root {
        out.push_str(" xmlns=\"");
        out.push_str(SVG_NS);
        out.push_str("\" xmlns:xlink=\"");
        out.push_str(XLINK_NS);
        out.push('"');
    }
    for attr in node.attributes() {
        let local = attr.name();
        let value = attr.value();
        let written = match attr.namespace() {
            None if local == "href" => LINKING.contains(&name) && is_local_ref(value),
            Some(XLINK_NS) if local == "href" => LINKING.contains(&name) && is_local_ref(value),
            Some(XML_NS) if local == "space" => true,
            None => ATTRIBUTES.contains(&local) && is_safe_value(value),
            Some(_) => false,
        };
        if !written {
            continue;
        }
        out.push(' ');
        match attr.namespace() {
            Some(XLINK_NS) => out.push_str("xlink:"),
            Some(XML_NS) => out.push_str("xml:"),
            _ => {}
        }
        out.push_str(local);
        out.push_str("=\"");
        escape(value, true, out);
        out.push('"');
    }
    out.push('>');
    write_children(node, depth, out)?;
    out.push_str("</");
    out.push_str(name);
    out.push('>');
    Ok(())
}

fn write_children(node: Node, depth: usize, out: &mut String) -> Result<()> {
    for child in node.children() {
        match child.node_type() {
            NodeType::Element => write_element(child, depth + 1, false, out)?,
            NodeType::Text => escape(child.text().unwrap_or(""), false, out),
            _ => {}
        }
    }
    Ok(())
}

/// `#id` naming an element of the same document.
fn is_local_ref(value: &str) -> bool {
    value.strip_prefix('#').is_some_and(|id| {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    })
}

/// No script and no reference outside the document: `javascript:` nowhere (in any spelling
/// XML lets through: case, whitespace, control characters) and every `url(` pointing at
/// `#id`.
fn is_safe_value(value: &str) -> bool {
    let squashed: String = value
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .flat_map(char::to_lowercase)
        .collect();
    if squashed.contains("javascript:") || squashed.contains("vbscript:") {
        return false;
    }
    let mut rest = squashed.as_str();
    while let Some(at) = rest.find("url(") {
        rest = &rest[at + 4..];
        let target = rest.trim_start_matches(['"', '\'']);
        if !target.starts_with('#') {
            return false;
        }
    }
    // CSS escapes could spell either of the above.
    !squashed.contains('\\')
}

fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}
