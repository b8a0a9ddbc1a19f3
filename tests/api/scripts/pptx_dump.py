#!/usr/bin/env python3
"""Prints what python-pptx reads in a .pptx as JSON, for the export tests to check: the
slide size, and per slide its notes, background colour and shapes (kind, auto-shape type, place in EMU, text,
runs with bold, italic, typeface, size in points and colour, fill colour, picture content type,
a table's cells as rows of text and its header cells' boldness).

Usage: pptx_dump.py FILE.pptx
"""

import json
import sys

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE


def colour(c):
    try:
        return str(c.rgb)
    except (AttributeError, TypeError, ValueError):
        return None


def shape_of(s):
    out = {
        "kind": str(s.shape_type),
        "left": s.left,
        "top": s.top,
        "width": s.width,
        "height": s.height,
        "text": s.text_frame.text if s.has_text_frame else None,
        "runs": [],
        "fill": None,
        "image": None,
        "auto_shape": None,
        "table": None,
    }
    if getattr(s, "has_table", False) and s.has_table:
        out["table"] = [[c.text for c in row.cells] for row in s.table.rows]
        out["runs"] = [
            {"text": r.text, "bold": bool(r.font.bold), "italic": bool(r.font.italic)}
            for row in s.table.rows
            for c in row.cells
            for p in c.text_frame.paragraphs
            for r in p.runs
        ]
    if s.has_text_frame:
        for p in s.text_frame.paragraphs:
            for r in p.runs:
                out["runs"].append(
                    {
                        "text": r.text,
                        "bold": bool(r.font.bold),
                        "italic": bool(r.font.italic),
                        "font": r.font.name,
                        "size_pt": r.font.size.pt if r.font.size else None,
                        "colour": colour(r.font.color),
                    }
                )
    if s.shape_type == MSO_SHAPE_TYPE.AUTO_SHAPE:
        out["auto_shape"] = str(s.auto_shape_type)
        try:
            out["fill"] = colour(s.fill.fore_color)
        except TypeError:
            pass
    if s.shape_type == MSO_SHAPE_TYPE.PICTURE:
        out["image"] = s.image.content_type
    return out


def background(slide):
    fill = slide.background.fill
    try:
        return str(fill.fore_color.rgb)
    except (AttributeError, TypeError, ValueError):
        return None


deck = Presentation(sys.argv[1])
print(
    json.dumps(
        {
            "width": deck.slide_width,
            "height": deck.slide_height,
            "slides": [
                {
                    "notes": s.notes_slide.notes_text_frame.text if s.has_notes_slide else None,
                    "background": background(s),
                    "shapes": [shape_of(x) for x in s.shapes],
                }
                for s in deck.slides
            ],
        }
    )
)
