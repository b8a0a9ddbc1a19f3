//! A ZIP of a presentation's folder (a reveal.js folder, a Lectern ZIP export): its
//! `index.html` (or its one HTML or Markdown file) and the images beside it that the
//! document names by a relative path. The service stores those images as the account's media
//! and points the document at them ([`relink`]) before it is parsed.

use std::io::Read;

use crate::media::MAX_MEDIA_BYTES;
use crate::{Error, Result};

/// The largest document in an import, in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 10 * 1024 * 1024;
/// The most entries an archive may list.
const MAX_ENTRIES: usize = 5_000;
/// The most bytes the images read from one archive may add up to.
const MAX_IMAGE_TOTAL: usize = 200 * 1024 * 1024;
/// The files an import takes as images, by extension.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "svg"];

/// What an archive holds for an import.
#[derive(Debug)]
pub struct Archive {
    /// The presentation document.
    pub document: String,
    /// Whether the document is HTML (else Markdown).
    pub html: bool,
    /// The images the document names, as (the relative path it names, the file's bytes).
    pub images: Vec<(String, Vec<u8>)>,
    /// What was left out, one line each.
    pub dropped: Vec<String>,
}

/// Whether `bytes` start as a ZIP archive does.
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The document of the archive: the shallowest `index.html`, else its one HTML file, else
/// its one Markdown file.
fn document_name(names: &[String]) -> Result<&String> {
    let depth = |n: &&String| n.matches('/').count();
    let with = |exts: &[&str]| -> Vec<&String> {
        names
            .iter()
            .filter(|n| exts.contains(&extension(n).as_str()))
            .collect()
    };
    if let Some(index) = names
        .iter()
        .filter(|n| n.rsplit('/').next() == Some("index.html"))
        .min_by_key(depth)
    {
        return Ok(index);
    }
    for exts in [&["html", "htm"][..], &["md", "markdown"][..]] {
        match with(exts).as_slice() {
            [one] => return Ok(one),
            [] => {}
            _ => {
                return Err(Error::invalid(format!(
                    "the ZIP holds several .{} files and no index.html: which one is the presentation?",
                    exts[0]
                )));
            }
        }
    }
    Err(Error::invalid(
        "the ZIP holds no index.html, nor one HTML or Markdown file",
    ))
}

