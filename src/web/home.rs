//! `/`: what this service is (signed out), or the person's decks (signed in): their decks as
//! cards, the team's decks, the trash with recover, and "New deck" (blank, or from a reveal.js
//! HTML or Markdown file through the same importer as `admin import-deck`). The forms post
//! to `/web/...` with the session's CSRF token; every change goes through the core as the
//! person (`via: web` in the deck history).

use std::collections::HashMap;

use axum::extract::{Multipart, Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use lectern_core::auth::Caller;
use lectern_core::ids::DeckId;
use lectern_core::params::Paging;
use lectern_core::store::SessionInfo;
use lectern_core::views::DeckMeta;

use crate::http::session::{MaybeSession, csrf_matches};
use crate::state::AppState;
use crate::web::cards::{Card, badge, deck_list};
use crate::web::page::csrf_refused;
use crate::web::page::{
    core_error_page, error_page, escape, hidden, page, see_other, signed_in_page,
};

/// Decks per page of the home page.
const PER_PAGE: u32 = 24;

/// Which list the home page shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Mine,
    Team,
    Trash,
}

impl Tab {
    fn parse(raw: Option<&str>) -> Tab {
        match raw {
            Some("team") => Tab::Team,
            Some("trash") => Tab::Trash,
            _ => Tab::Mine,
        }
    }
}

/// GET `/`.
pub async fn home(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some((_, session)) = session else {
        return landing();
    };
    let tab = Tab::parse(query.get("tab").map(String::as_str));
    let page_number = query
        .get("page")
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| *p >= 1)
        .unwrap_or(1);
    let paging = Paging {
        page: page_number,
        per_page: PER_PAGE,
    };
    let caller = state.core.web_caller(&session);
    let notice = query.get("notice").map(String::as_str);
    match decks_page(&state, &session, &caller, tab, paging, notice).await {
        Ok(r) => r,
        Err(e) => core_error_page(e, "the home page"),
    }
}

fn landing() -> Response {
    page(
        StatusCode::OK,
        "Presentations, written by people and programs",
        "<section class=\"hero\"><p>Lectern keeps your slide decks: reveal.js presentations you \
         write in the browser, through the HTTP API, or with an AI assistant over MCP. Present \
         them anywhere, share them with a private link, and export them as PDF or as an offline \
         presentation.</p><p><a class=\"button\" href=\"/login\">Sign in</a> \
         <a class=\"button secondary\" href=\"/v1/docs\">API reference</a></p></section>",
    )
}

fn tabs(current: Tab, has_team: bool) -> String {
    let link = |tab: Tab, href: &str, label: &str| {
        let current = if tab == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        format!("<a href=\"{href}\"{current}>{label}</a>")
    };
    let mut out = String::from("<nav class=\"tabs\" aria-label=\"Deck lists\">");
    out.push_str(&link(Tab::Mine, "/", "Your decks"));
    if has_team {
        out.push_str(&link(Tab::Team, "/?tab=team", "Team decks"));
    }
    out.push_str(&link(Tab::Trash, "/?tab=trash", "Trash"));
    out.push_str("</nav>");
    out
}

fn new_deck_panel(csrf: &str) -> String {
    // Blank, or one of the templates (each radio a card with the template's line).
    let mut choices = String::from(
        "<label class=\"template-choice\"><input type=\"radio\" name=\"template\" value=\"\" checked> \
         <strong>Blank</strong> <small>One empty slide</small></label>",
    );
    for t in lectern_core::import::templates::TEMPLATES {
        choices.push_str(&format!(
            "<label class=\"template-choice\"><input type=\"radio\" name=\"template\" value=\"{}\"> \
             <strong>{}</strong> <small>{}</small></label>",
            t.name,
            escape(t.label),
            escape(t.about)
        ));
    }
    format!(
        "<section class=\"panel\" aria-labelledby=\"new-deck\"><h2 id=\"new-deck\">New deck</h2>\
         <div class=\"new-deck\">\
         <form method=\"post\" action=\"/web/decks/new\">{csrf}<label>Title \
         <input name=\"title\" maxlength=\"255\" placeholder=\"Untitled\"></label> \
         <fieldset class=\"templates\"><legend>Start from</legend>{choices}</fieldset>\
         <button type=\"submit\">Create</button></form>\
         <form method=\"post\" action=\"/web/decks/import\" enctype=\"multipart/form-data\">{csrf}\
         <label>From a file (reveal.js HTML, Markdown, or a ZIP of a reveal.js folder) \
         <input type=\"file\" name=\"file\" accept=\".html,.htm,.md,.markdown,.txt,.zip,text/html,text/markdown,application/zip\" required></label> \
         <button type=\"submit\">Import</button></form></div></section>"
    )
}

