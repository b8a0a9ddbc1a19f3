//! The tool catalogue: one tool per operation of interface section 4.1 (named by its
//! operationId) plus Lectern's extra tools, each with its input schema (the interface's types
//! and limits), its output schema, a description for a model, and explicit annotations.
//!
//! A tool that is a REST operation is declared by its operationId ([`rest`]): its name, the
//! scope it needs, its arguments and its answer are the operation's own OpenAPI entry (the
//! handler's `#[utoipa::path]`), so only its title, description and effect are written here.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use lectern_core::auth::Scope;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::schemas::*;

/// Every tool, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    UsersGet,
    ListDecks,
    CreateDeck,
    ListTrashedDecks,
    GetDeck,
    UpdateDeck,
    TrashDeck,
    RecoverDeck,
    ListSlides,
    AddSlide,
    RemoveSlides,
    GetSlide,
    UpdateSlide,
    MoveSlides,
    ListDeckShares,
    CreateDeckShare,
    RevokeDeckShare,
    CreateDeckExport,
    GetDeckExport,
    ListTeamDecks,
    GetTeamDeck,
    // Lectern's own tools.
    GetSlides,
    SearchDecks,
    GetSlideScreenshot,
    GetAuthoringGuide,
    // The deck history.
    ListRevisions,
    GetRevision,
    RestoreRevision,
    UndoLastChange,
    // The media library.
    UploadImage,
    ListMedia,
}

/// What a tool does to Lectern's data, as its annotations tell a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Changes nothing.
    Read,
    /// Adds something each time it is called.
    Add,
    /// Sets a state; calling it again changes nothing more.
    Set,
    /// Replaces or removes what was there.
    Overwrite,
    /// Adds, and may download what the caller names from the network (`upload_image`).
    Fetch,
}

/// One tool's definition.
struct Spec {
    op: Op,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// The scope a credential needs (the Perm column of interface 4.1).
    scope: Scope,
    effect: Effect,
    input: Value,
    output: Value,
}

/// The tool that is REST operation `operation_id`, under that name.
fn rest(
    op: Op,
    operation_id: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
) -> Spec {
    Spec {
        op,
        name: operation_id,
        title,
        description,
        scope: rest_scope(operation_id),
        effect,
        input: rest_input(operation_id),
        output: rest_output(operation_id),
    }
}

impl Spec {
    fn named(self, name: &'static str) -> Spec {
        Spec { name, ..self }
    }

    fn output(self, change: impl FnOnce(&mut Value)) -> Spec {
        let mut output = self.output;
        change(&mut output);
        Spec { output, ..self }
    }
}

impl Op {
    /// The tool named `name`.
    pub fn from_name(name: &str) -> Option<Op> {
        specs().iter().find(|s| s.name == name).map(|s| s.op)
    }

    /// The tool's name (the operationId for the interface's operations).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    fn spec(self) -> &'static Spec {
        specs()
            .iter()
            .find(|s| s.op == self)
            .expect("every Op has a spec")
    }

    /// The scope a credential needs for the tool.
    pub fn scope(self) -> Scope {
        self.spec().scope
    }

    /// Names of the arguments the tool accepts (the properties of its input schema).
    pub fn arguments(self) -> Vec<String> {
        self.spec().input["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// Every tool as MCP lists it (built once).
pub fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        specs()
            .iter()
            .map(|s| {
                Tool::new(s.name, s.description, object(s.input.clone()))
                    .with_title(s.title)
                    .with_raw_output_schema(object(s.output.clone()))
                    .with_annotations(
                        ToolAnnotations::with_title(s.title)
                            .read_only(s.effect == Effect::Read)
                            .destructive(s.effect == Effect::Overwrite)
                            .idempotent(matches!(
                                s.effect,
                                Effect::Read | Effect::Set | Effect::Overwrite
                            ))
                            // Lectern's own decks, but for downloads a caller names.
                            .open_world(s.effect == Effect::Fetch),
                    )
            })
            .collect()
    })
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are objects"),
    }
}

fn specs() -> &'static [Spec] {
    static SPECS: OnceLock<Vec<Spec>> = OnceLock::new();
    SPECS.get_or_init(build_specs)
}