/// Reads an entry, refusing more than `limit` bytes whatever its header says.
fn read_entry(file: impl Read, limit: usize) -> Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("the ZIP could not be read: {e}")))?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// Reads a ZIP of a presentation folder.
pub fn read_zip(bytes: &[u8]) -> Result<Archive> {
    let bad = |e: zip::result::ZipError| {
        Error::invalid(format!(
            "the file is not a ZIP archive that can be read: {e}"
        ))
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(bad)?;
    if zip.len() > MAX_ENTRIES {
        return Err(Error::invalid(format!(
            "the ZIP lists {} files; at most {MAX_ENTRIES} are read",
            zip.len()
        )));
    }
    let names: Vec<String> = zip
        .file_names()
        .map(|n| n.map(|n| n.into_owned()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(bad)?
        .into_iter()
        .filter(|n| !n.ends_with('/') && !n.starts_with("__MACOSX/"))
        .collect();
    let doc_name = document_name(&names)?.clone();
    let folder = doc_name.rsplit_once('/').map_or("", |(dir, _)| dir);
    let folder = if folder.is_empty() {
        String::new()
    } else {
        format!("{folder}/")
    };
    let document = read_entry(zip.by_name(&doc_name).map_err(bad)?, MAX_DOCUMENT_BYTES)?
        .ok_or_else(|| Error::invalid(format!("{doc_name} is over {MAX_DOCUMENT_BYTES} bytes")))?;
    let document = String::from_utf8(document)
        .map_err(|_| Error::invalid(format!("{doc_name} is not UTF-8 text")))?;
    let html = matches!(extension(&doc_name).as_str(), "html" | "htm");
    let (mut images, mut dropped, mut total) = (Vec::new(), Vec::new(), 0usize);
    for name in &names {
        let Some(path) = name.strip_prefix(&folder) else {
            continue;
        };
        if !IMAGE_EXTENSIONS.contains(&extension(path).as_str()) || !names_path(&document, path) {
            continue;
        }
        match read_entry(zip.by_name(name).map_err(bad)?, MAX_MEDIA_BYTES)? {
            Some(data) if total + data.len() <= MAX_IMAGE_TOTAL => {
                total += data.len();
                images.push((path.to_string(), data));
            }
            Some(_) => dropped.push(format!(
                "the image {path} (the archive's images pass {MAX_IMAGE_TOTAL} bytes)"
            )),
            None => dropped.push(format!("the image {path} (over {MAX_MEDIA_BYTES} bytes)")),
        }
    }
    Ok(Archive {
        document,
        html,
        images,
        dropped,
    })
}

/// Where `path` is named in `text` as a whole URL: in quotes, in `url()`, after `=` or in a
/// list (`srcset`), with or without a leading `./`. Each hit is the byte range of the URL.
fn references(text: &str, path: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(path) {
        let start = from + at;
        let end = start + path.len();
        from = end;
        let before = &text[..start];
        let (start, before) = match before.strip_suffix("./") {
            Some(b) => (start - 2, b),
            None => (start, before),
        };
        let opens = before.ends_with(['"', '\'', '(', '=', ' ', ',', '\n']);
        let closes = text[end..].is_empty()
            || text[end..].starts_with(['"', '\'', ')', ' ', '>', ',', '?', '#', '\n']);
        if opens && closes {
            found.push((start, end));
        }
    }
    found
}

fn names_path(text: &str, path: &str) -> bool {
    !references(text, path).is_empty()
}

/// `text` with every reference to the relative `path` replaced by `url`.
pub fn relink(text: &str, path: &str, url: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in references(text, path) {
        out.push_str(&text[last..start]);
        out.push_str(url);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in files {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn finds_the_document_and_the_images_it_names() {
        let doc = br#"<section><img src="img/a.png"><div data-background-image="./img/b.jpg"></div></section>"#;
        let bytes = zip_of(&[
            ("talk/index.html", doc),
            ("talk/img/a.png", b"A"),
            ("talk/img/b.jpg", b"B"),
            ("talk/img/unused.png", b"U"),
            ("talk/dist/index.html", b"<p>not this one</p>"),
            ("__MACOSX/talk/._index.html", b"junk"),
        ]);
        assert!(is_zip(&bytes));
        let archive = read_zip(&bytes).unwrap();
        assert!(archive.html);
        assert_eq!(archive.document.as_bytes(), doc);
        let names: Vec<&str> = archive.images.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["img/a.png", "img/b.jpg"]);
    }

    #[test]
    fn a_markdown_folder_and_what_is_refused() {
        let md = zip_of(&[("slides.md", b"# Hi\n\n![x](pic.gif)"), ("pic.gif", b"G")]);
        let archive = read_zip(&md).unwrap();
        assert!(!archive.html);
        assert_eq!(archive.images.len(), 1);
        let two = zip_of(&[("a.html", b"<section></section>"), ("b.html", b"")]);
        assert!(read_zip(&two).unwrap_err().to_string().contains("several"));
        let none = zip_of(&[("a.png", b"A")]);
        assert!(
            read_zip(&none)
                .unwrap_err()
                .to_string()
                .contains("no index.html")
        );
        assert!(read_zip(b"PK\x03\x04 not really").is_err());
    }

    #[test]
    fn relinks_whole_urls_only() {
        let text = r#"<img src="a.png"> <img src='./a.png'> url(a.png) data-x=a.png srcset="a.png 1x, a.png 2x" <img src="ba.png"> <img src="a.png.bak">"#;
        let out = relink(text, "a.png", "/media/X.png");
        assert_eq!(
            out,
            r#"<img src="/media/X.png"> <img src='/media/X.png'> url(/media/X.png) data-x=/media/X.png srcset="/media/X.png 1x, /media/X.png 2x" <img src="ba.png"> <img src="a.png.bak">"#
        );
    }
}
