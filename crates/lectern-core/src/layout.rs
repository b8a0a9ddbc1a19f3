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
pub fn positions(slides: &[SlideSlot]) -> Vec<Position> {
    let mut out = Vec::with_capacity(slides.len());
    let mut horizontal = -1;
    let mut vertical = 0;
    for (i, s) in slides.iter().enumerate() {
        let continues_group = i > 0 && s.group.is_some() && slides[i - 1].group == s.group;
        if continues_group {
            vertical += 1;
        } else {
            horizontal += 1;
            vertical = 0;
        }
        let in_group = s.group.is_some()
            && (continues_group || slides.get(i + 1).is_some_and(|n| n.group == s.group));
        out.push(Position {
            horizontal,
            vertical: in_group.then_some(vertical),
        });
    }
    out
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

fn index_of(slides: &[SlideSlot], id: &str) -> Option<usize> {
    slides.iter().position(|s| s.id == id)
}

fn reference_not_found(field: &str, id: &str) -> Error {
    Error::not_found(format!("{field}: slide {id:?} is not in this deck"))
}

/// Inserts `ids` (in order) at `anchor` into `rest`; returns their new slots. The slides join
/// the reference's vertical group when it is in one (`in_group` says so, judged before the
/// operation removed anything), otherwise they become horizontal slides.
fn place(rest: &[SlideSlot], ids: &[String], at: usize, group: Option<i64>) -> Vec<SlideSlot> {
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
/// request field for errors. `groups` is the group of each slide before the operation.
fn resolve(
    rest: &[SlideSlot],
    anchor: &Anchor,
    field: &str,
    groups: &HashMap<&str, Option<i64>>,
) -> Result<(usize, Option<i64>)> {
    match anchor {
        Anchor::End => Ok((rest.len(), None)),
        Anchor::Before(id) | Anchor::After(id) => {
            let i = index_of(rest, id).ok_or_else(|| reference_not_found(field, id))?;
            let group = groups.get(id.as_str()).copied().flatten();
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
fn collapse_groups_of_one(after: &[SlideSlot]) -> Vec<SlideSlot> {
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

fn group_map(slides: &[SlideSlot]) -> HashMap<&str, Option<i64>> {
    slides.iter().map(|s| (s.id.as_str(), s.group)).collect()
}

/// Adds one slide with id `new_id` at `anchor` (interface 4.4 `add_slide`).
pub fn add(slides: &[SlideSlot], new_id: &str, anchor: &Anchor) -> Result<Plan> {
    let field = match anchor {
        Anchor::Before(_) => "insert_before_slide_id",
        _ => "insert_after_slide_id",
    };
    let (at, group) = resolve(slides, anchor, field, &group_map(slides))?;
    Ok(Plan {
        insert: place(slides, &[new_id.to_string()], at, group),
        count: 1,
        ..Plan::default()
    })
}

/// Moves the known `ids`, in the given order, before or after the target (4.4
/// `move_slides`). `ids` must already be checked for count and uniqueness.
pub fn move_slides(slides: &[SlideSlot], ids: &[String], anchor: &Anchor) -> Result<Plan> {
    let (target, field) = match anchor {
        Anchor::Before(t) => (t, "insert_before_slide_id"),
        Anchor::After(t) => (t, "insert_after_slide_id"),
        Anchor::End => {
            return Err(Error::invalid(
                "exactly one of insert_before_slide_id and insert_after_slide_id is required",
            ));
        }
    };
    if ids.contains(target) {
        return Err(Error::invalid(format!(
            "{field}: the target slide {target:?} cannot be one of the moved slides"
        )));
    }
    if index_of(slides, target).is_none() {
        return Err(reference_not_found(field, target));
    }
    let present: HashSet<&str> = slides.iter().map(|s| s.id.as_str()).collect();
    let (known, missing): (Vec<String>, Vec<String>) = ids
        .iter()
        .cloned()
        .partition(|id| present.contains(id.as_str()));
    if known.is_empty() {
        return Err(Error::not_found("none of the slide_ids are in this deck"));
    }
    let moving: HashSet<&str> = known.iter().map(String::as_str).collect();
    let rest: Vec<SlideSlot> = slides
        .iter()
        .filter(|s| !moving.contains(s.id.as_str()))
        .cloned()
        .collect();
    let (at, group) = resolve(&rest, anchor, field, &group_map(slides))?;
    let placed = place(&rest, &known, at, group);
    let mut after = rest.clone();
    after.splice(at..at, placed.iter().cloned());
    let mut reposition = placed;
    for collapsed in collapse_groups_of_one(&after) {
        match reposition.iter_mut().find(|s| s.id == collapsed.id) {
            Some(s) => s.group = None,
            None => reposition.push(collapsed),
        }
    }
    Ok(Plan {
        reposition,
        count: known.len(),
        missing,
        ..Plan::default()
    })
}

/// Removes the known `ids` (4.4 `remove_slides`). Removing every slide is rejected.
pub fn remove(slides: &[SlideSlot], ids: &[String]) -> Result<Plan> {
    let present: HashSet<&str> = slides.iter().map(|s| s.id.as_str()).collect();
    let (known, missing): (Vec<String>, Vec<String>) = ids
        .iter()
        .cloned()
        .partition(|id| present.contains(id.as_str()));
    if known.is_empty() {
        return Err(Error::not_found("none of the slide_ids are in this deck"));
    }
    if known.len() == slides.len() {
        return Err(Error::invalid(
            "a deck keeps at least one slide: this would remove every slide",
        ));
    }
    let removing: HashSet<&str> = known.iter().map(String::as_str).collect();
    let after: Vec<SlideSlot> = slides
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

/// Applies a plan to `slides`, returning the new order (what the backend's rows will be).
pub fn apply(slides: &[SlideSlot], plan: &Plan) -> Vec<SlideSlot> {
    let deleted: HashSet<&str> = plan.delete.iter().map(String::as_str).collect();
    let changed: HashMap<&str, &SlideSlot> =
        plan.reposition.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut out: Vec<SlideSlot> = slides
        .iter()
        .filter(|s| !deleted.contains(s.id.as_str()))
        .map(|s| {
            changed
                .get(s.id.as_str())
                .map_or_else(|| s.clone(), |c| (*c).clone())
        })
        .chain(plan.insert.iter().cloned())
        .collect();
    out.sort_by(|a, b| a.rank.cmp(&b.rank));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A deck from stack sizes, with ids s0, s1, ...
    fn deck(stacks: &[usize]) -> Vec<SlideSlot> {
        initial_slots(stacks)
            .into_iter()
            .enumerate()
            .map(|(i, (rank, group))| SlideSlot {
                id: format!("s{i}"),
                rank,
                group,
            })
            .collect()
    }

    /// The deck as stacks of ids, e.g. [["s0"], ["s1", "s2"]].
    fn shape(slides: &[SlideSlot]) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = Vec::new();
        for (s, p) in slides.iter().zip(positions(slides)) {
            if p.vertical.unwrap_or(0) == 0 {
                out.push(vec![]);
            }
            out.last_mut().unwrap().push(s.id.clone());
        }
        out
    }

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn stacks(v: &[&[&str]]) -> Vec<Vec<String>> {
        v.iter().map(|s| ids(s)).collect()
    }

    #[test]
    fn positions_count_horizontally_and_inside_groups() {
        let d = deck(&[1, 3, 1]);
        let p = positions(&d);
        assert_eq!(
            p[0],
            Position {
                horizontal: 0,
                vertical: None
            }
        );
        assert_eq!(
            p[1],
            Position {
                horizontal: 1,
                vertical: Some(0)
            }
        );
        assert_eq!(
            p[3],
            Position {
                horizontal: 1,
                vertical: Some(2)
            }
        );
        assert_eq!(
            p[4],
            Position {
                horizontal: 2,
                vertical: None
            }
        );
    }

    #[test]
    fn add_without_reference_appends_a_horizontal_slide() {
        let d = deck(&[1, 2]);
        let plan = add(&d, "new", &Anchor::End).unwrap();
        assert_eq!(
            shape(&apply(&d, &plan)),
            stacks(&[&["s0"], &["s1", "s2"], &["new"]])
        );
    }

    #[test]
    fn add_next_to_a_grouped_slide_joins_the_group() {
        let d = deck(&[1, 2]);
        let before = add(&d, "n", &Anchor::Before("s1".into())).unwrap();
        assert_eq!(
            shape(&apply(&d, &before)),
            stacks(&[&["s0"], &["n", "s1", "s2"]])
        );
        let after = add(&d, "n", &Anchor::After("s2".into())).unwrap();
        assert_eq!(
            shape(&apply(&d, &after)),
            stacks(&[&["s0"], &["s1", "s2", "n"]])
        );
    }

    #[test]
    fn add_next_to_a_horizontal_slide_is_horizontal() {
        let d = deck(&[1, 2, 1]);
        let plan = add(&d, "n", &Anchor::Before("s3".into())).unwrap();
        assert_eq!(
            shape(&apply(&d, &plan)),
            stacks(&[&["s0"], &["s1", "s2"], &["n"], &["s3"]])
        );
        assert!(matches!(
            add(&d, "n", &Anchor::After("nope".into())),
            Err(Error::NotFound(_))
        ));
    }

    #[test]
    fn moved_slides_join_the_targets_group_in_the_given_order() {
        let d = deck(&[1, 1, 2]);
        let plan = move_slides(&d, &ids(&["s1", "s0"]), &Anchor::After("s2".into())).unwrap();
        assert_eq!(
            shape(&apply(&d, &plan)),
            stacks(&[&["s2", "s1", "s0", "s3"]])
        );
        assert_eq!(plan.count, 2);
    }

    #[test]
    fn moving_to_a_horizontal_target_leaves_the_group_and_collapses_it() {
        let d = deck(&[1, 2]);
        let plan = move_slides(&d, &ids(&["s2"]), &Anchor::Before("s0".into())).unwrap();
        assert_eq!(
            shape(&apply(&d, &plan)),
            stacks(&[&["s2"], &["s0"], &["s1"]])
        );
        let after = apply(&d, &plan);
        assert!(after.iter().all(|s| s.group.is_none()));
    }

    #[test]
    fn moving_within_a_group_reorders_it() {
        let d = deck(&[2]);
        let plan = move_slides(&d, &ids(&["s0"]), &Anchor::After("s1".into())).unwrap();
        assert_eq!(shape(&apply(&d, &plan)), stacks(&[&["s1", "s0"]]));
    }

    #[test]
    fn move_reports_missing_ids_and_rejects_bad_targets() {
        let d = deck(&[1, 1, 1]);
        let plan = move_slides(&d, &ids(&["x", "s2"]), &Anchor::Before("s0".into())).unwrap();
        assert_eq!(plan.missing, ids(&["x"]));
        assert_eq!(plan.count, 1);
        assert!(matches!(
            move_slides(&d, &ids(&["x"]), &Anchor::Before("s0".into())),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            move_slides(&d, &ids(&["s0"]), &Anchor::Before("s0".into())),
            Err(Error::Invalid(_))
        ));
        assert!(matches!(
            move_slides(&d, &ids(&["s0"]), &Anchor::Before("zz".into())),
            Err(Error::NotFound(_))
        ));
    }

    #[test]
    fn removing_from_a_group_of_two_makes_the_other_horizontal() {
        let d = deck(&[1, 2]);
        let plan = remove(&d, &ids(&["s1", "ghost"])).unwrap();
        let after = apply(&d, &plan);
        assert_eq!(shape(&after), stacks(&[&["s0"], &["s2"]]));
        assert_eq!(
            positions(&after)[1],
            Position {
                horizontal: 1,
                vertical: None
            }
        );
        assert_eq!(plan.missing, ids(&["ghost"]));
    }

    #[test]
    fn removing_every_slide_or_none_known_is_rejected() {
        let d = deck(&[1, 2]);
        assert!(matches!(
            remove(&d, &ids(&["s0", "s1", "s2"])),
            Err(Error::Invalid(_))
        ));
        assert!(matches!(
            remove(&d, &ids(&["a", "b"])),
            Err(Error::NotFound(_))
        ));
    }

    /// Checks the invariants of a stored order.
    fn check_invariants(slides: &[SlideSlot]) -> std::result::Result<(), TestCaseError> {
        prop_assert!(
            slides.windows(2).all(|w| w[0].rank < w[1].rank),
            "ranks not increasing"
        );
        let p = positions(slides);
        let mut expected_h = 0;
        for (i, pos) in p.iter().enumerate() {
            if i > 0 && pos.horizontal == p[i - 1].horizontal {
                prop_assert_eq!(pos.vertical, p[i - 1].vertical.map(|v| v + 1));
            } else {
                prop_assert_eq!(pos.horizontal, expected_h);
                expected_h += 1;
                prop_assert!(pos.vertical.is_none() || pos.vertical == Some(0));
            }
        }
        // No group of one, and every group is one contiguous run.
        let mut seen = HashSet::new();
        for (i, s) in slides.iter().enumerate() {
            if let Some(g) = s.group {
                let run_start = i == 0 || slides[i - 1].group != Some(g);
                if run_start {
                    prop_assert!(seen.insert(g), "group {} split in two runs", g);
                    prop_assert!(
                        slides.get(i + 1).is_some_and(|n| n.group == Some(g)),
                        "group of one"
                    );
                }
            }
        }
        Ok(())
    }

    #[derive(Debug, Clone)]
    enum Op {
        Add(Option<(bool, usize)>),
        Move(Vec<usize>, bool, usize),
        Remove(Vec<usize>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            proptest::option::of((any::<bool>(), 0usize..40)).prop_map(Op::Add),
            (
                proptest::collection::vec(0usize..45, 1..6),
                any::<bool>(),
                0usize..45
            )
                .prop_map(|(v, b, t)| Op::Move(v, b, t)),
            proptest::collection::vec(0usize..45, 1..4).prop_map(Op::Remove),
        ]
    }

    /// Picks an id by index: past the end of the deck it names an unknown slide.
    fn pick(slides: &[SlideSlot], i: usize) -> String {
        slides
            .get(i)
            .map_or_else(|| format!("unknown{i}"), |s| s.id.clone())
    }

    proptest! {
        #[test]
        fn random_operation_sequences_keep_every_invariant(
            stacks in proptest::collection::vec(1usize..4, 1..12),
            ops in proptest::collection::vec(op(), 1..40),
        ) {
            let mut slides = deck(&stacks);
            check_invariants(&slides)?;
            let mut next = 0;
            for op in ops {
                let before = slides.clone();
                match op {
                    Op::Add(reference) => {
                        next += 1;
                        let id = format!("n{next}");
                        let anchor = match reference {
                            None => Anchor::End,
                            Some((true, i)) => Anchor::Before(pick(&slides, i % slides.len())),
                            Some((false, i)) => Anchor::After(pick(&slides, i % slides.len())),
                        };
                        let plan = add(&slides, &id, &anchor).unwrap();
                        slides = apply(&slides, &plan);
                        prop_assert_eq!(slides.len(), before.len() + 1);
                    }
                    Op::Move(picks, before_target, t) => {
                        let mut moved: Vec<String> = picks.iter().map(|&i| pick(&slides, i)).collect();
                        let mut seen = HashSet::new();
                        moved.retain(|id| seen.insert(id.clone()));
                        let target = pick(&slides, t % slides.len());
                        let anchor = if before_target { Anchor::Before(target.clone()) } else { Anchor::After(target.clone()) };
                        match move_slides(&slides, &moved, &anchor) {
                            Ok(plan) => {
                                let known: Vec<&String> = moved.iter().filter(|id| before.iter().any(|s| &s.id == *id)).collect();
                                slides = apply(&slides, &plan);
                                // The multiset of slides is preserved.
                                let mut a: Vec<&String> = before.iter().map(|s| &s.id).collect();
                                let mut b: Vec<&String> = slides.iter().map(|s| &s.id).collect();
                                a.sort(); b.sort();
                                prop_assert_eq!(a, b);
                                // The moved slides are adjacent, in the given order, next to the target.
                                let idx: Vec<usize> = known.iter().map(|id| slides.iter().position(|s| &s.id == *id).unwrap()).collect();
                                prop_assert!(idx.windows(2).all(|w| w[1] == w[0] + 1), "not in the given order");
                                let t_idx = slides.iter().position(|s| s.id == target).unwrap();
                                if before_target { prop_assert_eq!(idx.last().unwrap() + 1, t_idx); }
                                else { prop_assert_eq!(t_idx + 1, idx[0]); }
                                prop_assert_eq!(plan.count, known.len());
                            }
                            Err(Error::Invalid(_)) => prop_assert!(moved.contains(&target)),
                            Err(Error::NotFound(_)) => prop_assert!(moved.iter().all(|id| before.iter().all(|s| &s.id != id))),
                            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
                        }
                    }
                    Op::Remove(picks) => {
                        let mut ids: Vec<String> = picks.iter().map(|&i| pick(&slides, i)).collect();
                        let mut seen = HashSet::new();
                        ids.retain(|id| seen.insert(id.clone()));
                        let known: HashSet<&String> = ids.iter().filter(|id| before.iter().any(|s| &s.id == *id)).collect();
                        match remove(&slides, &ids) {
                            Ok(plan) => {
                                slides = apply(&slides, &plan);
                                prop_assert_eq!(slides.len(), before.len() - known.len());
                                prop_assert!(slides.iter().all(|s| !known.contains(&s.id)));
                            }
                            Err(Error::Invalid(_)) => prop_assert_eq!(known.len(), before.len()),
                            Err(Error::NotFound(_)) => prop_assert!(known.is_empty()),
                            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
                        }
                    }
                }
                check_invariants(&slides)?;
            }
        }
    }
}
