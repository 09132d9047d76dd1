//! The guards on reading and the temporary-name writes, on real files.

use std::path::PathBuf;
use steerkit_files::{read_limited, write_atomic, ReadError, TempFile};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("steerkit-files-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_regular_file_within_the_limit_is_read_whole() {
    let dir = scratch("ok");
    let p = dir.join("a.txt");
    std::fs::write(&p, b"hello").unwrap();
    assert_eq!(read_limited(&p, 5).unwrap(), b"hello");
    assert!(matches!(read_limited(&p, 4), Err(ReadError::TooLarge { limit: 4 })));
}

/// A FIFO with no writer would block `open` for ever: refused from its type, never opened.
#[test]
fn a_fifo_is_refused_without_opening_it() {
    let dir = scratch("fifo");
    let p = dir.join("map.txt");
    let made = std::process::Command::new("mkfifo").arg(&p).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("no mkfifo here; skipped");
        return;
    }
    let e = read_limited(&p, 1024).unwrap_err();
    assert_eq!(e.to_string(), "not a regular file");
}

#[test]
fn devices_and_directories_are_refused() {
    for p in ["/dev/zero", "/dev/null", "/"] {
        let p = std::path::Path::new(p);
        if p.exists() {
            assert_eq!(read_limited(p, 1 << 20).unwrap_err().to_string(), "not a regular file");
        }
    }
}

/// A 400 MB (sparse) file is refused from its size, before a byte is read.
#[test]
fn a_huge_file_is_refused_by_its_size() {
    let dir = scratch("huge");
    let p = dir.join("huge.txt");
    std::fs::File::create(&p).unwrap().set_len(400_000_000).unwrap();
    let e = read_limited(&p, 4 << 20).unwrap_err();
    assert_eq!(e.to_string(), "the file is larger than the limit of 4194304 bytes");
    std::fs::remove_file(&p).unwrap();
}

/// A link planted at the output's name is replaced by the file; its target keeps its bytes.
#[cfg(unix)]
#[test]
fn a_planted_link_is_replaced_not_followed() {
    let dir = scratch("link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.join("metrics.json");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    write_atomic(&out, b"{}\n").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(!std::fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&out).unwrap(), b"{}\n");
    // nothing else left in the directory
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["metrics.json", "victim.txt"]);
}

/// A temporary file dropped without being persisted is removed; the target is not created.
#[test]
fn a_dropped_temporary_file_leaves_nothing() {
    use std::io::Write as _;
    let dir = scratch("drop");
    let out = dir.join("trajectories.csv");
    let mut f = TempFile::create(&out).unwrap();
    f.write_all(b"step,time\n").unwrap();
    let temp = f.temp_path().to_path_buf();
    assert!(temp.exists());
    drop(f);
    assert!(!temp.exists() && !out.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
