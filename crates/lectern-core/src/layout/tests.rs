//! Unit and property tests of the slide-ordering rules.

use super::*;
use proptest::prelude::*;

/// A deck from stack sizes, with ids s0, s1, ...
fn deck(stacks: &[usize]) -> Slots {
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
fn shape(slides: &Slots) -> Vec<Vec<String>> {
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
fn a_slide_put_below_a_horizontal_slide_starts_a_vertical_group_with_it() {
    let d = deck(&[1, 1, 1]);
    let plan = group_slides(&d, &ids(&["s2"]), &Stacking::Below("s0".into())).unwrap();
    let after = apply(&d, &plan);
    assert_eq!(shape(&after), stacks(&[&["s0", "s2"], &["s1"]]));
    // Below a grouped slide it joins that group, right under it.
    let plan = group_slides(&after, &ids(&["s1"]), &Stacking::Below("s0".into())).unwrap();
    assert_eq!(shape(&apply(&after, &plan)), stacks(&[&["s0", "s1", "s2"]]));
}

#[test]
fn a_slide_taken_out_after_its_stack_is_horizontal_and_no_group_of_one_remains() {
    let d = deck(&[2, 1]);
    let plan = group_slides(&d, &ids(&["s1"]), &Stacking::AfterStack("s0".into())).unwrap();
    let after = apply(&d, &plan);
    assert_eq!(shape(&after), stacks(&[&["s0"], &["s1"], &["s2"]]));
    assert!(after.iter().all(|s| s.group.is_none()));
    // At the end of a deck, where move_slides has no horizontal slide to go before.
    let d = deck(&[1, 3]);
    let plan = group_slides(&d, &ids(&["s3"]), &Stacking::AfterStack("s1".into())).unwrap();
    assert_eq!(
        shape(&apply(&d, &plan)),
        stacks(&[&["s0"], &["s1", "s2"], &["s3"]])
    );
    assert!(matches!(
        group_slides(&d, &ids(&["s1"]), &Stacking::Below("s1".into())),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        group_slides(&d, &ids(&["s1"]), &Stacking::Below("nope".into())),
        Err(Error::NotFound(_))
    ));
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
fn check_invariants(slides: &Slots) -> std::result::Result<(), TestCaseError> {
    prop_assert!(
        slides
            .iter()
            .zip(slides.iter().skip(1))
            .all(|(a, b)| a.rank < b.rank),
        "ranks not increasing"
    );
    let p = positions(slides);
    for (i, pos) in p.iter().enumerate() {
        prop_assert_eq!(position_at(slides, i), Some(*pos));
    }
    prop_assert_eq!(position_at(slides, p.len()), None);
    prop_assert_eq!(slides.last_position(), p.last().copied());
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
    Group(Vec<usize>, bool, usize),
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
        (
            proptest::collection::vec(0usize..45, 1..4),
            any::<bool>(),
            0usize..45
        )
            .prop_map(|(v, b, t)| Op::Group(v, b, t)),
    ]
}

/// Picks an id by index: past the end of the deck it names an unknown slide.
fn pick(slides: &Slots, i: usize) -> String {
    slides
        .get(i)
        .map_or_else(|| format!("unknown{i}"), |s| s.id.clone())
}

/// [`apply`], checked against the obvious way: drop the deleted and replaced slides, add
/// the placed ones, sort the whole deck by rank.
fn applied(slides: &Slots, plan: &Plan) -> Slots {
    let fast = apply(slides, plan);
    let gone: HashSet<&str> = plan
        .delete
        .iter()
        .map(String::as_str)
        .chain(plan.reposition.iter().map(|s| s.id.as_str()))
        .collect();
    let mut slow: Vec<SlideSlot> = slides
        .iter()
        .filter(|s| !gone.contains(s.id.as_str()))
        .chain(&plan.reposition)
        .chain(&plan.insert)
        .cloned()
        .collect();
    slow.sort_by(|a, b| a.rank.cmp(&b.rank));
    assert_eq!(
        fast,
        Slots::from(slow),
        "apply merges into the same order a full sort gives"
    );
    fast
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
                    slides = applied(&slides, &plan);
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
                            slides = applied(&slides, &plan);
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
                Op::Group(picks, below, t) => {
                    let mut moved: Vec<String> = picks.iter().map(|&i| pick(&slides, i)).collect();
                    let mut seen = HashSet::new();
                    moved.retain(|id| seen.insert(id.clone()));
                    let target = pick(&slides, t % slides.len());
                    let stacking = if below { Stacking::Below(target.clone()) } else { Stacking::AfterStack(target.clone()) };
                    match group_slides(&slides, &moved, &stacking) {
                        Ok(plan) => {
                            let known: Vec<&String> = moved.iter().filter(|id| before.iter().any(|s| &s.id == *id)).collect();
                            slides = applied(&slides, &plan);
                            let mut a: Vec<&String> = before.iter().map(|s| &s.id).collect();
                            let mut b: Vec<&String> = slides.iter().map(|s| &s.id).collect();
                            a.sort(); b.sort();
                            prop_assert_eq!(a, b);
                            let p = positions(&slides);
                            let at = |id: &String| slides.iter().position(|s| &s.id == id).unwrap();
                            let idx: Vec<usize> = known.iter().map(|id| at(id)).collect();
                            prop_assert!(idx.windows(2).all(|w| w[1] == w[0] + 1), "not in the given order");
                            let t_idx = at(&target);
                            if below {
                                // Right under the target, in its stack.
                                prop_assert_eq!(t_idx + 1, idx[0]);
                                for i in &idx { prop_assert_eq!(p[*i].horizontal, p[t_idx].horizontal); }
                            } else {
                                // Horizontal, right after the target's stack.
                                for i in &idx { prop_assert!(p[*i].vertical.is_none()); }
                                prop_assert_eq!(p[idx[0]].horizontal, p[t_idx].horizontal + 1);
                            }
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
                            slides = applied(&slides, &plan);
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

#[test]
fn deck_html_wraps_vertical_groups() {
    let slot = |id: &str, rank: &str, group: Option<i64>| SlideSlot {
        id: id.into(),
        rank: rank.into(),
        group,
    };
    let slots = [
        slot("a", "a0", None),
        slot("b", "a1", Some(1)),
        slot("c", "a2", Some(1)),
        slot("d", "a3", None),
    ];
    let htmls: Vec<String> = slots
        .iter()
        .map(|s| format!("<section data-id=\"{}\"></section>", s.id))
        .collect();
    let html = render_deck_html(slots.iter().zip(htmls.iter().map(String::as_str)));
    assert_eq!(
        html,
        "<section data-id=\"a\"></section>\n<section><section data-id=\"b\"></section><section data-id=\"c\"></section></section>\n<section data-id=\"d\"></section>"
    );
}

#[test]
fn a_move_that_leaves_every_slide_where_it_is_writes_nothing() {
    let slides = deck(&[1, 2, 1]);
    // s0 after s3 changes the order; s1 before s2 keeps it.
    let moved = move_slides(&slides, &["s0".into()], &Anchor::After("s3".into())).unwrap();
    assert_eq!(unless_unchanged(&slides, moved.clone()), moved);
    let kept = move_slides(&slides, &["s1".into()], &Anchor::Before("s2".into())).unwrap();
    let kept = unless_unchanged(&slides, kept);
    assert!(kept.reposition.is_empty() && kept.insert.is_empty() && kept.delete.is_empty());
    assert_eq!(kept.count, 1);
}
