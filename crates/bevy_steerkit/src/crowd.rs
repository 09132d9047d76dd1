//! The crowd behind the plugin and the maps between entities and agents.

use crate::groups::GroupPool;
use crate::targets::Proxy;
use crate::{Space, SteerMessage};
use bevy_ecs::entity::{EntityHashMap, EntityHashSet};
use bevy_ecs::prelude::*;
use steerkit::crowd::{
    AgentHandle, Crowd, CrowdConfig, CrowdEvent, FormationId, Group, GroupId, PathId, Recipe,
};
use steerkit::kinematic::Kinematic;

/// What the plugin steps: its own crowd, or a scenario file's simulation (the one
/// `steerkit run` and the playground step: the crowd with the file's turrets and side view),
/// seen as its crowd everywhere else.
pub(crate) enum Engine<V: Space> {
    /// The plugin's own crowd.
    Bare(Box<Crowd<V>>),
    /// A scenario's simulation ([`crate::scenario::spawn_scenario`]).
    #[cfg(feature = "scenario")]
    Scenario(Box<dyn crate::scenario::Stepper<V>>),
}

impl<V: Space> Engine<V> {
    /// One step of `dt` (s) and the crowd's events.
    pub(crate) fn advance(&mut self, dt: f32) -> Result<Vec<CrowdEvent>, String> {
        match self {
            Self::Bare(crowd) => {
                crowd.step(dt).map(<[CrowdEvent]>::to_vec).map_err(|e| e.to_string())
            }
            #[cfg(feature = "scenario")]
            Self::Scenario(sim) => sim.step_by(dt),
        }
    }
}

impl<V: Space> std::ops::Deref for Engine<V> {
    type Target = Crowd<V>;
    fn deref(&self) -> &Crowd<V> {
        match self {
            Self::Bare(crowd) => crowd,
            #[cfg(feature = "scenario")]
            Self::Scenario(sim) => sim.crowd(),
        }
    }
}

impl<V: Space> std::ops::DerefMut for Engine<V> {
    fn deref_mut(&mut self) -> &mut Crowd<V> {
        match self {
            Self::Bare(crowd) => crowd,
            #[cfg(feature = "scenario")]
            Self::Scenario(sim) => sim.crowd_mut(),
        }
    }
}

/// The crowd behind the plugin, with the entity ↔ agent maps.
#[derive(Resource)]
pub struct SteerCrowd<V: Space> {
    pub(crate) crowd: Engine<V>,
    pub(crate) handles: EntityHashMap<AgentHandle>,
    /// The entity of each crowd slot (`AgentHandle::index`), with the handle it is for.
    entities: Vec<Option<(AgentHandle, Entity)>>,
    /// Groups added for behaviours (agents with equal behaviours share; unused ones reused).
    pub(crate) groups: GroupPool<V>,
    /// The group of agents without a behaviour (they drift and are avoided).
    pub(crate) idle: GroupId,
    /// Errors met while syncing (bad components), the latest last; kept to 64.
    errors: Vec<String>,
    /// Entities that joined the crowd in this step (their behaviours are mapped).
    pub(crate) fresh: Vec<Entity>,
    /// True when agents came or went since the behaviours were last synced (behaviours naming
    /// entities are re-mapped).
    pub(crate) agents_changed: bool,
    /// The crowd formation of each `SteerFormation` entity, to disband it when the entity goes.
    pub(crate) formations: EntityHashMap<FormationId>,
    /// Non-agent entities named as targets, tracked in the crowd.
    pub(crate) proxies: EntityHashMap<Proxy<V>>,
    /// Behaviour groups or formations changed: proxies nothing names any more are looked for.
    pub(crate) targets_dirty: bool,
    /// Entities refused as agents, left out until their `SteerAgent` or `Transform` changes.
    pub(crate) rejected: EntityHashSet,
    /// The reason each obstacle entity left out was refused (reported when it changes).
    pub(crate) bad_obstacles: EntityHashMap<String>,
    /// Messages met while syncing, sent with the step's.
    pub(crate) pending: Vec<SteerMessage>,
    /// How many times the obstacle entities made a new static world (navigation rebuilds its
    /// mesh when this changes).
    pub(crate) obstacles_generation: u64,
}

/// A handle no agent ever has: an entity reference that is not an agent resolves to it, so
/// the behaviour has nothing to say about it.
pub(crate) const NOBODY: AgentHandle = AgentHandle { index: u32::MAX, generation: u32::MAX };

impl<V: Space> SteerCrowd<V> {
    /// A crowd with `config`.
    ///
    /// # Panics
    /// If `config` is invalid (the plugin's constructor checks it first).
    #[must_use]
    pub fn new(config: CrowdConfig<V>) -> Self {
        let mut crowd = Crowd::new(config).expect("a valid crowd configuration");
        let idle = crowd.add_group(Group::new(Recipe::Blend(Vec::new()))).expect("an empty blend");
        SteerCrowd {
            crowd: Engine::Bare(Box::new(crowd)),
            handles: EntityHashMap::default(),
            entities: Vec::new(),
            groups: GroupPool::default(),
            idle,
            errors: Vec::new(),
            fresh: Vec::new(),
            agents_changed: false,
            formations: EntityHashMap::default(),
            proxies: EntityHashMap::default(),
            targets_dirty: false,
            rejected: EntityHashSet::default(),
            bad_obstacles: EntityHashMap::default(),
            pending: Vec::new(),
            obstacles_generation: 0,
        }
    }

