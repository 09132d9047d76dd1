//! Files in and out, guarded, for every steerkit crate that touches the disk (the scenario
//! loader, the PTSP map loader and the command's outputs). No dependencies, so the smallest
//! crate can use it.
//!
//! - [`read_limited`]: regular files only (a FIFO could block for ever, a device never end),
//!   the size checked before reading, and never more than the limit read;
//! - [`write_atomic`] and [`TempFile`]: an output is written under a temporary name in its own
//!   directory, created exclusively (a link planted at that name is not followed), and renamed
//!   over the output's name at the end (a link planted there is replaced, its target
//!   untouched); a write that fails or is dropped half-way removes its temporary file.
#![warn(missing_docs)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a guarded read failed.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system's error, or `InvalidInput` for something not a regular file.
    Io(std::io::Error),
    /// The file holds more than the limit (bytes).
    TooLarge {
        /// The limit (bytes).
        limit: u64,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge { limit } => {
                write!(f, "the file is larger than the limit of {limit} bytes")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads a regular file of at most `limit` bytes.
///
/// The type and size are checked before the file is opened (opening a FIFO for reading blocks
/// until a writer comes), checked again on the open handle (the name may have changed in
/// between), and the read stops after `limit + 1` bytes whatever the file claims (a file that
/// grows while read).
///
/// # Errors
/// [`ReadError::Io`] (a missing file, no permission, not a regular file: a FIFO, a device, a
/// directory), [`ReadError::TooLarge`].
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let not_regular = || {
        ReadError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"))
    };
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// An output file being written under a temporary name beside its final one.
///
/// [`TempFile::persist`] renames it over the final name; dropped without that, it removes the
/// temporary file.
#[derive(Debug)]
pub struct TempFile {
    file: Option<std::io::BufWriter<std::fs::File>>,
    temp: PathBuf,
    target: PathBuf,
}

/// Numbers temporary names within the process (with the process id, unique on the machine).
static NEXT: AtomicU64 = AtomicU64::new(0);

impl TempFile {
    /// Creates `.<name>.<pid>-<n>.tmp` in `target`'s directory, exclusively: an existing file
    /// or link of that name is an error, never opened.
    ///
    /// # Errors
    /// `target` has no file name; the operating system's error.
    pub fn create(target: &Path) -> std::io::Result<TempFile> {
        let name = target.file_name().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
        })?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp_name = format!(".{}.{}-{n}.tmp", name.to_string_lossy(), std::process::id());
        let temp = target.with_file_name(temp_name);
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        Ok(TempFile {
            file: Some(std::io::BufWriter::new(file)),
            temp,
            target: target.to_path_buf(),
        })
    }

    /// Where the bytes go until [`TempFile::persist`].
    #[must_use]
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Flushes, and renames the temporary file over the target (a link there is replaced,
    /// not followed).
    ///
    /// # Errors
    /// The flush's or the rename's (the temporary file is removed then).
    pub fn persist(mut self) -> std::io::Result<PathBuf> {
        let Some(mut file) = self.file.take() else {
            return Err(std::io::Error::other("the file was already persisted"));
        };
        file.flush()?;
        drop(file);
        std::fs::rename(&self.temp, &self.target)?;
        // renamed: nothing left for the drop to remove
        self.temp = PathBuf::new();
        Ok(self.target.clone())
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("the file was already persisted")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(buf),
            None => Err(std::io::Error::other("the file was already persisted")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.file = None;
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `path` through a [`TempFile`].
///
/// # Errors
/// The operating system's error (nothing is left at the temporary name).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = TempFile::create(path)?;
    f.write_all(bytes)?;
    f.persist().map(|_| ())
}
