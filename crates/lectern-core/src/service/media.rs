//! The media library (an extension of the interface): images uploaded to the account, served
//! at public URLs that name neither the account nor the deck, and read by exports from the
//! file store.

use serde::Serialize;
use utoipa::ToSchema;

use super::*;
use crate::media::refs::{MEDIA_ID_LEN, MEDIA_PATH, parse_file_name, referenced_ids};
use crate::media::{self, MAX_MEDIA_BYTES, MediaKind};
use crate::service::exports::Worker;
use crate::store::{MediaInsert, MediaRecord};

/// The default per-account quota (`--media-quota-mb`), in MiB.
pub const DEFAULT_QUOTA_MB: u64 = 1024;

/// How long an upload waits for one of the image decoders before it is answered 503.
pub const DEFAULT_DECODE_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// An uploaded image.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MediaView {
    pub id: String,
    /// A safe file name: the uploaded one reduced to letters, digits, `.`, `-`, `_`, with
    /// the extension of the detected type.
    pub name: String,
    /// `image/png`, `image/jpeg`, `image/gif`, `image/webp` or `image/svg+xml`, decided from
    /// the bytes.
    pub content_type: String,
    /// Size of the stored file (re-encoded or sanitized).
    pub bytes: i64,
    /// Pixels; null for an SVG that states no size in pixels.
    pub width: Option<i64>,
    pub height: Option<i64>,
    /// SHA-256 of the uploaded bytes, lowercase hex.
    pub sha256: String,
    /// Public URL of the file, for `src` and `url()` in slides.
    pub url: String,
    pub created_at: Timestamp,
}

/// An upload: the bytes and the name they came with.
#[derive(Debug)]
pub struct Upload {
    pub bytes: Vec<u8>,
    pub name: Option<String>,
}

/// What an upload did: `created` is false when the account had the same bytes already.
#[derive(Debug)]
pub struct Uploaded {
    pub media: MediaView,
    pub created: bool,
}

/// A medium's file, to serve.
#[derive(Debug)]
pub struct MediaFile {
    pub bytes: Vec<u8>,
    pub content_type: String,
    /// Strong validator (the content of an id never changes).
    pub etag: String,
}

/// A medium of a deck's owner that the deck names, with its file (exports).
#[derive(Debug)]
pub struct DeckMedium {
    pub id: String,
    /// `<id>.<ext>`: the name of the local copy.
    pub file_name: String,
    pub bytes: Vec<u8>,
}

fn media_not_found() -> Error {
    Error::not_found("media not found")
}

impl Lectern {
    pub(crate) fn media_view(&self, r: MediaRecord) -> MediaView {
        let ext = MediaKind::from_content_type(&r.content_type).map_or("bin", |k| k.extension());
        MediaView {
            url: format!("{}{MEDIA_PATH}{}.{ext}", self.public_url, r.id),
            id: r.id,
            name: r.name,
            content_type: r.content_type,
            bytes: r.bytes,
            width: r.width,
            height: r.height,
            sha256: r.sha256,
            created_at: r.created_at,
        }
    }

    /// `upload_media`: checks, re-encodes and stores an image for the caller's account. The
    /// same bytes again give the first upload back (`created: false`), stored once.
    pub async fn upload_media(&self, caller: &Caller, upload: Upload) -> Result<Uploaded> {
        caller.require(Scope::Manage)?;
        self.store_media(caller.user_id, upload).await
    }

