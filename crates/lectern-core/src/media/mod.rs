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

mod jpeg;
pub mod refs;
mod svg;
#[cfg(test)]
mod tests;

/// Largest file accepted, in bytes (20 MiB); more is 413.
pub const MAX_MEDIA_BYTES: usize = 20 * 1024 * 1024;
/// Most pixels in one frame (width × height); more is 422, decided from the header.
pub const MAX_PIXELS: u64 = 50_000_000;
/// Most memory the pixel buffers of one image may take while it is decoded and encoded
/// again (256 MiB); an image that would need more is 422, decided from its header. With
/// [`DEFAULT_DECODERS`] decodes at once, uploads hold at most twice this.
pub const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;
/// Most pixels decoded for all the frames of an animation together: each GIF frame is
/// drawn on a canvas of the whole image, so a GIF costs frames × canvas pixels, however
/// small its frames are.
pub const MAX_ANIMATION_PIXELS: u64 = 100_000_000;
/// Images decoded at once unless the server says otherwise: the rest wait their turn.
pub const DEFAULT_DECODERS: usize = 2;
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

    /// Every extension a file of this kind may carry, the usual one first.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            MediaKind::Png => &["png"],
            MediaKind::Jpeg => &["jpg", "jpeg", "jpe", "jfif"],
            MediaKind::Gif => &["gif"],
            MediaKind::Webp => &["webp"],
            MediaKind::Svg => &["svg"],
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

/// The limits every decoder runs under: no buffer above [`MAX_DECODE_BYTES`], whatever
/// the header claimed.
fn decode_limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(200_000);
    limits.max_image_height = Some(200_000);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    limits
}

/// A decoding failure: over the limits (the decoder's own allocation bound) or damaged.
fn decode_error(kind: MediaKind, e: image::ImageError) -> Error {
    match e {
        image::ImageError::Limits(_) => over_memory(None),
        e => undecodable(kind, e),
    }
}

fn over_memory(needed: Option<u64>) -> Error {
    let needed = needed
        .map(|n| format!(" ({} MiB)", n.div_ceil(1024 * 1024)))
        .unwrap_or_default();
    Error::invalid(format!(
        "the image would take more memory to decode{needed} than this server allows for one \
         image ({} MiB): upload it with fewer pixels, 8 bits per channel or fewer frames",
        MAX_DECODE_BYTES / (1024 * 1024)
    ))
}

/// Refuses an image whose pixel buffers would take more than [`MAX_DECODE_BYTES`].
fn check_memory(needed: u64) -> Result<()> {
    if needed > MAX_DECODE_BYTES {
        return Err(over_memory(Some(needed)));
    }
    Ok(())
}

/// Decodes `input` (known to be `kind`) and encodes it again; (bytes, width, height).
fn reencode(kind: MediaKind, input: &[u8]) -> Result<(Vec<u8>, u32, u32)> {
    if kind == MediaKind::Gif {
        return reencode_gif(input);
    }
    if kind == MediaKind::Jpeg && !jpeg::is_whole(input) {
        return Err(undecodable(kind, "the data ends before the image does"));
    }
    let mut reader = ImageReader::with_format(Cursor::new(input), format_of(kind));
    reader.limits(decode_limits());
    // The header first: the size and depth it states are checked before any pixel is
    // decoded. The decoded image and one converted or rotated copy of it.
    let decoder = reader.into_decoder().map_err(|e| decode_error(kind, e))?;
    let (w, h) = decoder.dimensions();
    check_size(w, h)?;
    check_memory(decoder.total_bytes().saturating_mul(2))?;
    let mut out = Vec::new();
    let mut decoder = decoder;
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| decode_error(kind, e))?;
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

