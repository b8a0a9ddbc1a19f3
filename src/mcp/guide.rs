//! What the MCP server tells a model: the server instructions (how decks, slides, vertical
//! groups and exports work) and the slide authoring guide of `get_authoring_guide`, whose
//! facts come from the slide rules in `lectern_core::html`.

use lectern_core::html::{ALLOWED_SECTION_ATTRIBUTES, MAX_NOTES_CHARS, MAX_SLIDE_HTML_BYTES};

/// The server instructions sent at initialisation.
pub const INSTRUCTIONS: &str = "\
Lectern hosts reveal.js presentation decks. A deck (integer id) has settings (title, theme_color, \
theme_font, canvas width/height, visibility self/team/all) and an ordered list of slides. Each slide \
is one HTML <section> plus optional speaker notes, and has an opaque string id (from list_slides, \
add_slide or create_deck's slide_ids) that never changes; slide numbers are not ids.

Order: slides form a row of horizontal positions; a position may hold a vertical group of two or \
more slides (position.vertical 0, 1, ...; null for a slide outside a group). add_slide and \
move_slides next to a slide in a group join that group; a group left with one slide becomes a \
plain horizontal slide.

Working with decks: call get_authoring_guide before writing slide HTML. Create a deck with its \
slides in one create_deck call; then list_slides for ids and positions, get_slide/get_slides for \
html and notes, add_slide, update_slide (complete <section> replacement), move_slides and \
remove_slides to edit. get_slide_screenshot shows how a slide looks. search_decks finds decks by \
words. trash_deck is reversible with recover_deck. Images: upload_image (base64 data, or a \
source_url the server downloads) returns a url to put in <img src> or data-background-image; \
list_media lists them.

Exports: create_deck_export (pdf, zip or pptx) returns status pending and meta.poll_after_seconds; wait \
that many seconds, then call get_deck_export until status is completed (use download_url, valid \
for a limited time) or failed. Do not poll faster.

Sharing: a deck's url works for anyone only with visibility all; create_deck_share makes a \
private link for self or team decks. Team decks of other members are read through \
list_team_decks and get_team_deck (owner is the display name) and cannot be edited.

Errors come back as tool results with isError true and the text {\"error\": message, \"status\": N}, \
the message saying what to fix and N the HTTP status (404 missing, 422 invalid, 412 stale revision). Tools that \
change data need a credential with the manage scope.";

/// The slide authoring guide (Markdown).
pub fn authoring_guide() -> String {
    let attributes = ALLOWED_SECTION_ATTRIBUTES
        .iter()
        .filter(|a| **a != "data-id")
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r##"# Writing slides for Lectern

Lectern presents decks with reveal.js. A slide is **exactly one `<section>` element** (plus
speaker notes, kept separately). The HTML is parsed the way a browser parses it and stored
re-serialised, with `data-id="<slide id>"` set first on the section.

## Rules (a slide breaking them is refused with a message)

- Exactly one `<section>`; whitespace and comments around it are fine, text or other elements
  outside it are not. An empty `<section></section>` is a blank slide.
- **No `<section>` inside the slide.** Vertical groups are not nested sections: they are made
  by positions (see below).
- On the `<section>` itself only these attributes: {attributes}, and every attribute starting
  with `data-background` or `data-auto-animate`. Any other attribute is refused. A
  `data-id` you send is replaced by the slide id.
- At most {max_html} bytes of HTML per slide.
- Speaker notes: plain text up to {max_notes} characters, given as the slide's `notes`
  argument, separate from the HTML.

## What is shown

Slides are sanitised when presented: **no `<script>`, no `<style>` elements, no event handlers
(`onclick`...), no `javascript:` URLs** — they are removed. Use inline `style` attributes,
`class`es, and the deck's theme (`theme_color`, `theme_font`). Allowed content includes
headings, paragraphs, lists, links, images (`<img src>` with http(s) or data URLs; upload a
picture or chart first with `upload_image` and use the `url` it returns), tables,
`<pre><code>`, `<blockquote>`, `<figure>`, `<video>`/`<audio>`, inline SVG shapes, and any
`data-*` attribute on inner elements.

## reveal.js features

- Fragments (step-by-step reveal): `<p class="fragment">`, also `fragment fade-up`,
  `fade-in-then-out`, `highlight-red`, ...; order with `data-fragment-index="1"`.
- Backgrounds on the section: `data-background-color="#1e293b"`,
  `data-background-image="https://..."`, `data-background-size="cover"`,
  `data-background-gradient="linear-gradient(...)"`, `data-background-video`,
  `data-background-opacity="0.5"`.
- Per-slide transition: `data-transition="zoom"` (none, fade, slide, convex, concave, zoom),
  `data-transition-speed="fast"`; auto-advance `data-autoslide="5000"`; animations between
  slides with `data-auto-animate`.
- Layout helpers from reveal.js: `class="r-fit-text"`, `r-stretch`, `r-stack`, `r-hstack`,
  `r-vstack`. The canvas is the deck's width x height (default 1280x720); content is scaled
  to fit the window.

## Vertical groups

Slides sit in a row of horizontal positions; a position can hold a vertical group (reveal.js
"down" slides). Create a group by adding or moving slides next to a slide that is already in
a group (`insert_after_slide_id`), or by importing a deck; positions come back as
`{{"horizontal": h, "vertical": v}}` with `vertical` null outside a group.

## Examples

```html
<section data-background-color="#0f172a" style="color: white">
  <h1>Quarterly review</h1>
  <p class="fragment">Revenue up 12%</p>
  <p class="fragment">Churn down 3%</p>
</section>
```

```html
<section>
  <h2>Plan</h2>
  <ul>
    <li>Ship the importer</li>
    <li class="fragment">Measure adoption</li>
  </ul>
</section>
```
"##,
        max_html = MAX_SLIDE_HTML_BYTES,
        max_notes = MAX_NOTES_CHARS,
    )
}
