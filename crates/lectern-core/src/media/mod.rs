//! Uploaded images (an extension of the interface): what Lectern accepts and how it stores
//! it. The type is decided from the bytes alone; raster images are decoded and encoded again
//! in their own format (which drops metadata such as EXIF GPS tags), after their size was
//! checked from the header, so a decompression bomb is refused before any pixel is decoded;
//! SVG is reduced to drawing content (`svg.rs`). Pure functions, no I/O: the service calls
//! [`prepare`] on a blocking thread.

use std::io::Cursor;

use image::codecs::gif::{GifDecoder, GifEncoder, Repeat};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{AnimationDecoder, DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use crate::{Error, Result};

pub mod refs;
mod svg;
#[cfg(test)]
mod tests;

/// Largest file accepted, in bytes (20 MiB); more is 413.
pub const MAX_MEDIA_BYTES: usize = 20 * 1024 * 1024;
/// Most pixels in one frame (width × height); more is 422, decided from the header.
pub const MAX_PIXELS: u64 = 50_000_000;
/// Most pixels in all the frames of an animation together (a GIF of many large frames).
const MAX_ANIMATION_PIXELS: u64 = 4 * MAX_PIXELS;
/// Longest stored name, in characters.
const MAX_NAME_CHARS: usize = 100;
/// JPEG quality of re-encoded photos.
const JPEG_QUALITY: u8 = 90;

/// The image types Lectern accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Png,
    Jpeg,
    Gif,
    Webp,
    Svg,
}

impl MediaKind {
    /// The MIME type the file is served with.
    pub fn content_type(self) -> &'static str {
        match self {
            MediaKind::Png => "image/png",
            MediaKind::Jpeg => "image/jpeg",
            MediaKind::Gif => "image/gif",
            MediaKind::Webp => "image/webp",
            MediaKind::Svg => "image/svg+xml",
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            MediaKind::Png => "png",
            MediaKind::Jpeg => "jpg",
            MediaKind::Gif => "gif",
            MediaKind::Webp => "webp",
            MediaKind::Svg => "svg",
        }
    }

    /// The kind a stored content type names.
    pub fn from_content_type(content_type: &str) -> Option<MediaKind> {
        [
            MediaKind::Png,
            MediaKind::Jpeg,
            MediaKind::Gif,
            MediaKind::Webp,
            MediaKind::Svg,
        ]
        .into_iter()
        .find(|k| k.content_type() == content_type)
    }
}

/// An upload made ready to store.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub kind: MediaKind,
    /// The bytes to store and serve (re-encoded or sanitized).
    pub bytes: Vec<u8>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// SHA-256 of the uploaded bytes, lowercase hex: the same upload is recognised again.
    pub sha256: String,
}

fn not_accepted() -> Error {
    Error::invalid("the file is not an image Lectern accepts: PNG, JPEG, GIF, WebP or SVG")
}

fn undecodable(kind: MediaKind, e: impl std::fmt::Display) -> Error {
    Error::invalid(format!(
        "the file looks like {} but cannot be decoded (truncated or damaged): {e}",
        kind.extension().to_uppercase()
    ))
}

/// Checks and re-encodes an upload: its type from its bytes, its size from its header, then
/// the whole image. Errors are 422 (`Error::Invalid`) with a reason a person can act on;
/// the 20 MiB limit is the caller's (it is a 413).
pub fn prepare(input: &[u8]) -> Result<Prepared> {
    let sha256 = crate::secret::sha256_hex_bytes(input);
    let raster = match image::guess_format(input) {
        Ok(ImageFormat::Png) => Some(MediaKind::Png),
        Ok(ImageFormat::Jpeg) => Some(MediaKind::Jpeg),
        Ok(ImageFormat::Gif) => Some(MediaKind::Gif),
        Ok(ImageFormat::WebP) => Some(MediaKind::Webp),
        Ok(ImageFormat::Avif) => {
            return Err(Error::invalid(
                "AVIF images are not accepted by this server: upload PNG, JPEG, GIF, WebP or SVG",
            ));
        }
        _ => None,
    };
    let (kind, bytes, width, height) = match raster {
        Some(kind) => {
            let (bytes, w, h) = reencode(kind, input)?;
            (kind, bytes, Some(w), Some(h))
        }
        None if svg::looks_like_svg(input) => {
            let clean = svg::sanitize(input)?;
            (
                MediaKind::Svg,
                clean.text.into_bytes(),
                clean.width,
                clean.height,
            )
        }
        None => return Err(not_accepted()),
    };
    Ok(Prepared {
        kind,
        bytes,
        width,
        height,
        sha256,
    })
}

