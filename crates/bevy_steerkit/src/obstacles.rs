//! Obstacle entities: the crowd's static world, rebuilt when one comes, changes, moves or goes.

use crate::{Space, SteerCrowd, SteerObstacle};
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;

/// An obstacle component that came, changed or moved.
type ObstacleMoved<V> =
    (With<SteerObstacle<V>>, Or<(Changed<SteerObstacle<V>>, Changed<Transform>)>);

/// Rebuilds the crowd's static world when an obstacle component came, changed, moved or went.
pub(crate) fn sync_obstacles<V: Space>(
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerObstacle<V>>,
    changed: Query<(), ObstacleMoved<V>>,
    all: Query<(Entity, &SteerObstacle<V>, &Transform)>,
) {
    let went = removed.read().count() > 0;
    if !went && changed.is_empty() {
        return;
    }
    // in entity order, so obstacle ids are the same run to run
    let mut obstacles: Vec<_> = all.iter().collect();
    obstacles.sort_by_key(|(e, ..)| *e);
    let mut shapes = Vec::with_capacity(obstacles.len());
    for (e, o, t) in obstacles {
        match V::place(&o.0, t) {
            Ok(shape) => shapes.push(shape),
            Err(err) => steer.error(format!("obstacle {e}: {err}")),
        }
    }
    match V::world(shapes) {
        Ok(world) => steer.crowd.set_obstacles(world),
        Err(err) => steer.error(format!("obstacles: {err}")),
    }
}
