//! Shapes, lines and arrows of block markup: CSS-painted `div`s and `<svg>` drawings.

use super::*;

/// A shape painted with CSS on the block's content.
pub(super) fn css_shape(content: ElementRef<'_>, geometry: &Geometry) -> Option<Shape> {
    let style = content.value().attr("style").unwrap_or("");
    let rect = geometry.rect;
    let fill = css::property(style, "background-color")
        .or_else(|| css::property(style, "background"))
        .map(|v| css::parse_paint(v).ok_or(()))
        .transpose()
        .ok()? // a background that is not a colour (a gradient, an image): snapshot
        .and_then(Paint::colour);
    let stroke = border(style);
    let shape_type = content.value().attr("data-shape-type");
    if fill.is_none() && stroke.is_none() && shape_type.is_none() {
        return None;
    }
    let mut kind = ShapeKind::Rectangle;
    let mut shape_box = rect;
    let mut flip_v = false;
    let mut rotation = 0.0;
    if let Some(radius) = css::property(style, "border-radius") {
        let first = radius.split_whitespace().next().unwrap_or("");
        let shorter = rect.w.min(rect.h);
        let px = match first.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0 * shorter),
            None => css::length(first, 40.0),
        };
        if let Some(px) = px.filter(|px| *px > 0.0) {
            kind = if px >= shorter / 2.0 && first.ends_with('%') {
                ShapeKind::Ellipse
            } else {
                ShapeKind::RoundedRectangle { radius_px: px }
            };
        }
    }
    if let Some(clip) = css::property(style, "clip-path") {
        let lower = clip.to_ascii_lowercase();
        let (name, args) = lower
            .find('(')
            .and_then(|i| Some((&lower[..i], lower[i + 1..].strip_suffix(')')?)))?;
        if name.trim() != "polygon" {
            return None;
        }
        let points: Option<Vec<(f64, f64)>> = args
            .split(',')
            .map(|pair| {
                let mut xy = pair.split_whitespace();
                let x = percent_or_px(xy.next()?, rect.w)?;
                let y = percent_or_px(xy.next()?, rect.h)?;
                Some((rect.x + x, rect.y + y))
            })
            .collect();
        let (k, box_, f, turn) = polygon_kind(&points?)?;
        kind = k;
        shape_box = box_;
        flip_v = f;
        rotation = turn;
    }
    let (rect, base) = geometry.place(shape_box);
    Some(Shape {
        kind,
        rect,
        rotation: base + rotation,
        flip_h: false,
        flip_v,
        fill,
        stroke,
    })
}

pub(super) fn percent_or_px(value: &str, whole: f64) -> Option<f64> {
    match value.strip_suffix('%') {
        Some(p) => Some(p.parse::<f64>().ok()? / 100.0 * whole),
        None => css::length(value, 40.0),
    }
}