fn build_specs() -> Vec<Spec> {
    vec![
        rest(
            Op::UsersGet,
            "users_get",
            "Get my account",
            "Returns the signed-in account: id, username, display name, e-mail, profile URL, account type (personal or team) and its team (null without one). Needs the read scope.",
            Effect::Read,
        ),
        rest(
            Op::ListDecks,
            "list_decks",
            "List my decks",
            "Lists the caller's own decks that are not in the trash, newest first, one page at a time (meta has page, per_page and total). Each item has id, title, description, thumbnail_url and url. Team members' decks are listed by list_team_decks; to find a deck by words use search_decks.",
            Effect::Read,
        ),
        rest(
            Op::CreateDeck,
            "create_deck",
            "Create a deck",
            "Creates a new deck owned by the caller and returns its metadata plus slide_ids (in presentation order). Every field is optional: title, description, width/height (canvas pixels, default 1280x720), margin, theme_color, theme_font, visibility (default self = private) and slides (each {html, notes}; at least one item when given; one blank slide when omitted). Each slide's html must be exactly one <section>; call get_authoring_guide first for the rules. Needs the manage scope.",
            Effect::Add,
        ),
        rest(
            Op::ListTrashedDecks,
            "list_trashed_decks",
            "List my trashed decks",
            "Lists the caller's decks in the trash, most recently trashed first, paged like list_decks; each has trashed_at. A trashed deck can be brought back with recover_deck.",
            Effect::Read,
        ),
        rest(
            Op::GetDeck,
            "get_deck",
            "Get a deck",
            "Returns one of the caller's decks: metadata, URLs (default, fullscreen, edit, present), theme, canvas size, slide_count and css; with include_deck_html=true also deck_html (all slides' HTML in order, without notes). Speaker notes and slide ids come from list_slides/get_slide/get_slides.",
            Effect::Read,
        ),
        rest(
            Op::UpdateDeck,
            "update_deck",
            "Update a deck",
            "Changes deck settings: any of title, description, width, height, margin, theme_color, theme_font, visibility (visibility team needs a team account). Other fields are read-only; slides are changed with the slide tools. Returns the updated metadata. Needs the manage scope.",
            Effect::Overwrite,
        ),
        rest(
            Op::TrashDeck,
            "trash_deck",
            "Move a deck to the trash",
            "Moves one of the caller's decks to the trash (not a permanent deletion: recover_deck brings it back). A trashed deck disappears from list_decks and answers 'not found' to the other tools. Returns data null on success. Needs the manage scope.",
            Effect::Overwrite,
        ),
        rest(
            Op::RecoverDeck,
            "recover_deck",
            "Recover a deck from the trash",
            "Brings a trashed deck back (see list_trashed_decks). Recovering an active deck changes nothing. Returns data null on success. Needs the manage scope.",
            Effect::Set,
        ),
        rest(
            Op::ListSlides,
            "list_slides",
            "List a deck's slides",
            "Lists a deck's slides in presentation order (default 50 per page, at most 200): each has its id (needed by every slide tool), position {horizontal, vertical} (vertical is null outside a vertical group), title (first heading), text_preview, html_bytes and has_notes. No HTML or notes: use get_slide or get_slides for those.",
            Effect::Read,
        ),
        rest(
            Op::AddSlide,
            "add_slide",
            "Add a slide",
            "Adds one slide (html: one <section>, default empty; notes optional) at the end of the deck, or before/after a reference slide (give at most one of insert_before_slide_id / insert_after_slide_id; next to a slide in a vertical group the new slide joins that group). Returns the new slide's id, deck_id and position. Needs the manage scope.",
            Effect::Add,
        ),
        rest(
            Op::RemoveSlides,
            "remove_slides",
            "Remove slides",
            "Removes slides and their notes permanently. Removing every slide of a deck is refused. Unknown ids are skipped and listed in missing_slide_ids; if none exists the answer is 'not found'. A vertical group left with one slide turns it into a horizontal slide. Returns count removed. Needs the manage scope.",
            Effect::Overwrite,
        ),
        rest(
            Op::GetSlide,
            "get_slide",
            "Get a slide",
            "Returns one slide: id, deck_id, position, html (its <section>, carrying data-id) and notes (null when none). To read several slides at once use get_slides.",
            Effect::Read,
        ),
        rest(
            Op::UpdateSlide,
            "update_slide",
            "Update a slide",
            "Replaces a slide's html (the complete <section>) and/or notes (null clears them); at least one of the two is needed. The slide keeps its id and position. Invalid HTML leaves the slide unchanged. Returns id, deck_id and position. Needs the manage scope.",
            Effect::Overwrite,
        ),
        rest(
            Op::MoveSlides,
            "move_slides",
            "Move slides",
            "Moves slides, in the order given, before or after a target slide (exactly one of insert_before_slide_id / insert_after_slide_id; the target must not be one of the moved slides). Next to a slide in a vertical group the moved slides join the group; otherwise they become horizontal slides. Unknown ids are listed in missing_slide_ids. Returns count moved. Needs the manage scope.",
            Effect::Set,
        ),
        rest(
            Op::ListDeckShares,
            "list_deck_shares",
            "List a deck's share links",
            "Lists the private share links of one of the caller's decks, newest first (meta.total): url, name, password_protected, expires_at, expired, view_count, first_viewed_at.",
            Effect::Read,
        ),
        rest(
            Op::CreateDeckShare,
            "create_deck_share",
            "Create a share link",
            "Creates a private link that presents a private (self) or team deck to anyone holding it; decks with visibility all need no link. Optional name, password, expires_at and notify_on_view. At most 100 links per deck. Returns the link with its url. Needs the manage scope.",
            Effect::Add,
        ),
        rest(
            Op::RevokeDeckShare,
            "revoke_deck_share",
            "Revoke a share link",
            "Revokes a share link for good: it stops working and leaves list_deck_shares. Returns data null on success. Needs the manage scope.",
            Effect::Overwrite,
        ),
        rest(
            Op::CreateDeckExport,
            "create_deck_export",
            "Export a deck (PDF, ZIP or PowerPoint)",
            "Starts an asynchronous export of a deck as pdf (one page per slide; options margin, slide_number, slide_notes, separate_fragments), zip (a self-contained HTML presentation) or pptx (PowerPoint: text boxes, shapes and pictures where the slide's blocks allow, speaker notes as notes). Returns the export with status pending and meta.poll_after_seconds: wait that long, then call get_deck_export until status is completed (download_url) or failed. Needs the manage scope.",
            Effect::Add,
        )
        .output(|s| s["required"] = json!(["data", "meta"])),
        rest(
            Op::GetDeckExport,
            "get_deck_export",
            "Get an export's status",
            "Returns an export: status pending, completed or failed. A completed export has a temporary download_url (valid until download_url_expires_at, no credential needed). While pending, wait poll_after_seconds (2) between calls.",
            Effect::Read,
        ),
        rest(
            Op::ListTeamDecks,
            "list_team_decks",
            "List my team's decks",
            "Lists the team-visible and public decks of every member of the caller's team (the caller's own included), newest first, paged; each has visibility and owner (the owner's display name). Accounts without a team get an error.",
            Effect::Read,
        )
        .output(owners_as_names),
        rest(
            Op::GetTeamDeck,
            "get_team_deck",
            "Get a team deck",
            "Returns one team-visible or public deck of the caller's team with its owner (display name); include_deck_html=true adds deck_html. Read-only: team members' decks are changed by their owners.",
            Effect::Read,
        )
        .output(owners_as_names),
        Spec {
            op: Op::GetSlides,
            name: "get_slides",
            title: "Get several slides",
            description: "Returns up to 10 of a deck's slides in one call, each with id, position, html and notes, in the order asked; unknown ids are listed in missing_slide_ids. Use list_slides first for the ids.",
            scope: Scope::Read,
            effect: Effect::Read,
            input: get_slides_input(),
            output: get_slides_output(),
        },
        Spec {
            op: Op::SearchDecks,
            name: "search_decks",
            title: "Search decks",
            description: "Finds decks whose title or slide HTML contains the query (case-insensitive substring), among the caller's own decks (not trashed) and the team-visible and public decks of the caller's team. Each hit says whether it is the caller's own deck and where it matched. Paged like list_decks.",
            scope: Scope::Read,
            effect: Effect::Read,
            input: search_input(),
            output: search_output(),
        },
        Spec {
            op: Op::GetSlideScreenshot,
            name: "get_slide_screenshot",
            title: "Screenshot a slide",
            description: "Renders one slide of the caller's deck as the deck's pages show it (theme, fonts, background) and returns it as a PNG image of the slide alone at the deck's canvas size (data.width x data.height; a canvas longer than 2560 px is scaled down in proportion), to check a layout visually. Takes a few seconds; needs Chromium on the server.",
            scope: Scope::Read,
            effect: Effect::Read,
            input: slide_ref_input(),
            output: screenshot_output(),
        },
        Spec {
            op: Op::GetAuthoringGuide,
            name: "get_authoring_guide",
            title: "How to write slides",
            description: "Returns the rules for slide HTML that Lectern accepts (one <section>, allowed attributes, fragments, backgrounds, vertical groups, notes, what is stripped when shown) with examples. Read it before writing slides.",
            scope: Scope::Read,
            effect: Effect::Read,
            input: no_input(),
            output: guide_output(),
        },
        rest(
            Op::ListRevisions,
            "list_revisions",
            "List a deck's revisions",
            "Lists the deck's history, newest first, paged (default 20, at most 100): each revision has its number, created_at, operation (create_deck, update_deck, add_slide, update_slide, remove_slides, move_slides, trash_deck, recover_deck, restore), the slide_ids it touched, restored_revision for a restore, and its author {user_id, username, via (api_key, oauth, mcp, web, admin), label (the key's label or the client's name)}. Every write makes exactly one revision.",
            Effect::Read,
        ),
        rest(
            Op::GetRevision,
            "get_revision",
            "Read a deck as it was",
            "Returns the deck as it was right after one revision: its settings (deck) and its slides in order (id, position, html, notes). Revisions older than the kept history are not found.",
            Effect::Read,
        ),
        rest(
            Op::RestoreRevision,
            "restore",
            "Restore a revision",
            "Makes the deck's settings and slides what they were after a revision (removed slides come back with their ids, notes and places), as one new revision with operation restore; nothing is lost, the history keeps every state. Returns the deck's metadata. Optional if_revision guards against concurrent changes. Needs the manage scope.",
            Effect::Overwrite,
        )
        .named("restore_revision"),
        Spec {
            op: Op::UndoLastChange,
            name: "undo_last_change",
            title: "Undo the last change",
            description: "Restores the revision before the deck's newest one (as a new restore revision). Refuses when the newest change was made through another credential (a person or another tool) unless force is true: check list_revisions first. Returns the deck's metadata. Needs the manage scope.",
            scope: Scope::Manage,
            effect: Effect::Overwrite,
            input: undo_input(),
            output: rest_output("restore"),
        },
        Spec {
            op: Op::UploadImage,
            name: "upload_image",
            title: "Upload an image",
            description: "Stores an image in the account's media library and returns it with its public url, to use in a slide right away (<img src=\"URL\">, style=\"background-image:url(URL)\" or data-background-image=\"URL\"). Give either data (the file, base64) with an optional name, or source_url (an http(s) URL the server downloads; only public internet addresses unless the server allows more). PNG, JPEG, GIF, WebP or SVG, at most 20 MiB and 50,000,000 pixels; the type is read from the bytes, metadata is removed, SVG keeps drawing content only. The same bytes uploaded again return the existing image. Needs the manage scope.",
            scope: Scope::Manage,
            effect: Effect::Fetch,
            input: upload_image_input(),
            output: rest_output("upload_media"),
        },
        rest(
            Op::ListMedia,
            "list_media",
            "List my images",
            "Lists the account's uploaded images, newest first, paged (default 20, at most 100): id, name, content_type, bytes, width, height, sha256, url, created_at.",
            Effect::Read,
        ),
    ]
}

