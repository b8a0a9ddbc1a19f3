//! Markdown presentations: reveal.js's own (`---` between slides, `--` inside a vertical
//! group, `Note:`), Marp and Slidev files (YAML front matter, `---` separators, notes in HTML
//! comments, directives in comments) and pandoc's (slides by heading level: each `#` section
//! a vertical group, each `##` a slide), as the tools that wrote them would show them.

use serde_json::{Map, Value, json};

use super::{ImportedDeck, theme_settings};
use crate::deck::NewSlide;
use crate::html::{Notes, SlideHtml};
use crate::{Error, Result};

/// Front matter: the flat `key: value` lines between a first line `---` and the next `---`
/// (the only YAML these files need for deck settings); the lines after it.
fn front_matter(lines: &[&str]) -> (Vec<(String, String)>, usize) {
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return (Vec::new(), 0);
    }
    let Some(end) = lines.iter().skip(1).position(|l| l.trim_end() == "---") else {
        return (Vec::new(), 0);
    };
    let pairs = lines[1..=end]
        .iter()
        .filter(|l| !l.starts_with([' ', '\t', '-', '#']))
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
            Some((k.trim().to_string(), v.to_string()))
        })
        .collect();
    (pairs, end + 2)
}

/// Deck settings named by front matter or by a Marp directive comment; what else it said
/// is reported as dropped.
fn settings_of(
    pairs: &[(String, String)],
    settings: &mut Map<String, Value>,
    dropped: &mut Vec<String>,
) {
    for (key, value) in pairs {
        match key.as_str() {
            "title" if !value.is_empty() => {
                settings.insert("title".into(), json!(value));
            }
            "theme" => settings.extend(theme_settings(value)),
            "transition" => {
                let name = value.split(['-', ' ']).next().unwrap_or_default();
                settings.insert("transition".into(), json!(name));
            }
            "marp" => {}
            _ => dropped.push(format!("the setting {key}: {value}")),
        }
    }
}

/// A Marp directive comment (`<!-- key: value -->` for a known key), as a pair.
fn directive(comment: &str) -> Option<(String, String)> {
    let (key, value) = comment.split_once(':')?;
    let key = key.trim();
    let known = [
        "theme",
        "class",
        "_class",
        "paginate",
        "_paginate",
        "header",
        "footer",
        "backgroundColor",
        "_backgroundColor",
        "color",
        "_color",
        "backgroundImage",
        "_backgroundImage",
        "size",
        "transition",
        "layout",
    ];
    (known.contains(&key) && !value.contains('\n'))
        .then(|| (key.to_string(), value.trim().to_string()))
}

/// What a slide's HTML comments said.
#[derive(Default)]
struct Comments {
    /// Speaker notes (Marp and Slidev keep them in comments).
    notes: Vec<String>,
    /// reveal.js's `<!-- .slide: name="value" -->` attributes of the slide.
    attributes: String,
    /// reveal.js's `<!-- .element: ... -->`, which this import does not apply.
    element_attributes: usize,
}

/// Splits a slide's Markdown into its body and what its HTML comments say; Marp directive
/// comments go to `directives`.
fn comment_notes(markdown: &str, directives: &mut Vec<(String, String)>) -> (String, Comments) {
    let mut body = String::new();
    let mut said = Comments::default();
    let mut rest = markdown;
    while let Some(start) = rest.find("<!--") {
        let Some(len) = rest[start..].find("-->") else {
            break;
        };
        body.push_str(&rest[..start]);
        let comment = rest[start + 4..start + len].trim();
        if let Some(attributes) = comment.strip_prefix(".slide:") {
            said.attributes.push(' ');
            said.attributes.push_str(attributes.trim());
        } else if comment.starts_with(".element:") {
            said.element_attributes += 1;
        } else if let Some(pair) = directive(comment) {
            directives.push(pair);
        } else if !comment.is_empty() {
            said.notes.push(comment.to_string());
        }
        rest = &rest[start + len + 3..];
    }
    body.push_str(rest);
    (body, said)
}

