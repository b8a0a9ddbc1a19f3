use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};

use super::refs::{localize, parse_file_name, referenced_ids};
use super::*;

fn encoded(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn picture(w: u32, h: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, y| {
        Rgb([(x * 7) as u8, (y * 5) as u8, 90])
    }))
}

/// A JPEG carrying an EXIF block with a GPS latitude (a minimal little-endian TIFF: IFD0
/// with a GPS pointer, the GPS IFD with `GPSLatitudeRef = "N"`) and a marker text.
pub(crate) fn jpeg_with_gps() -> Vec<u8> {
    let plain = encoded(picture(64, 48), ImageFormat::Jpeg);
    let mut tiff = Vec::new();
    tiff.extend_from_slice(b"II*\0");
    tiff.extend_from_slice(&8u32.to_le_bytes()); // IFD0 at 8
    tiff.extend_from_slice(&1u16.to_le_bytes()); // one entry
    tiff.extend_from_slice(&0x8825u16.to_le_bytes()); // GPSInfo
    tiff.extend_from_slice(&4u16.to_le_bytes()); // LONG
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&26u32.to_le_bytes()); // GPS IFD at 26
    tiff.extend_from_slice(&0u32.to_le_bytes()); // no next IFD
    tiff.extend_from_slice(&1u16.to_le_bytes()); // GPS IFD: one entry
    tiff.extend_from_slice(&1u16.to_le_bytes()); // GPSLatitudeRef
    tiff.extend_from_slice(&2u16.to_le_bytes()); // ASCII
    tiff.extend_from_slice(&2u32.to_le_bytes());
    tiff.extend_from_slice(b"N\0\0\0");
    tiff.extend_from_slice(&0u32.to_le_bytes());
    tiff.extend_from_slice(b"GPS-SECRET-PLACE");
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = plain[..2].to_vec(); // SOI
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&plain[2..]);
    out
}

#[test]
fn each_raster_format_is_detected_from_its_bytes_and_encoded_again_in_it() {
    let rgba = DynamicImage::ImageRgba8(RgbaImage::from_fn(40, 30, |x, _| {
        Rgba([x as u8, 10, 200, 128])
    }));
    for (img, format, kind) in [
        (rgba.clone(), ImageFormat::Png, MediaKind::Png),
        (picture(40, 30), ImageFormat::Jpeg, MediaKind::Jpeg),
        (rgba.clone(), ImageFormat::Gif, MediaKind::Gif),
        (rgba, ImageFormat::WebP, MediaKind::Webp),
    ] {
        let input = encoded(img, format);
        let p = prepare(&input).unwrap();
        assert_eq!(p.kind, kind);
        assert_eq!((p.width, p.height), (Some(40), Some(30)));
        assert_eq!(p.sha256, crate::secret::sha256_hex_bytes(&input));
        assert_eq!(image::guess_format(&p.bytes).unwrap(), format);
        let back = image::load_from_memory(&p.bytes).unwrap();
        assert_eq!((back.width(), back.height()), (40, 30));
    }
}

#[test]
fn re_encoding_drops_exif_and_its_gps_tag() {
    let input = jpeg_with_gps();
    assert!(input.windows(4).any(|w| w == b"Exif"));
    let p = prepare(&input).unwrap();
    assert_eq!(p.kind, MediaKind::Jpeg);
    for needle in [&b"Exif"[..], b"GPS-SECRET-PLACE"] {
        assert!(!p.bytes.windows(needle.len()).any(|w| w == needle));
    }
}

#[test]
fn an_animated_gif_keeps_its_frames() {
    let frames =
        (0..3).map(|i| image::Frame::new(RgbaImage::from_pixel(8, 8, Rgba([i * 80, 0, 0, 255]))));
    let mut input = Vec::new();
    {
        let mut enc = GifEncoder::new(&mut input);
        enc.encode_frames(frames).unwrap();
    }
    let p = prepare(&input).unwrap();
    let count = GifDecoder::new(Cursor::new(&p.bytes))
        .unwrap()
        .into_frames()
        .count();
    assert_eq!(count, 3);
}

