//! The MCP server: Lectern's operations as MCP tools, over Streamable HTTP on `/mcp` (inside
//! `lectern serve`, see [`http`]) and over stdio (`lectern mcp`). Tools are thin adapters: a
//! call is authenticated into a [`Caller`], its arguments are split into ids and a JSON body,
//! and the same `lectern_core::Lectern` methods the REST handlers use do the work. Every call
//! goes through [`LecternMcp::call`], the one place for checks that apply to all tools.

mod args;
pub mod guide;
pub mod http;
pub mod options;
pub use options::{McpOptions, TEST_KEY_ENV};
mod resources;
mod results;
mod schemas;
pub mod tools;

use std::sync::Arc;

use base64::Engine;
use lectern_core::auth::{Caller, Channel, Resource};
use lectern_core::deck::{DeckPatch, NewDeck};
use lectern_core::ids::SlideId;
use lectern_core::media::MAX_MEDIA_BYTES;
use lectern_core::params::Paging;
use lectern_core::secret::Secret;
use lectern_core::service::exports::{NewExport, POLL_AFTER_SECONDS};
use lectern_core::service::media::Upload;
use lectern_core::service::shares::NewShare;
use lectern_core::slide::{AddSlide, MoveSlides, RemoveSlides, UpdateSlide};
use lectern_core::{Error, Lectern};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InitializeResult,
    JsonObject, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::export::fetch::{FetchError, fetch};
use crate::export::network::system_resolver;
use crate::export::pdf::{PdfError, PdfRenderer};
use crate::http::rate_limit::{RateKey, RateLimits};
use args::{
    body, flag, paging, slide_id_list, take_id, take_opt_str, take_precondition, take_revision,
    take_str,
};
use results::{Failure, Output};
use tools::Op;

/// Most slides `get_slides` returns in one call.
pub const MAX_SLIDES_PER_CALL: usize = 10;

/// Where a tool call's caller comes from.
#[derive(Clone)]
enum Credentials {
    /// HTTP: the `/mcp` middleware authenticated the request and put the `Caller` into its
    /// extensions (rmcp hands the request parts to the handler).
    FromRequest,
    /// stdio: one account's API key, checked again on every call (a revoked key stops).
    ApiKey(Arc<Secret>),
}

/// The MCP server handler; one per session (cheap clones of shared parts).
#[derive(Clone)]
pub struct LecternMcp {
    core: Lectern,
    /// Wakes the export worker when a tool queues an export.
    export_wakeup: Arc<Notify>,
    /// The warm Chromium for slide screenshots.
    renderer: Arc<PdfRenderer>,
    credentials: Credentials,
    /// Tool calls count against the credential's rate limit, as REST requests do.
    limits: Arc<RateLimits>,
    /// The decks this session subscribed to (`resources.rs`).
    subscriptions: Arc<resources::Subscriptions>,
}

impl LecternMcp {
    /// A handler for HTTP requests authenticated by [`http::guard`].
    pub fn for_http(
        core: Lectern,
        export_wakeup: Arc<Notify>,
        renderer: Arc<PdfRenderer>,
        limits: Arc<RateLimits>,
    ) -> Self {
        LecternMcp {
            core,
            export_wakeup,
            renderer,
            credentials: Credentials::FromRequest,
            limits,
            subscriptions: Arc::default(),
        }
    }

    /// A handler acting for the account of `api_key` (stdio).
    pub fn for_api_key(
        core: Lectern,
        export_wakeup: Arc<Notify>,
        renderer: Arc<PdfRenderer>,
        api_key: Secret,
        limits: Arc<RateLimits>,
    ) -> Self {
        LecternMcp {
            core,
            export_wakeup,
            renderer,
            credentials: Credentials::ApiKey(Arc::new(api_key)),
            limits,
            subscriptions: Arc::default(),
        }
    }