/// One Markdown slide: the text before a `Note:` line is the slide, the rest (and its HTML
/// comments) its notes; the slide's first heading comes back too.
fn slide(
    lines: &[&str],
    label: &str,
    directives: &mut Vec<(String, String)>,
    dropped: &mut Vec<String>,
) -> Result<(NewSlide, Option<String>)> {
    let notes_at = lines.iter().position(|l| {
        let t = l.trim_start().to_ascii_lowercase();
        t.starts_with("note:") || t.starts_with("notes:")
    });
    let (body, mut notes) = match notes_at {
        Some(i) => {
            let first = lines[i].trim_start();
            let after_colon = &first[first.find(':').expect("the notes line has a colon") + 1..];
            let mut text = vec![after_colon.trim()];
            text.extend(lines[i + 1..].iter().copied());
            (&lines[..i], vec![text.join("\n").trim().to_string()])
        }
        None => (lines, Vec::new()),
    };
    let (markdown, said) = comment_notes(&body.join("\n"), directives);
    notes.extend(said.notes);
    if said.element_attributes > 0 {
        dropped.push(format!("{label}: element attributes (<!-- .element: -->)"));
    }
    let mut rendered = String::new();
    let options = pulldown_cmark::Options::ENABLE_TABLES
        | pulldown_cmark::Options::ENABLE_STRIKETHROUGH
        | pulldown_cmark::Options::ENABLE_MATH;
    let events = pulldown_cmark::Parser::new_ext(&markdown, options).map(math_as_text);
    pulldown_cmark::html::push_html(&mut rendered, events);
    let html = SlideHtml::parse(&format!("<section{}>{rendered}</section>", said.attributes))
        .map_err(|e| Error::invalid(format!("{label}: {e}")))?;
    let heading = markdown
        .lines()
        .find_map(|l| l.trim_start().strip_prefix('#'))
        .map(|h| h.trim_start_matches('#').trim().to_string());
    let notes = notes.join("\n\n");
    let notes = match notes.trim() {
        "" => None,
        n => {
            Some(Notes::parse(n.to_string()).map_err(|e| Error::invalid(format!("{label}: {e}")))?)
        }
    };
    Ok((NewSlide { html, notes }, heading))
}

/// Math in Markdown (`$x$`, `$$x$$`) as the delimited text the slides' KaTeX draws.
fn math_as_text(event: pulldown_cmark::Event<'_>) -> pulldown_cmark::Event<'_> {
    use pulldown_cmark::Event;
    match event {
        Event::InlineMath(tex) => Event::Text(format!("\\({tex}\\)").into()),
        Event::DisplayMath(tex) => Event::Text(format!("$${tex}$$").into()),
        other => other,
    }
}

/// Where slides start: `---` and `--` lines (reveal.js, Marp, Slidev), or else, for a file
/// with at least two headings of level one or two, pandoc's slide levels. Each entry is (the
/// first line, whether it starts a new horizontal stack).
fn slide_starts(lines: &[&str], from: usize) -> Vec<(usize, bool)> {
    let mut starts = vec![(from, true)];
    let separated = lines[from..]
        .iter()
        .any(|l| matches!(l.trim_end(), "---" | "--"));
    if separated {
        return self::separated(lines, from);
    }
    let mut fenced = false;
    let headings: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .skip(from)
        .filter_map(|(i, l)| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            let level = l.chars().take_while(|c| *c == '#').count();
            (!fenced && (1..=2).contains(&level) && l[level..].starts_with(' '))
                .then_some((i, level))
        })
        .collect();
    if headings.len() < 2 {
        return starts;
    }
    let top = headings.iter().map(|(_, level)| *level).min().unwrap_or(1);
    starts.clear();
    if headings[0].0 > from
        && lines[from..headings[0].0]
            .iter()
            .any(|l| !l.trim().is_empty())
    {
        starts.push((from, true));
    }
    // pandoc: with `#` sections holding `##` slides, each section is a vertical group.
    starts.extend(headings.iter().map(|&(i, level)| (i, level == top)));
    starts
}