/// Decodes a GIF frame by frame and encodes each again as it comes, so that one frame is
/// held at a time; its canvas and frame count, read from its blocks before any pixel is
/// decoded, bound the memory and the work.
fn reencode_gif(input: &[u8]) -> Result<(Vec<u8>, u32, u32)> {
    let kind = MediaKind::Gif;
    let (w, h, frames) = gif_layout(input).ok_or_else(|| undecodable(kind, "no GIF header"))?;
    check_size(w, h)?;
    let canvas = u64::from(w) * u64::from(h);
    // The decoder keeps the canvas drawn so far, decodes a frame and draws it on a canvas
    // of its own (RGBA, 4 bytes a pixel each); the encoder adds an indexed copy.
    check_memory(canvas * (3 * 4 + 1))?;
    let too_much_animation = || {
        Error::invalid(format!(
            "the animation is {w} × {h} pixels with {frames} frames; at most \
             {MAX_ANIMATION_PIXELS} pixels in all its frames together are accepted"
        ))
    };
    if canvas.saturating_mul(frames) > MAX_ANIMATION_PIXELS {
        return Err(too_much_animation());
    }
    let mut decoder = GifDecoder::new(Cursor::new(input)).map_err(|e| decode_error(kind, e))?;
    decoder
        .set_limits(decode_limits())
        .map_err(|e| decode_error(kind, e))?;
    let mut out = Vec::new();
    let mut encoder = GifEncoder::new_with_speed(&mut out, 10);
    encoder
        .set_repeat(Repeat::Infinite)
        .map_err(Error::internal)?;
    // Counted again while decoding, in case the decoder finds frames the scan did not.
    let mut budget = MAX_ANIMATION_PIXELS;
    let mut encoded = 0usize;
    for frame in decoder.into_frames() {
        let frame = frame.map_err(|e| decode_error(kind, e))?;
        budget = budget.checked_sub(canvas).ok_or_else(too_much_animation)?;
        encoder.encode_frame(frame).map_err(Error::internal)?;
        encoded += 1;
    }
    drop(encoder);
    if encoded == 0 {
        return Err(undecodable(kind, "no frames"));
    }
    Ok((out, w, h))
}

/// A GIF's canvas (the logical screen) and how many frames its blocks hold, read without
/// decoding anything; `None` without a complete header. A truncated file counts the frames
/// begun before the cut (the decoder then refuses it).
fn gif_layout(input: &[u8]) -> Option<(u32, u32, u64)> {
    if input.len() < 13 || !input.starts_with(b"GIF") {
        return None;
    }
    let w = u32::from(u16::from_le_bytes([input[6], input[7]]));
    let h = u32::from(u16::from_le_bytes([input[8], input[9]]));
    let color_table = |flags: u8| {
        if flags & 0x80 != 0 {
            3usize << ((flags & 7) + 1)
        } else {
            0
        }
    };
    // Data sub-blocks: a length byte and that many bytes, until a zero length.
    let skip_sub_blocks = |mut pos: usize| -> Option<usize> {
        loop {
            let n = usize::from(*input.get(pos)?);
            pos += 1 + n;
            if n == 0 {
                return Some(pos);
            }
        }
    };
    let mut pos = 13 + color_table(input[10]);
    let mut frames = 0u64;
    loop {
        match input.get(pos) {
            // An extension: introducer, label, sub-blocks.
            Some(0x21) => match skip_sub_blocks(pos + 2) {
                Some(next) => pos = next,
                None => break,
            },
            // An image: descriptor (10 bytes), local colour table, LZW code size, data.
            Some(0x2C) => {
                frames += 1;
                let Some(&flags) = input.get(pos + 9) else {
                    break;
                };
                match skip_sub_blocks(pos + 10 + color_table(flags) + 1) {
                    Some(next) => pos = next,
                    None => break,
                }
            }
            // The trailer, something else, or the end of the bytes.
            _ => break,
        }
    }
    Some((w, h, frames))
}

/// The name an upload is stored under: the last path segment of `raw`, reduced to letters,
/// digits, `.`, `-` and `_` (anything else becomes `-`), at most 100 characters. The
/// extension the person gave stays when the detected type allows it (`photo.jpeg` stays
/// `photo.jpeg`); any other becomes the type's own (a PNG named `x.svg` is `x.png`).
/// Without a usable name: `image.<ext>`.
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
    let (stem, given) = match name.rfind('.') {
        Some(dot) => (&name[..dot], Some(name[dot + 1..].to_ascii_lowercase())),
        None => (&name[..], None),
    };
    let stem = stem.trim_matches(|c| c == '.' || c == '-');
    let ext = given
        .as_deref()
        .and_then(|g| kind.extensions().iter().find(|e| **e == g))
        .copied()
        .unwrap_or(kind.extension());
    let stem = if stem.is_empty() { "image" } else { stem };
    let keep = MAX_NAME_CHARS - ext.len() - 1;
    let stem: String = stem.chars().take(keep).collect();
    format!("{stem}.{ext}")
}
