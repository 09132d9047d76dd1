//! Entities that are not agents as targets: an entity a behaviour or a formation anchor names
//! is tracked in the crowd as a proxy, a body of radius 0 in the idle group moved to the
//! entity's `Transform` before every step, its velocity estimated from successive positions
//! (what pursue, evade and offset pursuit predict with). A proxy goes when its entity does,
//! when the entity becomes an agent, or when nothing names it any more.

use crate::crowd::NOBODY;
use crate::{Space, SteerCrowd, SteerFormation};
use bevy_ecs::entity::EntityHashSet;
use bevy_ecs::prelude::*;
use bevy_time::Time;
use bevy_transform::components::Transform;
use steerkit::crowd::{AgentHandle, AgentSpec, Recipe};
use steerkit::kinematic::{Kinematic, Limits};

/// A non-agent entity tracked in the crowd.
pub(crate) struct Proxy<V> {
    pub(crate) handle: AgentHandle,
    /// The entity's position at the last step (m).
    last: V,
}

/// The entities a recipe names.
pub(crate) fn named<V: Space>(recipe: &Recipe<V, Entity, steerkit::crowd::PathId>) -> Vec<Entity> {
    let found = std::cell::RefCell::new(Vec::new());
    let _ = recipe.map_refs(&|e| found.borrow_mut().push(*e), &|p| *p);
    found.into_inner()
}

impl<V: Space> SteerCrowd<V> {
    /// The crowd handle an entity reference maps to: its agent, its proxy, or nobody.
    pub(crate) fn resolve(&self, e: &Entity) -> AgentHandle {
        match self.handles.get(e) {
            Some(h) => *h,
            None => self.proxies.get(e).map_or(NOBODY, |p| p.handle),
        }
    }

    /// Proxies for the entities of `refs` that are neither agents nor tracked yet and have a
    /// `Transform` (others resolve to nobody).
    pub(crate) fn track(&mut self, refs: &[Entity], transforms: &Query<&Transform>) {
        for &e in refs {
            if self.handles.contains_key(&e) || self.proxies.contains_key(&e) {
                continue;
            }
            let Ok(t) = transforms.get(e) else { continue };
            let (position, orientation) = V::from_transform(t);
            // limits far above any game speed: the proxy goes where its entity went
            let fast = Limits::new(1e4, 1e4, 1e4, 1e4).expect("valid limits");
            let spec = AgentSpec { orientation, ..AgentSpec::new(position, 0.0, fast, self.idle) };
            if let Ok(handle) = self.crowd.spawn(spec) {
                self.proxies.insert(e, Proxy { handle, last: position });
            }
        }
    }
}

/// Before the behaviours are synced: proxies of entities that went, became agents or are named
/// by nothing any more leave (the behaviours naming them are re-mapped); the others move to
/// their entity's `Transform`.
pub(crate) fn track_targets<V: Space>(
    time: Res<Time>,
    mut steer: ResMut<SteerCrowd<V>>,
    transforms: Query<&Transform>,
    formations: Query<&SteerFormation>,
) {
    let steer = &mut *steer;
    if steer.proxies.is_empty() {
        return;
    }
    let named = if steer.targets_dirty { Some(still_named(steer, &formations)) } else { None };
    steer.targets_dirty = false;
    let dt = time.delta_secs();
    let mut gone = Vec::new();
    for (e, p) in &mut steer.proxies {
        let t = match transforms.get(*e) {
            Ok(t) if !steer.handles.contains_key(e) => t,
            _ => {
                gone.push(*e);
                continue;
            }
        };
        if named.as_ref().is_some_and(|n| !n.contains(&p.handle)) {
            gone.push(*e);
            continue;
        }
        let (position, orientation) = V::from_transform(t);
        let velocity = if dt > 0.0 { (position - p.last) * (1.0 / dt) } else { V::ZERO };
        p.last = position;
        let k = Kinematic { position, orientation, velocity, ..Kinematic::default() };
        let _ = steer.crowd.write_kinematic(p.handle, k);
    }
    for e in gone {
        if let Some(p) = steer.proxies.remove(&e) {
            let _ = steer.crowd.despawn(p.handle);
            steer.agents_changed = true;
        }
    }
}

/// The proxy handles the live behaviour groups and the formations' anchors name.
fn still_named<V: Space>(
    steer: &SteerCrowd<V>,
    formations: &Query<&SteerFormation>,
) -> std::collections::HashSet<AgentHandle> {
    let found = std::cell::RefCell::new(std::collections::HashSet::new());
    for group in steer.groups.live() {
        let _ = group.recipe.map_refs(&|h| found.borrow_mut().insert(*h), &|p| *p);
    }
    let mut named = found.into_inner();
    let anchors: EntityHashSet = formations.iter().flat_map(|f| self::named(&f.anchor)).collect();
    named.extend(anchors.iter().filter_map(|e| steer.proxies.get(e).map(|p| p.handle)));
    named
}
