//! The offline presentation: `index.html` with every slide and its notes, and reveal.js, the
//! theme, the fonts and the owner's uploaded images it names beside it, so it presents from
//! the file system with no network. The same files are what the renderer loads (PDFs,
//! thumbnails, screenshots), so uploaded images never go through the network policy.

use std::io::Write;

use lectern_core::Lectern;
use lectern_core::media::refs::localize;
use lectern_core::service::viewer::ViewedDeck;

use crate::render::{Mode, PrintOptions, deck_document, offline_assets};

/// Folder of the local copies of uploaded images.
const MEDIA_DIR: &str = "media";

/// The files of the offline presentation: `index.html` and its assets (relative paths), with
/// every uploaded image of the deck's owner that the deck names under `media/`, the
/// document rewritten to those copies. Media deleted since are left out (their URLs stay).
pub async fn presentation_files(
    core: &Lectern,
    deck: &ViewedDeck,
    print: Option<PrintOptions>,
) -> lectern_core::Result<Vec<(String, Vec<u8>)>> {
    let html = deck_document(deck, Mode::Fullscreen, &[], "", print, None);
    let media = core.worker().deck_media(deck.deck.owner_id, &html).await?;
    let html = if media.is_empty() {
        html
    } else {
        localize(&html, core.public_url(), &|id| {
            media
                .iter()
                .find(|m| m.id == id)
                .map(|m| format!("{MEDIA_DIR}/{}", m.file_name))
        })
    };
    let mut files = vec![("index.html".to_string(), html.into_bytes())];
    for m in media {
        files.push((format!("{MEDIA_DIR}/{}", m.file_name), m.bytes));
    }
    files.extend(offline_assets());
    Ok(files)
}

/// The offline presentation's files as a ZIP archive.
pub fn build_zip(files: Vec<(String, Vec<u8>)>) -> std::io::Result<Vec<u8>> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in files {
        writer
            .start_file(path, options)
            .map_err(std::io::Error::other)?;
        writer.write_all(&bytes)?;
    }
    let cursor = writer.finish().map_err(std::io::Error::other)?;
    Ok(cursor.into_inner())
}
