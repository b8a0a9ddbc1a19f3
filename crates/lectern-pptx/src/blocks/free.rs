//! Free HTML: a slide without block markup, read as stacked text boxes.

use super::*;

/// Free HTML: the slide's text as stacked text boxes; `None` when it holds anything else.
pub(super) fn free_html(
    section: ElementRef<'_>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Option<Vec<Pending>> {
    if !all_text(section) {
        return None;
    }

    // Chunks: (paragraphs, is a heading); each becomes one text box.
    let mut chunks: Vec<Vec<Paragraph>> = Vec::new();
    let base = |size: f64, align: Align| options.context(size, align);
    let mut section_ctx = base(options.body_px, Align::Center);
    section_ctx.apply_style(&section);
    collect_chunks(section, &section_ctx, options, &base, &mut chunks).ok()?;
    Some(stack(chunks, canvas, options))
}

/// Whether everything shown under `parent` is text that the free layout can place: no
/// element that is not text, no code, no inline positioning. Hidden subtrees (notes,
/// scripts) do not count.
pub(super) fn all_text(parent: ElementRef<'_>) -> bool {
    parent.child_elements().all(|e| {
        if text::is_hidden(&e) {
            return true;
        }
        let name = e.value().name();
        if text::is_unmappable(name) {
            return false;
        }
        let positioned = e.value().attr("style").is_some_and(|style| {
            css::declarations(style).any(|(property, value)| {
                matches!(
                    property.as_str(),
                    "position" | "left" | "top" | "right" | "bottom" | "transform" | "float"
                ) && !matches!(
                    value.to_ascii_lowercase().as_str(),
                    "static" | "none" | "auto"
                )
            })
        });
        !positioned && all_text(e)
    })
}

/// Splits a container's children into chunks: each heading, paragraph, list or other
/// block alone, runs of inline content together, wrapper `div`s looked through.
pub(super) fn collect_chunks(
    parent: ElementRef<'_>,
    ctx: &Context,
    options: &ReadOptions,
    base: &dyn Fn(f64, Align) -> Context,
    chunks: &mut Vec<Vec<Paragraph>>,
) -> Result<(), Unmappable> {
    let mut inline = Builder::default();
    let mut has_inline = false;
    let flush = |inline: &mut Builder, has_inline: &mut bool, chunks: &mut Vec<Vec<Paragraph>>| {
        if *has_inline {
            let paragraphs = std::mem::take(inline).finish();
            if !paragraphs.is_empty() {
                chunks.push(paragraphs);
            }
            *has_inline = false;
        }
    };
    for child in parent.children() {
        let Some(e) = ElementRef::wrap(child) else {
            inline.node(child, ctx)?;
            has_inline = true;
            continue;
        };
        if text::is_hidden(&e) {
            continue;
        }
        let name = e.value().name();
        let wrapper = matches!(
            name,
            "div" | "header" | "footer" | "article" | "main" | "center"
        ) && e.child_elements().any(|c| is_chunk(c.value().name()));
        if wrapper {
            flush(&mut inline, &mut has_inline, chunks);
            let mut inner = ctx.clone();
            inner.apply_style(&e);
            collect_chunks(e, &inner, options, base, chunks)?;
        } else if is_chunk(name) || name == "div" {
            flush(&mut inline, &mut has_inline, chunks);
            let mut chunk_ctx = match text::heading_scale(name) {
                Some(scale) => {
                    let size = if matches!(name, "h1" | "h2") {
                        options.title_px
                    } else {
                        (options.title_px + options.body_px) / 2.0
                    };
                    base(size / scale, ctx.align)
                }
                None if matches!(name, "ul" | "ol" | "pre") => base(options.body_px, Align::Left),
                None => base(options.body_px, ctx.align),
            };
            chunk_ctx.colour = ctx.colour;
            let mut builder = Builder::default();
            builder.node(child, &chunk_ctx)?;
            let paragraphs = builder.finish();
            if !paragraphs.is_empty() {
                chunks.push(paragraphs);
            }
        } else {
            inline.node(child, ctx)?;
            has_inline = true;
        }
    }
    flush(&mut inline, &mut has_inline, chunks);
    Ok(())
}

pub(super) fn is_chunk(name: &str) -> bool {
    text::heading_scale(name).is_some()
        || matches!(
            name,
            "p" | "ul" | "ol" | "pre" | "blockquote" | "dl" | "figure" | "address" | "details"
        )
}

/// Lays chunks out top to bottom: side margins of 6 % of the width, a gap of half the body
/// size between boxes, heights estimated from the text (an average glyph half its font
/// size wide, lines 1.2 times the size), the stack centred vertically; when it would not
/// fit, every size is scaled down once (to no less than half).
pub(super) fn stack(
    mut chunks: Vec<Vec<Paragraph>>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Vec<Pending> {
    let (width, height) = canvas;
    let margin_x = (width * 0.06).max(20.0);
    let margin_y = (height * 0.05).max(20.0);
    let box_w = (width - 2.0 * margin_x).max(1.0);
    let available = (height - 2.0 * margin_y).max(1.0);
    let gap = options.body_px / 2.0;
    let total = |chunks: &[Vec<Paragraph>], gap: f64| {
        chunks
            .iter()
            .map(|c| estimate_height(c, box_w))
            .sum::<f64>()
            + gap * chunks.len().saturating_sub(1) as f64
    };
    let mut gap_now = gap;
    let needed = total(&chunks, gap_now);
    if needed > available {
        let factor = (available / needed).sqrt().max(0.5);
        for run in chunks.iter_mut().flatten().flat_map(|p| p.runs.iter_mut()) {
            run.size_px = run.size_px.map(|s| s * factor);
        }
        gap_now *= factor;
    }
    let needed = total(&chunks, gap_now);
    let mut y = margin_y + ((available - needed) / 2.0).max(0.0);
    let mut items = Vec::with_capacity(chunks.len());
    for paragraphs in chunks {
        let h = estimate_height(&paragraphs, box_w);
        items.push(Pending::Item(Item::Text(TextBox {
            rect: Rect::new(margin_x, y, box_w, h),
            rotation: 0.0,
            paragraphs,
        })));
        y += h + gap_now;
    }
    items
}

/// The height the paragraphs take in a box `width` px wide, roughly.
pub(super) fn estimate_height(paragraphs: &[Paragraph], width: f64) -> f64 {
    paragraphs
        .iter()
        .map(|p| {
            let size = p
                .runs
                .iter()
                .filter_map(|r| r.size_px)
                .fold(0.0f64, f64::max)
                .max(1.0);
            let indent = p.list.map_or(0.0, |l| size * f64::from(l.level + 1));
            let per_line = ((width - indent).max(size) / (size * 0.5)).floor().max(1.0);
            let lines: f64 = p
                .text()
                .split('\n')
                .map(|line| (line.chars().count() as f64 / per_line).ceil().max(1.0))
                .sum();
            lines * size * 1.2
        })
        .sum::<f64>()
        .ceil()
}
