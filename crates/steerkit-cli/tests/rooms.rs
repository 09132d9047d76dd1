//! Rooms a person can hold: no non-test source file of the workspace is longer than 800 lines
//! (the pages and scripts of `web/` included), and no function longer than 120 (the
//! repository's rule; see ARCHITECTURE.md).
//!
//! A file's non-test lines are those before a top-level `#[cfg(test)]` followed by a `mod`
//! line; files named `tests.rs` hold tests only. A function's lines run from its `fn` line to
//! the closing brace at the `fn` line's indentation.

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 120;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && p.file_name() != Some("tests.rs".as_ref())
        {
            out.push(p);
        }
    }
}

/// Every `src/` file of every crate of the workspace.
fn workspace_sources() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for c in std::fs::read_dir(&crates).expect("the crates folder").flatten() {
        sources(&c.path().join("src"), &mut out);
    }
    out.sort();
    assert!(out.len() > 50, "found only {} source files under {}", out.len(), crates.display());
    out
}

/// The lines before the file's test module.
fn non_test_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].starts_with("#[cfg(test)]")
                && lines.get(i + 1).is_some_and(|l| l.starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// `(name, first line, length)` of each function with a body.
fn functions(lines: &[&str]) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let rest = ["pub(crate) ", "pub(super) ", "pub ", "const ", "unsafe ", "async "]
            .iter()
            .fold(trimmed, |t, p| t.strip_prefix(p).unwrap_or(t));
        let Some(name) = rest.strip_prefix("fn ") else { continue };
        let name: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // the signature ends at a line ending in `{` (a body) or `;` (a declaration)
        let Some(open) = (i..lines.len()).find(|&j| {
            let l = lines[j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open + 1..lines.len()).find(|&j| lines[j].trim_end() == close) {
            out.push((name, i + 1, end - i + 1));
        }
    }
    out
}

#[test]
fn no_source_file_is_longer_than_800_lines() {
    let mut long = Vec::new();
    for path in workspace_sources() {
        let text = std::fs::read_to_string(&path).expect("readable source");
        let n = non_test_lines(&text).len();
        if n > MAX_FILE_LINES {
            long.push(format!("{} ({n} lines)", path.display()));
        }
    }
    assert!(long.is_empty(), "over {MAX_FILE_LINES} non-test lines: {}", long.join(", "));
}

/// The player's and the playground's pages and scripts (`web/`).
#[test]
fn no_web_file_is_longer_than_800_lines() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("the web folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "js" || x == "html") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web"), &mut files);
    assert!(files.len() >= 9, "found only {} files under web/", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).expect("readable").lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_FILE_LINES} lines: {}", long.join(", "));
}

#[test]
fn no_function_is_longer_than_120_lines() {
    let mut long = Vec::new();
    for path in workspace_sources() {
        let text = std::fs::read_to_string(&path).expect("readable source");
        for (name, line, n) in functions(&non_test_lines(&text)) {
            if n > MAX_FN_LINES {
                long.push(format!("{}:{line} `{name}` ({n} lines)", path.display()));
            }
        }
    }
    assert!(long.is_empty(), "functions over {MAX_FN_LINES} lines: {}", long.join(", "));
}

#[test]
fn the_function_finder_measures_bodies_not_declarations() {
    let src = "trait T {\n    fn a(&self);\n}\nfn b() {\n    1;\n}\n    pub fn c(\n        x: u8,\n    ) -> u8 {\n        x\n    }\n";
    let found = functions(&src.lines().collect::<Vec<_>>());
    assert_eq!(found, vec![("b".to_owned(), 4, 3), ("c".to_owned(), 7, 5)]);
}