    /// The caller of a request.
    /// The caller of a resource request, as the protocol's error when there is none.
    async fn resource_caller(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Caller, McpError> {
        self.caller(context)
            .await
            .map_err(|e| McpError::invalid_request(e.to_string(), None))
    }

    async fn caller(&self, context: &RequestContext<RoleServer>) -> Result<Caller, Error> {
        match &self.credentials {
            Credentials::FromRequest => context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Caller>())
                .cloned()
                .ok_or_else(|| {
                    Error::Unauthorized("a valid API key or OAuth access token is required".into())
                }),
            Credentials::ApiKey(key) => {
                self.core
                    .authenticate_bearer_for(key.expose(), Resource::Mcp)
                    .await
            }
        }
    }

    /// Runs tool `op` for `caller`. Every tool call passes through here and only here, so a
    /// check for all tools (e.g. a per-credential rate limit) is one line at the top.
    pub async fn call(&self, caller: &Caller, op: Op, args: JsonObject) -> CallToolResult {
        if let Some(decision) = self.limits.check(&RateKey::for_caller(caller))
            && !decision.allowed()
        {
            return Failure::Tool {
                status: 429,
                message: decision.message(),
            }
            .into_result(op);
        }
        // The scope is known before the arguments are read: a read-only credential gets 403
        // for a manage tool whatever its arguments, as on REST.
        if let Err(e) = caller.require(op.scope()) {
            return Failure::Core(e).into_result(op);
        }
        match self.run(caller, op, args).await {
            Ok(output) => output.into_result(),
            Err(failure) => failure.into_result(op),
        }
    }

