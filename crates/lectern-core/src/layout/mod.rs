//! The slide-ordering rules, pure (no I/O): a deck is an ordered sequence of horizontal
//! positions, each holding one slide or a vertical group of two or more slides.
//!
//! Stored form: every slide has an order key (`rank`, see [`crate::rank`]) and an optional
//! group number; a vertical group is the run of consecutive slides sharing a group number.
//! Each operation here takes the deck's current slides in order and returns only the rows to
//! write ([`Plan`]), so a move on a deck of 10,000 slides writes the moved slides and nothing
//! else.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::rank;
use crate::{Error, Result};

/// A slide's place in the stored order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlideSlot {
    pub id: String,
    pub rank: String,
    /// Slides sharing a group number (and adjacent in rank order) form a vertical group.
    pub group: Option<i64>,
}

/// A deck's slides in order: a persistent vector, so that the order after an edit shares
/// everything but what the edit changed with the order before it (adding a slide at the end
/// of 10,000 copies none of the others), and a copy kept by a cache costs nothing. It knows
/// its number of horizontal positions, so that the last slide's position (a slide just
/// added at the end) takes no scan of the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots {
    slides: Slides,
    stacks: i64,
}

type Slides = imbl::Vector<SlideSlot>;

impl Slots {
    /// Whether `other` is this very order (a copy of it, sharing its memory): `false` says
    /// nothing about equality.
    pub fn is_copy_of(&self, other: &Slots) -> bool {
        self.slides.ptr_eq(&other.slides)
    }

    fn counted(slides: Slides) -> Slots {
        let mut previous = None;
        let mut stacks = 0;
        for s in slides.leaves().flatten() {
            if !continues_group(previous, s) {
                stacks += 1;
            }
            previous = Some(s);
        }
        Slots { slides, stacks }
    }

    /// These slides, then `more` after the last one.
    fn appended<'a>(&self, more: impl IntoIterator<Item = &'a SlideSlot>) -> Slots {
        let mut out = self.clone();
        for s in more {
            if !continues_group(out.slides.last(), s) {
                out.stacks += 1;
            }
            out.slides.push_back(s.clone());
        }
        out
    }

    /// The position of the last slide, without looking at the slides before its stack.
    pub fn last_position(&self) -> Option<Position> {
        let last = self.slides.last()?;
        let mut vertical = 0;
        if last.group.is_some() {
            let stack = self.slides.iter().rev().skip(1);
            vertical = stack.take_while(|s| s.group == last.group).count() as i64;
        }
        Some(Position {
            horizontal: self.stacks - 1,
            vertical: (vertical > 0).then_some(vertical),
        })
    }
}

/// Whether `s` is in the vertical group of the slide before it.
fn continues_group(previous: Option<&SlideSlot>, s: &SlideSlot) -> bool {
    s.group.is_some() && previous.is_some_and(|p| p.group == s.group)
}

impl std::ops::Deref for Slots {
    type Target = Slides;

    fn deref(&self) -> &Slides {
        &self.slides
    }
}

impl<'a> IntoIterator for &'a Slots {
    type Item = &'a SlideSlot;
    type IntoIter =
        std::iter::Flatten<imbl::vector::Chunks<'a, SlideSlot, imbl::shared_ptr::DefaultSharedPtr>>;

    /// In order, a run of contiguous slides at a time (faster than looking each one up).
    fn into_iter(self) -> Self::IntoIter {
        self.slides.leaves().flatten()
    }
}

impl From<Vec<SlideSlot>> for Slots {
    fn from(slides: Vec<SlideSlot>) -> Slots {
        Slots::counted(Slides::from(slides))
    }
}

impl FromIterator<SlideSlot> for Slots {
    fn from_iter<I: IntoIterator<Item = SlideSlot>>(slides: I) -> Slots {
        Slots::counted(slides.into_iter().collect())
    }
}

/// Where a slide is shown (interface 2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Position {
    pub horizontal: i64,
    pub vertical: Option<i64>,
}

/// Where new or moved slides go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchor {
    /// After the last horizontal position.
    End,
    Before(String),
    After(String),
}

/// The rows an operation writes: new order keys or groups for existing slides, new slides'
/// keys and groups, and slides to delete.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Existing slides whose rank or group changes.
    pub reposition: Vec<SlideSlot>,
    /// Slides to insert (their content comes from the caller).
    pub insert: Vec<SlideSlot>,
    /// Slides to delete.
    pub delete: Vec<String>,
    /// How many of the requested slides were acted on.
    pub count: usize,
    /// Requested ids that are not in the deck.
    pub missing: Vec<String>,
}

/// The positions of `slides` (which must be in rank order), in the same order.
pub fn positions<'a>(slides: impl IntoIterator<Item = &'a SlideSlot>) -> Vec<Position> {
    positions_of(slides.into_iter()).collect()
}

