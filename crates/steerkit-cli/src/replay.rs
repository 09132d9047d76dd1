//! `replay.html`: one self-contained file that plays a [`Recording`] in a browser.
//!
//! The page is the player of `web/replay/` (plain HTML, CSS and JavaScript: no build step, no
//! network, no external fonts), compiled in ([`steerkit_scenario::recording::PLAYER`]). The recording's JSON is placed in a
//! `<script type="application/json">` element, escaped so that no data can end the element or
//! be read as markup: `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX` escapes (they
//! can only occur inside JSON strings, where the escape means the same character). The file opens
//! from disk (`file://`).

use crate::recording::Recording;
use std::path::Path;

/// The player page; `__STEERKIT_RECORDING__` marks where the data goes.
pub const TEMPLATE: &str = steerkit_scenario::recording::PLAYER;

const PLACEHOLDER: &str = "__STEERKIT_RECORDING__";

/// Escapes JSON for inclusion in an HTML `<script>` element (see the module documentation).
#[must_use]
pub fn escape_json_for_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The complete `replay.html` for a recording.
#[must_use]
pub fn render_html(recording: &Recording) -> String {
    let (head, tail) =
        TEMPLATE.split_once(PLACEHOLDER).expect("the player has the data placeholder");
    let data = escape_json_for_script(&recording.to_json());
    let mut html = String::with_capacity(head.len() + data.len() + tail.len());
    html.push_str(head);
    html.push_str(&data);
    html.push_str(tail);
    html
}

/// Writes `replay.html` for a recording to `path`, through a temporary name and a rename (a
/// link planted at `path` is replaced, not followed).
///
/// # Errors
/// Any I/O error.
pub fn write_html(recording: &Recording, path: &Path) -> std::io::Result<()> {
    steerkit_files::write_atomic(path, render_html(recording).as_bytes())
}

/// The recording's JSON as placed in a `replay.html` page (escaped), if the page has one.
#[must_use]
pub fn embedded_json(html: &str) -> Option<&str> {
    let start = html.find(r#"<script id="recording" type="application/json">"#)?;
    let body = &html[start..];
    let open = body.find('>')? + 1;
    let close = body[open..].find("</script>")?;
    Some(&body[open..open + close])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::{Group, Meta, RecordOptions, Recorder, World};
    use steerkit::Vec2;

    fn hostile() -> Recording {
        let name = "</script><script>alert(1)</script> <!-- \u{2028}\u{2029} & >";
        let meta = Meta::new(name, 1, 0.1, 0).with_description("a </SCRIPT> in text");
        let groups = vec![Group::new("</script>", "#123456", 0.5)];
        let mut rec = Recorder::<Vec2>::new(
            meta,
            World::default(),
            groups,
            vec![0],
            RecordOptions::default(),
        )
        .unwrap();
        rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0)]).unwrap();
        rec.event(0, "<b>", Some(0));
        rec.finish()
    }

    #[test]
    fn the_template_has_exactly_one_placeholder_and_loads_nothing_from_the_network() {
        assert_eq!(TEMPLATE.matches(PLACEHOLDER).count(), 1);
        for scheme in ["http://", "https://", "//fonts.", "@import", "src=\""] {
            assert!(!TEMPLATE.contains(scheme), "template contains {scheme}");
        }
    }

    #[test]
    fn hostile_names_cannot_close_the_script_element() {
        let r = hostile();
        let html = render_html(&r);
        let data = embedded_json(&html).unwrap();
        for bad in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!data.contains(bad), "data contains {bad:?}");
        }
        // exactly the template's script elements, none from the data
        let scripts = TEMPLATE.matches("</script>").count();
        assert_eq!(html.matches("</script>").count(), scripts);
        assert_eq!(html.to_ascii_lowercase().matches("</script").count(), scripts);
        // and the JSON parser gives back the same strings
        let back = Recording::from_json(data).unwrap();
        assert_eq!(back.meta.scenario, r.meta.scenario);
        assert_eq!(back.groups[0].name, "</script>");
        assert_eq!(back.events[0].kind, "<b>");
    }
}
