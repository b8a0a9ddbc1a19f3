//! Free HTML: a slide without block markup, read as stacked text boxes and tables.

use super::*;
use crate::model::{Table, TableRow};

/// What the free layout stacks: text in one box, or a table's rows of cells.
pub(super) enum Chunk {
    Text(Vec<Paragraph>),
    Table(Vec<Vec<Vec<Paragraph>>>),
}

impl Chunk {
    fn paragraphs_mut(&mut self) -> Box<dyn Iterator<Item = &mut Paragraph> + '_> {
        match self {
            Chunk::Text(p) => Box::new(p.iter_mut()),
            Chunk::Table(rows) => Box::new(rows.iter_mut().flatten().flatten()),
        }
    }
}

/// Free HTML: the slide's text as stacked text boxes; `None` when it holds anything else.
pub(super) fn free_html(
    section: ElementRef<'_>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Option<Vec<Pending>> {
    if !all_text(section) {
        return None;
    }

    // Chunks: each becomes one text box or table.
    let mut chunks: Vec<Chunk> = Vec::new();
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
        if name == "table" {
            return simple_table(e);
        }
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

/// A table of rows of text cells (under `thead`, `tbody`, `tfoot` or the table itself), no
/// cell spanning rows or columns, no table inside.
fn simple_table(table: ElementRef<'_>) -> bool {
    let rows = table_rows(table);
    !rows.is_empty()
        && table
            .child_elements()
            .all(|part| matches!(part.value().name(), "thead" | "tbody" | "tfoot" | "tr"))
        && rows.iter().all(|row| {
            row.child_elements().all(|cell| {
                matches!(cell.value().name(), "th" | "td")
                    && ["rowspan", "colspan"]
                        .iter()
                        .all(|a| cell.value().attr(a).is_none_or(|v| v.trim() == "1"))
                    && !cell
                        .descendent_elements()
                        .any(|d| d.value().name() == "table")
                    && all_text(cell)
            })
        })
}

/// The rows of a table, in order.
fn table_rows(table: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    table
        .child_elements()
        .flat_map(|part| match part.value().name() {
            "tr" => vec![part],
            "thead" | "tbody" | "tfoot" => part
                .child_elements()
                .filter(|r| r.value().name() == "tr")
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// A table's cells as paragraphs, at the body size, left-aligned unless a cell says
/// otherwise, header cells bold.
fn table_chunk(
    table: ElementRef<'_>,
    ctx: &Context,
    options: &ReadOptions,
    base: &dyn Fn(f64, Align) -> Context,
) -> Result<Chunk, Unmappable> {
    let mut rows = Vec::new();
    for row in table_rows(table) {
        let mut cells = Vec::new();
        for cell in row.child_elements() {
            let mut cell_ctx = base(options.body_px, Align::Left);
            cell_ctx.colour = ctx.colour;
            cell_ctx.bold = cell.value().name() == "th";
            cell_ctx.apply_style(&row);
            cell_ctx.apply_style(&cell);
            let mut builder = Builder::default();
            builder.children(*cell, &cell_ctx)?;
            let mut paragraphs = builder.finish();
            for p in &mut paragraphs {
                p.align = cell_ctx.align;
            }
            cells.push(paragraphs);
        }
        rows.push(cells);
    }
    Ok(Chunk::Table(rows))
}

/// Splits a container's children into chunks: each heading, paragraph, list or other
/// block alone, runs of inline content together, wrapper `div`s looked through.
pub(super) fn collect_chunks(
    parent: ElementRef<'_>,
    ctx: &Context,
    options: &ReadOptions,
    base: &dyn Fn(f64, Align) -> Context,
    chunks: &mut Vec<Chunk>,
) -> Result<(), Unmappable> {
    let mut inline = Builder::default();
    let mut has_inline = false;
    let flush = |inline: &mut Builder, has_inline: &mut bool, chunks: &mut Vec<Chunk>| {
        if *has_inline {
            let paragraphs = std::mem::take(inline).finish();
            if !paragraphs.is_empty() {
                chunks.push(Chunk::Text(paragraphs));
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
        if name == "table" {
            flush(&mut inline, &mut has_inline, chunks);
            chunks.push(table_chunk(e, ctx, options, base)?);
        } else if wrapper {
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
                chunks.push(Chunk::Text(paragraphs));
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
/// size between them, heights estimated from the text (an average glyph half its font size
/// wide, lines 1.2 times the size), the stack centred vertically; when it would not fit,
/// every size is scaled down once (to no less than half). Tables are as wide as their
/// text needs (at most the box), centred.
pub(super) fn stack(
    mut chunks: Vec<Chunk>,
    canvas: (f64, f64),
    options: &ReadOptions,
) -> Vec<Pending> {
    let (width, height) = canvas;
    let margin_x = (width * 0.06).max(20.0);
    let margin_y = (height * 0.05).max(20.0);
    let box_w = (width - 2.0 * margin_x).max(1.0);
    let available = (height - 2.0 * margin_y).max(1.0);
    let gap = options.body_px / 2.0;
    let total = |chunks: &[Chunk], gap: f64| {
        chunks
            .iter()
            .map(|c| match c {
                Chunk::Text(p) => estimate_height(p, box_w),
                Chunk::Table(rows) => table_layout(rows, box_w).1.iter().sum(),
            })
            .sum::<f64>()
            + gap * chunks.len().saturating_sub(1) as f64
    };
    let mut gap_now = gap;
    let needed = total(&chunks, gap_now);
    if needed > available {
        let factor = (available / needed).sqrt().max(0.5);
        for run in chunks
            .iter_mut()
            .flat_map(|c| c.paragraphs_mut())
            .flat_map(|p| p.runs.iter_mut())
        {
            run.size_px = run.size_px.map(|s| s * factor);
        }
        gap_now *= factor;
    }
    let needed = total(&chunks, gap_now);
    let mut y = margin_y + ((available - needed) / 2.0).max(0.0);
    let mut items = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        match chunk {
            Chunk::Text(paragraphs) => {
                let h = estimate_height(&paragraphs, box_w);
                items.push(Pending::Item(Item::Text(TextBox {
                    rect: Rect::new(margin_x, y, box_w, h),
                    rotation: 0.0,
                    paragraphs,
                })));
                y += h + gap_now;
            }
            Chunk::Table(rows) => {
                let (columns, heights) = table_layout(&rows, box_w);
                let count = columns.len();
                let (w, h) = (columns.iter().sum::<f64>(), heights.iter().sum::<f64>());
                let rule = rows
                    .iter()
                    .flatten()
                    .flatten()
                    .flat_map(|p| p.runs.iter())
                    .find_map(|r| r.colour)
                    .or(options.text_colour);
                items.push(Pending::Item(Item::Table(Table {
                    rect: Rect::new((width - w) / 2.0, y, w, h),
                    columns,
                    rows: rows
                        .into_iter()
                        .zip(heights)
                        .map(|(mut cells, height)| {
                            cells.resize(count, Vec::new());
                            TableRow { height, cells }
                        })
                        .collect(),
                    rule,
                })));
                y += h + gap_now;
            }
        }
    }
    items
}

/// The size of a cell's text, for its padding.
fn cell_em(cell: &[Paragraph]) -> f64 {
    cell.iter()
        .flat_map(|p| p.runs.iter())
        .find_map(|r| r.size_px)
        .unwrap_or(24.0)
}

/// A table's column widths and row heights: each column as wide as its longest line needs
/// (0.65 em a glyph, the width of wide faces' glyphs on average, so that a cell's words do
/// not wrap; plus the cells' padding of 0.5 em a side), scaled to fit `max_w`;
/// each row as tall as its tallest cell (plus 0.2 em a side). Rows short of cells get
/// empty ones.
fn table_layout(rows: &[Vec<Vec<Paragraph>>], max_w: f64) -> (Vec<f64>, Vec<f64>) {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut columns = vec![0.0f64; count];
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            let em = cell_em(cell);
            let longest = cell
                .iter()
                .flat_map(|p| {
                    let size = p.runs.iter().find_map(|r| r.size_px).unwrap_or(em);
                    p.text()
                        .split('\n')
                        .map(|l| l.chars().count() as f64 * size * 0.65)
                        .collect::<Vec<_>>()
                })
                .fold(0.0f64, f64::max);
            columns[c] = columns[c].max(longest + em);
        }
    }
    let total: f64 = columns.iter().sum();
    if total > max_w {
        for w in &mut columns {
            *w *= max_w / total;
        }
    }
    let heights = rows
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(c, cell)| {
                    let em = cell_em(cell);
                    estimate_height(cell, (columns[c] - em).max(1.0)).max(em * 1.2) + em * 0.4
                })
                .fold(0.0f64, f64::max)
        })
        .collect();
    (columns, heights)
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
