//! Installs the front-end packages the binary embeds (reveal.js and the @fontsource fonts,
//! pinned in package-lock.json) with `npm ci` when they are missing, so `cargo build` and
//! `cargo run` work on a fresh clone. Needs Node.js and npm on PATH the first time.
//!
//! Only the two package files are watched: a file that `npm ci` writes during this script
//! would be newer than the script's run and make cargo run it (and recompile the crate)
//! again on the next command. After deleting `node_modules`, touch `package-lock.json`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=package.json");
    println!("cargo:rerun-if-changed=package-lock.json");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    // The last package of the lock file to be installed, and the one everything needs.
    let marker = Path::new(&dir).join("node_modules/reveal.js/dist/reveal.js");
    let fonts = Path::new(&dir).join("node_modules/@fontsource/quicksand/package.json");
    if marker.exists() && fonts.exists() {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .status();
    match status {
        Ok(s) if s.success() && marker.exists() => {}
        Ok(s) => panic!("`npm ci` failed ({s}); run it in {dir} to see why"),
        Err(e) => panic!(
            "Lectern embeds reveal.js from npm: install Node.js and npm, then build again ({e})"
        ),
    }
}