/// The position of the slide at index `i` of `slides`, without keeping the others'.
pub fn position_at(slides: &Slots, i: usize) -> Option<Position> {
    positions_of(slides.into_iter()).nth(i)
}

/// The positions of slides given in rank order, one per slide.
fn positions_of<'a>(slides: impl Iterator<Item = &'a SlideSlot>) -> impl Iterator<Item = Position> {
    let mut slides = slides.peekable();
    let mut previous: Option<&SlideSlot> = None;
    let mut horizontal = -1;
    let mut vertical = 0;
    std::iter::from_fn(move || {
        let s = slides.next()?;
        let continues_group = continues_group(previous, s);
        if continues_group {
            vertical += 1;
        } else {
            horizontal += 1;
            vertical = 0;
        }
        let in_group = s.group.is_some()
            && (continues_group || slides.peek().is_some_and(|n| n.group == s.group));
        previous = Some(s);
        Some(Position {
            horizontal,
            vertical: in_group.then_some(vertical),
        })
    })
}

/// Rank keys and groups for a new deck made of `stacks` (each stack: the number of slides at
/// that horizontal position; 1 = a horizontal slide, 2+ = a vertical group).
pub fn initial_slots(stacks: &[usize]) -> Vec<(String, Option<i64>)> {
    let total = stacks.iter().sum();
    let mut ranks = rank::n_between(None, None, total).into_iter();
    let mut out = Vec::with_capacity(total);
    for (g, &size) in stacks.iter().enumerate() {
        for _ in 0..size {
            let rank = ranks.next().expect("one rank was made per slide");
            out.push((rank, (size >= 2).then_some(g as i64 + 1)));
        }
    }
    out
}

fn index_of(slides: &Slides, id: &str) -> Option<usize> {
    slides.iter().position(|s| s.id == id)
}

fn reference_not_found(field: &str, id: &str) -> Error {
    Error::not_found(format!("{field}: slide {id:?} is not in this deck"))
}

/// Inserts `ids` (in order) at `anchor` into `rest`; returns their new slots. The slides join
/// the reference's vertical group when it is in one (`in_group` says so, judged before the
/// operation removed anything), otherwise they become horizontal slides.
fn place(rest: &Slides, ids: &[String], at: usize, group: Option<i64>) -> Vec<SlideSlot> {
    let lower = at.checked_sub(1).map(|i| rest[i].rank.as_str());
    let upper = rest.get(at).map(|s| s.rank.as_str());
    rank::n_between(lower, upper, ids.len())
        .into_iter()
        .zip(ids)
        .map(|(rank, id)| SlideSlot {
            id: id.clone(),
            rank,
            group,
        })
        .collect()
}

/// The insertion index in `rest` and the group for `anchor`, with `field` naming the
/// request field for errors. `before` is the order before the operation (whose groups
/// count).
fn resolve(
    rest: &Slides,
    anchor: &Anchor,
    field: &str,
    before: &Slides,
) -> Result<(usize, Option<i64>)> {
    match anchor {
        Anchor::End => Ok((rest.len(), None)),
        Anchor::Before(id) | Anchor::After(id) => {
            let i = index_of(rest, id).ok_or_else(|| reference_not_found(field, id))?;
            let group = index_of(before, id).and_then(|i| before[i].group);
            let at = if matches!(anchor, Anchor::Before(_)) {
                i
            } else {
                i + 1
            };
            Ok((at, group))
        }
    }
}

/// Group numbers left with one slide after an operation: that slide becomes horizontal.
fn collapse_groups_of_one(after: &Slides) -> Vec<SlideSlot> {
    let mut counts: HashMap<i64, usize> = HashMap::new();
    for s in after {
        if let Some(g) = s.group {
            *counts.entry(g).or_default() += 1;
        }
    }
    after
        .iter()
        .filter(|s| s.group.is_some_and(|g| counts[&g] == 1))
        .map(|s| SlideSlot {
            group: None,
            ..s.clone()
        })
        .collect()
}

/// Adds one slide with id `new_id` at `anchor` (interface 4.4 `add_slide`).
pub fn add(slides: &Slots, new_id: &str, anchor: &Anchor) -> Result<Plan> {
    let field = match anchor {
        Anchor::Before(_) => "insert_before_slide_id",
        _ => "insert_after_slide_id",
    };
    let (at, group) = resolve(slides, anchor, field, slides)?;
    Ok(Plan {
        insert: place(slides, &[new_id.to_string()], at, group),
        count: 1,
        ..Plan::default()
    })
}

