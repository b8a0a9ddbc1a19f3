//! Fuzzing the parsers that read untrusted text: the slide HTML validator, the viewing
//! sanitizer and the deck importer (reveal.js HTML and Markdown). cargo-fuzz needs a nightly
//! toolchain, which this project does not use, so these are property tests over arbitrary
//! bytes and over HTML-shaped noise. CI runs the default 256 cases per property (seconds);
//! run longer by hand with e.g.
//! `PROPTEST_CASES=100000 cargo test --release -p lectern-core --test fuzz`.
//!
//! Properties: no input panics; outputs stay within a constant factor of the input (no
//! unbounded growth); accepted slides round-trip through their stored form; what the
//! sanitizer lets through never holds a script element, an event-handler attribute or a
//! `javascript:` URL.

use lectern_core::html::{SlideHtml, sanitize_for_viewing};
use lectern_core::import::{looks_like_html, parse_markdown, parse_reveal_html};
use proptest::prelude::*;

/// HTML-shaped noise: tags a slide may or may not contain, dangerous attributes, broken
/// nesting, comments, entities and stray text.
fn html_noise() -> impl Strategy<Value = String> {
    let tag = prop_oneof![
        Just("section"),
        Just("div"),
        Just("p"),
        Just("script"),
        Just("style"),
        Just("img"),
        Just("svg"),
        Just("a"),
        Just("iframe"),
        Just("aside"),
        Just("math"),
        Just("template"),
        Just("object"),
    ];
    let attr = prop_oneof![
        Just("class=\"fragment\""),
        Just("data-background-color=\"#fff\""),
        Just("onerror=\"alert(1)\""),
        Just("onclick=alert(1)"),
        Just("href=\"javascript:alert(1)\""),
        Just("src=\"java&#09;script:alert(1)\""),
        Just("style=\"color:red\""),
        Just("data-id=\"x\""),
        Just("xlink:href=\"javascript:alert(1)\""),
        Just("class=notes"),
    ];
    let piece = prop_oneof![
        (tag.clone(), proptest::collection::vec(attr, 0..3))
            .prop_map(|(t, attrs)| format!("<{t} {}>", attrs.join(" "))),
        tag.prop_map(|t| format!("</{t}>")),
        Just("<!-- c -->".to_string()),
        Just("&amp;&lt;&#x3c;".to_string()),
        Just("<![CDATA[x]]>".to_string()),
        Just("--\n".to_string()),
        Just("---\n".to_string()),
        Just("Note:\n".to_string()),
        "[a-zA-Z <>&\"'=/\n#*]{0,12}",
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// What must never survive sanitizing, read the way a browser reads the output: no script
/// element, no event-handler attribute, no `javascript:` URL in any attribute.
fn assert_inert(html: &str) {
    let doc = scraper::Html::parse_fragment(html);
    for node in doc.tree.nodes() {
        let Some(el) = node.value().as_element() else {
            continue;
        };
        assert_ne!(el.name(), "script", "script survived: {html}");
        for (name, value) in el.attrs() {
            assert!(
                !name.to_ascii_lowercase().starts_with("on"),
                "event handler {name} survived: {html}"
            );
            let squeezed: String = value
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect::<String>()
                .to_ascii_lowercase();
            assert!(
                !squeezed.contains("javascript:"),
                "javascript: URL survived in {name}: {html}"
            );
        }
    }
}

fn check_slide(input: &str) {
    if let Ok(slide) = SlideHtml::parse(input) {
        let stored = slide.render("s1");
        assert!(
            stored.len() <= 8 * input.len() + 256,
            "stored form grew from {} to {} bytes",
            input.len(),
            stored.len()
        );
        // The stored form is itself a valid slide, and stable.
        let again = SlideHtml::parse(&stored).expect("a stored slide parses again");
        assert_eq!(again.render("s1"), stored);
        assert_inert(&sanitize_for_viewing(&stored));
    }
    let clean = sanitize_for_viewing(input);
    assert!(clean.len() <= 8 * input.len() + 256);
    assert_inert(&clean);
}

fn check_import(input: &str) {
    let imported = if looks_like_html(input) {
        parse_reveal_html(input)
    } else {
        parse_markdown(input)
    };
    if let Ok(deck) = imported {
        let slides: usize = deck.stacks.iter().map(Vec::len).sum();
        assert!(
            slides <= input.len() + 1,
            "{slides} slides from {} bytes",
            input.len()
        );
        assert!(deck.stacks.iter().all(|s| !s.is_empty()));
    }
}

proptest! {
    #[test]
    fn slide_html_from_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        check_slide(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn slide_html_from_html_noise(noise in html_noise()) {
        check_slide(&noise);
        check_slide(&format!("<section>{noise}</section>"));
    }

    #[test]
    fn import_from_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        check_import(&text);
        let _ = parse_reveal_html(&text);
        let _ = parse_markdown(&text);
    }

    #[test]
    fn import_from_html_noise(noise in html_noise()) {
        check_import(&format!("<!doctype html><div class=\"reveal\"><div class=\"slides\">{noise}</div></div>"));
        check_import(&noise);
    }
}
