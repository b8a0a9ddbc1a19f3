//! Where a deck names uploaded media: URLs `<public URL>/media/<id>.<ext>` (or the same
//! path without the origin) in slide HTML, style attributes, `data-background-image` and
//! deck CSS. Exports find them to include the files, and rewrite them to the local copies.

use std::collections::HashSet;

/// Length of a media id (random letters and digits).
pub const MEDIA_ID_LEN: usize = 24;

/// The path under the public URL where media are served.
pub const MEDIA_PATH: &str = "/media/";

/// One reference: the byte range of the whole URL in the text and the media id.
struct Found<'a> {
    start: usize,
    end: usize,
    id: &'a str,
}

/// Splits `<id>.<ext>` (the public file name of a medium); `None` for anything else.
pub fn parse_file_name(file: &str) -> Option<(&str, &str)> {
    let (id, ext) = file.split_once('.')?;
    let ok = id.len() == MEDIA_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric())
        && (1..=4).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_lowercase());
    ok.then_some((id, ext))
}

fn scan<'a>(text: &'a str, public_url: &str) -> Vec<Found<'a>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(MEDIA_PATH) {
        let path_start = from + at;
        from = path_start + MEDIA_PATH.len();
        // `<id>.<ext>` follows, ending at a character that cannot be part of it.
        let rest = &text[from..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
            .unwrap_or(rest.len());
        let Some((id, _)) = parse_file_name(&rest[..len]) else {
            continue;
        };
        // Preceded by the public URL, or standing alone as a root-relative URL.
        let before = &text[..path_start];
        let start = if before.ends_with(public_url) {
            path_start - public_url.len()
        } else if before.is_empty() || before.ends_with(['"', '\'', '(', '=', ' ', '\n', '\t']) {
            path_start
        } else {
            continue;
        };
        found.push(Found {
            start,
            end: from + len,
            id,
        });
        from += len;
    }
    found
}

/// The ids of the media `text` names, each once, in order of appearance.
pub fn referenced_ids(text: &str, public_url: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    scan(text, public_url)
        .into_iter()
        .filter(|f| seen.insert(f.id))
        .map(|f| f.id.to_string())
        .collect()
}

/// `text` with every reference to a medium in `local` (id → relative path) replaced by
/// that path; other references stay as they were.
pub fn localize(text: &str, public_url: &str, local: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for f in scan(text, public_url) {
        if let Some(path) = local(f.id) {
            out.push_str(&text[copied..f.start]);
            out.push_str(&path);
            copied = f.end;
        }
    }
    out.push_str(&text[copied..]);
    out
}