    async fn run(&self, caller: &Caller, op: Op, args: JsonObject) -> Result<Output, Failure> {
        let core = &self.core;
        // Text with a NUL is refused in every argument, as in every REST body.
        let args = serde_json::Value::Object(args);
        lectern_core::text::refuse_nul_in_json(&args)?;
        let serde_json::Value::Object(mut args) = args else {
            unreachable!("built as an object just above")
        };
        if !op_takes_body(op) {
            let allowed = op.arguments();
            if let Some(k) = args.keys().find(|k| !allowed.contains(k)) {
                return Err(
                    Error::invalid(format!("unknown argument '{k}' for {}", op.name())).into(),
                );
            }
        }
        let out = match op {
            Op::UsersGet => Output::data(core.users_get(caller).await?),
            Op::ListDecks => {
                let paging = paging(&args, Paging::DECKS)?;
                Output::page(core.list_decks(caller, paging).await?)
            }
            Op::CreateDeck => Output::data(
                core.create_deck(
                    caller,
                    lectern_core::cpu::parse_body(body(args), NewDeck::from_json).await?,
                )
                .await?,
            ),
            Op::ListTrashedDecks => {
                let paging = paging(&args, Paging::DECKS)?;
                Output::page(core.list_trashed_decks(caller, paging).await?)
            }
            Op::GetDeck => {
                let id = take_id(&mut args, "id")?;
                let include = flag(&args, "include_deck_html")?;
                Output::data(core.get_deck(caller, id, include).await?)
            }
            Op::UpdateDeck => {
                let id = take_id(&mut args, "id")?;
                let pre = take_precondition(&mut args)?;
                let patch = DeckPatch::from_json(body(args))?;
                Output::data(core.update_deck(caller, id, patch, pre).await?)
            }
            Op::TrashDeck => {
                core.trash_deck(caller, take_id(&mut args, "id")?).await?;
                Output::data(Value::Null)
            }
            Op::RecoverDeck => {
                core.recover_deck(caller, take_id(&mut args, "id")?).await?;
                Output::data(Value::Null)
            }
            Op::ListSlides => {
                let deck = take_id(&mut args, "deck_id")?;
                let paging = paging(&args, Paging::SLIDES)?;
                Output::page(core.list_slides(caller, deck, paging).await?)
            }
            Op::AddSlide => {
                let deck = take_id(&mut args, "deck_id")?;
                let pre = take_precondition(&mut args)?;
                let input = lectern_core::cpu::parse_body(body(args), AddSlide::from_json).await?;
                Output::data(core.add_slide(caller, deck, input, pre).await?)
            }
            Op::RemoveSlides => {
                let deck = take_id(&mut args, "deck_id")?;
                let pre = take_precondition(&mut args)?;
                let input = RemoveSlides::from_json(body(args))?;
                Output::data(core.remove_slides(caller, deck, input, pre).await?)
            }
            Op::GetSlide => {
                let deck = take_id(&mut args, "deck_id")?;
                let slide = SlideId(take_str(&mut args, "slide_id")?);
                Output::data(core.get_slide(caller, deck, &slide).await?)
            }
            Op::UpdateSlide => {
                let deck = take_id(&mut args, "deck_id")?;
                let slide = SlideId(take_str(&mut args, "slide_id")?);
                let pre = take_precondition(&mut args)?;
                let input =
                    lectern_core::cpu::parse_body(body(args), UpdateSlide::from_json).await?;
                Output::data(core.update_slide(caller, deck, &slide, input, pre).await?)
            }
            Op::MoveSlides => {
                let deck = take_id(&mut args, "deck_id")?;
                let pre = take_precondition(&mut args)?;
                let input = MoveSlides::from_json(body(args))?;
                Output::data(core.move_slides(caller, deck, input, pre).await?)
            }
            Op::ListDeckShares => {
                let deck = take_id(&mut args, "deck_id")?;
                let links = core.list_deck_shares(caller, deck).await?;
                let total = links.len();
                Output::with_meta(links, json!({ "total": total }))
            }
            Op::CreateDeckShare => {
                let deck = take_id(&mut args, "deck_id")?;
                let new = NewShare::from_json(body(args))?;
                Output::data(core.create_deck_share(caller, deck, new).await?)
            }
            Op::RevokeDeckShare => {
                let deck = take_id(&mut args, "deck_id")?;
                let id = take_id(&mut args, "id")?;
                core.revoke_deck_share(caller, deck, id).await?;
                Output::data(Value::Null)
            }
            Op::CreateDeckExport => {
                let deck = take_id(&mut args, "deck_id")?;
                let new = NewExport::from_json(body(args))?;
                let export = core.create_deck_export(caller, deck, new).await?;
                self.export_wakeup.notify_one();
                Output::with_meta(export, json!({ "poll_after_seconds": POLL_AFTER_SECONDS }))
            }
            Op::GetDeckExport => {
                let deck = take_id(&mut args, "deck_id")?;
                let id = take_id(&mut args, "id")?;
                Output::data(core.get_deck_export(caller, deck, id).await?)
            }
            Op::ListTeamDecks => {
                let paging = paging(&args, Paging::DECKS)?;
                let page = core.list_team_decks(caller, paging).await?;
                let mut items = to_value(&page.items);
                if let Value::Array(list) = &mut items {
                    list.iter_mut().for_each(owner_as_name);
                }
                Output::Json {
                    data: items,
                    meta: Some(to_value(&page.meta)),
                }
            }
            Op::GetTeamDeck => {
                let id = take_id(&mut args, "id")?;
                let include = flag(&args, "include_deck_html")?;
                let mut deck = to_value(&core.get_team_deck(caller, id, include).await?);
                owner_as_name(&mut deck);
                Output::data(deck)
            }
            Op::GetSlides => {
                let deck = take_id(&mut args, "deck_id")?;
                let ids = slide_id_list(&mut args)?;
                // The deck first, so a missing deck is not reported as missing slides (and
                // its revision is never newer than the slides read after it).
                let meta = core.get_deck(caller, deck, false).await?.meta;
                let deck_id = meta.id;
                let mut slides = Vec::new();
                let mut missing = Vec::new();
                for id in ids {
                    match core
                        .get_slide(caller, deck_id.into(), &SlideId(id.clone()))
                        .await
                    {
                        Ok(slide) => slides.push(slide),
                        Err(Error::NotFound(_)) => missing.push(id),
                        Err(e) => return Err(e.into()),
                    }
                }
                Output::data(json!({
                    "slides": to_value(&slides),
                    "missing_slide_ids": missing,
                    "revision": meta.revision,
                }))
            }
            Op::SearchDecks => {
                let query = take_str(&mut args, "query")?;
                let paging = paging(&args, Paging::DECKS)?;
                Output::page(core.search_decks(caller, &query, paging).await?)
            }
            Op::GetSlideScreenshot => {
                let deck = take_id(&mut args, "deck_id")?;
                let slide_id = SlideId(take_str(&mut args, "slide_id")?);
                let slide = core.get_slide(caller, deck, &slide_id).await?;
                let viewed = core.own_deck_for_rendering(caller, deck).await?;
                let h = slide.position.horizontal as usize;
                let v = slide.position.vertical.unwrap_or(0) as usize;
                let png = crate::export::worker::slide_png(core, &self.renderer, &viewed, h, v)
                    .await
                    .map_err(|e| match e {
                        PdfError::Permanent(m) | PdfError::Transient(m) => Failure::Tool {
                            status: 500,
                            message: format!("the slide could not be rendered: {m}"),
                        },
                    })?;
                // The size drawn: the deck's canvas, or that scaled down when very large.
                let (width, height) = crate::export::pdf::png_size(&png).unwrap_or_default();
                Output::Image {
                    png,
                    data: json!({
                        "deck_id": slide.deck_id,
                        "slide_id": slide.id,
                        "position": to_value(&slide.position),
                        "mime_type": "image/png",
                        "width": width,
                        "height": height,
                    }),
                }
            }
            Op::GetAuthoringGuide => Output::data(json!({ "guide": guide::authoring_guide() })),
            Op::ListRevisions => {
                let deck = take_id(&mut args, "deck_id")?;
                let paging = paging(&args, Paging::DECKS)?;
                Output::page(core.list_revisions(caller, deck, paging).await?)
            }
            Op::GetRevision => {
                let deck = take_id(&mut args, "deck_id")?;
                let revision = take_revision(&mut args, "revision")?
                    .ok_or_else(|| Error::invalid("revision is required"))?;
                Output::data(core.get_revision(caller, deck, revision).await?)
            }
            Op::RestoreRevision => {
                let deck = take_id(&mut args, "deck_id")?;
                let revision = take_revision(&mut args, "revision")?
                    .ok_or_else(|| Error::invalid("revision is required"))?;
                let pre = take_precondition(&mut args)?;
                Output::data(core.restore_revision(caller, deck, revision, pre).await?)
            }
            Op::UploadImage => {
                let upload = self.image_upload(&mut args).await?;
                Output::data(core.upload_media(caller, upload).await?.media)
            }
            Op::ListMedia => {
                let paging = paging(&args, Paging::DECKS)?;
                Output::page(core.list_media(caller, paging).await?)
            }
            Op::UndoLastChange => {
                let deck = take_id(&mut args, "deck_id")?;
                let force = flag(&args, "force")?;
                let pre = take_precondition(&mut args)?;
                Output::data(core.undo_last_change(caller, deck, force, pre).await?)
            }
        };
        Ok(out)
    }
}

