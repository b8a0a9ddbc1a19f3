//! The PowerPoint export (`pptx`, an extension of the interface's formats): one PowerPoint
//! slide per reveal.js slide in presentation order (vertical groups flattened), on the
//! deck's canvas size, with the speaker notes as notes.
//!
//! `lectern_pptx` reads each slide into native items: Slides.com block markup becomes text
//! boxes, shapes and pictures at the blocks' places; free reveal.js HTML made of headings,
//! paragraphs and lists becomes text boxes. What it cannot map is drawn by Chromium from the
//! offline presentation (the same files as the ZIP and PDF exports) and placed as a picture:
//! one block alone (code, HTML, iframes, SVG art, images in a format PowerPoint does not
//! draw or from another address), or the whole slide when its free HTML does not map. The
//! theme's colours are the defaults of text and background, so an unstyled slide looks as it
//! does in the deck.

use std::collections::HashMap;

use lectern_core::Lectern;
use lectern_core::media::refs::localize;
use lectern_core::service::exports::ExportSlide;
use lectern_core::service::viewer::ViewedDeck;
use lectern_pptx::{
    Image, Item, Pending, Picture, Presentation, ReadOptions, Rect, Rgb, Slide, SlideContent,
    parse_colour, read_slide_with,
};

use crate::export::pdf::{PdfError, PdfRenderer, SnapshotRequest, SnapshotTarget};
use crate::export::zip::presentation_files;

/// Folder of the local copies of uploaded images (as in the offline presentation).
const MEDIA_DIR: &str = "media";

/// A slide read, with the pictures it still needs.
struct Reading {
    background: Option<Rgb>,
    notes: Option<String>,
    /// Ready items, and the places of pictures still to draw (index into the requests).
    items: Vec<Slot>,
}

enum Slot {
    Ready(Item),
    Drawn {
        request: usize,
        rect: Rect,
        rotation: f64,
    },
}

/// Builds the PowerPoint file of `deck`.
pub async fn build_pptx(
    core: &Lectern,
    pdf: &PdfRenderer,
    deck: &ViewedDeck,
) -> Result<Vec<u8>, PdfError> {
    let transient =
        |what: &str, e: &dyn std::fmt::Display| PdfError::Transient(format!("{what} failed: {e}"));
    let d = &deck.deck;
    let slides = core
        .worker()
        .slides_for_export(d.id)
        .await
        .map_err(|e| transient("reading the slides", &e))?;
    let all_html: String = slides.iter().map(|s| s.html.as_str()).collect();
    let media = core
        .worker()
        .deck_media(d.owner_id, &all_html)
        .await
        .map_err(|e| transient("reading the deck's media", &e))?;
    let local: HashMap<&str, &str> = media
        .iter()
        .map(|m| (m.id.as_str(), m.file_name.as_str()))
        .collect();
    let bytes: HashMap<String, &[u8]> = media
        .iter()
        .map(|m| (format!("{MEDIA_DIR}/{}", m.file_name), m.bytes.as_slice()))
        .collect();
    let options = with_deck_css(
        theme_options(d.look.theme_color.as_str(), d.look.theme_font.as_str()),
        &d.css,
    );
    let (width, height) = (d.look.width.max(1) as u32, d.look.height.max(1) as u32);

    let mut requests = Vec::new();
    let readings: Vec<Reading> = slides
        .iter()
        .map(|slide| {
            // Uploaded images as the offline presentation names them (`media/<file>`).
            let html = localize(&slide.html, core.public_url(), &|id| {
                local.get(id).map(|f| format!("{MEDIA_DIR}/{f}"))
            });
            read(slide, &html, width, height, &options, &bytes, &mut requests)
        })
        .collect();

    let pictures = if requests.is_empty() {
        Vec::new()
    } else {
        let files = presentation_files(core, deck, None)
            .await
            .map_err(|e| transient("reading the deck's media", &e))?;
        pdf.snapshots(d.owner_id, files, d.look.width, d.look.height, &requests)
            .await?
    };

    let slides = readings
        .into_iter()
        .map(|r| Slide {
            background: r.background,
            notes: r.notes,
            items: r
                .items
                .into_iter()
                .filter_map(|slot| match slot {
                    Slot::Ready(item) => Some(item),
                    Slot::Drawn {
                        request,
                        rect,
                        rotation,
                    } => {
                        let png = pictures.get(request)?.clone()?;
                        Some(Item::Picture(Picture {
                            rect,
                            rotation,
                            image: Image::sniff(png)?,
                            description: String::new(),
                        }))
                    }
                })
                .collect(),
        })
        .collect();
    let presentation = Presentation {
        width_px: width,
        height_px: height,
        title: d.title.clone(),
        slides,
    };
    lectern_pptx::write(&presentation).map_err(|e| PdfError::Permanent(e.to_string()))
}