    /// The crowd.
    #[must_use]
    pub fn crowd(&self) -> &Crowd<V> {
        &self.crowd
    }

    /// The crowd, to add obstacles, walls, paths, formations and the game's own behaviours.
    pub fn crowd_mut(&mut self) -> &mut Crowd<V> {
        &mut self.crowd
    }

    /// The agent of an entity.
    #[must_use]
    pub fn handle(&self, entity: Entity) -> Option<AgentHandle> {
        self.handles.get(&entity).copied()
    }

    /// The entity of an agent.
    #[must_use]
    pub fn entity(&self, agent: AgentHandle) -> Option<Entity> {
        match self.entities.get(agent.index as usize) {
            Some(&Some((h, e))) if h == agent => Some(e),
            _ => None,
        }
    }

    pub(crate) fn link(&mut self, e: Entity, h: AgentHandle) {
        self.handles.insert(e, h);
        let i = h.index as usize;
        if self.entities.len() <= i {
            self.entities.resize(i + 1, None);
        }
        self.entities[i] = Some((h, e));
    }

    pub(crate) fn unlink(&mut self, e: Entity) -> Option<AgentHandle> {
        let h = self.handles.remove(&e)?;
        if let Some(slot) = self.entities.get_mut(h.index as usize) {
            *slot = None;
        }
        Some(h)
    }

    /// Problems met while bringing components into the crowd (a bad radius, a behaviour the
    /// crowd refuses), the latest 64, each logged once (as a [`SteerMessage::Rejected`] too when
    /// an entity's).
    #[must_use]
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Reports a component of `entity` the crowd could not take: a [`SteerMessage::Rejected`]
    /// and a line in [`errors`](Self::errors).
    pub(crate) fn reject(&mut self, entity: Entity, reason: String) {
        self.error(format!("entity {entity}: {reason}"));
        self.pending.push(SteerMessage::Rejected { entity, reason });
    }

    pub(crate) fn error(&mut self, message: String) {
        if self.errors.len() == 64 {
            self.errors.remove(0);
        }
        self.errors.push(message);
    }

    /// The number of crowd groups the plugin added for behaviours, in use or free for reuse:
    /// bounded by the most distinct behaviours live at once (about twice that at worst).
    #[must_use]
    pub fn behaviour_groups(&self) -> usize {
        self.groups.len()
    }

    /// Moves an agent into the group for `behaviour` (the idle group for none), releasing the
    /// group it leaves. A refused behaviour leaves the agent where it was.
    pub(crate) fn regroup(
        &mut self,
        h: AgentHandle,
        behaviour: Option<&Group<V, Entity, PathId>>,
    ) -> Result<(), String> {
        let Some(old) = self.crowd.group_of(h) else { return Ok(()) };
        let new = match behaviour {
            Some(b) => {
                let group = b.map_refs(&|e| self.resolve(e), &|p| *p);
                self.targets_dirty = true;
                self.groups.acquire(&mut self.crowd, group).map_err(|e| e.to_string())?
            }
            None => self.idle,
        };
        let _ = self.crowd.set_agent_group(h, new);
        // released after the acquire: a refusal must not leave the agent in a group up for reuse
        self.groups.release(old);
        Ok(())
    }

    /// The entities whose agents arrived in `events` and leave the crowd on arrival, each with
    /// its last state: those of a behaviour with `remove_on_arrival` (the plugin takes them
    /// out, so their final state is known) and those the crowd already took out (a scenario's
    /// own groups: the last state the plugin saw). Each is unlinked; its group is released.
    pub(crate) fn take_out_arrived(
        &mut self,
        events: &[CrowdEvent],
        last_seen: impl Fn(Entity) -> Option<Kinematic<V>>,
    ) -> Vec<(Entity, Option<Kinematic<V>>)> {
        let mut out = Vec::new();
        for event in events {
            let CrowdEvent::Arrived { agent } = *event else { continue };
            let Some(e) = self.entity(agent) else { continue };
            let k = match self.crowd.group_of(agent) {
                Some(g) if self.groups.removes_on_arrival(g) => {
                    let k = self.crowd.kinematic(agent);
                    self.despawn(agent);
                    k
                }
                Some(_) => continue, // stays
                None => last_seen(e),
            };
            self.unlink(e);
            self.agents_changed = true;
            out.push((e, k));
        }
        out
    }

    /// Takes an agent out of the crowd, releasing its group.
    pub(crate) fn despawn(&mut self, h: AgentHandle) {
        if let Some(g) = self.crowd.group_of(h) {
            self.groups.release(g);
        }
        let _ = self.crowd.despawn(h);
    }
}
