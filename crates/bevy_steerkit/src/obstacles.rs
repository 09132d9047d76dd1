//! Obstacle entities: the crowd's static world, rebuilt when one comes, changes, moves or goes.

use crate::{Space, SteerCrowd, SteerObstacle};
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;

/// An obstacle component that came, changed or moved.
type ObstacleMoved<V> =
    (With<SteerObstacle<V>>, Or<(Changed<SteerObstacle<V>>, Changed<Transform>)>);

/// Rebuilds the crowd's static world when an obstacle component came, changed, moved or went.
/// An obstacle that cannot be placed or is invalid is left out and reported once (until its
/// reason changes); the others make the world.
pub(crate) fn sync_obstacles<V: Space>(
    mut steer: ResMut<SteerCrowd<V>>,
    mut removed: RemovedComponents<SteerObstacle<V>>,
    changed: Query<(), ObstacleMoved<V>>,
    all: Query<(Entity, &SteerObstacle<V>, &Transform)>,
) {
    let mut went = false;
    for e in removed.read() {
        steer.bad_obstacles.remove(&e);
        went = true;
    }
    if !went && changed.is_empty() {
        return;
    }
    // in entity order, so obstacle ids are the same run to run
    let mut obstacles: Vec<_> = all.iter().collect();
    obstacles.sort_by_key(|(e, ..)| *e);
    let mut shapes = Vec::with_capacity(obstacles.len());
    for (e, o, t) in obstacles {
        // each checked alone, so one bad shape does not refuse the whole world
        match V::place(&o.0, t).and_then(|s| V::world(vec![s.clone()]).map(|_| s)) {
            Ok(shape) => {
                shapes.push(shape);
                steer.bad_obstacles.remove(&e);
            }
            Err(err) if steer.bad_obstacles.get(&e) != Some(&err) => {
                steer.bad_obstacles.insert(e, err.clone());
                steer.reject(e, format!("obstacle refused: {err}"));
            }
            Err(_) => {}
        }
    }
    match V::world(shapes) {
        Ok(world) => {
            steer.crowd.set_obstacles(world);
            steer.obstacles_generation += 1;
        }
        Err(err) => steer.error(format!("obstacles: {err}")),
    }
}