#[test]
fn truncated_html_and_unknown_files_are_refused() {
    let png = encoded(picture(100, 100), ImageFormat::Png);
    let truncated = &png[..png.len() / 2];
    for bad in [
        truncated,
        b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".as_slice(),
        b"just some text".as_slice(),
        b"\x89PNG\r\n\x1a\n garbage".as_slice(),
        b"<html><body><svg></svg></body></html>".as_slice(),
    ] {
        let err = prepare(bad).unwrap_err();
        assert_eq!(err.status(), 422, "{err}");
    }
}

#[test]
fn an_image_cut_short_is_refused_in_every_format() {
    // Pixels that do not compress away, so that every cut falls in the picture's data.
    let noisy = DynamicImage::ImageRgba8(RgbaImage::from_fn(160, 120, |x, y| {
        let n = x
            .wrapping_mul(2_654_435_761)
            .wrapping_add(y.wrapping_mul(40_503))
            >> 7;
        Rgba([n as u8, (n >> 8) as u8, (n >> 16) as u8, 255])
    }));
    for format in [
        ImageFormat::Png,
        ImageFormat::Jpeg,
        ImageFormat::Gif,
        ImageFormat::WebP,
    ] {
        let img = match format {
            ImageFormat::Jpeg => DynamicImage::ImageRgb8(noisy.to_rgb8()),
            _ => noisy.clone(),
        };
        let whole = encoded(img, format);
        assert!(prepare(&whole).is_ok(), "{format:?} whole");
        for keep in [whole.len() / 2, whole.len() * 3 / 4, whole.len() - 40] {
            let Err(err) = prepare(&whole[..keep]) else {
                panic!(
                    "{format:?} cut to {keep} of {} bytes was accepted",
                    whole.len()
                );
            };
            assert_eq!(err.status(), 422, "{format:?} cut to {keep}: {err}");
            assert!(err.to_string().contains("truncated"), "{err}");
        }
    }
}

/// A PNG that claims `w` × `h` pixels (valid signature and chunk CRCs) and ends where its
/// pixel data starts.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = b"IHDR".to_vec();
    chunk.extend_from_slice(&w.to_be_bytes());
    chunk.extend_from_slice(&h.to_be_bytes());
    chunk.extend_from_slice(&[8, 2, 0, 0, 0]);
    out.extend_from_slice(&13u32.to_be_bytes());
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&crc32(&chunk).to_be_bytes());
    // The start of the pixel data: a zlib header and nothing after it.
    let idat = b"IDAT\x78\x9c";
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(idat);
    out.extend_from_slice(&crc32(idat).to_be_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_huge_canvas_is_refused_from_its_header() {
    let err = prepare(&png_header(30_000, 30_000)).unwrap_err();
    assert_eq!(err.status(), 422);
    assert!(err.to_string().contains("30000 × 30000"), "{err}");
    // Within the limits: it passes the size checks and fails only for want of pixel data.
    let err = prepare(&png_header(6_000, 4_000)).unwrap_err();
    assert!(err.to_string().contains("cannot be decoded"), "{err}");
}

#[test]
fn a_16_bit_png_too_large_to_decode_is_refused_from_its_header() {
    // 7000 × 7000 is under the pixel limit, but 16-bit RGBA takes 392 MB decoded.
    let mut png = png_header(7_000, 7_000);
    png[24] = 16; // bit depth
    png[25] = 6; // RGBA
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let err = prepare(&png).unwrap_err();
    assert_eq!(err.status(), 422);
    assert!(err.to_string().contains("more memory to decode"), "{err}");
}

/// A GIF with a `w` × `h` canvas and `frames` frames of one pixel each.
fn gif_of_dots(w: u16, h: u16, frames: usize) -> Vec<u8> {
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&w.to_le_bytes());
    gif.extend_from_slice(&h.to_le_bytes());
    gif.extend_from_slice(&[0x80, 0, 0, 0, 0, 0, 255, 255, 255]);
    for _ in 0..frames {
        // A comment extension between frames, as some encoders write.
        gif.extend_from_slice(&[0x21, 0xFE, 2, b'h', b'i', 0]);
        gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]);
        gif.extend_from_slice(&[2, 2, 0x44, 0x01, 0]);
    }
    gif.push(0x3B);
    gif
}

