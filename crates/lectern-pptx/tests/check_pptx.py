#!/usr/bin/env python3
"""Reads a .pptx with python-pptx and checks it against expectations (JSON written by
tests/common/mod.rs): slide count and size, each slide's notes and background, and its
text boxes (text, alignment, list level, runs' bold/italic/underline/strike/size/colour/
link), auto shapes (type, fill, outline), lines and pictures, in order, positions within
1 px (9,525 EMU). Prints one line per problem and exits 1 if there were any.

Usage: check_pptx.py FILE.pptx EXPECTATIONS.json
"""

import json
import sys

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE, MSO_SHAPE_TYPE
from pptx.enum.text import PP_ALIGN

PX = 9525
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def close(actual, expected, tolerance, what):
    check(
        actual is not None and abs(actual - expected) <= tolerance,
        f"{what}: {actual} != {expected}",
    )


def check_place(shape, exp, what):
    for attr, key in (("left", "x"), ("top", "y"), ("width", "w"), ("height", "h")):
        close(getattr(shape, attr), exp[key], PX, f"{what} {attr}")
    close(shape.rotation, exp["rotation"], 0.01, f"{what} rotation")


def colour_of(font_or_fill_colour):
    try:
        return str(font_or_fill_colour.rgb)
    except AttributeError:
        return None


def check_run(run, exp, what):
    check(run.text == exp["text"], f"{what} text: {run.text!r} != {exp['text']!r}")
    font = run.font
    check(bool(font.bold) == exp["bold"], f"{what} bold: {font.bold}")
    check(bool(font.italic) == exp["italic"], f"{what} italic: {font.italic}")
    check(bool(font.underline) == exp["underline"], f"{what} underline: {font.underline}")
    strike = run._r.get_or_add_rPr().get("strike")
    check(
        (strike == "sngStrike") == exp["strike"], f"{what} strike: {strike}"
    )
    if exp["size_pt"] is None:
        check(font.size is None, f"{what} size: {font.size}")
    else:
        close(font.size.pt if font.size else None, exp["size_pt"], 0.01, f"{what} size")
    colour = colour_of(font.color) if font.color and font.color.type else None
    check(colour == exp["colour"], f"{what} colour: {colour} != {exp['colour']}")
    link = run.hyperlink.address
    check(link == exp["link"], f"{what} link: {link!r} != {exp['link']!r}")


ALIGN = {
    "LEFT": (None, PP_ALIGN.LEFT),
    "CENTER": (PP_ALIGN.CENTER,),
    "RIGHT": (PP_ALIGN.RIGHT,),
    "JUSTIFY": (PP_ALIGN.JUSTIFY,),
}


def check_text(shape, exp, what):
    check(shape.shape_type == MSO_SHAPE_TYPE.TEXT_BOX, f"{what} is a {shape.shape_type}")
    check_place(shape, exp, what)
    frame = shape.text_frame
    expected_text = "\n".join(p["text"] for p in exp["paragraphs"])
    check(frame.text == expected_text, f"{what} text: {frame.text!r} != {expected_text!r}")
    paragraphs = frame.paragraphs
    check(
        len(paragraphs) == len(exp["paragraphs"]),
        f"{what}: {len(paragraphs)} paragraphs, expected {len(exp['paragraphs'])}",
    )
    for i, (p, ep) in enumerate(zip(paragraphs, exp["paragraphs"])):
        pw = f"{what} paragraph {i}"
        check(p.alignment in ALIGN[ep["align"]], f"{pw} alignment: {p.alignment}")
        check(p.level == ep["level"], f"{pw} level: {p.level} != {ep['level']}")
        runs = p.runs
        check(len(runs) == len(ep["runs"]), f"{pw}: {len(runs)} runs, expected {len(ep['runs'])}")
        for j, (r, er) in enumerate(zip(runs, ep["runs"])):
            check_run(r, er, f"{pw} run {j}")


AUTO_SHAPES = {
    "RECTANGLE": MSO_SHAPE.RECTANGLE,
    "ROUNDED_RECTANGLE": MSO_SHAPE.ROUNDED_RECTANGLE,
    "OVAL": MSO_SHAPE.OVAL,
    "ISOSCELES_TRIANGLE": MSO_SHAPE.ISOSCELES_TRIANGLE,
}