/// What a polygon (canvas coordinates) is as a preset shape: kind, the unrotated box,
/// flipped top to bottom, extra rotation. Triangles must be isosceles and point up, down,
/// left or right; four points must make an axis-aligned rectangle.
pub(super) fn polygon_kind(points: &[(f64, f64)]) -> Option<(ShapeKind, Rect, bool, f64)> {
    let (min_x, max_x, min_y, max_y) = points.iter().fold(
        (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
        |(a, b, c, d), &(x, y)| (a.min(x), b.max(x), c.min(y), d.max(y)),
    );
    let bbox = Rect::new(min_x, min_y, max_x - min_x, max_y - min_y);
    let tolerance = (bbox.w.max(bbox.h) * 0.02).max(0.5);
    let near = |a: f64, b: f64| (a - b).abs() <= tolerance;
    match points.len() {
        3 => {
            // Which side the apex is on: the one point alone on its extreme edge.
            let count = |f: &dyn Fn(&(f64, f64)) -> bool| points.iter().filter(|p| f(p)).count();
            let mid_x = min_x + bbox.w / 2.0;
            let mid_y = min_y + bbox.h / 2.0;
            let turned = |rect: Rect| {
                let (cx, cy) = (rect.x + rect.w / 2.0, rect.y + rect.h / 2.0);
                Rect::new(cx - rect.h / 2.0, cy - rect.w / 2.0, rect.h, rect.w)
            };
            if count(&|p| near(p.1, min_y)) == 1
                && count(&|p| near(p.1, max_y)) == 2
                && points.iter().any(|p| near(p.1, min_y) && near(p.0, mid_x))
            {
                Some((ShapeKind::Triangle, bbox, false, 0.0))
            } else if count(&|p| near(p.1, max_y)) == 1
                && count(&|p| near(p.1, min_y)) == 2
                && points.iter().any(|p| near(p.1, max_y) && near(p.0, mid_x))
            {
                Some((ShapeKind::Triangle, bbox, true, 0.0))
            } else if count(&|p| near(p.0, max_x)) == 1
                && count(&|p| near(p.0, min_x)) == 2
                && points.iter().any(|p| near(p.0, max_x) && near(p.1, mid_y))
            {
                Some((ShapeKind::Triangle, turned(bbox), false, 90.0))
            } else if count(&|p| near(p.0, min_x)) == 1
                && count(&|p| near(p.0, max_x)) == 2
                && points.iter().any(|p| near(p.0, min_x) && near(p.1, mid_y))
            {
                Some((ShapeKind::Triangle, turned(bbox), false, 270.0))
            } else {
                None
            }
        }
        4 => points
            .iter()
            .all(|p| {
                (near(p.0, min_x) || near(p.0, max_x)) && (near(p.1, min_y) || near(p.1, max_y))
            })
            .then_some((ShapeKind::Rectangle, bbox, false, 0.0)),
        _ => None,
    }
}

/// How an `<svg>`'s user units map onto the block: `canvas = offset + unit * scale`.
pub(super) struct SvgFrame {
    scale_x: f64,
    scale_y: f64,
    offset_x: f64,
    offset_y: f64,
}

impl SvgFrame {
    fn of(svg: ElementRef<'_>, rect: Rect) -> Self {
        let view_box: Option<Vec<f64>> = svg
            .value()
            .attr("viewBox")
            .or_else(|| svg.value().attr("viewbox"))
            .map(|v| {
                v.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .filter_map(|s| s.parse().ok())
                    .collect()
            });
        let Some([min_x, min_y, vb_w, vb_h]) = view_box
            .as_deref()
            .and_then(|v| <[f64; 4]>::try_from(v).ok())
        else {
            return SvgFrame {
                scale_x: 1.0,
                scale_y: 1.0,
                offset_x: rect.x,
                offset_y: rect.y,
            };
        };
        if vb_w <= 0.0 || vb_h <= 0.0 {
            return SvgFrame {
                scale_x: 1.0,
                scale_y: 1.0,
                offset_x: rect.x,
                offset_y: rect.y,
            };
        }
        let (mut sx, mut sy) = (rect.w / vb_w, rect.h / vb_h);
        let aspect = svg
            .value()
            .attr("preserveAspectRatio")
            .or_else(|| svg.value().attr("preserveaspectratio"))
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let (mut dx, mut dy) = (0.0, 0.0);
        if !aspect.starts_with("none") {
            // xMidYMid meet (or slice): one scale, the drawing centred.
            let s = if aspect.contains("slice") {
                sx.max(sy)
            } else {
                sx.min(sy)
            };
            dx = (rect.w - vb_w * s) / 2.0;
            dy = (rect.h - vb_h * s) / 2.0;
            sx = s;
            sy = s;
        }
        SvgFrame {
            scale_x: sx,
            scale_y: sy,
            offset_x: rect.x + dx - min_x * sx,
            offset_y: rect.y + dy - min_y * sy,
        }
    }

    fn point(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.offset_x + x * self.scale_x,
            self.offset_y + y * self.scale_y,
        )
    }

    fn rect(&self, x: f64, y: f64, w: f64, h: f64) -> Rect {
        let (cx, cy) = self.point(x, y);
        Rect::new(cx, cy, w * self.scale_x, h * self.scale_y)
    }

    /// A stroke width in canvas pixels (the mean scale for a stretched drawing).
    fn width(&self, w: f64) -> f64 {
        w * (self.scale_x * self.scale_y).sqrt()
    }
}

/// A presentation attribute of an SVG element (`fill`, `stroke`, ...), from its `style`
/// or the attribute, inherited from its ancestors up to the `<svg>`.
pub(super) fn svg_property<'a>(e: ElementRef<'a>, name: &str) -> Option<&'a str> {
    std::iter::once(e)
        .chain(e.ancestors().filter_map(ElementRef::wrap))
        .take_while(|a| a.value().name() != "body")
        .find_map(|a| {
            let found = a
                .value()
                .attr("style")
                .and_then(|s| css::property(s, name))
                .or_else(|| a.value().attr(name))
                .map(str::trim);
            if a.value().name() == "svg" && found.is_none() {
                return Some(None);
            }
            found.map(Some)
        })
        .flatten()
}

/// Whether an SVG element or a group around it has a `transform` (not read here: such a
/// drawing is a snapshot).
pub(super) fn transformed(e: ElementRef<'_>) -> bool {
    std::iter::once(e)
        .chain(e.ancestors().filter_map(ElementRef::wrap))
        .take_while(|a| a.value().name() != "svg")
        .any(|a| a.value().attr("transform").is_some())
}