impl LecternMcp {
    /// `upload_image`'s file: `data` decoded, or `source_url` fetched under the renderer's
    /// network rule.
    async fn image_upload(&self, args: &mut JsonObject) -> Result<Upload, Failure> {
        let data = take_opt_str(args, "data")?;
        let source = take_opt_str(args, "source_url")?;
        let name = take_opt_str(args, "name")?;
        match (data, source) {
            (Some(data), None) => Ok(Upload {
                bytes: decode_base64(&data)?,
                name,
            }),
            (None, Some(url)) => {
                let bytes = fetch(
                    self.renderer.network(),
                    &system_resolver(),
                    &url,
                    MAX_MEDIA_BYTES,
                    SOURCE_FETCH_TIME_LIMIT,
                )
                .await
                .map_err(|e| match e {
                    FetchError::TooLarge(_) => Error::TooLarge(format!(
                        "source_url: {e}; at most {MAX_MEDIA_BYTES} bytes (20 MiB) are accepted"
                    )),
                    FetchError::BadUrl(m) | FetchError::Refused(m) => Error::invalid(m),
                    FetchError::Failed(m) => {
                        Error::invalid(format!("source_url could not be downloaded: {m}"))
                    }
                })?;
                let from_url = url
                    .split(['?', '#'])
                    .next()
                    .and_then(|u| u.rsplit('/').next())
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
                Ok(Upload {
                    bytes,
                    name: name.or(from_url),
                })
            }
            _ => Err(Error::invalid("give either data (base64) or source_url, not both").into()),
        }
    }
}

