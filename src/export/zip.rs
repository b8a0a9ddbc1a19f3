//! The offline presentation: `index.html` with every slide and its notes, and reveal.js, the
//! theme and the fonts beside it, so it presents from the file system with no network.

use std::io::Write;

use lectern_core::service::viewer::ViewedDeck;

use crate::web::viewer::{Mode, PrintOptions, deck_document, offline_assets};

/// The files of the offline presentation: `index.html` and its assets (relative paths).
pub fn presentation_files(
    deck: &ViewedDeck,
    print: Option<PrintOptions>,
) -> Vec<(String, Vec<u8>)> {
    let html = deck_document(deck, Mode::Fullscreen, &[], "", print);
    let mut files = vec![("index.html".to_string(), html.into_bytes())];
    files.extend(offline_assets());
    files
}

/// The offline presentation as a ZIP archive.
pub fn build_zip(deck: &ViewedDeck) -> std::io::Result<Vec<u8>> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in presentation_files(deck, None) {
        writer
            .start_file(path, options)
            .map_err(std::io::Error::other)?;
        writer.write_all(&bytes)?;
    }
    let cursor = writer.finish().map_err(std::io::Error::other)?;
    Ok(cursor.into_inner())
}