/// A number attribute of an SVG element; a percentage is of `whole`.
pub(super) fn svg_number(e: ElementRef<'_>, name: &str, whole: f64) -> Option<f64> {
    let v = e.value().attr(name)?.trim();
    match v.strip_suffix('%') {
        Some(p) => Some(p.trim().parse::<f64>().ok()? / 100.0 * whole),
        None => v.trim_end_matches("px").trim().parse().ok(),
    }
}

/// Fill and stroke of an SVG shape element; `None` when one is not a plain colour.
pub(super) fn svg_paints(
    e: ElementRef<'_>,
    frame: &SvgFrame,
) -> Option<(Option<Rgb>, Option<Stroke>)> {
    let fill = match svg_property(e, "fill") {
        Some(v) => css::parse_paint(v)?.colour(),
        None => Some(Rgb(0, 0, 0)),
    };
    let stroke = match svg_property(e, "stroke") {
        Some(v) => css::parse_paint(v)?.colour(),
        None => None,
    };
    let width = svg_property(e, "stroke-width")
        .and_then(|w| css::length(w, 16.0))
        .unwrap_or(1.0);
    let stroke = stroke.filter(|_| width > 0.0).map(|colour| Stroke {
        colour,
        width_px: frame.width(width),
    });
    Some((fill, stroke))
}

pub(super) fn svg_shape(svg: ElementRef<'_>, geometry: &Geometry) -> Option<Shape> {
    let frame = SvgFrame::of(svg, geometry.rect);
    let element = svg.descendent_elements().find(|e| {
        matches!(
            e.value().name(),
            "rect"
                | "ellipse"
                | "circle"
                | "polygon"
                | "line"
                | "path"
                | "polyline"
                | "text"
                | "image"
        )
    })?;
    if transformed(element) {
        return None;
    }
    let name = element.value().name();
    if name == "line" {
        return svg_line(svg, geometry, false);
    }
    let (fill, stroke) = svg_paints(element, &frame)?;
    let (vb_w, vb_h) = (
        geometry.rect.w / frame.scale_x,
        geometry.rect.h / frame.scale_y,
    );
    let num = |n: &str, whole: f64| svg_number(element, n, whole);
    let (kind, rect, flip_v, turn) = match name {
        "rect" => {
            let r = frame.rect(
                num("x", vb_w).unwrap_or(0.0),
                num("y", vb_h).unwrap_or(0.0),
                num("width", vb_w).unwrap_or(vb_w),
                num("height", vb_h).unwrap_or(vb_h),
            );
            let rx = num("rx", vb_w).or_else(|| num("ry", vb_h)).unwrap_or(0.0);
            let kind = if rx > 0.0 {
                ShapeKind::RoundedRectangle {
                    radius_px: rx * frame.scale_x.min(frame.scale_y),
                }
            } else {
                ShapeKind::Rectangle
            };
            (kind, r, false, 0.0)
        }
        "ellipse" | "circle" => {
            let cx = num("cx", vb_w).unwrap_or(0.0);
            let cy = num("cy", vb_h).unwrap_or(0.0);
            let (rx, ry) = if name == "circle" {
                let r = num("r", vb_w.min(vb_h)).unwrap_or(0.0);
                (r, r)
            } else {
                (
                    num("rx", vb_w).unwrap_or(0.0),
                    num("ry", vb_h).unwrap_or(0.0),
                )
            };
            (
                ShapeKind::Ellipse,
                frame.rect(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry),
                false,
                0.0,
            )
        }
        "polygon" => {
            let numbers: Vec<f64> = element
                .value()
                .attr("points")?
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<f64>().ok())
                .collect::<Option<_>>()?;
            let points: Vec<(f64, f64)> = numbers
                .chunks_exact(2)
                .map(|xy| frame.point(xy[0], xy[1]))
                .collect();
            polygon_kind(&points)?
        }
        _ => return None,
    };
    let (rect, base) = geometry.place(rect);
    Some(Shape {
        kind,
        rect,
        rotation: base + turn,
        flip_h: false,
        flip_v,
        fill,
        stroke,
    })
}

