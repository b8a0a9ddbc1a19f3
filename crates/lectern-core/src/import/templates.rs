//! The templates a new deck can start from: Lectern deck pages (as a ZIP export writes
//! them) whose slides are the editor's layouts (blocks a person clicks and types into), with
//! a theme, transitions and speaker notes that say what each slide is for.

use super::ImportedDeck;
use crate::error::{Error, Result};

/// A template: its name in forms and the API, the label people see, and one line on it.
pub struct Template {
    pub name: &'static str,
    pub label: &'static str,
    pub about: &'static str,
    document: &'static str,
}

/// Every template, in the order they are offered.
pub const TEMPLATES: &[Template] = &[
    Template {
        name: "pitch",
        label: "Pitch",
        about: "Problem, solution, market, traction and the ask, on a dark theme",
        document: include_str!("templates/pitch.html"),
    },
    Template {
        name: "lesson",
        label: "Lesson",
        about: "Objectives, key ideas, practice and a summary, in a serif face",
        document: include_str!("templates/lesson.html"),
    },
    Template {
        name: "report",
        label: "Report",
        about: "Highlights, plan against actual, risks and next steps",
        document: include_str!("templates/report.html"),
    },
];

/// The deck template `name` makes (its title the template's label).
pub fn template_deck(name: &str) -> Result<ImportedDeck> {
    let template = TEMPLATES.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = TEMPLATES.iter().map(|t| t.name).collect();
        Error::invalid(format!(
            "there is no template {name:?}; the templates are {}",
            names.join(", ")
        ))
    })?;
    super::parse_reveal_html(template.document)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_block_slides_with_its_theme_and_nothing_dropped() {
        for template in TEMPLATES {
            let deck = template_deck(template.name).unwrap();
            assert!(
                deck.dropped.is_empty(),
                "{}: {:?}",
                template.name,
                deck.dropped
            );
            assert_eq!(deck.title, template.label);
            assert!(
                deck.settings.contains_key("theme_color"),
                "{}",
                template.name
            );
            assert!(
                deck.settings.contains_key("theme_font"),
                "{}",
                template.name
            );
            assert!(deck.stacks.len() >= 5, "{}", template.name);
            for slide in deck.stacks.iter().flatten() {
                let html = slide.html.render("s");
                assert!(html.contains("class=\"sl-block\""), "{html}");
                assert!(!html.contains("class=\"notes\""), "{html}");
            }
            assert!(deck.stacks.iter().flatten().any(|s| s.notes.is_some()));
        }
    }

    #[test]
    fn an_unknown_template_names_the_ones_there_are() {
        let e = template_deck("poster").unwrap_err().to_string();
        assert!(e.contains("pitch, lesson, report"), "{e}");
    }
}