/// `data` as base64 (standard or URL-safe alphabet, padding optional, whitespace and a
/// `data:...;base64,` prefix ignored).
fn decode_base64(data: &str) -> Result<Vec<u8>, Error> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let payload = match data.trim_start().strip_prefix("data:") {
        Some(rest) => rest.split_once(',').map_or(rest, |(_, p)| p),
        None => data,
    };
    let clean: String = payload
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let clean = clean.trim_end_matches('=');
    STANDARD_NO_PAD
        .decode(clean)
        .or_else(|_| URL_SAFE_NO_PAD.decode(clean))
        .map_err(|e| Error::invalid(format!("data is not valid base64: {e}")))
}

/// Longest time `upload_image` waits for a `source_url`.
const SOURCE_FETCH_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Whether the tool's non-id arguments are the operation's JSON body (checked by the core's
/// parsers, with the REST API's messages).
fn op_takes_body(op: Op) -> bool {
    matches!(
        op,
        Op::CreateDeck
            | Op::UpdateDeck
            | Op::AddSlide
            | Op::RemoveSlides
            | Op::UpdateSlide
            | Op::MoveSlides
            | Op::CreateDeckShare
            | Op::CreateDeckExport
    )
}

impl ServerHandler for LecternMcp {
    fn get_info(&self) -> InitializeResult {
        let mut implementation =
            Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
        implementation.title = Some("Lectern".into());
        implementation.description = Some(env!("CARGO_PKG_DESCRIPTION").into());
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        InitializeResult::new(capabilities)
            .with_server_info(implementation)
            .with_instructions(guide::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::tools().to_vec()))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let caller = self.resource_caller(&context).await?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        resources::list(&self.core, &caller, cursor).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let caller = self.resource_caller(&context).await?;
        Ok(resources::read(&self.core, &caller, &request.uri)
            .await?
            .into())
    }

    #[allow(deprecated)] // resources/subscribe is how the session revisions subscribe
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let caller = self.resource_caller(&context).await?;
        let peer = context.peer.clone();
        resources::subscribe(&self.core, &caller, &self.subscriptions, request.uri, peer).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        resources::unsubscribe(&self.subscriptions, &request.uri);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(op) = Op::from_name(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool '{}'", request.name),
                None,
            ));
        };
        let mut caller = match self.caller(&context).await {
            Ok(caller) => caller,
            Err(e) => return Ok(Failure::Core(e).into_result(op).into()),
        };
        // The deck history names the MCP client, as it introduced itself in `initialize`.
        caller.channel = Channel::Mcp {
            client: context
                .peer
                .peer_info()
                .map(|info| info.client_info.name.clone()),
        };
        let args = request.arguments.unwrap_or_default();
        Ok(self.call(&caller, op, args).await.into())
    }
}

pub(super) fn to_value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).expect("the views serialise to JSON")
}

/// Team deck `owner` carries only the owner's display name through MCP (interface 2.6).
fn owner_as_name(deck: &mut Value) {
    if let Some(name) = deck["owner"]["name"].as_str().map(str::to_string) {
        deck["owner"] = Value::String(name);
    }
}
