//! Installs the front-end packages the binary embeds (reveal.js, the @fontsource fonts and
//! the esbuild bundler, pinned in package-lock.json) with `npm ci` when they are missing, so
//! `cargo build` and `cargo run` work on a fresh clone, then bundles with esbuild the deck
//! editor (`assets/editor/main.js` and the modules it imports) into `$OUT_DIR/editor.js`, the
//! slide drawing both the editor and the deck pages use (`assets/slides/index.js`, with
//! highlight.js and KaTeX) into `slides.js` and the deck pages' start (`assets/slides/
//! viewer.js`) into `viewer.js`, which the binary embeds. Needs Node.js and npm on PATH the first
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
    println!("cargo:rerun-if-changed=assets/slides");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    install(dir);
    bundle(dir, "assets/editor/main.js", "editor.js", "esm");
    bundle(dir, "assets/slides/index.js", "slides.js", "iife");
    bundle(dir, "assets/slides/viewer.js", "viewer.js", "iife");
}

/// `npm ci` unless the packages are there already.
fn install(dir: &Path) {
    // The last package of the lock file to be installed, and the ones everything needs.
    let marker = dir.join("node_modules/reveal.js/dist/reveal.js");
    let needed = [
        "@fontsource/quicksand/package.json",
        "@fontsource/jetbrains-mono/package.json",
        "katex/package.json",
        "esbuild/package.json",
    ];
    if marker.exists()
        && needed
            .iter()
            .all(|p| dir.join("node_modules").join(p).exists())
    {
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

/// `entry` and what it imports as one minified script `name` in `format` (`esm`, `iife`), for
/// the browsers of the last few years.
fn bundle(dir: &Path, entry: &str, name: &str, format: &str) {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let outfile = Path::new(&out).join(name);
    let status = Command::new(dir.join("node_modules/.bin/esbuild"))
        .arg(entry)
        .arg(format!("--format={format}"))
        .args([
            "--bundle",
            "--minify",
            "--target=chrome111,firefox115,safari16.4",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", outfile.display()))
        .current_dir(dir)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("bundling {entry} with esbuild failed ({s})"),
        Err(e) => panic!("esbuild (from npm ci) could not run: {e}"),
    }
}
