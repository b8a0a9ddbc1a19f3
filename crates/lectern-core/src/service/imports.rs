//! "New deck" from a file (the browser's import and `admin import-deck`): a reveal.js HTML
//! document, a Markdown file, or a ZIP of a presentation folder whose images become the
//! account's media. What the import could not keep comes back with the deck.

use super::*;
use crate::import::{self, archive};
use crate::service::media::Upload;

/// How the bytes of an imported file are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// A ZIP by its first bytes, else HTML when it looks like it, else Markdown.
    Guess,
    Html,
    Markdown,
}

/// A deck made by an import, and what the import dropped (one line each).
#[derive(Debug)]
pub struct Imported<T> {
    pub deck: T,
    pub dropped: Vec<String>,
}

impl Lectern {
    /// The browser's import: a new deck of the caller's from a file, with the creation
    /// defaults and what the file set.
    pub async fn import_deck_for(
        &self,
        caller: &Caller,
        bytes: Vec<u8>,
    ) -> Result<Imported<DeckMeta>> {
        caller.require(Scope::Manage)?;
        let imported = self
            .read_import(caller.user_id, bytes, ImportFormat::Guess)
            .await?;
        let (record, dropped) = self.insert_imported(&caller.author(), imported).await?;
        Ok(Imported {
            deck: self.deck_meta(&record),
            dropped,
        })
    }

    /// "New deck" from a template ([`import::templates`]): its slides, theme and notes,
    /// titled `title` (the template's label when none is given).
    pub async fn create_deck_from_template(
        &self,
        caller: &Caller,
        template: &str,
        title: Option<&str>,
    ) -> Result<DeckMeta> {
        caller.require(Scope::Manage)?;
        let mut deck = import::templates::template_deck(template)?;
        if let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) {
            deck.title = title.to_string();
        }
        let (record, _) = self.insert_imported(&caller.author(), deck).await?;
        Ok(self.deck_meta(&record))
    }

    /// `admin import-deck`: a new deck for `username` from a file; its id.
    pub(crate) async fn import_deck(
        &self,
        username: &str,
        bytes: Vec<u8>,
        format: ImportFormat,
    ) -> Result<Imported<i64>> {
        let user = self
            .store
            .find_user_by_username(username)
            .await?
            .ok_or_else(|| Error::not_found(format!("no account named {username:?}")))?;
        let imported = self.read_import(user.id, bytes, format).await?;
        let (record, dropped) = self
            .insert_imported(&Author::admin(user.id), imported)
            .await?;
        Ok(Imported {
            deck: record.id,
            dropped,
        })
    }

    /// Reads an imported file for `owner`; a ZIP's images are stored as the owner's media
    /// and the document points at them.
    async fn read_import(
        &self,
        owner: i64,
        bytes: Vec<u8>,
        format: ImportFormat,
    ) -> Result<ImportedDeck> {
        if format == ImportFormat::Guess && archive::is_zip(&bytes) {
            let folder = crate::cpu::sized(bytes.len(), move || archive::read_zip(&bytes)).await?;
            let mut text = folder.document;
            let mut dropped = folder.dropped;
            for (path, data) in folder.images {
                if let Some(url) = self.own_copy(owner, &path, &data).await? {
                    text = archive::relink(&text, &path, &url);
                    continue;
                }
                let name = path.rsplit('/').next().map(str::to_string);
                match self.store_media(owner, Upload { bytes: data, name }).await {
                    Ok(stored) => text = archive::relink(&text, &path, &stored.media.url),
                    Err(e) => dropped.push(format!("the image {path} ({e})")),
                }
            }
            let format = if folder.html {
                ImportFormat::Html
            } else {
                ImportFormat::Markdown
            };
            let mut deck = parse(text, format).await?;
            dropped.append(&mut deck.dropped);
            deck.dropped = dropped;
            return Ok(deck);
        }
        if bytes.len() > archive::MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(format!(
                "the file is {} bytes; at most {} are imported",
                bytes.len(),
                archive::MAX_DOCUMENT_BYTES
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::invalid(
                "the file is not UTF-8 text: import a reveal.js HTML or Markdown file, \
                 or a ZIP of a presentation's folder",
            )
        })?;
        parse(text, format).await
    }

    /// The URL of `owner`'s medium that an archive's `media/<id>.<ext>` is a copy of (a ZIP
    /// export carries the stored files under their ids), so that the deck comes back with the
    /// same media.
    async fn own_copy(&self, owner: i64, path: &str, data: &[u8]) -> Result<Option<String>> {
        let file = path.rsplit('/').next().unwrap_or_default();
        let Some((id, _)) = crate::media::refs::parse_file_name(file) else {
            return Ok(None);
        };
        let Some(record) = self.store.get_media(owner, id).await? else {
            return Ok(None);
        };
        // A file that cannot be read is uploaded again instead.
        let stored = self.files.get(&record.file_key).await.ok().flatten();
        Ok((stored.as_deref() == Some(data)).then(|| self.media_view(record).url))
    }

    /// Stores an imported deck, with the creation defaults under what the file set.
    async fn insert_imported(
        &self,
        author: &Author,
        imported: ImportedDeck,
    ) -> Result<(DeckRecord, Vec<String>)> {
        let mut new = NewDeck::from_json(None)?;
        let title: String = imported.title.chars().take(MAX_TITLE_CHARS).collect();
        if !title.trim().is_empty() {
            new.title = title;
        }
        new.css = crate::css::clean(&imported.css)?.css;
        // The settings the file gave (the importer kept only valid ones).
        for (key, value) in &imported.settings {
            new.look = new.look.with_setting(key, value)?;
        }
        let (record, _) = self.insert_deck(author, new, imported.stacks).await?;
        Ok((record, imported.dropped))
    }
}

/// Parses a document off the async workers when it is large.
async fn parse(text: String, format: ImportFormat) -> Result<ImportedDeck> {
    crate::cpu::sized(text.len(), move || match format {
        ImportFormat::Html => import::parse_reveal_html(&text),
        ImportFormat::Markdown => import::parse_markdown(&text),
        ImportFormat::Guess => import::parse_file(&text),
    })
    .await
}