#[test]
fn a_gif_is_measured_from_its_blocks_before_any_frame_is_decoded() {
    assert_eq!(gif_layout(&gif_of_dots(30, 20, 7)), Some((30, 20, 7)));
    // Truncated: the frames begun before the cut (the sixth is cut in its data).
    let gif = gif_of_dots(30, 20, 7);
    assert_eq!(gif_layout(&gif[..gif.len() - 30]), Some((30, 20, 6)));
    assert_eq!(gif_layout(b"GIF89a"), None);
    // Every frame is drawn on the whole canvas: a big canvas of dots is refused for memory,
    // many frames of a middling one for the animation's size, and a small one decodes.
    let err = prepare(&gif_of_dots(7_000, 7_000, 3)).unwrap_err();
    assert!(err.to_string().contains("more memory to decode"), "{err}");
    let err = prepare(&gif_of_dots(2_000, 2_000, 30)).unwrap_err();
    assert_eq!(err.status(), 422);
    assert!(err.to_string().contains("30 frames"), "{err}");
    let ok = prepare(&gif_of_dots(30, 20, 7)).unwrap();
    assert_eq!((ok.width, ok.height), (Some(30), Some(20)));
}

#[test]
fn the_type_comes_from_the_bytes_and_the_name_follows_it() {
    let png = encoded(picture(4, 4), ImageFormat::Png);
    let p = prepare(&png).unwrap();
    assert_eq!(p.kind, MediaKind::Png);
    assert_eq!(safe_name(Some("drawing.svg"), p.kind), "drawing.png");
    assert_eq!(safe_name(None, MediaKind::Jpeg), "image.jpg");
    // The extension given stays where the type allows it, in lower case.
    assert_eq!(safe_name(Some("photo.jpeg"), MediaKind::Jpeg), "photo.jpeg");
    assert_eq!(safe_name(Some("Photo.JPEG"), MediaKind::Jpeg), "Photo.jpeg");
    assert_eq!(safe_name(Some("photo.jpeg"), MediaKind::Png), "photo.png");
    assert_eq!(safe_name(Some(""), MediaKind::Svg), "image.svg");
    assert_eq!(
        safe_name(Some("../../etc/pass wd<script>.png"), MediaKind::Png),
        "pass-wd-script.png"
    );
    assert_eq!(
        safe_name(Some("C:\\Users\\me\\Ünïcode.gif"), MediaKind::Gif),
        "n-code.gif"
    );
    assert_eq!(safe_name(Some(".hidden"), MediaKind::Png), "image.png");
    let long = "a".repeat(500);
    let name = safe_name(Some(&long), MediaKind::Webp);
    assert_eq!(name.len(), 100);
    assert!(name.ends_with(".webp"));
}

fn clean(svg: &str) -> String {
    let p = prepare(svg.as_bytes()).unwrap();
    assert_eq!(p.kind, MediaKind::Svg);
    String::from_utf8(p.bytes).unwrap()
}

