//! Validated inputs of the slide operations (interface 4.4): parsed from the JSON body once,
//! here, for REST and MCP alike.

use std::collections::HashSet;

use serde_json::Value;

use crate::deck::{Fields, parse_notes};
use crate::html::{Notes, SlideHtml};
use crate::layout::Anchor;
use crate::{Error, Result};

/// Most slide ids one remove or move may name (interface section 8).
pub const MAX_SLIDE_IDS: usize = 200;

/// An `add_slide` body.
#[derive(Debug, Clone)]
pub struct AddSlide {
    pub html: SlideHtml,
    pub notes: Option<Notes>,
    pub anchor: Anchor,
}

/// A `move_slides` body.
#[derive(Debug, Clone)]
pub struct MoveSlides {
    pub slide_ids: Vec<String>,
    pub anchor: Anchor,
}

/// A `remove_slides` body.
#[derive(Debug, Clone)]
pub struct RemoveSlides {
    pub slide_ids: Vec<String>,
}

/// An `update_slide` body: `None` keeps the current value; `notes: Some(None)` clears.
#[derive(Debug, Clone)]
pub struct UpdateSlide {
    pub html: Option<SlideHtml>,
    pub notes: Option<Option<Notes>>,
}

fn parse_html(value: Option<Value>) -> Result<Option<SlideHtml>> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => SlideHtml::parse(&s)
            .map(Some)
            .map_err(|e| Error::invalid(format!("html: {e}"))),
        Some(_) => Err(Error::invalid("html must be a string")),
    }
}

fn parse_reference(fields: &mut Fields, key: &str) -> Result<Option<String>> {
    match fields.take(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s)),
        Some(_) => Err(Error::invalid(format!(
            "{key} must be a slide id (a non-empty string)"
        ))),
    }
}

/// The insert fields: `(before, after)`.
fn parse_anchor(fields: &mut Fields) -> Result<(Option<String>, Option<String>)> {
    Ok((
        parse_reference(fields, "insert_before_slide_id")?,
        parse_reference(fields, "insert_after_slide_id")?,
    ))
}

fn parse_slide_ids(value: Option<Value>) -> Result<Vec<String>> {
    let items = match value {
        None | Some(Value::Null) => return Err(Error::invalid("slide_ids is required")),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(Error::invalid("slide_ids must be an array of slide ids")),
    };
    if items.is_empty() {
        return Err(Error::invalid("slide_ids must name at least one slide"));
    }
    if items.len() > MAX_SLIDE_IDS {
        return Err(Error::invalid(format!(
            "slide_ids may name at most {MAX_SLIDE_IDS} slides"
        )));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(id) = item else {
            return Err(Error::invalid("slide_ids must contain only strings"));
        };
        if !seen.insert(id.clone()) {
            return Err(Error::invalid(format!("slide_ids names {id:?} twice")));
        }
        ids.push(id);
    }
    Ok(ids)
}

impl AddSlide {
    /// Parses an optional `add_slide` body.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let mut fields = Fields::new(body, "request body")?;
        fields.reject_unknown(|k| {
            matches!(
                k,
                "html" | "notes" | "insert_before_slide_id" | "insert_after_slide_id"
            )
        })?;
        let anchor = match parse_anchor(&mut fields)? {
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "give insert_before_slide_id or insert_after_slide_id, not both",
                ));
            }
            (Some(before), None) => Anchor::Before(before),
            (None, Some(after)) => Anchor::After(after),
            (None, None) => Anchor::End,
        };
        Ok(AddSlide {
            html: parse_html(fields.take("html"))?.unwrap_or_else(SlideHtml::blank),
            notes: parse_notes("notes", fields.take("notes"))?,
            anchor,
        })
    }
}

/// A reordering body (`move_slides`, `group_slides`): required, with `slide_ids` (parsed)
/// and no keys but the two `references`; the fields left to read.
fn reordering(body: Option<Value>, references: [&str; 2]) -> Result<(Fields, Vec<String>)> {
    let Some(body) = body else {
        return Err(Error::invalid("a JSON body with slide_ids is required"));
    };
    let mut fields = Fields::new(Some(body), "request body")?;
    fields.reject_unknown(|k| k == "slide_ids" || references.contains(&k))?;
    let slide_ids = parse_slide_ids(fields.take("slide_ids"))?;
    Ok((fields, slide_ids))
}

impl MoveSlides {
    /// Parses a `move_slides` body.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let (mut fields, slide_ids) =
            reordering(body, ["insert_before_slide_id", "insert_after_slide_id"])?;
        let anchor = match parse_anchor(&mut fields)? {
            (Some(before), None) => Anchor::Before(before),
            (None, Some(after)) => Anchor::After(after),
            _ => {
                return Err(Error::invalid(
                    "exactly one of insert_before_slide_id and insert_after_slide_id is required",
                ));
            }
        };
        Ok(MoveSlides { slide_ids, anchor })
    }
}

