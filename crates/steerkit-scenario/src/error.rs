//! Scenario errors, and locating a field path in TOML source.

use core::fmt;

/// A position in a file: 1-based line and column (the column counts characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

impl Location {
    /// The line and column of byte `offset` in `source` (clamped to the end; an offset inside a
    /// multi-byte character counts as that character).
    #[must_use]
    pub fn of_offset(source: &str, offset: usize) -> Location {
        let mut end = offset.min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let before = &source[..end];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Location { line, column: before[line_start..].chars().count() + 1 }
    }
}

/// Everything that can go wrong reading, checking or building a scenario.
///
/// Every message starts with the file (`origin`), then the line and column when known, then the
/// field path (`groups[1].behaviour.members[0].slow_radius`) when the problem is in a field:
///
/// ```text
/// scenarios/bad.toml:14:15: groups[0].behaviour.slow_radius: `slow_radius` (1) must be at least `target_radius` (2)
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{}: cannot read the file: {}", one_line(origin), one_line(&source.to_string()))]
    Io {
        /// The file.
        origin: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than the limit.
    #[error("{}: the file is larger than the limit of {limit} bytes", one_line(origin))]
    TooLarge {
        /// The file.
        origin: String,
        /// The limit (bytes).
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{}:{location}: the file is not valid UTF-8 text", one_line(origin))]
    NotUtf8 {
        /// The file.
        origin: String,
        /// Where the first invalid byte is.
        location: Location,
    },
    /// The file name does not end in `.toml` or `.json`.
    #[error(
        "{}: unknown scenario format: the file name must end in `.toml` or `.json`",
        one_line(origin)
    )]
    UnknownFormat {
        /// The file.
        origin: String,
    },
    /// The text is not a valid scenario: a syntax error, a wrong type, an unknown or missing
    /// field, or a value or reference that cannot work.
    #[error("{}", invalid_message(origin, location, field, message))]
    Invalid {
        /// The file.
        origin: String,
        /// Where, when known.
        location: Option<Location>,
        /// The field path (`groups[1].radius`); empty for the whole document.
        field: String,
        /// What is wrong.
        message: String,
    },
}

fn invalid_message(
    origin: &str,
    location: &Option<Location>,
    field: &str,
    message: &str,
) -> String {
    let mut s = one_line(origin);
    if let Some(l) = location {
        s.push_str(&format!(":{l}"));
    }
    s.push_str(": ");
    if !field.is_empty() {
        s.push_str(&one_line(field));
        s.push_str(": ");
    }
    s.push_str(&one_line(message));
    s
}

/// Most characters of one part of an error message (a file name, a field path, the message)
/// before it is shortened with `…`.
const MAX_PART: usize = 300;

/// `s` safe to print on one line: control characters (newlines, escapes) written as Rust
/// escapes, and shortened past [`MAX_PART`] characters, so a hostile name cannot spread an
/// error over several lines or flood a terminal.
pub(crate) fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_PART + 8));
    for (i, c) in s.chars().enumerate() {
        if i == MAX_PART {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

impl ScenarioError {
    /// The field path the error is about (empty when it is about the whole file).
    #[must_use]
    pub fn field(&self) -> &str {
        match self {
            ScenarioError::Invalid { field, .. } => field,
            _ => "",
        }
    }

    /// The line and column, when known.
    #[must_use]
    pub fn location(&self) -> Option<Location> {
        match self {
            ScenarioError::Invalid { location, .. } => *location,
            ScenarioError::NotUtf8 { location, .. } => Some(*location),
            _ => None,
        }
    }
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Splits `groups[1].behaviour.members[0].slow_radius` into keys and indices. Keys never
/// contain `.` or `[` here (they are the format's own field names).
pub(crate) fn segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            if open > 0 {
                out.push(Segment::Key(&rest[..open]));
            }
            rest = &rest[open..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let Some(close) = stripped.find(']') else { break };
                match stripped[..close].parse() {
                    Ok(i) => out.push(Segment::Index(i)),
                    Err(_) => out.push(Segment::Key(&stripped[..close])),
                }
                rest = &stripped[close + 1..];
            }
        } else if !rest.is_empty() {
            out.push(Segment::Key(rest));
        }
    }
    out
}

/// The byte span in TOML `source` of the value at `path`, or of the deepest part of the path
/// that exists (a missing field points at its table). `None` when the source does not parse.
pub(crate) fn locate_span(source: &str, path: &str) -> Option<core::ops::Range<usize>> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(source).ok()?;
    let mut span = root.span();
    let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
    let mut array: Option<&toml::de::DeArray<'_>> = None;
    for seg in segments(path) {
        let next = match seg {
            Segment::Key(k) => {
                let Some(t) = table else { break };
                match t.get_key_value(k) {
                    Some((_, v)) => v,
                    None => break,
                }
            }
            Segment::Index(i) => {
                let Some(a) = array else { break };
                match a.get(i) {
                    Some(v) => v,
                    None => break,
                }
            }
        };
        span = next.span();
        table = None;
        array = None;
        match next.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    Some(span)
}

/// The line and column of the value at `path` in TOML `source` (see [`locate_span`]).
pub(crate) fn locate(source: &str, path: &str) -> Option<Location> {
    locate_span(source, path).map(|s| Location::of_offset(source, s.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_split_keys_and_indices() {
        assert_eq!(
            segments("groups[1].behaviour.members[0].slow_radius"),
            vec![
                Segment::Key("groups"),
                Segment::Index(1),
                Segment::Key("behaviour"),
                Segment::Key("members"),
                Segment::Index(0),
                Segment::Key("slow_radius"),
            ]
        );
        assert_eq!(
            segments("points[2][1]"),
            vec![Segment::Key("points"), Segment::Index(2), Segment::Index(1)]
        );
        assert!(segments("").is_empty());
    }

    #[test]
    fn locate_finds_nested_values() {
        let src = "name = \"x\"\n[[groups]]\nname = \"a\"\n[[groups]]\nname = \"b\"\nbehaviour = { kind = \"blend\", members = [ { kind = \"seek\" }, { kind = \"arrive\", slow_radius = -1 } ] }\n";
        let l = locate(src, "groups[1].behaviour.members[1].slow_radius").unwrap();
        assert_eq!(l.line, 6);
        let col = src.lines().nth(5).unwrap().find("-1").unwrap() + 1;
        assert_eq!(l.column, col);
        // a missing field points at its table: here the `[[groups]]` header
        let l = locate(src, "groups[0].radius").unwrap();
        assert_eq!(l.line, 2);
    }

    #[test]
    fn offsets_count_characters() {
        let src = "a = \"é\"\nb = 1";
        assert_eq!(
            Location::of_offset(src, src.find('b').unwrap()),
            Location { line: 2, column: 1 }
        );
        assert_eq!(
            Location::of_offset(src, src.find('"').unwrap() + 3),
            Location { line: 1, column: 7 }
        );
    }
}
