//! The local implementation of the core's file-store port ([`FileStore`]): export files,
//! thumbnails and uploaded media under `<data dir>/exports`.

use std::path::PathBuf;

use async_trait::async_trait;
pub use lectern_core::store::FileStore;

/// Files in a directory (`<data dir>/exports`). With several servers on PostgreSQL, the
/// directory must be shared (or an object store used).
pub struct LocalFiles {
    dir: PathBuf,
}

impl LocalFiles {
    /// Files under `dir`, created when missing.
    pub fn new(dir: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(LocalFiles { dir })
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        // Keys are made by the workers (`<id>.<ext>`); anything else is refused.
        let ok = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
            && !key.starts_with('.');
        ok.then(|| self.dir.join(key))
    }
}

#[async_trait]
impl FileStore for LocalFiles {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> std::io::Result<()> {
        let path = self
            .path(key)
            .ok_or_else(|| std::io::Error::other(format!("bad file key {key:?}")))?;
        // Write aside, flush to the disk and rename: a reader never sees half a file, and
        // a file whose row was committed after `put` returned survives a power loss.
        let tmp = path.with_extension("partial");
        let mut file = tokio::fs::File::create(&tmp).await?;
        tokio::io::AsyncWriteExt::write_all(&mut file, &bytes).await?;
        file.sync_all().await?;
        drop(file);
        tokio::fs::rename(&tmp, &path).await?;
        tokio::fs::File::open(&self.dir).await?.sync_all().await
    }

    async fn get(&self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        let Some(path) = self.path(key) else {
            return Ok(None);
        };
        match tokio::fs::read(path).await {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn delete(&self, key: &str) -> std::io::Result<()> {
        let Some(path) = self.path(key) else {
            return Ok(());
        };
        match tokio::fs::remove_file(path).await {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}
