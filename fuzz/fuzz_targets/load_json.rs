//! Any text through the JSON loader: a scenario or a one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerkit_scenario::Scenario;

fuzz_target!(|text: &str| {
    if let Err(e) = Scenario::from_json_str(text, "fuzz.json") {
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
});