/// Markdown read into slides.
struct Parsed {
    stacks: Vec<Vec<NewSlide>>,
    /// The first heading.
    title: Option<String>,
    /// Marp directive comments, as pairs.
    directives: Vec<(String, String)>,
    dropped: Vec<String>,
}

/// The slides of Markdown `lines` from `from` on (`pandoc`: split by headings when there is
/// no separator); `label` names a slide by its first line in errors.
fn stacks(
    lines: &[&str],
    from: usize,
    pandoc: bool,
    label: &dyn Fn(usize) -> String,
) -> Result<Parsed> {
    let starts = if pandoc {
        slide_starts(lines, from)
    } else {
        separated(lines, from)
    };
    let mut stacks: Vec<Vec<NewSlide>> = Vec::new();
    let (mut title, mut directives, mut dropped) = (None, Vec::new(), Vec::new());
    for (n, &(start, horizontal)) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(lines.len(), |s| s.0);
        // A separator line belongs to no slide.
        let first = if n > 0 && matches!(lines.get(start).map(|l| l.trim_end()), Some("---" | "--"))
        {
            start + 1
        } else {
            start
        };
        let (slide, heading) = slide(
            &lines[first..end],
            &label(first + 1),
            &mut directives,
            &mut dropped,
        )?;
        if title.is_none() {
            title = heading;
        }
        match stacks.last_mut() {
            Some(stack) if !horizontal => stack.push(slide),
            _ => stacks.push(vec![slide]),
        }
    }
    Ok(Parsed {
        stacks,
        title,
        directives,
        dropped,
    })
}

/// Slide starts at `---` (a new stack) and `--` (the same stack) lines.
fn separated(lines: &[&str], from: usize) -> Vec<(usize, bool)> {
    let mut starts = vec![(from, true)];
    for (i, line) in lines.iter().enumerate().skip(from + 1) {
        match line.trim_end() {
            "---" => starts.push((i, true)),
            "--" => starts.push((i, false)),
            _ => {}
        }
    }
    starts
}

/// The Markdown of a reveal.js `data-markdown` section as slides (separators only), and what
/// was dropped; errors name `label`.
pub(super) fn slides_of(text: &str, label: &str) -> Result<(Vec<Vec<NewSlide>>, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut parsed = stacks(&lines, 0, false, &|line| {
        format!("{label}, Markdown line {line}")
    })?;
    for (k, v) in &parsed.directives {
        parsed
            .dropped
            .push(format!("{label}: the directive {k}: {v}"));
    }
    Ok((parsed.stacks, parsed.dropped))
}

/// `text` without the indentation its lines share (Markdown inside an indented HTML file).
pub(super) fn dedent(text: &str) -> String {
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(common..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses Markdown slides (see the module's comment).
pub fn parse_markdown(text: &str) -> Result<ImportedDeck> {
    crate::text::refuse_nul("the imported file", text)?;
    let lines: Vec<&str> = text.lines().collect();
    let (pairs, body_start) = front_matter(&lines);
    let mut settings = Map::new();
    let mut dropped = Vec::new();
    settings_of(&pairs, &mut settings, &mut dropped);
    let parsed = stacks(&lines, body_start, true, &|line| {
        format!("slide starting at line {line}")
    })?;
    dropped.extend(parsed.dropped);
    settings_of(&parsed.directives, &mut settings, &mut dropped);
    if !settings.contains_key("title")
        && let Some(t) = parsed.title
    {
        settings.insert("title".into(), json!(t));
    }
    Ok(ImportedDeck::new(
        parsed.stacks,
        settings,
        String::new(),
        dropped,
    ))
}