fn date(t: lectern_core::time::Timestamp) -> String {
    let d = t.as_offset();
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        d.year(),
        u8::from(d.month()),
        d.day(),
        d.hour(),
        d.minute()
    )
}

async fn decks_page(
    state: &AppState,
    session: &SessionInfo,
    caller: &Caller,
    tab: Tab,
    paging: Paging,
    notice: Option<&str>,
) -> lectern_core::Result<Response> {
    let csrf = hidden("csrf_token", &session.csrf_token);
    let mut body = String::new();
    if let Some(n) = notice {
        body.push_str(&format!(
            "<p class=\"status\" role=\"status\">{}</p>",
            escape(n)
        ));
    }
    body.push_str(&tabs(tab, session.team_id.is_some()));
    let (cards, meta, query, empty) = match tab {
        Tab::Mine => {
            body.push_str(&new_deck_panel(&csrf));
            let listed = state.core.list_decks(caller, paging).await?;
            // The cards show what the summaries leave out (visibility, slide count, last
            // change): each deck's metadata, read concurrently (a cache hit on SQLite).
            let metas = futures::future::join_all(
                listed
                    .items
                    .iter()
                    .map(|d| state.core.get_deck(caller, DeckId::from(d.id), false)),
            )
            .await;
            let cards = metas
                .into_iter()
                .filter_map(Result::ok)
                .map(|d| mine_card(&d.meta, &csrf))
                .collect();
            (
                cards,
                listed.meta,
                "",
                "No decks yet: create one above, import a file, or let a program make one through the API.",
            )
        }
        Tab::Team => {
            let listed = state.core.list_team_decks(caller, paging).await?;
            let cards = listed
                .items
                .iter()
                .map(|d| {
                    Card {
                        url: &d.url,
                        thumbnail: &d.thumbnail_url,
                        title: &d.title,
                        badges: badge(visibility_label(d.visibility)),
                        facts: format!("by {}", escape(&d.owner.name)),
                        actions: format!("<a href=\"{}\">View</a>", escape(&d.url)),
                        ..Card::default()
                    }
                    .html()
                })
                .collect();
            (
                cards,
                listed.meta,
                "tab=team&",
                "Your team has no shared decks yet.",
            )
        }
        Tab::Trash => {
            let listed = state.core.list_trashed_decks(caller, paging).await?;
            let cards = listed
                .items
                .iter()
                .map(|d| {
                    Card {
                        url: "/?tab=trash",
                        thumbnail: &d.thumbnail_url,
                        title: &d.title,
                        badges: badge("trashed"),
                        facts: format!("trashed {}", date(d.trashed_at)),
                        actions: format!(
                            "<form method=\"post\" action=\"/web/decks/{}/recover\">{csrf}\
                             <button type=\"submit\">Recover</button></form>",
                            d.id
                        ),
                        ..Card::default()
                    }
                    .html()
                })
                .collect();
            (cards, listed.meta, "tab=trash&", "The trash is empty.")
        }
    };
    body.push_str(&deck_list(cards, &meta, query, empty));
    let title = match tab {
        Tab::Mine => "Your decks",
        Tab::Team => "Team decks",
        Tab::Trash => "Trash",
    };
    Ok(signed_in_page(StatusCode::OK, title, &body, session))
}

fn mine_card(d: &DeckMeta, csrf: &str) -> String {
    let slides = if d.slide_count == 1 {
        "1 slide".to_string()
    } else {
        format!("{} slides", d.slide_count)
    };
    Card {
        url: &d.urls.edit,
        thumbnail: &d.thumbnail_url,
        title: &d.title,
        badges: badge(visibility_label(d.visibility)),
        facts: format!("{slides} · changed {}", date(d.updated_at)),
        actions: format!(
            "<a href=\"{}\">Edit</a><a href=\"{}\">Present</a><a href=\"{}\">Speaker view</a>\
             <form method=\"post\" action=\"/web/decks/{}/trash\">{csrf}\
             <button type=\"submit\" class=\"danger\">Trash</button></form>",
            escape(&d.urls.edit),
            escape(&d.urls.fullscreen),
            escape(&d.urls.present),
            d.id
        ),
        ..Card::default()
    }
    .html()
}

/// Where a signed-out person posting a form is sent: to sign in, then back to `/`.
fn sign_in_first() -> Response {
    see_other("/login?next=/")
}

