//! Installs the front-end packages the binary embeds (reveal.js, the @fontsource fonts and
//! the esbuild bundler, pinned in package-lock.json) with `npm ci` when they are missing, so
//! `cargo build` and `cargo run` work on a fresh clone, then bundles the deck editor
//! (`assets/editor/main.js` and the modules it imports) with esbuild into
//! `$OUT_DIR/editor.js`, which the binary embeds. Needs Node.js and npm on PATH the first
//! time.
//!
//! Only the package files and the editor's bundled sources are watched: a file that `npm ci`
//! writes during this script would be newer than the script's run and make cargo run it
//! (and recompile the crate) again on the next command. After deleting `node_modules`, touch
//! `package-lock.json`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=package.json");
    println!("cargo:rerun-if-changed=package-lock.json");
    // The bundle's sources; not the unit tests beside them (assets/editor/test).
    for source in [
        "main.js",
        "package.json",
        "model",
        "actions",
        "view",
        "sync",
    ] {
        println!("cargo:rerun-if-changed=assets/editor/{source}");
    }
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    install(dir);
    bundle_editor(dir);
}

/// `npm ci` unless the packages are there already.
fn install(dir: &Path) {
    // The last package of the lock file to be installed, and the ones everything needs.
    let marker = dir.join("node_modules/reveal.js/dist/reveal.js");
    let fonts = dir.join("node_modules/@fontsource/quicksand/package.json");
    let esbuild = dir.join("node_modules/esbuild/package.json");
    if marker.exists() && fonts.exists() && esbuild.exists() {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status();
    match status {
        Ok(s) if s.success() && marker.exists() => {}
        Ok(s) => panic!(
            "`npm ci` failed ({s}); run it in {} to see why",
            dir.display()
        ),
        Err(e) => panic!(
            "Lectern embeds reveal.js from npm: install Node.js and npm, then build again ({e})"
        ),
    }
}

/// One minified ES module of the editor, for the browsers of the last few years.
fn bundle_editor(dir: &Path) {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let outfile = Path::new(&out).join("editor.js");
    let status = Command::new(dir.join("node_modules/.bin/esbuild"))
        .arg("assets/editor/main.js")
        .args([
            "--bundle",
            "--format=esm",
            "--minify",
            "--target=chrome111,firefox115,safari16.4",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", outfile.display()))
        .current_dir(dir)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("bundling the editor with esbuild failed ({s})"),
        Err(e) => panic!("esbuild (from npm ci) could not run: {e}"),
    }
}
