use super::*;
use serde_json::json;

fn invalid(result: Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(Error::Invalid(m)) => m,
        other => panic!("expected 422, got {other:?}"),
    }
}

#[test]
fn an_empty_create_body_gets_every_default_and_one_blank_slide() {
    for body in [None, Some(Value::Null), Some(json!({}))] {
        let d = NewDeck::from_json(body).unwrap();
        assert_eq!(d.title, "Untitled deck");
        assert_eq!(
            (d.look.width, d.look.height, d.look.margin),
            (1280, 720, 0.0)
        );
        assert_eq!(d.look.theme_color, ThemeColor::WhiteBlue);
        assert_eq!(d.look.theme_font, ThemeFont::Montserrat);
        assert_eq!(d.look, DeckLook::default());
        assert_eq!(d.visibility, Visibility::Private);
        assert_eq!(d.slides.len(), 1);
        assert_eq!(d.slides[0].html, SlideHtml::blank());
    }
}

#[test]
fn create_rejects_each_bad_field() {
    let cases = [
        (json!({"width": 0}), "width"),
        (json!({"width": 1.5}), "width"),
        (json!({"width": "100"}), "width"),
        (json!({"height": -1}), "height"),
        (json!({"margin": 1.01}), "margin"),
        (json!({"margin": -0.1}), "margin"),
        (json!({"margin": "0"}), "margin"),
        (json!({"theme_color": "pink"}), "theme_color"),
        (json!({"theme_font": "comic"}), "theme_font"),
        (json!({"visibility": "public"}), "visibility"),
        (json!({"title": 5}), "title"),
        (json!({"title": null}), "title"),
        (json!({"description": []}), "description"),
        (json!({"slides": []}), "at least one"),
        (json!({"slides": {}}), "array"),
        (
            json!({"slides": [{"html": "<div></div>"}]}),
            "slides[0].html",
        ),
        (
            json!({"slides": [{"notes": "x".repeat(10_001)}]}),
            "slides[0].notes",
        ),
        (
            json!({"slides": [{"html": "<section></section>", "title": "x"}]}),
            "'title'",
        ),
        (json!({"slides": [5]}), "slides[0]"),
        (json!({"bogus": 1}), "'bogus'"),
        (json!({"css": "x"}), "'css'"),
        (json!([1]), "JSON object"),
    ];
    for (body, needle) in cases {
        let msg = invalid(NewDeck::from_json(Some(body.clone())));
        assert!(msg.contains(needle), "{body}: {msg:?} lacks {needle:?}");
    }
}

#[test]
fn create_accepts_boundaries() {
    let d = NewDeck::from_json(Some(json!({
        "width": 1, "height": 1, "margin": 1, "title": "", "visibility": "all",
        "slides": [{"html": "<section>a</section>", "notes": null}, {"notes": "n"}, {}]
    })))
    .unwrap();
    assert_eq!((d.look.width, d.look.height, d.look.margin), (1, 1, 1.0));
    assert_eq!(d.slides.len(), 3);
    assert_eq!(d.slides[1].notes.as_ref().unwrap().as_str(), "n");
}

#[test]
fn update_rejects_read_only_and_unknown_keys_and_slides() {
    assert!(invalid(DeckPatch::from_json(Some(json!({"slug": "x"})))).contains("read-only"));
    assert!(invalid(DeckPatch::from_json(Some(json!({"id": 3})))).contains("read-only"));
    for look_only in ["rtl", "loop", "transition", "language"] {
        let body = json!({ look_only: "x" });
        let msg = invalid(DeckPatch::from_json(Some(body)));
        assert!(msg.contains("read-only"), "{look_only}: {msg}");
    }
    assert!(invalid(DeckPatch::from_json(Some(json!({"nope": 3})))).contains("unknown"));
    assert!(invalid(DeckPatch::from_json(Some(json!({"slides": []})))).contains("slides"));
    let p = DeckPatch::from_json(Some(json!({"title": "T", "margin": 0.5}))).unwrap();
    assert_eq!(p.title.as_deref(), Some("T"));
    assert_eq!(p.margin, Some(0.5));
    assert!(DeckPatch::from_json(None).unwrap().is_empty());
}

#[test]
fn a_stored_look_reads_back_and_settings_it_lacks_take_their_defaults() {
    let look = DeckLook {
        rtl: true,
        theme_color: ThemeColor::BlackMint,
        ..DeckLook::default()
    };
    assert_eq!(DeckLook::from_json(&look.to_json()).unwrap(), look);
    assert!(look.to_json().contains("\"loop\":false"));
    let old = DeckLook::from_json(r#"{"width": 800, "rtl": true}"#).unwrap();
    assert_eq!((old.width, old.rtl, old.height), (800, true, 720));
    assert!(DeckLook::from_json("[]").is_err());
    assert!(DeckLook::from_json(r#"{"width": "wide"}"#).is_err());
}

#[test]
fn slugs_follow_the_title_and_stay_unique() {
    assert_eq!(slugify("Hello, World!"), "hello-world");
    assert_eq!(slugify("  Q3 -- Review  "), "q3-review");
    assert_eq!(slugify("Ünïcode"), "n-code");
    assert_eq!(slugify("!!!"), "deck");
    assert!(slugify(&"a".repeat(500)).len() <= 60);
    assert_eq!(numbered_slug("intro", 3), "intro-3");
}

#[test]
fn enums_round_trip_their_text() {
    assert_eq!(ThemeColor::ALL.len(), 18);
    assert_eq!(ThemeFont::ALL.len(), 12);
    for c in ThemeColor::ALL {
        assert_eq!(ThemeColor::parse(c.as_str()), Some(*c));
    }
    assert_eq!(Visibility::parse("self"), Some(Visibility::Private));
}
