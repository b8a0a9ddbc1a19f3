//! reveal.js HTML documents: the sections inside `.reveal .slides` (or the document's
//! top-level sections), nested sections as a vertical group, `<aside class="notes">` as
//! notes; the theme stylesheet's presets, `Reveal.initialize`'s settings, backgrounds of a
//! vertical group given to its slides, and Markdown sections (`data-markdown`,
//! `<script type="text/template">`) drawn as reveal.js's Markdown plugin would.

use scraper::{ElementRef, Html, Node, Selector};
use serde_json::{Map, Value, json};

use super::{ImportedDeck, theme_css, theme_settings};
use crate::deck::NewSlide;
use crate::html::{Notes, SlideHtml, escape};
use crate::{Error, Result};

/// A selector written in this file.
fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a valid selector")
}

fn is_notes(el: &ElementRef<'_>) -> bool {
    el.value().name() == "aside" && el.value().classes().any(|c| c == "notes")
}

fn child_sections<'a>(section: ElementRef<'a>) -> Vec<ElementRef<'a>> {
    section
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "section")
        .collect()
}

/// One reveal.js `<section>` as a slide: `<aside class="notes">` children become the notes;
/// `inherited` attributes (a vertical group's backgrounds) apply where it has none of its own.
fn html_slide(
    section: ElementRef<'_>,
    label: &str,
    inherited: &[(String, String)],
) -> Result<NewSlide> {
    let mut inner = String::new();
    let mut notes: Vec<String> = Vec::new();
    for child in section.children() {
        match child.value() {
            Node::Element(_) => {
                let el = ElementRef::wrap(child).expect("an element node wraps");
                if is_notes(&el) {
                    let text: String = el.text().collect();
                    notes.push(text.trim().to_string());
                } else {
                    inner.push_str(&el.html());
                }
            }
            Node::Text(t) => inner.push_str(&escape(t)),
            Node::Comment(c) => inner.push_str(&format!("<!--{}-->", &**c)),
            _ => {}
        }
    }
    let mut open = String::from("<section");
    for (name, value) in section.value().attrs() {
        open.push_str(&format!(" {name}=\"{}\"", escape(value)));
    }
    for (name, value) in inherited {
        if section.value().attr(name).is_none() {
            open.push_str(&format!(" {name}=\"{}\"", escape(value)));
        }
    }
    let html = SlideHtml::parse(&format!("{open}>{inner}</section>"))
        .map_err(|e| Error::invalid(format!("{label}: {e}")))?;
    let notes = if notes.is_empty() {
        None
    } else {
        Some(
            Notes::parse(notes.join("\n\n"))
                .map_err(|e| Error::invalid(format!("{label}: {e}")))?,
        )
    };
    Ok(NewSlide { html, notes })
}

