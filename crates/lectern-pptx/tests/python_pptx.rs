//! The written file read back by python-pptx (`check_pptx.py`): slide count and size,
//! notes, backgrounds, every text box's text, runs and position, shapes, lines and
//! pictures. `LECTERN_PPTX_PYTHON` names the Python to use (default `python3`; .ci/run
//! points it at a venv). Without python-pptx the test is skipped, except under CI
//! (`CI=true`).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn python_pptx_reads_the_sample_back() {
    let python = std::env::var("LECTERN_PPTX_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_pptx = Command::new(&python)
        .args(["-c", "import pptx"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pptx {
        assert!(
            !common::required(),
            "python-pptx is required under CI (pip install python-pptx)"
        );
        println!("skipped: python-pptx not installed");
        return;
    }
    let sample = common::sample();
    let bytes = lectern_pptx::write(&sample).expect("the sample writes");
    let dir = common::scratch("python");
    let file = dir.join("sample.pptx");
    let expectations = dir.join("expectations.json");
    std::fs::write(&file, bytes).expect("the scratch directory is writable");
    std::fs::write(&expectations, common::expectations(&sample))
        .expect("the scratch directory is writable");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check_pptx.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&file)
        .arg(&expectations)
        .output()
        .expect("Python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "check_pptx.py found problems in {}:\n{stdout}{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("checked 4 slides"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}
