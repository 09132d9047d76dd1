//! What the examples share: the keys that toggle the debug layers and pause the simulation.

use bevy::prelude::*;
use bevy_steerkit::debug::SteerDebug;

/// A debug layer's switch in [`SteerDebug`], e.g. `|d| &mut d.velocity`.
pub type Layer = fn(&mut SteerDebug) -> &mut bool;

/// A system that flips the layer bound to each key pressed in `bindings` and pauses or
/// resumes the simulation's (virtual) time on `Space`.
pub fn keys<const N: usize>(
    bindings: [(KeyCode, Layer); N],
) -> impl FnMut(Res<ButtonInput<KeyCode>>, ResMut<SteerDebug>, ResMut<Time<Virtual>>) {
    move |input, mut layers, mut time| {
        for (key, layer) in bindings {
            if input.just_pressed(key) {
                let on = layer(&mut layers);
                *on = !*on;
            }
        }
        if input.just_pressed(KeyCode::Space) {
            if time.is_paused() {
                time.unpause();
            } else {
                time.pause();
            }
        }
    }
}
