// `sqlx::migrate!` embeds the migrations when this crate is compiled, and on stable Rust
// cargo does not know it read them: a new or changed migration must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