/// Parses a reveal.js HTML document: the sections inside `.reveal .slides` (or, without
/// that wrapper, the document's top-level sections); nested sections form a vertical group.
pub fn parse_reveal_html(text: &str) -> Result<ImportedDeck> {
    crate::text::refuse_nul("the imported file", text)?;
    crate::html::check_nesting(text)?;
    let doc = Html::parse_document(text);
    let top: Vec<ElementRef<'_>> = match doc.select(&selector(".reveal .slides, .slides")).next() {
        Some(container) => child_sections(container),
        None => doc
            .select(&selector("section"))
            .filter(|s| {
                !s.ancestors()
                    .filter_map(ElementRef::wrap)
                    .any(|a| a.value().name() == "section")
            })
            .collect(),
    };
    if top.is_empty() {
        return Err(Error::invalid("the document has no <section> slides"));
    }
    let mut settings = Map::new();
    let mut dropped = Vec::new();
    let mut stacks = Vec::with_capacity(top.len());
    for (h, section) in top.into_iter().enumerate() {
        let label = format!("slide {}", h + 1);
        if is_markdown(section) {
            stacks.extend(markdown_section(section, &label, &mut dropped)?);
            continue;
        }
        let nested = child_sections(section);
        if nested.is_empty() {
            stacks.push(vec![html_slide(section, &label, &[])?]);
            continue;
        }
        // The group's backgrounds reach its slides, as reveal.js shows them.
        let backgrounds: Vec<(String, String)> = section
            .value()
            .attrs()
            .filter(|(name, _)| name.starts_with("data-background"))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        let mut group = Vec::with_capacity(nested.len());
        for (v, sub) in nested.into_iter().enumerate() {
            let label = format!("slide {}.{}", h + 1, v + 1);
            if !child_sections(sub).is_empty() {
                return Err(Error::invalid(format!(
                    "{label}: sections nest at most two levels deep (a vertical group of slides)"
                )));
            }
            if is_markdown(sub) {
                group.extend(
                    markdown_section(sub, &label, &mut dropped)?
                        .into_iter()
                        .flatten(),
                );
            } else {
                group.push(html_slide(sub, &label, &backgrounds)?);
            }
        }
        stacks.push(group);
    }
    if let Some(t) = doc.select(&selector("title")).next() {
        settings.insert("title".into(), json!(t.text().collect::<String>().trim()));
    }
    let mut css = String::new();
    for link in doc.select(&selector("link[rel=stylesheet][href]")) {
        let href = link.value().attr("href").unwrap_or_default();
        let file = href.rsplit('/').next().unwrap_or_default();
        let theme = file.strip_suffix(".css").unwrap_or(file);
        if href.contains("theme/") && !theme_settings(theme).is_empty() {
            settings.extend(theme_settings(theme));
            css.push_str(&theme_css(theme).unwrap_or_default());
        } else if !is_own_file(href) {
            dropped.push(format!("the stylesheet {href}"));
        }
    }
    lectern_page_settings(&doc, &mut settings);
    let styles: String = doc
        .select(&selector("style"))
        .flat_map(|s| s.text())
        .collect();
    if !styles.trim().is_empty() {
        match crate::css::clean(&styles) {
            Ok(clean) => {
                css.push_str(&clean.css);
                if !css.ends_with('\n') {
                    css.push('\n');
                }
                dropped.extend(
                    clean
                        .dropped
                        .into_iter()
                        .map(|d| format!("from the <style> blocks: {d}")),
                );
            }
            Err(e) => dropped.push(format!("the document's <style> blocks ({e})")),
        }
    }
    for script in doc.select(&selector("script")) {
        match script.value().attr("src") {
            Some(src) if !is_own_file(src) => dropped.push(format!("the script {src}")),
            Some(_) => {}
            None => {
                let code: String = script.text().collect();
                if let Some(options) = code.split("Reveal.initialize(").nth(1) {
                    initialize_options(options, &mut settings, &mut dropped);
                } else if !matches!(
                    script.value().attr("type"),
                    Some("text/template" | "application/json")
                ) && !code.trim().is_empty()
                {
                    dropped.push("an inline script".into());
                }
            }
        }
    }
    Ok(ImportedDeck::new(stacks, settings, css, dropped))
}

/// Whether a stylesheet or script is reveal.js's own, or one a Lectern page (a ZIP export)
/// loads: the page that shows the deck brings its own.
fn is_own_file(href: &str) -> bool {
    let file = href.rsplit('/').next().unwrap_or_default();
    // A ZIP export's own folders are relative; elsewhere a folder of that name is a site's.
    let relative = !href.contains("://") && !href.starts_with("//");
    matches!(file, "reveal.js" | "reveal.css" | "reset.css" | "notes.js")
        || (relative
            && ["web/", "katex/", "reveal/plugin/"]
                .iter()
                .any(|dir| href.starts_with(dir) || href.contains(&format!("/{dir}"))))
}