/// POST `/web/decks/new`: a blank deck (one blank slide), or one from the `template` the
/// form names, then its editor.
pub async fn create_deck(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    let Some((_, session)) = session else {
        return sign_in_first();
    };
    if !csrf_matches(&session, form.get("csrf_token").map(String::as_str)) {
        return csrf_refused();
    }
    let title = form
        .get("title")
        .map(|t| t.trim())
        .filter(|t| !t.is_empty());
    let caller = state.core.web_caller(&session);
    let template = form.get("template").filter(|t| !t.is_empty());
    let created = match (
        template,
        lectern_core::deck::NewDeck::from_json(title.map(|t| serde_json::json!({ "title": t }))),
    ) {
        (Some(template), _) => {
            state
                .core
                .create_deck_from_template(&caller, template, title)
                .await
        }
        (None, Ok(new)) => state.core.create_deck(&caller, new).await.map(|d| d.meta),
        (None, Err(e)) => Err(e),
    };
    match created {
        Ok(deck) => see_other(&deck.urls.edit),
        Err(e) => core_error_page(e, "the home page"),
    }
}

/// How a visibility reads to a person.
fn visibility_label(v: lectern_core::deck::Visibility) -> &'static str {
    match v.as_str() {
        "all" => "Public",
        "team" => "Team",
        _ => "Private",
    }
}

/// The largest upload the import takes (a ZIP of a presentation folder with its images).
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

/// POST `/web/decks/import` (multipart: `csrf_token`, `file`): a deck from a reveal.js HTML
/// or Markdown file, then its editor.
pub async fn import_deck(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    mut multipart: Multipart,
) -> Response {
    let Some((_, session)) = session else {
        return sign_in_first();
    };
    let (mut csrf, mut file) = (None, None);
    loop {
        match multipart.next_field().await {
            Ok(Some(field)) => match field.name() {
                Some("csrf_token") => csrf = field.text().await.ok(),
                Some("file") => file = field.bytes().await.ok(),
                _ => {}
            },
            Ok(None) => break,
            Err(e) => {
                return error_page(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    &format!("The upload could not be read: {}", e.body_text()),
                );
            }
        }
    }
    if !csrf_matches(&session, csrf.as_deref()) {
        return csrf_refused();
    }
    let Some(bytes) = file.filter(|b| !b.is_empty()) else {
        return error_page(StatusCode::UNPROCESSABLE_ENTITY, "Choose a file to import.");
    };
    let caller = state.core.web_caller(&session);
    match state.core.import_deck_for(&caller, bytes.to_vec()).await {
        Ok(imported) if imported.dropped.is_empty() => see_other(&imported.deck.urls.edit),
        Ok(imported) => imported_page(&imported.deck, &imported.dropped, &session),
        Err(e) => core_error_page(e, "the home page"),
    }
}

/// After an import that left something out: what it was, and the way on to the editor.
fn imported_page(deck: &DeckMeta, dropped: &[String], session: &SessionInfo) -> Response {
    let items: String = dropped
        .iter()
        .map(|d| format!("<li>{}</li>", escape(d)))
        .collect();
    signed_in_page(
        StatusCode::OK,
        "Deck imported",
        &format!(
            "<section class=\"panel\"><h1>{} is imported</h1>\
             <p>{} slides. The import left out what Lectern does not keep:</p><ul class=\"dropped\">{items}</ul>\
             <p><a class=\"button\" href=\"{}\">Open the editor</a> <a href=\"{}\">View the deck</a></p></section>",
            escape(&deck.title),
            deck.slide_count,
            escape(&deck.urls.edit),
            escape(&deck.urls.default),
        ),
        session,
    )
}

/// POST `/web/decks/{id}/trash` and `/web/decks/{id}/recover`.
async fn set_trashed(
    state: &AppState,
    session: Option<(String, SessionInfo)>,
    id: &str,
    form: &HashMap<String, String>,
    trash: bool,
) -> Response {
    let Some((_, session)) = session else {
        return sign_in_first();
    };
    if !csrf_matches(&session, form.get("csrf_token").map(String::as_str)) {
        return csrf_refused();
    }
    let Ok(id) = DeckId::parse("id", id) else {
        return error_page(StatusCode::NOT_FOUND, "deck not found");
    };
    let caller = state.core.web_caller(&session);
    let done = if trash {
        state.core.trash_deck(&caller, id).await
    } else {
        state.core.recover_deck(&caller, id).await
    };
    match done {
        Ok(()) if trash => see_other("/?notice=Moved+to+the+trash."),
        Ok(()) => see_other("/?notice=Recovered."),
        Err(e) => core_error_page(e, "the home page"),
    }
}

/// POST `/web/decks/{id}/trash`.
pub async fn trash_deck(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    Path(id): Path<String>,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    set_trashed(&state, session, &id, &form, true).await
}

/// POST `/web/decks/{id}/recover`.
pub async fn recover_deck(
    State(state): State<AppState>,
    MaybeSession(session): MaybeSession,
    Path(id): Path<String>,
    crate::http::extract::TextForm(form): crate::http::extract::TextForm,
) -> Response {
    set_trashed(&state, session, &id, &form, false).await
}
