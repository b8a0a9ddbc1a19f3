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
    let deep =
        r#"<div class="slides"><section><section><section>x</section></section></section></div>"#;
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

#[test]
fn front_matter_sets_the_deck_and_is_never_a_slide() {
    let md = "---\ntitle: \"Quarterly\"\ntheme: night\nmarp: true\npaginate: true\n---\n# One\n\nText\n\n---\n\n# Two\n";
    let deck = parse_markdown(md).unwrap();
    assert_eq!(deck.title, "Quarterly");
    assert_eq!(deck.stacks.len(), 2);
    assert!(deck.stacks[0][0].html.render("a").contains("<h1>One</h1>"));
    assert_eq!(deck.settings["theme_color"], "black-orange");
    assert_eq!(deck.settings["theme_font"], "montserrat");
    assert!(
        deck.dropped.iter().any(|d| d.contains("paginate")),
        "{:?}",
        deck.dropped
    );
}

#[test]
fn notes_in_html_comments_as_marp_and_slidev_write_them() {
    let md = "# Marp\n\n<!-- Say hello first -->\n\nBody\n\n---\n\n# Slidev\n\nMore\n\n<!--\nThe note at the end\n-->\n";
    let deck = parse_markdown(md).unwrap();
    let notes: Vec<&str> = deck
        .stacks
        .iter()
        .map(|s| s[0].notes.as_ref().unwrap().as_str())
        .collect();
    assert_eq!(notes, ["Say hello first", "The note at the end"]);
    assert!(!deck.stacks[0][0].html.render("a").contains("hello"));
}

#[test]
fn pandoc_headings_make_groups_of_slides() {
    let md = "% ignored title line\n\n# Part one\n\n## First\n\nA\n\n## Second\n\nB\n\n# Part two\n\n## Third\n\n```\n# not a heading\n```\n";
    let deck = parse_markdown(md).unwrap();
    let sizes: Vec<usize> = deck.stacks.iter().map(Vec::len).collect();
    assert_eq!(
        sizes,
        [1, 3, 2],
        "a preamble, then each # section with its ## slides"
    );
    assert_eq!(deck.stacks[1][0].html.title, "Part one");
    assert_eq!(deck.stacks[1][2].html.title, "Second");
    assert!(
        deck.stacks[2][1]
            .html
            .render("x")
            .contains("# not a heading")
    );
}

#[test]
fn math_in_markdown_stays_for_katex() {
    let deck = parse_markdown("# M\n\nInline $e^x$ and\n\n$$\\int f$$\n").unwrap();
    let html = deck.stacks[0][0].html.render("a");
    assert!(
        html.contains("\\(e^x\\)") && html.contains("$$\\int f$$"),
        "{html}"
    );
}

const THEMED: &str = r##"<!doctype html><html><head><title>Themed</title>
<link rel="stylesheet" href="dist/reset.css"><link rel="stylesheet" href="dist/reveal.css">
<link rel="stylesheet" href="dist/theme/moon.css" id="theme">
<link rel="stylesheet" href="plugin/highlight/monokai.css">
<link rel="stylesheet" href="https://cdn.example/web/site.css">
<style>@import url(https://fonts.example/x.css);
.reveal h1 { color: red; }</style></head>
<body><div class="reveal"><div class="slides">
<section data-markdown><script type="text/template">
    ## Markdown slide
    - one
    ---
    ## Second <!-- .slide: data-background-color="#102030" -->
    Note: spoken words
</script></section>
<section data-background-color="#abcdef"><section><h2>Down 1</h2></section><section data-background-color="#000000"><h2>Down 2</h2></section></section>
</div></div>
<script src="dist/reveal.js"></script><script src="plugin/notes/notes.js"></script>
<script>Reveal.initialize({ hash: true, width: 1280, height: 720, margin: 0.1, transition: 'convex', backgroundTransition: "zoom", loop: true, plugins: [ RevealMarkdown, RevealNotes ] });</script>
</body></html>"##;

#[test]
fn a_reveal_document_keeps_its_theme_settings_markdown_and_group_backgrounds() {
    let deck = parse_reveal_html(THEMED).unwrap();
    assert_eq!(deck.title, "Themed");
    assert_eq!(
        deck.settings["theme_color"], "cobalt-orange",
        "{:?} {:?}",
        deck.settings, deck.dropped
    );
    assert_eq!(deck.settings["width"], 1280);
    assert_eq!(deck.settings["height"], 720);
    assert_eq!(deck.settings["margin"], 0.1);
    assert_eq!(deck.settings["transition"], "convex");
    assert_eq!(deck.settings["background_transition"], "zoom");
    assert_eq!(deck.settings["loop"], true);
    let sizes: Vec<usize> = deck.stacks.iter().map(Vec::len).collect();
    assert_eq!(sizes, [1, 1, 2], "two Markdown slides, then the group");
    let md = deck.stacks[0][0].html.render("a");
    assert!(
        md.contains("<h2>Markdown slide</h2>") && md.contains("<li>one</li>"),
        "{md}"
    );
    let second = &deck.stacks[1][0];
    assert_eq!(second.notes.as_ref().unwrap().as_str(), "spoken words");
    assert!(
        second
            .html
            .render("b")
            .contains("data-background-color=\"#102030\"")
    );
    let down: Vec<String> = deck.stacks[2].iter().map(|s| s.html.render("c")).collect();
    assert!(
        down[0].contains("data-background-color=\"#abcdef\""),
        "{down:?}"
    );
    assert!(down[1].contains("data-background-color=\"#000000\"") && !down[1].contains("abcdef"));
    // The theme's own look and the document's <style> become the deck's CSS.
    assert!(
        deck.css.contains("--lectern-bg: #002b36")
            && deck.css.contains("--lectern-heading: #eee8d5")
            && deck.css.contains(".reveal h1 { color: red; }")
            && !deck.css.contains("@import"),
        "{}",
        deck.css
    );
    for what in [
        "hash",
        "plugins",
        "@import",
        "monokai",
        "cdn.example/web/site.css",
    ] {
        assert!(
            deck.dropped.iter().any(|d| d.contains(what)),
            "{what} not reported: {:?}",
            deck.dropped
        );
    }
}