/// The requested `ids` that are in the deck (in the given order) and those that are not;
/// 404 when none is.
fn known_and_missing(slides: &Slots, ids: &[String]) -> Result<(Vec<String>, Vec<String>)> {
    let present: HashSet<&str> = slides.iter().map(|s| s.id.as_str()).collect();
    let (known, missing): (Vec<String>, Vec<String>) = ids
        .iter()
        .cloned()
        .partition(|id| present.contains(id.as_str()));
    if known.is_empty() {
        return Err(Error::not_found("none of the slide_ids are in this deck"));
    }
    Ok((known, missing))
}

/// The slides a move takes out of the deck, after the checks every move makes: the target
/// is not one of them and is in the deck, and at least one of the ids is.
struct Moving {
    /// The requested ids in the deck, in the given order.
    known: Vec<String>,
    /// The requested ids that are not.
    missing: Vec<String>,
    /// The deck without the moved slides.
    rest: Slots,
}

impl Moving {
    fn split(slides: &Slots, ids: &[String], target: &str, field: &str) -> Result<Moving> {
        if ids.iter().any(|id| id == target) {
            return Err(Error::invalid(format!(
                "{field}: the target slide {target:?} cannot be one of the moved slides"
            )));
        }
        if index_of(slides, target).is_none() {
            return Err(reference_not_found(field, target));
        }
        let (known, missing) = known_and_missing(slides, ids)?;
        let moving: HashSet<&str> = known.iter().map(String::as_str).collect();
        let rest = slides
            .iter()
            .filter(|s| !moving.contains(s.id.as_str()))
            .cloned()
            .collect();
        Ok(Moving {
            known,
            missing,
            rest,
        })
    }
}

/// The plan that puts `known` at index `at` of `rest` in `group`, after `regrouped` (slides
/// of `rest` given another group) changed; groups left with one slide end.
fn moved_plan(
    rest: Slots,
    known: Vec<String>,
    missing: Vec<String>,
    at: usize,
    group: Option<i64>,
    mut regrouped: Vec<SlideSlot>,
) -> Plan {
    let placed = place(&rest, &known, at, group);
    let mut after = rest.slides;
    for r in &regrouped {
        if let Some(s) = after.iter_mut().find(|s| s.id == r.id) {
            s.group = r.group;
        }
    }
    let tail = after.split_off(at);
    after.extend(placed.iter().cloned());
    after.append(tail);
    regrouped.extend(placed);
    for collapsed in collapse_groups_of_one(&after) {
        match regrouped.iter_mut().find(|s| s.id == collapsed.id) {
            Some(s) => s.group = None,
            None => regrouped.push(collapsed),
        }
    }
    Plan {
        reposition: regrouped,
        count: known.len(),
        missing,
        ..Plan::default()
    }
}

/// Moves the known `ids`, in the given order, before or after the target (4.4
/// `move_slides`). `ids` must already be checked for count and uniqueness.
pub fn move_slides(slides: &Slots, ids: &[String], anchor: &Anchor) -> Result<Plan> {
    let (target, field) = match anchor {
        Anchor::Before(t) => (t, "insert_before_slide_id"),
        Anchor::After(t) => (t, "insert_after_slide_id"),
        Anchor::End => {
            return Err(Error::invalid(
                "exactly one of insert_before_slide_id and insert_after_slide_id is required",
            ));
        }
    };
    let Moving {
        known,
        missing,
        rest,
    } = Moving::split(slides, ids, target, field)?;
    let (at, group) = resolve(&rest, anchor, field, slides)?;
    Ok(moved_plan(rest, known, missing, at, group, Vec::new()))
}

/// Where `group_slides` puts slides: what `move_slides` cannot do, start a vertical group
/// under a horizontal slide, or leave a group when no horizontal slide follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stacking {
    /// Directly below the slide, in its vertical group (made when it has none).
    Below(String),
    /// As horizontal slides right after the slide's stack (the slide and its group).
    AfterStack(String),
}

/// Moves the known `ids`, in the given order, as `stacking` says (`group_slides`, an
/// extension of the interface for the editor). The same checks as [`move_slides`]; a group
/// left with one slide ends as for any move.
pub fn group_slides(slides: &Slots, ids: &[String], stacking: &Stacking) -> Result<Plan> {
    let (target, field) = match stacking {
        Stacking::Below(t) => (t, "below_slide_id"),
        Stacking::AfterStack(t) => (t, "after_stack_of_slide_id"),
    };
    let Moving {
        known,
        missing,
        rest,
    } = Moving::split(slides, ids, target, field)?;
    let ti = index_of(&rest, target).expect("the target is not among the moved slides");
    let mut regrouped = Vec::new();
    let (at, group) = match stacking {
        Stacking::Below(_) => {
            let group = match rest[ti].group {
                Some(g) => g,
                None => {
                    // A new group number, shared by the target and the slides below it.
                    let g = slides.iter().filter_map(|s| s.group).max().unwrap_or(0) + 1;
                    regrouped.push(SlideSlot {
                        group: Some(g),
                        ..rest[ti].clone()
                    });
                    g
                }
            };
            (ti + 1, Some(group))
        }
        Stacking::AfterStack(_) => {
            let mut end = ti + 1;
            if let Some(g) = rest[ti].group {
                while end < rest.len() && rest[end].group == Some(g) {
                    end += 1;
                }
            }
            (end, None)
        }
    };
    Ok(moved_plan(rest, known, missing, at, group, regrouped))
}