/// The number of tools, by kind (for tests and docs).
pub fn tool_names() -> BTreeMap<&'static str, Op> {
    specs().iter().map(|s| (s.name, s.op)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_tools_are_the_tools_the_read_scope_allows() {
        for s in specs() {
            assert_eq!(
                s.effect == Effect::Read,
                s.scope == Scope::Read,
                "{}",
                s.name
            );
        }
    }

    #[test]
    fn a_rest_tool_takes_the_operations_path_query_and_body_fields() {
        let update = &Op::UpdateSlide.spec().input;
        let mut names = Op::UpdateSlide.arguments();
        names.sort();
        assert_eq!(
            names,
            ["deck_id", "html", "if_revision", "notes", "slide_id"]
        );
        assert_eq!(update["required"], json!(["deck_id", "slide_id"]));
        assert!(update["properties"]["deck_id"]["anyOf"].is_array());
        let list = &Op::ListSlides.spec().input["properties"];
        assert_eq!(list["per_page"]["maximum"], 200);
        assert_eq!(list["per_page"]["default"], 50);
        let get = &Op::GetRevision.spec().input["properties"];
        assert_eq!(get["revision"]["type"], "integer");
    }

    #[test]
    fn the_manage_tools_are_the_operations_marked_m_and_only_they() {
        let manage: Vec<&str> = specs()
            .iter()
            .filter(|s| s.op.scope() == Scope::Manage)
            .map(|s| s.name)
            .collect();
        assert_eq!(
            manage,
            [
                "create_deck",
                "update_deck",
                "trash_deck",
                "recover_deck",
                "add_slide",
                "remove_slides",
                "update_slide",
                "move_slides",
                "create_deck_share",
                "revoke_deck_share",
                "create_deck_export",
                "restore_revision",
                "undo_last_change",
                "upload_image",
            ]
        );
    }
}
