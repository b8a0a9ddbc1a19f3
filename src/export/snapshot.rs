//! Pictures of slides: the size a slide screenshot is drawn at, what the PowerPoint export
//! asks to have drawn, and the script that prepares a deck page for it.

/// The longest side of a slide screenshot, in pixels.
pub const SCREENSHOT_MAX_SIDE: i64 = 2560;

/// The size of a slide screenshot of a `width` x `height` canvas: the canvas's own, or, when a
/// side is longer than [`SCREENSHOT_MAX_SIDE`], the canvas scaled down to fit, in proportion
/// (at least 1 x 1).
pub fn screenshot_size(width: i64, height: i64) -> (i64, i64) {
    let (width, height) = (width.max(1), height.max(1));
    let longest = width.max(height);
    if longest <= SCREENSHOT_MAX_SIDE {
        return (width, height);
    }
    let scale = SCREENSHOT_MAX_SIDE as f64 / longest as f64;
    let side = |v: i64| ((v as f64 * scale).round() as i64).clamp(1, SCREENSHOT_MAX_SIDE);
    (side(width), side(height))
}

/// The width and height a PNG's header gives.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") || png.get(12..16) != Some(b"IHDR") {
        return None;
    }
    let be = |at: usize| Some(u32::from_be_bytes(png.get(at..at + 4)?.try_into().ok()?));
    Some((be(16)?, be(20)?))
}

/// One picture the PowerPoint export asks for: a part of slide (`h`, `v`).
pub struct SnapshotRequest {
    pub h: i64,
    pub v: Option<i64>,
    pub target: SnapshotTarget,
}

/// What of a slide a [`SnapshotRequest`] draws.
pub enum SnapshotTarget {
    /// The whole slide, background included.
    Slide,
    /// Its `n`-th `.sl-block` in document order, alone (the others hidden), without its
    /// rotation, on a transparent ground.
    Block(usize),
    /// The block holding the image whose `src` is this, alone.
    Image(String),
}

/// Prepares a deck page for snapshots: no transitions, every fragment shown, and
/// `lecternSnapshot(h, v, kind, arg)`, which shows slide (`h`, `v`), isolates the part asked
/// for and answers its rectangle (`[x, y, width, height]` in CSS pixels) or null.
pub(super) const SNAPSHOT_SETUP: &str = r#"(() => {
  // No margin: the canvas fills the window, so a slide's picture is the canvas alone.
  Reveal.configure({ margin: 0, transition: 'none', backgroundTransition: 'none', controls: false, progress: false, slideNumber: false });
  const style = document.createElement('style');
  style.textContent = `
    .reveal .slides .fragment { opacity: 1 !important; visibility: inherit !important; transform: none !important; }
    body.lectern-solo, body.lectern-solo .reveal, body.lectern-solo .reveal-viewport { background: transparent !important; }
    body.lectern-solo .reveal .backgrounds { visibility: hidden !important; }
    body.lectern-solo .reveal .slides section.present .sl-block:not(.lectern-solo-target) { visibility: hidden !important; }`;
  document.head.appendChild(style);
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  window.lecternSnapshot = async (h, v, kind, arg) => {
    document.body.classList.remove('lectern-solo');
    for (const el of document.querySelectorAll('.lectern-solo-target')) {
      el.classList.remove('lectern-solo-target');
      el.style.transform = el.dataset.lecternTransform || '';
    }
    Reveal.slide(h, v);
    await frame();
    const slide = Reveal.getCurrentSlide();
    let el = null;
    if (kind === 'slide') el = slide;
    else if (kind === 'block') el = slide.querySelectorAll('.sl-block')[Number(arg)] || null;
    else {
      const img = [...slide.querySelectorAll('img')].find((i) => i.getAttribute('src') === arg);
      el = img ? img.closest('.sl-block') || img : null;
    }
    if (!el) return null;
    if (kind === 'slide') {
      // The whole canvas (a section is only as tall as its content), as scaled on screen.
      const r = document.querySelector('.reveal .slides').getBoundingClientRect();
      return [r.x, r.y, r.width, r.height];
    }
    document.body.classList.add('lectern-solo');
    el.classList.add('lectern-solo-target');
    el.dataset.lecternTransform = el.style.transform;
    el.style.transform = 'none';
    await frame();
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  };
  return true;
})()"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screenshot_is_the_canvas_or_the_canvas_scaled_down_in_proportion() {
        assert_eq!(screenshot_size(1280, 720), (1280, 720));
        assert_eq!(screenshot_size(960, 700), (960, 700));
        assert_eq!(screenshot_size(2560, 2560), (2560, 2560));
        assert_eq!(screenshot_size(5120, 2880), (2560, 1440));
        assert_eq!(screenshot_size(1000, 10_000), (256, 2560));
        assert_eq!(screenshot_size(i64::from(i32::MAX), 1), (2560, 1));
        assert_eq!(screenshot_size(1, 1), (1, 1));
    }

    #[test]
    fn a_png_header_gives_its_size() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(1280u32.to_be_bytes());
        png.extend(720u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1280, 720)));
        assert_eq!(png_size(&png[..22]), None);
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
