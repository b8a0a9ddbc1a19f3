// The build script of both engine crates (their Cargo.toml names this file): lists the
// crate's `migrations/` directory into `$OUT_DIR/migrations.rs`, an array of (file name,
// SQL) pairs that the crate includes and hands to `lectern_store_sql::migrator`. sqlx's
// `migrate!` macro did the same at compile time, at the cost of building sqlx's macro crates
// and a second, host copy of sqlx and SQLite.
use std::{env, fs, path::PathBuf};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap();
        out += &format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        );
    }
    out += "]\n";
    let target = PathBuf::from(env::var("OUT_DIR").unwrap()).join("migrations.rs");
    fs::write(target, out).unwrap();
}