#[test]
fn svg_keeps_drawing_content_and_its_size() {
    let svg = r##"<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120px" height="80" viewBox="0 0 120 80">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient>
  <circle id="dot" r="4"/></defs>
  <rect x="1" y="2" width="10" height="10" fill="url(#g)" stroke="black"/>
  <use xlink:href="#dot" x="20"/><use href="#dot" x="30"/>
  <text x="5" y="70" font-size="12">A &amp; B &lt; C</text>
</svg>"##;
    let p = prepare(svg.as_bytes()).unwrap();
    assert_eq!((p.width, p.height), (Some(120), Some(80)));
    let out = String::from_utf8(p.bytes).unwrap();
    for kept in [
        "<rect x=\"1\" y=\"2\" width=\"10\" height=\"10\" fill=\"url(#g)\" stroke=\"black\">",
        "<use xlink:href=\"#dot\" x=\"20\">",
        "<use href=\"#dot\" x=\"30\">",
        "A &amp; B &lt; C",
        "<stop offset=\"0\" stop-color=\"#f00\">",
    ] {
        assert!(out.contains(kept), "{kept} missing from {out}");
    }
    assert!(!out.contains("DOCTYPE"));
    // Without a pixel size: no width and height.
    let p =
        prepare(br#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="5cm"/>"#)
            .unwrap();
    assert_eq!((p.width, p.height), (None, None));
}

#[test]
fn svg_loses_scripts_handlers_foreign_content_and_outside_references() {
    let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">
  <script>alert(2)</script>
  <script xlink:href="https://evil.example/x.js"/>
  <style>rect { fill: url(https://evil.example/track) }</style>
  <foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(3)"/></body></foreignObject>
  <a xlink:href="javascript:alert(4)"><rect width="5" height="5" onclick="alert(5)"/></a>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <use href="data:image/svg+xml,&lt;svg onload='alert(6)'/&gt;"/>
  <image href="https://evil.example/pixel.png"/>
  <rect fill="url(https://evil.example/track)" stroke="url( 'javascript:alert(7)' )" style="fill:red"/>
  <rect fill=" JaVa&#x09;Script:alert(8)"/>
  <animate attributeName="href" to="javascript:alert(9)"/>
  <circle r="3" fill="url('#ok')"/>
</svg>"##;
    let out = clean(svg);
    for gone in [
        "script",
        "alert",
        "evil",
        "onload",
        "onclick",
        "foreignObject",
        "iframe",
        "style",
        "data:",
        "image",
        "animate",
        "<a",
    ] {
        assert!(
            !out.to_lowercase().contains(&gone.to_lowercase()),
            "{gone} survived in {out}"
        );
    }
    // The drawing content inside the link stays.
    assert!(out.contains("<rect width=\"5\" height=\"5\">"), "{out}");
    assert!(
        out.contains("<circle r=\"3\" fill=\"url('#ok')\">"),
        "{out}"
    );
}

#[test]
fn svg_with_entities_or_another_root_is_refused() {
    let bomb = r#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>"#;
    assert_eq!(prepare(bomb.as_bytes()).unwrap_err().status(), 422);
    let html = r#"<html xmlns="http://www.w3.org/1999/xhtml"><svg/></html>"#;
    assert_eq!(prepare(html.as_bytes()).unwrap_err().status(), 422);
}

#[test]
fn references_to_media_are_found_and_rewritten_to_local_copies() {
    let id_a = "A".repeat(24);
    let id_b = "b1".repeat(12);
    let base = "https://decks.example";
    let text = format!(
        r#"<img src="{base}/media/{id_a}.png"><div style="background: url({base}/media/{id_b}.jpg)"></div>
<section data-background-image="/media/{id_a}.png"></section><a href="https://other.example/media/{id_b}.jpg">x</a>
<img src="{base}/media/short.png"><img src="{base}/media/{id_a}.png">"#
    );
    assert_eq!(
        referenced_ids(&text, base),
        vec![id_a.clone(), id_b.clone()]
    );
    let local = localize(&text, base, &|id| {
        (id == id_a).then(|| format!("media/{id}.png"))
    });
    assert!(local.contains(&format!(r#"<img src="media/{id_a}.png">"#)));
    assert!(local.contains(&format!(r#"data-background-image="media/{id_a}.png""#)));
    // Not the owner's (or deleted): left as it was; another site's path is not ours.
    assert!(local.contains(&format!("url({base}/media/{id_b}.jpg)")));
    assert!(local.contains(&format!("https://other.example/media/{id_b}.jpg")));
    assert_eq!(
        parse_file_name(&format!("{id_a}.png")),
        Some((id_a.as_str(), "png"))
    );
    assert_eq!(parse_file_name("x.png"), None);
    assert_eq!(parse_file_name(&format!("{id_a}.PNG")), None);
}