fn format_of(kind: MediaKind) -> ImageFormat {
    match kind {
        MediaKind::Png => ImageFormat::Png,
        MediaKind::Jpeg => ImageFormat::Jpeg,
        MediaKind::Gif => ImageFormat::Gif,
        MediaKind::Webp => ImageFormat::WebP,
        MediaKind::Svg => unreachable!("SVG is not decoded as a raster image"),
    }
}

/// Refuses a frame larger than [`MAX_PIXELS`].
fn check_size(w: u32, h: u32) -> Result<()> {
    if w == 0 || h == 0 {
        return Err(Error::invalid(
            "the image has no pixels (width or height 0)",
        ));
    }
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(Error::invalid(format!(
            "the image is {w} × {h} pixels; at most {MAX_PIXELS} pixels per image are accepted"
        )));
    }
    Ok(())
}

/// Decodes `input` (known to be `kind`) and encodes it again; (bytes, width, height).
fn reencode(kind: MediaKind, input: &[u8]) -> Result<(Vec<u8>, u32, u32)> {
    let reader = || {
        let mut r = ImageReader::with_format(Cursor::new(input), format_of(kind));
        let mut limits = Limits::default();
        limits.max_image_width = Some(200_000);
        limits.max_image_height = Some(200_000);
        r.limits(limits);
        r
    };
    // The header first: a huge canvas is refused before anything is allocated for it.
    let (w, h) = reader()
        .into_dimensions()
        .map_err(|e| undecodable(kind, e))?;
    check_size(w, h)?;
    let mut out = Vec::new();
    if kind == MediaKind::Gif {
        // Frames (and with them the animation) are kept.
        let decoder = GifDecoder::new(Cursor::new(input)).map_err(|e| undecodable(kind, e))?;
        let mut budget = MAX_ANIMATION_PIXELS;
        let mut frames = Vec::new();
        for frame in decoder.into_frames() {
            let frame = frame.map_err(|e| undecodable(kind, e))?;
            let (fw, fh) = frame.buffer().dimensions();
            budget = budget.checked_sub(u64::from(fw) * u64::from(fh)).ok_or_else(|| {
                Error::invalid(format!(
                    "the animation has more than {MAX_ANIMATION_PIXELS} pixels in all its frames"
                ))
            })?;
            frames.push(frame);
        }
        if frames.is_empty() {
            return Err(undecodable(kind, "no frames"));
        }
        let mut encoder = GifEncoder::new_with_speed(&mut out, 10);
        encoder
            .set_repeat(Repeat::Infinite)
            .map_err(Error::internal)?;
        encoder.encode_frames(frames).map_err(Error::internal)?;
        drop(encoder);
        return Ok((out, w, h));
    }
    let mut decoder = reader().into_decoder().map_err(|e| undecodable(kind, e))?;
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| undecodable(kind, e))?;
    if let Some(o) = orientation {
        // EXIF orientation is dropped with the rest of the metadata: apply it to the pixels.
        img.apply_orientation(o);
    }
    let (w, h) = (img.width(), img.height());
    match kind {
        MediaKind::Png => img.write_with_encoder(PngEncoder::new(&mut out)),
        MediaKind::Jpeg => {
            // JPEG has no alpha and at most 8 bits: CMYK and 16-bit inputs come out as RGB.
            let img = match img {
                DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) => img,
                other => DynamicImage::ImageRgb8(other.to_rgb8()),
            };
            img.write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))
        }
        MediaKind::Webp => {
            let img = match img {
                DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => img,
                other if other.color().has_alpha() => DynamicImage::ImageRgba8(other.to_rgba8()),
                other => DynamicImage::ImageRgb8(other.to_rgb8()),
            };
            img.write_with_encoder(WebPEncoder::new_lossless(&mut out))
        }
        MediaKind::Gif | MediaKind::Svg => unreachable!("handled above"),
    }
    .map_err(Error::internal)?;
    Ok((out, w, h))
}

/// The name an upload is stored under: the last path segment of `raw`, reduced to letters,
/// digits, `.`, `-` and `_` (anything else becomes `-`), at most 100 characters, with the
/// extension of the detected type (a PNG named `x.svg` is `x.png`). Without a usable name:
/// `image.<ext>`.
pub fn safe_name(raw: Option<&str>, kind: MediaKind) -> String {
    let base = raw.unwrap_or("").rsplit(['/', '\\']).next().unwrap_or("");
    let mut name = String::new();
    for c in base.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            c
        } else {
            '-'
        };
        if c == '-' && name.ends_with('-') {
            continue;
        }
        name.push(c);
    }
    let stem = match name.rfind('.') {
        Some(dot) => &name[..dot],
        None => &name[..],
    };
    let stem = stem.trim_matches(|c| c == '.' || c == '-');
    let ext = kind.extension();
    let stem = if stem.is_empty() { "image" } else { stem };
    let keep = MAX_NAME_CHARS - ext.len() - 1;
    let stem: String = stem.chars().take(keep).collect();
    format!("{stem}.{ext}")
}