/// A `group_slides` body (an extension): `slide_ids` and exactly one of `below_slide_id`
/// and `after_stack_of_slide_id`.
#[derive(Debug, Clone)]
pub struct GroupSlides {
    pub slide_ids: Vec<String>,
    pub stacking: crate::layout::Stacking,
}

impl GroupSlides {
    /// Parses a `group_slides` body.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let (mut fields, slide_ids) =
            reordering(body, ["below_slide_id", "after_stack_of_slide_id"])?;
        let stacking = match (
            parse_reference(&mut fields, "below_slide_id")?,
            parse_reference(&mut fields, "after_stack_of_slide_id")?,
        ) {
            (Some(below), None) => crate::layout::Stacking::Below(below),
            (None, Some(after)) => crate::layout::Stacking::AfterStack(after),
            _ => {
                return Err(Error::invalid(
                    "exactly one of below_slide_id and after_stack_of_slide_id is required",
                ));
            }
        };
        Ok(GroupSlides {
            slide_ids,
            stacking,
        })
    }
}

impl RemoveSlides {
    /// Parses a `remove_slides` body.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let Some(body) = body else {
            return Err(Error::invalid("a JSON body with slide_ids is required"));
        };
        let mut fields = Fields::new(Some(body), "request body")?;
        fields.reject_unknown(|k| k == "slide_ids")?;
        Ok(RemoveSlides {
            slide_ids: parse_slide_ids(fields.take("slide_ids"))?,
        })
    }
}

impl UpdateSlide {
    /// Parses an `update_slide` body: at least one of `html` and `notes`.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let mut fields = Fields::new(body, "request body")?;
        fields.reject_unknown(|k| k == "html" || k == "notes")?;
        let html = parse_html(fields.take("html"))?;
        let notes = match fields.take("notes") {
            None => None,
            present => Some(parse_notes("notes", present)?),
        };
        if html.is_none() && notes.is_none() {
            return Err(Error::invalid("give html, notes or both"));
        }
        Ok(UpdateSlide { html, notes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invalid<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Err(Error::Invalid(m)) => m,
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn add_slide_defaults_to_a_blank_slide_at_the_end() {
        let a = AddSlide::from_json(None).unwrap();
        assert_eq!(a.anchor, Anchor::End);
        assert_eq!(a.html, SlideHtml::blank());
        assert!(a.notes.is_none());
        assert!(
            invalid(AddSlide::from_json(Some(json!({
                "insert_before_slide_id": "a", "insert_after_slide_id": "b"
            }))))
            .contains("not both")
        );
        assert!(invalid(AddSlide::from_json(Some(json!({"html": "<p>x</p>"})))).contains("html"));
    }

    #[test]
    fn slide_id_lists_are_checked() {
        let many: Vec<String> = (0..201).map(|i| format!("s{i}")).collect();
        for body in [
            json!({}),
            json!({"slide_ids": []}),
            json!({"slide_ids": "a"}),
            json!({"slide_ids": ["a", "a"]}),
            json!({"slide_ids": [1]}),
            json!({"slide_ids": many}),
            json!({"slide_ids": ["a"], "extra": 1}),
        ] {
            invalid(RemoveSlides::from_json(Some(body)));
        }
        invalid(RemoveSlides::from_json(None));
        let ok: Vec<String> = (0..200).map(|i| format!("s{i}")).collect();
        assert_eq!(
            RemoveSlides::from_json(Some(json!({"slide_ids": ok})))
                .unwrap()
                .slide_ids
                .len(),
            200
        );
    }

    #[test]
    fn a_move_needs_exactly_one_insert_field() {
        invalid(MoveSlides::from_json(Some(json!({"slide_ids": ["a"]}))));
        invalid(MoveSlides::from_json(Some(json!({
            "slide_ids": ["a"], "insert_before_slide_id": "b", "insert_after_slide_id": "c"
        }))));
        let m = MoveSlides::from_json(Some(
            json!({"slide_ids": ["a"], "insert_after_slide_id": "c"}),
        ))
        .unwrap();
        assert_eq!(m.anchor, Anchor::After("c".into()));
    }

    #[test]
    fn an_update_needs_html_or_notes() {
        invalid(UpdateSlide::from_json(None));
        invalid(UpdateSlide::from_json(Some(json!({}))));
        let clear = UpdateSlide::from_json(Some(json!({"notes": null}))).unwrap();
        assert_eq!(clear.notes, Some(None));
        assert!(clear.html.is_none());
        invalid(UpdateSlide::from_json(Some(
            json!({"html": "<section><section></section></section>"}),
        )));
    }
}