pub(super) fn line_block(
    block: ElementRef<'_>,
    content: ElementRef<'_>,
    geometry: &Geometry,
    arrow: bool,
) -> Option<Item> {
    let coordinate = |name: &str| data(block, content, name).and_then(|v| css::length(v, 40.0));
    if let (Some(x1), Some(y1), Some(x2), Some(y2)) = (
        coordinate("data-line-x1"),
        coordinate("data-line-y1"),
        coordinate("data-line-x2"),
        coordinate("data-line-y2"),
    ) {
        // Slides.com's line blocks: ends in slide coordinates.
        let colour = data(block, content, "data-line-color")
            .and_then(css::parse_colour)
            .unwrap_or(Rgb(0, 0, 0));
        let width = coordinate("data-line-width").unwrap_or(2.0);
        let head = |name: &str| {
            data(block, content, name).is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                !t.is_empty() && t != "none"
            })
        };
        let ends = LineEnds {
            from: (x1, y1),
            to: (x2, y2),
            arrow_start: head("data-line-start-type"),
            arrow_end: head("data-line-end-type") || (arrow && !head("data-line-start-type")),
        };
        let unrotated = Geometry {
            rect: geometry.rect,
            rotation: 0.0,
        };
        return Some(Item::Shape(ends.shape(
            &unrotated,
            Some(Stroke {
                colour,
                width_px: width,
            }),
        )));
    }
    let svg = content
        .descendent_elements()
        .find(|e| e.value().name() == "svg")?;
    svg_line(svg, geometry, arrow).map(Item::Shape)
}

/// A line's ends in canvas coordinates and its arrow heads.
pub(super) struct LineEnds {
    from: (f64, f64),
    to: (f64, f64),
    arrow_start: bool,
    arrow_end: bool,
}

impl LineEnds {
    fn shape(&self, geometry: &Geometry, stroke: Option<Stroke>) -> Shape {
        let (from, to) = (self.from, self.to);
        let rect = Rect::new(
            from.0.min(to.0),
            from.1.min(to.1),
            (to.0 - from.0).abs(),
            (to.1 - from.1).abs(),
        );
        let (rect, rotation) = geometry.place(rect);
        Shape {
            kind: ShapeKind::Line {
                arrow_start: self.arrow_start,
                arrow_end: self.arrow_end,
            },
            rect,
            rotation,
            flip_h: to.0 < from.0,
            flip_v: to.1 < from.1,
            fill: None,
            stroke,
        }
    }
}

/// The first `<line>` of an SVG as a line shape; a `polygon` nearer one end than the
/// other is an arrow head there (the line then reaches the head's tip).
pub(super) fn svg_line(svg: ElementRef<'_>, geometry: &Geometry, arrow: bool) -> Option<Shape> {
    let frame = SvgFrame::of(svg, geometry.rect);
    let line = svg
        .descendent_elements()
        .find(|e| e.value().name() == "line")
        .filter(|line| !transformed(*line))?;
    let (vb_w, vb_h) = (
        geometry.rect.w / frame.scale_x,
        geometry.rect.h / frame.scale_y,
    );
    let num = |n: &str, whole: f64| svg_number(line, n, whole).unwrap_or(0.0);
    let mut ends = LineEnds {
        from: frame.point(num("x1", vb_w), num("y1", vb_h)),
        to: frame.point(num("x2", vb_w), num("y2", vb_h)),
        arrow_start: line.value().attr("marker-start").is_some(),
        arrow_end: line.value().attr("marker-end").is_some(),
    };
    let distance =
        |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    for polygon in svg
        .descendent_elements()
        .filter(|e| e.value().name() == "polygon")
    {
        let numbers: Vec<f64> = polygon
            .value()
            .attr("points")
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(|s| s.parse().ok())
            .collect();
        let points: Vec<(f64, f64)> = numbers
            .chunks_exact(2)
            .map(|xy| frame.point(xy[0], xy[1]))
            .collect();
        if points.is_empty() {
            continue;
        }
        let n = points.len() as f64;
        let centre = (
            points.iter().map(|p| p.0).sum::<f64>() / n,
            points.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let at_end = distance(centre, ends.to) <= distance(centre, ends.from);
        let (near, far) = if at_end {
            (ends.to, ends.from)
        } else {
            (ends.from, ends.to)
        };
        // The tip: the head's point farthest from the other end.
        let tip = points.iter().copied().fold(near, |best, p| {
            if distance(p, far) > distance(best, far) {
                p
            } else {
                best
            }
        });
        if at_end {
            ends.to = tip;
            ends.arrow_end = true;
        } else {
            ends.from = tip;
            ends.arrow_start = true;
        }
    }
    if arrow && !ends.arrow_start {
        ends.arrow_end = true;
    }
    let stroke_colour = svg_property(line, "stroke")
        .and_then(css::parse_paint)
        .map(Paint::colour)
        .unwrap_or(Some(Rgb(0, 0, 0)));
    let width = svg_property(line, "stroke-width")
        .and_then(|w| css::length(w, 16.0))
        .unwrap_or(1.0);
    let stroke = stroke_colour.map(|colour| Stroke {
        colour,
        width_px: frame.width(width),
    });
    Some(ends.shape(geometry, stroke))
}
