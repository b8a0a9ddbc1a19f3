//! The file-store port: where export files, thumbnails and uploaded media live, by key.
//! Keys are made by Lectern (`<export id>.<ext>`, `thumb-<deck id>.png`,
//! `media-<media id>.<ext>`): letters, digits, `.`, `-` and `_`. The binary implements it
//! over a local directory (`src/export/files.rs`).

use async_trait::async_trait;

/// Stores files by key.
#[async_trait]
pub trait FileStore: Send + Sync {
    /// Stores `bytes` under `key`, replacing what was there; a reader never sees half a file.
    async fn put(&self, key: &str, bytes: Vec<u8>) -> std::io::Result<()>;
    /// The bytes under `key`, if any.
    async fn get(&self, key: &str) -> std::io::Result<Option<Vec<u8>>>;
    /// Removes `key` (missing is fine).
    async fn delete(&self, key: &str) -> std::io::Result<()>;
}

/// No file store: every call fails. The core's default until one is given
/// ([`crate::Lectern::with_files`]); admin commands need none.
pub struct NoFiles;

#[async_trait]
impl FileStore for NoFiles {
    async fn put(&self, _: &str, _: Vec<u8>) -> std::io::Result<()> {
        Err(std::io::Error::other("this process has no file store"))
    }
    async fn get(&self, _: &str) -> std::io::Result<Option<Vec<u8>>> {
        Err(std::io::Error::other("this process has no file store"))
    }
    async fn delete(&self, _: &str) -> std::io::Result<()> {
        Err(std::io::Error::other("this process has no file store"))
    }
}
