//! The Bevy guide's example (docs/bevy.md) compiles as written: its Rust block is
//! `readme/snippet.rs`, line for line (checked below), compiled here against a stand-in for the
//! `bevy` crate's prelude (Bevy's renderer is not built in tests) whose `DefaultPlugins` are
//! Bevy's minimal plugins running one update.

mod bevy {
    pub mod prelude {
        pub use bevy_app::prelude::*;
        pub use bevy_ecs::prelude::*;
        pub use bevy_math::prelude::*;
        pub use bevy_transform::prelude::*;

        /// Bevy's minimal plugins, run once, standing in for `DefaultPlugins`.
        pub struct DefaultPlugins;

        impl Plugin for DefaultPlugins {
            fn build(&self, app: &mut App) {
                app.add_plugins((
                    bevy_app::TaskPoolPlugin::default(),
                    bevy_diagnostic::FrameCountPlugin,
                    bevy_time::TimePlugin,
                    bevy_app::ScheduleRunnerPlugin::run_once(),
                ));
            }
        }
    }
}

include!("readme/snippet.rs");

#[test]
fn the_bevy_guide_snippet_builds_and_runs() {
    main();
}

#[test]
fn the_bevy_guide_shows_the_snippet_verbatim() {
    let guide = include_str!("../../../docs/bevy.md");
    let snippet = include_str!("readme/snippet.rs");
    let block = format!("```rust,ignore\n{snippet}```");
    assert!(
        guide.contains(&block),
        "docs/bevy.md's Bevy block differs from tests/readme/snippet.rs"
    );
}
