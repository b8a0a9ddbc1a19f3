//! Bringing existing presentations in: a reveal.js HTML document or a reveal.js-style
//! Markdown file becomes the stacks of a new deck (a stack of one slide is a horizontal
//! slide; two or more form a vertical group). Every slide passes the same HTML rules as the
//! API's; the first failure is reported with the slide or line where it happened.

use scraper::{ElementRef, Html, Node, Selector};

use crate::deck::NewSlide;
use crate::html::{Notes, SlideHtml, escape};
use crate::{Error, Result};

/// A parsed presentation.
#[derive(Debug, Clone)]
pub struct ImportedDeck {
    /// The document's title (`<title>` or the first Markdown heading); may be empty.
    pub title: String,
    /// Horizontal positions in order, each one slide or a vertical group.
    pub stacks: Vec<Vec<NewSlide>>,
}

/// Whether `text` looks like an HTML document rather than Markdown.
pub fn looks_like_html(text: &str) -> bool {
    let start = text.trim_start().to_ascii_lowercase();
    start.starts_with("<!doctype html") || start.starts_with("<html") || start.contains("<section")
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

/// One reveal.js `<section>` as a slide: `<aside class="notes">` children become the notes.
fn html_slide(section: ElementRef<'_>, label: &str) -> Result<NewSlide> {
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

/// Parses an imported file: a reveal.js HTML document or else Markdown.
pub fn parse_file(text: &str) -> Result<ImportedDeck> {
    if looks_like_html(text) {
        parse_reveal_html(text)
    } else {
        parse_markdown(text)
    }
}

/// Parses a reveal.js HTML document: the sections inside `.reveal .slides` (or, without
/// that wrapper, the document's top-level sections); nested sections form a vertical group.
pub fn parse_reveal_html(text: &str) -> Result<ImportedDeck> {
    crate::text::refuse_nul("the imported file", text)?;
    crate::html::check_nesting(text)?;
    let doc = Html::parse_document(text);
    let slides_sel = Selector::parse(".reveal .slides, .slides").expect("a valid selector");
    let title_sel = Selector::parse("title").expect("a valid selector");
    let section_sel = Selector::parse("section").expect("a valid selector");
    let top: Vec<ElementRef<'_>> = match doc.select(&slides_sel).next() {
        Some(container) => child_sections(container),
        None => doc
            .select(&section_sel)
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
    let mut stacks = Vec::with_capacity(top.len());
    for (h, section) in top.into_iter().enumerate() {
        let nested = child_sections(section);
        if nested.is_empty() {
            stacks.push(vec![html_slide(section, &format!("slide {}", h + 1))?]);
            continue;
        }
        let mut group = Vec::with_capacity(nested.len());
        for (v, sub) in nested.into_iter().enumerate() {
            let label = format!("slide {}.{}", h + 1, v + 1);
            if !child_sections(sub).is_empty() {
                return Err(Error::invalid(format!(
                    "{label}: sections nest at most two levels deep (a vertical group of slides)"
                )));
            }
            group.push(html_slide(sub, &label)?);
        }
        stacks.push(group);
    }
    let title = doc
        .select(&title_sel)
        .next()
        .map(|t| t.text().collect::<String>().trim().to_string())
        .unwrap_or_default();
    Ok(ImportedDeck { title, stacks })
}

/// One Markdown slide: the text before a `Note:` line is the slide, the rest its notes.
fn markdown_slide(lines: &[&str], first_line: usize) -> Result<(NewSlide, Option<String>)> {
    let label = format!("slide starting at line {first_line}");
    let notes_at = lines.iter().position(|l| {
        let t = l.trim_start().to_ascii_lowercase();
        t.starts_with("note:") || t.starts_with("notes:")
    });
    let (body, notes) = match notes_at {
        Some(i) => {
            let first = lines[i].trim_start();
            let after_colon = &first[first.find(':').expect("the notes line has a colon") + 1..];
            let mut text = vec![after_colon.trim()];
            text.extend(lines[i + 1..].iter().copied());
            (&lines[..i], Some(text.join("\n").trim().to_string()))
        }
        None => (lines, None),
    };
    let markdown = body.join("\n");
    let mut rendered = String::new();
    pulldown_cmark::html::push_html(&mut rendered, pulldown_cmark::Parser::new(&markdown));
    let html = SlideHtml::parse(&format!("<section>{rendered}</section>"))
        .map_err(|e| Error::invalid(format!("{label}: {e}")))?;
    let heading = markdown
        .lines()
        .find_map(|l| l.trim_start().strip_prefix('#'))
        .map(|h| h.trim_start_matches('#').trim().to_string());
    let notes = match notes.filter(|n| !n.is_empty()) {
        Some(n) => Some(Notes::parse(n).map_err(|e| Error::invalid(format!("{label}: {e}")))?),
        None => None,
    };
    Ok((NewSlide { html, notes }, heading))
}

/// Parses reveal.js-style Markdown: a line `---` between horizontal slides, `--` between the
/// slides of a vertical group, and `Note:` starting a slide's speaker notes.
pub fn parse_markdown(text: &str) -> Result<ImportedDeck> {
    crate::text::refuse_nul("the imported file", text)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut stacks: Vec<Vec<NewSlide>> = Vec::new();
    let mut group: Vec<NewSlide> = Vec::new();
    let mut start = 0;
    let mut title = None;
    let mut flush = |end: usize, start: usize, group: &mut Vec<NewSlide>| -> Result<()> {
        let (slide, heading) = markdown_slide(&lines[start..end], start + 1)?;
        if title.is_none() {
            title = heading;
        }
        group.push(slide);
        Ok(())
    };
    for (i, line) in lines.iter().enumerate() {
        match line.trim_end() {
            "---" => {
                flush(i, start, &mut group)?;
                stacks.push(std::mem::take(&mut group));
                start = i + 1;
            }
            "--" => {
                flush(i, start, &mut group)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    flush(lines.len(), start, &mut group)?;
    stacks.push(group);
    Ok(ImportedDeck {
        title: title.unwrap_or_default(),
        stacks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVEAL: &str = r##"<!doctype html>
<html><head><title>Launch Plan</title></head>
<body><div class="reveal"><div class="slides">
  <section data-background-color="#123"><h1>Launch</h1><aside class="notes">Welcome everyone.</aside></section>
  <section>
    <section><h2>Why</h2></section>
    <section><h2>How</h2><p>Steps</p><aside class="notes">Go slowly.</aside></section>
    <section><h2>When</h2></section>
  </section>
  <section><h2>Questions?</h2></section>
</div></div></body></html>"##;

    #[test]
    fn a_reveal_document_becomes_stacks_with_notes() {
        let deck = parse_reveal_html(REVEAL).unwrap();
        assert_eq!(deck.title, "Launch Plan");
        let sizes: Vec<usize> = deck.stacks.iter().map(Vec::len).collect();
        assert_eq!(sizes, [1, 3, 1]);
        let first = &deck.stacks[0][0];
        assert_eq!(first.notes.as_ref().unwrap().as_str(), "Welcome everyone.");
        assert_eq!(
            first.html.render("x"),
            r##"<section data-id="x" data-background-color="#123"><h1>Launch</h1></section>"##
        );
        assert_eq!(
            deck.stacks[1][1].notes.as_ref().unwrap().as_str(),
            "Go slowly."
        );
        assert_eq!(deck.stacks[1][1].html.title, "How");
    }

    #[test]
    fn bad_reveal_documents_name_the_slide() {
        let err = parse_reveal_html(r#"<div class="reveal"><div class="slides"><section>a</section><section onclick="x()">b</section></div></div>"#).unwrap_err();
        assert!(err.to_string().contains("slide 2"), "{err}");
        let deep = r#"<div class="slides"><section><section><section>x</section></section></section></div>"#;
        assert!(
            parse_reveal_html(deep)
                .unwrap_err()
                .to_string()
                .contains("slide 1.1")
        );
        assert!(parse_reveal_html("<p>nothing</p>").is_err());
    }

    #[test]
    fn markdown_separators_make_slides_and_groups() {
        let md = "# Title slide\n\nHello\n\nNote: say hi\nand smile\n---\n## Two\n--\n## Two b\n---\n## Three\n";
        let deck = parse_markdown(md).unwrap();
        assert_eq!(deck.title, "Title slide");
        let sizes: Vec<usize> = deck.stacks.iter().map(Vec::len).collect();
        assert_eq!(sizes, [1, 2, 1]);
        let first = &deck.stacks[0][0];
        assert_eq!(first.notes.as_ref().unwrap().as_str(), "say hi\nand smile");
        assert!(first.html.render("a").contains("<h1>Title slide</h1>"));
        assert!(!first.html.render("a").contains("smile"));
        assert_eq!(deck.stacks[1][1].html.title, "Two b");
    }

    #[test]
    fn bad_markdown_names_the_line() {
        let md = "# One\n---\n## Two\n\n<section>nested</section>\n";
        let err = parse_markdown(md).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
