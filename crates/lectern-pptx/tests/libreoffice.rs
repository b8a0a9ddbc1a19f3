//! The written file opened by LibreOffice: converted to PDF headless (with a private
//! profile, so parallel runs do not share one), one page a slide, and every text box's
//! text found in the PDF by `pdftotext`. Without `soffice` or `pdftotext` the test is
//! skipped, except under CI (`CI=true`).

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lectern_pptx::Item;

fn available(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whitespace runs as single spaces.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn libreoffice_renders_every_text_box() {
    let missing: Vec<&str> = [("soffice", "--version"), ("pdftotext", "-v")]
        .into_iter()
        .filter(|(program, arg)| !available(program, arg))
        .map(|(program, _)| program)
        .collect();
    if !missing.is_empty() {
        assert!(
            !common::required(),
            "{missing:?} required under CI (apt-get install libreoffice-impress poppler-utils)"
        );
        println!("skipped: {} not installed", missing.join(" and "));
        return;
    }
    let sample = common::sample();
    let dir = common::scratch("libreoffice");
    let file = dir.join("sample.pptx");
    std::fs::write(
        &file,
        lectern_pptx::write(&sample).expect("the sample writes"),
    )
    .expect("the scratch directory is writable");

    let mut soffice = Command::new("soffice")
        .arg(format!(
            "-env:UserInstallation=file://{}",
            dir.join("profile").display()
        ))
        .args([
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
        ])
        .arg(&dir)
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("soffice starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = soffice.try_wait().expect("soffice can be waited for") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(240) {
            soffice.kill().ok();
            panic!("soffice took more than 4 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let pdf = dir.join("sample.pdf");
    assert!(
        status.success() && pdf.exists(),
        "soffice did not convert the file ({status})"
    );

    // -raw keeps the text in content order, rotated boxes too.
    let out = Command::new("pdftotext")
        .arg("-raw")
        .arg(&pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs");
    assert!(out.status.success(), "pdftotext failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let pages = text.matches('\u{c}').count();
    assert_eq!(pages, sample.slides.len(), "one page a slide:\n{text}");
    let found = squeeze(&text);
    let mut checked = 0;
    for (n, slide) in sample.slides.iter().enumerate() {
        for item in &slide.items {
            let Item::Text(t) = item else { continue };
            for p in &t.paragraphs {
                for line in common::shown(&p.text()).split('\n') {
                    let line = squeeze(line);
                    if line.is_empty() {
                        continue;
                    }
                    assert!(
                        found.contains(&line),
                        "slide {}: {line:?} not in the PDF's text:\n{text}",
                        n + 1
                    );
                    checked += 1;
                }
            }
        }
    }
    println!("LibreOffice rendered {pages} pages; found all {checked} lines of text");
    assert!(checked >= 10);
    std::fs::remove_dir_all(&dir).ok();
}