/// The settings a deck page of Lectern's (a ZIP export) carries: the presets as the body's
/// `theme-*` and `font-*` classes, the language, and reveal.js's options in its
/// `lectern-config`.
fn lectern_page_settings(doc: &Html, settings: &mut Map<String, Value>) {
    let Some(config) = doc.select(&selector("script#lectern-config")).next() else {
        return;
    };
    if let Some(body) = doc.select(&selector("body")).next() {
        for class in body.value().classes() {
            if let Some(colour) = class.strip_prefix("theme-") {
                settings.insert("theme_color".into(), json!(colour));
            } else if let Some(font) = class.strip_prefix("font-") {
                settings.insert("theme_font".into(), json!(font));
            }
        }
    }
    if let Some(lang) = doc.select(&selector("html[lang]")).next() {
        settings.insert("language".into(), json!(lang.value().attr("lang")));
    }
    let text: String = config.text().collect();
    let Ok(Value::Object(config)) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    if let Some(Value::Object(reveal)) = config.get("reveal") {
        for (from, to) in [
            ("width", "width"),
            ("height", "height"),
            ("margin", "margin"),
            ("transition", "transition"),
            ("backgroundTransition", "background_transition"),
            ("rtl", "rtl"),
            ("loop", "loop"),
        ] {
            if let Some(v) = reveal.get(from) {
                settings.insert(to.into(), v.clone());
            }
        }
    }
}

/// Whether a section is written in Markdown (reveal.js's Markdown plugin).
fn is_markdown(section: ElementRef<'_>) -> bool {
    section.value().attr("data-markdown").is_some()
}

/// A Markdown section's slides, as reveal.js's Markdown plugin draws them: its inline
/// Markdown (in a `<script type="text/template">` or as the section's text), `---` between
/// slides and `--` inside a group, `Note:` for notes. An external file (`data-markdown` with
/// a URL) cannot be read here.
fn markdown_section(
    section: ElementRef<'_>,
    label: &str,
    dropped: &mut Vec<String>,
) -> Result<Vec<Vec<NewSlide>>> {
    let source = section
        .value()
        .attr("data-markdown")
        .unwrap_or_default()
        .trim();
    if !source.is_empty() {
        dropped.push(format!("{label}: the external Markdown file {source}"));
        return Ok(Vec::new());
    }
    let template = section
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "script");
    let text: String = match template {
        Some(t) => t.text().collect(),
        None => section.text().collect(),
    };
    super::markdown::slides_of(&super::markdown::dedent(&text), label).map(|(stacks, more)| {
        dropped.extend(more);
        stacks
    })
}

/// Reads `Reveal.initialize({...})`'s top-level options that Lectern keeps (`width`, `height`,
/// `margin`, `transition`, `backgroundTransition`, `rtl`, `loop`); the others are dropped.
fn initialize_options(code: &str, settings: &mut Map<String, Value>, dropped: &mut Vec<String>) {
    let Some(body) = code.trim_start().strip_prefix('{') else {
        return;
    };
    // The top level of the object literal: split at commas outside brackets and strings.
    let (mut depth, mut quote, mut item, mut items) = (0i32, None, String::new(), Vec::new());
    for c in body.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '{' | '[' | '(') => depth += 1,
            (None, '}' | ']' | ')') if depth == 0 => break,
            (None, '}' | ']' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    for item in items.iter().filter(|i| !i.trim().is_empty()) {
        let Some((key, value)) = item.split_once(':') else {
            dropped.push(format!("the reveal.js option {}", item.trim()));
            continue;
        };
        let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let field = match key {
            "width" | "height" => value.parse::<i64>().ok().map(|n| (key, json!(n))),
            "margin" => value.parse::<f64>().ok().map(|n| (key, json!(n))),
            "transition" => Some((key, json!(value))),
            "backgroundTransition" => Some(("background_transition", json!(value))),
            "rtl" | "loop" => value.parse::<bool>().ok().map(|b| (key, json!(b))),
            _ => None,
        };
        match field {
            Some((name, v)) => {
                settings.insert(name.to_string(), v);
            }
            None => dropped.push(format!("the reveal.js option {key}: {value}")),
        }
    }
}
