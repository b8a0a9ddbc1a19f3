//! The media scenario (`upload_media`): a 5 MB JPEG uploaded one at a time (each upload
//! different bytes, so none is answered from the dedupe), timed from the first byte sent to
//! the answer, beside the same bytes posted to the bare-axum baseline in the same run; then
//! 100 concurrent uploads of different small PNGs, each on its own connection, counting
//! anything but 201.

use std::io::Cursor;
use std::net::SocketAddr;
use std::time::Instant;

use anyhow::bail;
use bytes::Bytes;
use http_body_util::BodyExt;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};

use crate::client::{Target, build, connect};
use crate::exports::median;

/// Uploads of the big JPEG timed.
const BIG_UPLOADS: usize = 7;
/// Concurrent small uploads.
const SMALL_UPLOADS: usize = 100;

fn encode(img: &DynamicImage, format: ImageFormat) -> anyhow::Result<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format)?;
    Ok(out.into_inner())
}

/// A photo-like 2700 × 2040 picture (gradients under fine noise) as a JPEG of about 5 MB;
/// `seed` changes every pixel.
fn big_jpeg(seed: u64) -> anyhow::Result<Vec<u8>> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let img = RgbImage::from_fn(2700, 2040, |x, y| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let n = (state & 0x3f) as u32;
        Rgb([
            ((x / 12 + n) & 0xff) as u8,
            ((y / 9 + n * 2) & 0xff) as u8,
            (((x + y) / 20 + n * 3) & 0xff) as u8,
        ])
    });
    encode(&DynamicImage::ImageRgb8(img), ImageFormat::Jpeg)
}

fn upload(key: &str, bytes: Vec<u8>) -> Target {
    Target {
        method: hyper::Method::POST,
        path: "/v1/media".into(),
        key: Some(key.into()),
        body: Some(Bytes::from(bytes)),
        vary: false,
    }
}

/// One request on a fresh connection: (status, milliseconds).
async fn timed(addr: SocketAddr, target: &Target) -> anyhow::Result<(u16, f64)> {
    let mut sender = connect(addr).await?;
    let request = build(addr, target)?;
    let started = Instant::now();
    let resp = sender.send_request(request).await?;
    let status = resp.status().as_u16();
    resp.into_body().collect().await?;
    Ok((status, started.elapsed().as_secs_f64() * 1e3))
}

pub async fn media_bench(addr: SocketAddr, key: &str, baseline: SocketAddr) -> anyhow::Result<()> {
    let mut lectern_ms = Vec::new();
    let mut baseline_ms = Vec::new();
    let mut size = 0;
    for seed in 0..BIG_UPLOADS as u64 {
        let jpeg = big_jpeg(seed + 1)?;
        size = jpeg.len();
        let (status, ms) = timed(addr, &upload(key, jpeg.clone())).await?;
        if status != 201 {
            bail!("uploading a {size}-byte JPEG answered {status}");
        }
        lectern_ms.push(ms);
        baseline_ms.push(timed(baseline, &upload(key, jpeg)).await?.1);
    }
    let (l, b) = (median(lectern_ms.clone()), median(baseline_ms));
    let worst = lectern_ms.iter().cloned().fold(0.0, f64::max);
    println!(
        "upload_media {BIG_UPLOADS} uploads of a {:.1} MB JPEG (2700x2040): median {l:.0} ms, slowest {worst:.0} ms (goal < 1000 ms); baseline (same bytes to bare axum) median {b:.1} ms",
        size as f64 / 1e6
    );

    let small: Vec<Vec<u8>> = (0..SMALL_UPLOADS as u32)
        .map(|i| {
            let img =
                RgbImage::from_fn(64, 48, |x, y| Rgb([(x + i) as u8, (y * 3) as u8, i as u8]));
            encode(&DynamicImage::ImageRgb8(img), ImageFormat::Png)
        })
        .collect::<anyhow::Result<_>>()?;
    let started = Instant::now();
    let tasks: Vec<_> = small
        .into_iter()
        .map(|png| {
            let target = upload(key, png);
            tokio::spawn(async move { timed(addr, &target).await })
        })
        .collect();
    let mut statuses = Vec::new();
    let mut times = Vec::new();
    for t in tasks {
        let (status, ms) = t.await??;
        statuses.push(status);
        times.push(ms);
    }
    let failed = statuses.iter().filter(|s| **s != 201).count();
    println!(
        "upload_media {SMALL_UPLOADS} concurrent uploads of different 64x48 PNGs: {} created, {failed} failed, all answered in {:.0} ms (median {:.0} ms each)",
        SMALL_UPLOADS - failed,
        started.elapsed().as_secs_f64() * 1e3,
        median(times)
    );
    if failed > 0 {
        bail!("{failed} of {SMALL_UPLOADS} concurrent uploads failed: {statuses:?}");
    }
    Ok(())
}