def check_shape(shape, exp, what):
    check(shape.shape_type == MSO_SHAPE_TYPE.AUTO_SHAPE, f"{what} is a {shape.shape_type}")
    check_place(shape, exp, what)
    kind = shape.auto_shape_type
    check(kind == AUTO_SHAPES[exp["type"]], f"{what} type: {kind} != {exp['type']}")
    fill = colour_of(shape.fill.fore_color) if shape.fill.type == 1 else None
    check(fill == exp["fill"], f"{what} fill: {fill} != {exp['fill']}")
    line = shape.line
    stroke = colour_of(line.color) if line.fill.type == 1 else None
    check(stroke == exp["stroke"], f"{what} stroke: {stroke} != {exp['stroke']}")


def check_line(shape, exp, what):
    check(shape.shape_type == MSO_SHAPE_TYPE.LINE, f"{what} is a {shape.shape_type}")
    check_place(shape, exp, what)
    colour = colour_of(shape.line.color)
    check(colour == exp["colour"], f"{what} colour: {colour} != {exp['colour']}")
    xfrm = shape._element.spPr.xfrm
    check((xfrm.get("flipH") == "1") == exp["flip_h"], f"{what} flipH")
    check((xfrm.get("flipV") == "1") == exp["flip_v"], f"{what} flipV")


def check_picture(shape, exp, what):
    check(shape.shape_type == MSO_SHAPE_TYPE.PICTURE, f"{what} is a {shape.shape_type}")
    check_place(shape, exp, what)
    image = shape.image
    check(image.content_type == exp["content_type"], f"{what} type: {image.content_type}")
    check(len(image.blob) > 0, f"{what} has no bytes")
    descr = shape._element.nvPicPr.cNvPr.get("descr")
    check(descr == exp["description"], f"{what} description: {descr!r}")


def main():
    path, expectations = sys.argv[1], sys.argv[2]
    with open(expectations, encoding="utf-8") as f:
        exp = json.load(f)
    prs = Presentation(path)
    check(prs.slide_width == exp["width"], f"slide width {prs.slide_width} != {exp['width']}")
    check(prs.slide_height == exp["height"], f"slide height {prs.slide_height} != {exp['height']}")
    slides = list(prs.slides)
    check(len(slides) == len(exp["slides"]), f"{len(slides)} slides, expected {len(exp['slides'])}")
    counts = {"texts": 0, "shapes": 0, "lines": 0, "pictures": 0}
    for n, (slide, es) in enumerate(zip(slides, exp["slides"]), start=1):
        what = f"slide {n}"
        if es["notes"] is None:
            check(not slide.has_notes_slide, f"{what} has a notes slide")
        else:
            check(slide.has_notes_slide, f"{what} has no notes slide")
            if slide.has_notes_slide:
                text = slide.notes_slide.notes_text_frame.text
                check(text == es["notes"], f"{what} notes: {text!r} != {es['notes']!r}")
        fill = slide.background.fill
        bg = colour_of(fill.fore_color) if fill.type == 1 else None
        check(bg == es["background"], f"{what} background: {bg} != {es['background']}")
        groups = {"texts": [], "shapes": [], "lines": [], "pictures": []}
        for shape in slide.shapes:
            kind = shape.shape_type
            if kind == MSO_SHAPE_TYPE.TEXT_BOX:
                groups["texts"].append(shape)
            elif kind == MSO_SHAPE_TYPE.AUTO_SHAPE:
                groups["shapes"].append(shape)
            elif kind == MSO_SHAPE_TYPE.LINE:
                groups["lines"].append(shape)
            elif kind == MSO_SHAPE_TYPE.PICTURE:
                groups["pictures"].append(shape)
            else:
                problems.append(f"{what}: unexpected shape {shape.name} of type {kind}")
        checks = {
            "texts": check_text,
            "shapes": check_shape,
            "lines": check_line,
            "pictures": check_picture,
        }
        for key, checker in checks.items():
            found, expected = groups[key], es[key]
            check(
                len(found) == len(expected),
                f"{what}: {len(found)} {key}, expected {len(expected)}",
            )
            for i, (shape, e) in enumerate(zip(found, expected)):
                checker(shape, e, f"{what} {key[:-1]} {i}")
            counts[key] += min(len(found), len(expected))
    for p in problems:
        print(p)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"checked {len(slides)} slides: {summary}; {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
