//! The loader never panics: random bytes, random text and random mutations of a valid file all
//! give either a scenario or an error.

use proptest::prelude::*;
use steerkit_scenario::Scenario;

const EXAMPLE: &str = include_str!("../../../scenarios/example.toml");

fn json_example() -> String {
    let table: toml::Table = toml::from_str(EXAMPLE).unwrap();
    serde_json::to_string_pretty(&table).unwrap()
}

/// Loads and, when it loads, builds (building must not panic either).
fn exercise(text: &str) {
    for r in
        [Scenario::from_toml_str(text, "fuzz.toml"), Scenario::from_json_str(text, "fuzz.json")]
    {
        match r {
            Ok(s) => {
                if s.agent_count() <= 2000 {
                    let _ = s.build();
                }
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("fuzz."), "{msg}");
            }
        }
    }
}

/// Replaces `len` bytes at `at` (character boundaries respected) with `with`.
fn mutate(src: &str, at: usize, len: usize, with: &str) -> String {
    let mut start = at % (src.len() + 1);
    while !src.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + len).min(src.len());
    while !src.is_char_boundary(end) {
        end += 1;
    }
    format!("{}{}{}", &src[..start], with, &src[end..])
}

const TOKENS: &[&str] = &[
    "",
    "0",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e40",
    "\"",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "\n",
    "[[groups]]",
    "kind = \"blend\"",
    "members = []",
    "agent = \"walkers:99\"",
    "\"x:y:z\"",
    "count = 4294967295",
    "steps = 18446744073709551615",
    "é",
    "\u{0}",
    "true",
    "[1, 2, 3]",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text);
    }

    #[test]
    fn mutated_toml_never_panics(edits in proptest::collection::vec((any::<usize>(), 0usize..12, 0..TOKENS.len()), 1..4)) {
        let mut src = EXAMPLE.to_owned();
        for (at, len, tok) in edits {
            src = mutate(&src, at, len, TOKENS[tok]);
        }
        exercise(&src);
    }

    #[test]
    fn mutated_json_never_panics(edits in proptest::collection::vec((any::<usize>(), 0usize..12, 0..TOKENS.len()), 1..4)) {
        let mut src = json_example();
        for (at, len, tok) in edits {
            src = mutate(&src, at, len, TOKENS[tok]);
        }
        exercise(&src);
    }

    #[test]
    fn mutated_numbers_never_panic(at in any::<usize>(), value in prop_oneof![
        any::<f64>().prop_map(|v| format!("{v:?}")),
        any::<i64>().prop_map(|v| v.to_string()),
        Just("nan".to_owned()), Just("-inf".to_owned()),
    ]) {
        // replace one number of the example by an arbitrary one
        let starts: Vec<usize> = EXAMPLE
            .char_indices()
            .filter(|(i, c)| c.is_ascii_digit() && !EXAMPLE[..*i].ends_with(|p: char| p.is_ascii_digit() || p == '.'))
            .map(|(i, _)| i)
            .collect();
        let i = starts[at % starts.len()];
        let len = EXAMPLE[i..].find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(0);
        exercise(&mutate(EXAMPLE, i, len, &value));
    }
}
