//! The two implementations of the core's file-store port ([`FileStore`]) for export files,
//! thumbnails and uploaded media: a local directory (`<data dir>/exports`, the default) and
//! an S3-compatible object store (`--file-store s3://bucket/prefix`), which several servers
//! on one PostgreSQL database share. Downloads always go through Lectern (it checks the
//! signed link, then streams the object), so the interface's temporary links keep their
//! meaning with either store.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
pub use lectern_core::store::FileStore;
use object_store::aws::AmazonS3ConfigKey;
use object_store::path::Path as ObjectPath;
use object_store::{ClientConfigKey, ObjectStore};

/// Whether `key` is one Lectern makes (`<id>.<ext>`, `thumb-<id>.png`, ...): letters,
/// digits, `.`, `-` and `_`, not starting with a dot.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
        && !key.starts_with('.')
}

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
        // Keys are made by Lectern; anything else is refused.
        valid_key(key).then(|| self.dir.join(key))
    }

    /// The keys of every file in the directory (for `admin migrate-files`).
    pub fn keys(&self) -> std::io::Result<Vec<String>> {
        let mut keys = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if valid_key(&name) && !name.ends_with(".partial") {
                keys.push(name);
            }
        }
        keys.sort();
        Ok(keys)
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

/// Files in an S3-compatible bucket, under a prefix.
pub struct ObjectFiles {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    /// `s3://bucket/prefix`, for messages.
    url: String,
}

/// How long one request to the object store may take, and how long its retries may go on:
/// short, so that an export fails with a reason while the store is down instead of
/// hanging until its lease ends.
const OBJECT_TIMEOUT: Duration = Duration::from_secs(10);
const OBJECT_RETRIES: Duration = Duration::from_secs(15);

impl ObjectFiles {
    /// The bucket and prefix of `url` (`s3://bucket` or `s3://bucket/prefix`), with the
    /// endpoint, region and credentials of the usual `AWS_*` variables (`AWS_ENDPOINT_URL`
    /// for another S3-compatible server, `AWS_ALLOW_HTTP=true` for a plain-HTTP one).
    pub fn s3(url: &str) -> anyhow::Result<Self> {
        Self::s3_with(url, object_store::aws::AmazonS3Builder::from_env())
    }

    /// [`ObjectFiles::s3`] with the endpoint, region and credentials `builder` holds.
    pub fn s3_with(url: &str, builder: object_store::aws::AmazonS3Builder) -> anyhow::Result<Self> {
        let rest = url.strip_prefix("s3://").ok_or_else(|| {
            anyhow::anyhow!("--file-store must be s3://bucket[/prefix], got {url:?}")
        })?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            anyhow::bail!("--file-store {url:?} names no bucket");
        }
        let retry = object_store::RetryConfig {
            max_retries: 3,
            retry_timeout: OBJECT_RETRIES,
            ..object_store::RetryConfig::default()
        };
        let store = builder
            .with_bucket_name(bucket)
            .with_retry(retry)
            // Set one by one: replacing the client options would drop what the `AWS_*`
            // variables set (such as `AWS_ALLOW_HTTP`).
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::Timeout),
                format!("{}s", OBJECT_TIMEOUT.as_secs()),
            )
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
                "3s",
            )
            .build()
            .map_err(|e| anyhow::anyhow!("cannot use the object store {url}: {e}"))?;
        Ok(ObjectFiles {
            store: Arc::new(store),
            prefix: prefix.trim_matches('/').to_string(),
            url: url.to_string(),
        })
    }

    fn path(&self, key: &str) -> Option<ObjectPath> {
        if !valid_key(key) {
            return None;
        }
        Some(if self.prefix.is_empty() {
            ObjectPath::from(key)
        } else {
            ObjectPath::from(format!("{}/{key}", self.prefix))
        })
    }

    fn failed(&self, what: &str, e: object_store::Error) -> std::io::Error {
        std::io::Error::other(format!(
            "the object store {} failed to {what}: {e}",
            self.url
        ))
    }
}

#[async_trait]
impl FileStore for ObjectFiles {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> std::io::Result<()> {
        let path = self
            .path(key)
            .ok_or_else(|| std::io::Error::other(format!("bad file key {key:?}")))?;
        // One PUT: readers see the whole object or none.
        self.store
            .put(&path, bytes.into())
            .await
            .map_err(|e| self.failed("store a file", e))?;
        Ok(())
    }

    async fn get(&self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        let Some(path) = self.path(key) else {
            return Ok(None);
        };
        match self.store.get(&path).await {
            Ok(found) => {
                let bytes = found
                    .bytes()
                    .await
                    .map_err(|e| self.failed("read a file", e))?;
                Ok(Some(bytes.to_vec()))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.failed("read a file", e)),
        }
    }

    async fn delete(&self, key: &str) -> std::io::Result<()> {
        let Some(path) = self.path(key) else {
            return Ok(());
        };
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.failed("delete a file", e)),
        }
    }
}