/// Reads one slide, adding the pictures it needs drawn to `requests`.
fn read(
    slide: &ExportSlide,
    html: &str,
    width: u32,
    height: u32,
    options: &ReadOptions,
    media: &HashMap<String, &[u8]>,
    requests: &mut Vec<SnapshotRequest>,
) -> Reading {
    let (h, v) = (slide.position.horizontal, slide.position.vertical);
    let mut draw = |target, rect, rotation| {
        requests.push(SnapshotRequest { h, v, target });
        Slot::Drawn {
            request: requests.len() - 1,
            rect,
            rotation,
        }
    };
    let notes = slide.notes.clone();
    match read_slide_with(html, width, height, options) {
        SlideContent::Snapshot { background } => Reading {
            background,
            notes,
            items: vec![draw(
                SnapshotTarget::Slide,
                Rect::new(0.0, 0.0, width as f64, height as f64),
                0.0,
            )],
        },
        SlideContent::Items { background, items } => Reading {
            background,
            notes,
            items: items
                .into_iter()
                .map(|pending| match pending {
                    Pending::Item(item) => Slot::Ready(item),
                    Pending::Snapshot {
                        rect,
                        rotation,
                        block_index,
                    } => draw(SnapshotTarget::Block(block_index), rect, rotation),
                    Pending::Image {
                        rect,
                        rotation,
                        src,
                        description,
                    } => match picture(media.get(&src).copied(), rect, rotation, &description) {
                        Some(p) => Slot::Ready(Item::Picture(p)),
                        // Not an uploaded image PowerPoint draws: Chromium draws the block.
                        None => draw(SnapshotTarget::Image(src), rect, rotation),
                    },
                })
                .collect(),
        },
    }
}

/// An uploaded PNG or JPEG as a picture fitted into `rect` as the page shows it
/// (`object-fit: contain`).
fn picture(bytes: Option<&[u8]>, rect: Rect, rotation: f64, description: &str) -> Option<Picture> {
    let bytes = bytes?;
    let image = Image::sniff(bytes.to_vec())?;
    let (w, h) = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()?;
    Some(Picture {
        rect: rect.contain(w as f64, h as f64),
        rotation,
        image,
        description: description.to_string(),
    })
}

/// The text and background colours of a theme colour preset, read from the presets' CSS
/// (`themes.css`, the one place they are written).
fn theme_options(preset: &str, font: &str) -> ReadOptions {
    let css = crate::render::theme_css();
    // A rule's declarations: `.theme-x { --lectern-bg: #fff; ... }` on one line.
    let rule = |selector: &str| {
        let start = format!("{selector} {{");
        css.lines()
            .find_map(|l| l.trim().strip_prefix(&start))
            .unwrap_or_default()
            .to_string()
    };
    let var = |declarations: &str, name: &str| {
        declarations.split(';').find_map(|d| {
            let (k, v) = d.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let colours = rule(&format!(".theme-{preset}"));
    let colour = |name: &str| var(&colours, name).and_then(|v| parse_colour(&v));
    let first = |stack: String| first_family(&stack);
    let faces = rule(&format!(".font-{font}"));
    let face = |name: &str| var(&faces, name).and_then(first);
    let code = rule(":root");
    ReadOptions {
        text_colour: colour("--lectern-fg"),
        heading_colour: colour("--lectern-heading"),
        link_colour: colour("--lectern-link"),
        background: colour("--lectern-bg"),
        font: face("--lectern-font"),
        heading_font: face("--lectern-heading-font"),
        code_font: var(&code, "--lectern-code-font").and_then(first),
        ..ReadOptions::default()
    }
}

/// The first family of a font stack, as the slide names it.
fn first_family(stack: &str) -> Option<String> {
    let family = stack.split(',').next()?.trim().trim_matches(['"', '\'']);
    (!family.is_empty()).then(|| family.to_string())
}

/// `options` with the presets' variables that the deck's own CSS sets (an imported reveal.js
/// theme's colours and faces) in their place; the last setting of each wins.
fn with_deck_css(mut options: ReadOptions, css: &str) -> ReadOptions {
    for (name, value) in lectern_core::css::custom_properties(css) {
        let colour = || parse_colour(&value);
        match name.as_str() {
            "--lectern-bg" => options.background = colour().or(options.background),
            "--lectern-fg" => options.text_colour = colour().or(options.text_colour),
            "--lectern-heading" => options.heading_colour = colour().or(options.heading_colour),
            "--lectern-link" => options.link_colour = colour().or(options.link_colour),
            "--lectern-font" => options.font = first_family(&value).or(options.font),
            "--lectern-heading-font" => {
                options.heading_font = first_family(&value).or(options.heading_font)
            }
            "--lectern-code-font" => options.code_font = first_family(&value).or(options.code_font),
            _ => {}
        }
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decks_css_overrides_the_presets_variables() {
        let css = ":root body, .reveal { --lectern-bg: #002b36; --lectern-heading: #eee8d5; \
                   --lectern-heading-font: \"League Gothic\", Impact, sans-serif; --lectern-fg: bogus; }";
        let o = with_deck_css(theme_options("cobalt-orange", "league"), css);
        assert_eq!(o.background, parse_colour("#002b36"));
        assert_eq!(o.heading_colour, parse_colour("#eee8d5"));
        assert_eq!(o.heading_font.as_deref(), Some("League Gothic"));
        assert_eq!(
            o.text_colour,
            parse_colour("#ffffff"),
            "a value that is no colour changes nothing"
        );
        assert_eq!(o.font.as_deref(), Some("Lato"));
    }

    #[test]
    fn theme_colours_come_from_the_presets_css() {
        let o = theme_options("black-orange", "league");
        assert_eq!(o.background, parse_colour("#111111"));
        assert_eq!(o.text_colour, parse_colour("#ffffff"));
        assert_eq!(o.link_colour, parse_colour("#f58e3f"));
        assert_eq!(o.font.as_deref(), Some("Lato"));
        assert_eq!(o.heading_font.as_deref(), Some("League Gothic"));
        assert_eq!(o.code_font.as_deref(), Some("JetBrains Mono"));
        assert_eq!(
            theme_options("white-blue", "palatino").font.as_deref(),
            Some("Palatino Linotype")
        );
        let unknown = theme_options("no-such-theme", "no-such-font");
        assert_eq!(unknown.background, None);
        assert_eq!(unknown.font, None);
    }
}