/// Removes the known `ids` (4.4 `remove_slides`). Removing every slide is rejected.
pub fn remove(slides: &Slots, ids: &[String]) -> Result<Plan> {
    let (known, missing) = known_and_missing(slides, ids)?;
    if known.len() == slides.len() {
        return Err(Error::invalid(
            "a deck keeps at least one slide: this would remove every slide",
        ));
    }
    let removing: HashSet<&str> = known.iter().map(String::as_str).collect();
    let after: Slots = slides
        .iter()
        .filter(|s| !removing.contains(s.id.as_str()))
        .cloned()
        .collect();
    Ok(Plan {
        reposition: collapse_groups_of_one(&after),
        count: known.len(),
        delete: known,
        missing,
        ..Plan::default()
    })
}

/// Applies a plan to `slides` (in rank order), returning the new order (what the backend's
/// rows will be). The slides the plan leaves alone stay in order, so the placed ones are
/// merged in: no sort of the whole deck.
pub fn apply(slides: &Slots, plan: &Plan) -> Slots {
    let mut placed: Vec<&SlideSlot> = plan.reposition.iter().chain(&plan.insert).collect();
    placed.sort_by(|a, b| a.rank.cmp(&b.rank));
    let after_the_last = |p: &&SlideSlot| slides.last().is_none_or(|l| l.rank < p.rank);
    if plan.delete.is_empty() && plan.reposition.is_empty() && placed.iter().all(after_the_last) {
        // New slides after the last one (adding at the end): the order before, shared, and
        // them.
        return slides.appended(placed);
    }
    let left: HashSet<&str> = plan
        .delete
        .iter()
        .map(String::as_str)
        .chain(plan.reposition.iter().map(|s| s.id.as_str()))
        .collect();
    let mut out = Vec::with_capacity(slides.len() + plan.insert.len());
    let mut placed = placed.into_iter().peekable();
    for s in slides {
        if !left.is_empty() && left.contains(s.id.as_str()) {
            continue;
        }
        while let Some(p) = placed.next_if(|p| p.rank < s.rank) {
            out.push(p.clone());
        }
        out.push(s.clone());
    }
    out.extend(placed.cloned());
    Slots::from(out)
}

/// `plan`, or only its count and missing ids when applying it would leave every slide where
/// it is (same order, same vertical groups): such a move changes nothing and writes nothing.
pub fn unless_unchanged(slides: &Slots, plan: Plan) -> Plan {
    applied_unless_unchanged(slides, plan).0
}

/// [`unless_unchanged`], with the order after it.
pub fn applied_unless_unchanged(slides: &Slots, plan: Plan) -> (Plan, Slots) {
    let after = apply(slides, &plan);
    let same = after.len() == slides.len()
        && after.iter().zip(slides.iter()).all(|(a, b)| a.id == b.id)
        && positions(&after) == positions(slides);
    if same {
        let nothing = Plan {
            count: plan.count,
            missing: plan.missing,
            ..Plan::default()
        };
        (nothing, slides.clone())
    } else {
        (plan, after)
    }
}

/// The HTML of all slides: one `<section>` per horizontal position, a vertical group as a
/// `<section>` wrapping its slides' sections. `slides` (a slide's place and its stored
/// `<section>`) must be in presentation order.
pub fn render_deck_html<'a>(slides: impl IntoIterator<Item = (&'a SlideSlot, &'a str)>) -> String {
    let (slots, htmls): (Vec<&SlideSlot>, Vec<&str>) = slides.into_iter().unzip();
    let positions: Vec<Position> = positions_of(slots.into_iter()).collect();
    let mut out = String::new();
    for (i, (html, pos)) in htmls.iter().zip(&positions).enumerate() {
        let opens_group = pos.vertical == Some(0);
        let closes_group = pos.vertical.is_some()
            && positions
                .get(i + 1)
                .is_none_or(|n| n.vertical.is_none_or(|v| v == 0));
        if i > 0 && pos.vertical.is_none_or(|v| v == 0) {
            out.push('\n');
        }
        if opens_group {
            out.push_str("<section>");
        }
        out.push_str(html);
        if closes_group {
            out.push_str("</section>");
        }
    }
    out
}

#[cfg(test)]
mod tests;