    /// Checks, re-encodes and stores an image for the account `owner`.
    pub(crate) async fn store_media(&self, owner: i64, upload: Upload) -> Result<Uploaded> {
        if upload.bytes.len() > MAX_MEDIA_BYTES {
            return Err(Error::TooLarge(format!(
                "the file is {} bytes; at most {MAX_MEDIA_BYTES} bytes (20 MiB) are accepted",
                upload.bytes.len()
            )));
        }
        if upload.bytes.is_empty() {
            return Err(Error::invalid("the file is empty"));
        }
        let sha = secret::sha256_hex_bytes(&upload.bytes);
        if let Some(existing) = self.store.find_media_by_sha(owner, &sha).await? {
            return Ok(Uploaded {
                media: self.media_view(existing),
                created: false,
            });
        }
        // One of the decoders, or 503: decoding takes memory, so only so many run at once.
        let decoder = tokio::time::timeout(self.decode_wait, self.decoders.clone().acquire_owned())
            .await
            .ok()
            .and_then(|permit| permit.ok())
            .ok_or_else(|| Error::Busy {
                message: "every image decoder of the server is busy; retry the upload later".into(),
                retry_after_secs: self.decode_wait.as_secs().max(1),
            })?;
        let bytes = upload.bytes;
        // The decoder is released when the decode ends, even if the client went away.
        let prepared = tokio::task::spawn_blocking(move || {
            let _decoder = decoder;
            media::prepare(&bytes)
        })
        .await
        .map_err(Error::internal)??;
        let id = secret::random_alphanumeric(MEDIA_ID_LEN);
        let file_key = format!("media-{id}.{}", prepared.kind.extension());
        let record = MediaRecord {
            name: media::safe_name(upload.name.as_deref(), prepared.kind),
            content_type: prepared.kind.content_type().to_string(),
            bytes: prepared.bytes.len() as i64,
            width: prepared.width.map(i64::from),
            height: prepared.height.map(i64::from),
            sha256: prepared.sha256,
            file_key: file_key.clone(),
            created_at: Timestamp::now(),
            owner_id: owner,
            id,
        };
        // The file first, then its row: a row never names a missing file. A failure after
        // the file was written removes it again.
        self.files
            .put(&file_key, prepared.bytes)
            .await
            .map_err(Error::internal)?;
        let inserted = self
            .store
            .insert_media(record, self.media_quota_bytes)
            .await;
        let outcome = match inserted {
            Ok(MediaInsert::Created(r)) => {
                return Ok(Uploaded {
                    media: self.media_view(r),
                    created: true,
                });
            }
            Ok(MediaInsert::Existing(r)) => Ok(Uploaded {
                media: self.media_view(r),
                created: false,
            }),
            Ok(MediaInsert::OverQuota { used }) => Err(Error::TooLarge(format!(
                "this upload would pass the account's media quota of {} MiB ({used} bytes in use); \
                 delete media to make room",
                self.media_quota_bytes / (1024 * 1024)
            ))),
            Err(e) => Err(e),
        };
        if let Err(e) = self.files.delete(&file_key).await {
            tracing::warn!(file = %file_key, error = %e, "removing an unused media file failed");
        }
        outcome
    }

    /// `list_media`: the caller's media, newest first, paged.
    pub async fn list_media(&self, caller: &Caller, paging: Paging) -> Result<Page<MediaView>> {
        caller.require(Scope::Read)?;
        let (rows, total) = self.store.list_media(caller.user_id, paging).await?;
        Ok(Page {
            items: rows.into_iter().map(|r| self.media_view(r)).collect(),
            meta: paging.meta(total),
        })
    }

    /// `get_media`: one of the caller's media (another account's is 404).
    pub async fn get_media(&self, caller: &Caller, media_id: &str) -> Result<MediaView> {
        caller.require(Scope::Read)?;
        let record = self
            .store
            .get_media(caller.user_id, media_id)
            .await?
            .ok_or_else(media_not_found)?;
        Ok(self.media_view(record))
    }

    /// `delete_media`: removes one of the caller's media and its file; its URL answers 404
    /// from then on (slides naming it show a broken image).
    pub async fn delete_media(&self, caller: &Caller, media_id: &str) -> Result<()> {
        caller.require(Scope::Manage)?;
        let record = self
            .store
            .delete_media(caller.user_id, media_id)
            .await?
            .ok_or_else(media_not_found)?;
        if let Err(e) = self.files.delete(&record.file_key).await {
            // The row is gone, so nothing serves the file any more; it only takes space.
            tracing::warn!(file = %record.file_key, error = %e, "deleting a media file failed");
        }
        Ok(())
    }

    /// The file behind a public media URL (`<id>.<ext>`), for anyone who has the URL.
    pub async fn open_media_file(&self, file_name: &str) -> Result<MediaFile> {
        let (id, ext) = parse_file_name(file_name).ok_or_else(media_not_found)?;
        let record = self
            .store
            .find_media(id)
            .await?
            .ok_or_else(media_not_found)?;
        let kind =
            MediaKind::from_content_type(&record.content_type).ok_or_else(media_not_found)?;
        if kind.extension() != ext {
            return Err(media_not_found());
        }
        let bytes = self
            .files
            .get(&record.file_key)
            .await
            .map_err(Error::internal)?
            .ok_or_else(media_not_found)?;
        Ok(MediaFile {
            bytes,
            content_type: record.content_type,
            etag: format!("\"{}\"", record.id),
        })
    }
}

impl Worker<'_> {
    /// The owner's media that `text` (a deck's document) names, with their files; media
    /// deleted since, another account's and files gone missing are left out.
    pub async fn deck_media(&self, owner_id: i64, text: &str) -> Result<Vec<DeckMedium>> {
        let core = self.0;
        let ids = referenced_ids(text, core.public_url());
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let records = core.store.media_among(owner_id, &ids).await?;
        let mut found = Vec::with_capacity(records.len());
        for r in records {
            let Some(kind) = MediaKind::from_content_type(&r.content_type) else {
                continue;
            };
            match core.files.get(&r.file_key).await {
                Ok(Some(bytes)) => found.push(DeckMedium {
                    file_name: format!("{}.{}", r.id, kind.extension()),
                    id: r.id,
                    bytes,
                }),
                Ok(None) => {}
                Err(e) => return Err(Error::internal(e)),
            }
        }
        Ok(found)
    }
}
