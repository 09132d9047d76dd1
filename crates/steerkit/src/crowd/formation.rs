//! Formations run by the crowd (2D): a [`FormationManager`] over a set of agents, its anchor
//! steered by a recipe, updated inside `Crowd::step` before the agents' steering.

use super::recipe::{evaluate, AvoidState, BehaviourState, Context, Notes, Summary};
use super::Recipe;
use super::{mix, AgentHandle, AgentView, Agents, Crowd, CrowdError, CrowdVector, World, FREE};
use crate::error::ParamError;
use crate::formation::{FormationManager, SlotTarget};
use crate::kinematic::Kinematic;
use crate::math::{Rng, Vector};
use glam::{Vec2, Vec3};

/// Index of a formation registered with [`Crowd::add_formation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FormationId(pub u32);

/// A formation with its anchor's recipe and state.
#[derive(Clone, Debug)]
pub(crate) struct FormationRt {
    pub manager: FormationManager,
    /// What steers the anchor (seen as an agent of radius 0 with the manager's anchor
    /// limits, without neighbours).
    pub anchor: Recipe<Vec2>,
    pub state: BehaviourState<Vec2>,
    pub avoid: AvoidState,
    pub members: Vec<AgentHandle>,
    /// Disbanded: skipped by the step, its entry free for the next formation.
    pub disbanded: bool,
}

impl Crowd<Vec2> {
    /// Runs `manager` over `members` (each joins as member id = its handle's slot index, of
    /// character kind 0), its anchor steered by `anchor` (e.g. [`Recipe::FollowPath`] for an
    /// anchor path, [`Recipe::Arrive`] to a point; group leaves see no neighbours). Every step,
    /// before the agents' steering and in formation order, the anchor's recipe is evaluated
    /// and [`FormationManager::update`] moves the anchor and computes one [`SlotTarget`] per
    /// member, which [`Recipe::Slot`] steers to. A despawned member leaves its formation and
    /// the slots are reassigned at the next step.
    ///
    /// # Errors
    /// [`CrowdError::StaleHandle`] for a removed member; [`CrowdError::Param`] when the anchor
    /// recipe is invalid (as in [`Crowd::add_group`]), the manager already has members
    /// (`formation.members`), or a member is listed twice or the pattern cannot take them all
    /// (`formation.members`).
    pub fn add_formation(
        &mut self,
        mut manager: FormationManager,
        members: &[AgentHandle],
        anchor: Recipe<Vec2>,
    ) -> Result<FormationId, CrowdError> {
        anchor.validate(self.world.paths.len())?;
        super::recipe::check_ids(&anchor, self.world.customs.len())?;
        if !manager.is_empty() {
            return Err(ParamError::Count {
                name: "formation.members",
                count: manager.len(),
                expected: "0: an empty manager (the crowd adds the members)",
            }
            .into());
        }
        for &h in members {
            if !self.contains(h) {
                return Err(CrowdError::StaleHandle(h));
            }
            if !manager.add_member(h.index, 0) {
                return Err(ParamError::Count {
                    name: "formation.members",
                    count: members.len(),
                    expected: "distinct agents the pattern can hold",
                }
                .into());
            }
        }
        // a disbanded formation's entry is reused, so forming and disbanding does not grow
        let id = self
            .world
            .formations
            .iter()
            .position(|f| f.disbanded)
            .unwrap_or(self.world.formations.len());
        let rt = FormationRt {
            manager,
            anchor,
            state: BehaviourState {
                wander: Vec2::ZERO,
                path_param: f32::NAN,
                stalled: 0.0,
                rng: Rng::new(mix(self.config.seed ^ mix(!(id as u64)))),
            },
            avoid: AvoidState::default(),
            members: members.to_vec(),
            disbanded: false,
        };
        match self.world.formations.get_mut(id) {
            Some(f) => *f = rt,
            None => self.world.formations.push(rt),
        }
        Ok(FormationId(id as u32))
    }

    /// Disbands a formation: its members keep their state but have no slot any more (a
    /// [`Recipe::Slot`] leaf then has nothing to say), the anchor stops, and the id is free
    /// for the next [`add_formation`](Self::add_formation).
    ///
    /// # Errors
    /// [`CrowdError::UnknownFormation`] for an id never given or already disbanded.
    pub fn disband_formation(&mut self, id: FormationId) -> Result<(), CrowdError> {
        let f = self
            .world
            .formations
            .get_mut(id.0 as usize)
            .filter(|f| !f.disbanded)
            .ok_or(CrowdError::UnknownFormation(id))?;
        f.disbanded = true;
        for h in std::mem::take(&mut f.members) {
            f.manager.remove_member(h.index);
            if let Some(t) = self.world.slot_targets.get_mut(h.index as usize) {
                *t = None;
            }
        }
        Ok(())
    }

    fn live_formation(&self, id: FormationId) -> Option<&FormationRt> {
        self.world.formations.get(id.0 as usize).filter(|f| !f.disbanded)
    }

    /// A formation's manager (anchor, slots, last assignment); `None` once disbanded.
    #[must_use]
    pub fn formation(&self, id: FormationId) -> Option<&FormationManager> {
        self.live_formation(id).map(|f| &f.manager)
    }

    /// A formation's members, in joining order; `None` once disbanded.
    #[must_use]
    pub fn formation_members(&self, id: FormationId) -> Option<&[AgentHandle]> {
        self.live_formation(id).map(|f| f.members.as_slice())
    }

    /// The slot target of an agent in a formation (from the last step's update).
    #[must_use]
    pub fn slot_target(&self, h: AgentHandle) -> Option<SlotTarget> {
        self.index_of(h)?;
        self.world.slot_targets.get(h.index as usize).copied().flatten()
    }
}

impl<V: CrowdVector> World<V> {
    /// Takes a despawned agent out of its formations (reassigned at the next update).
    pub(super) fn leave_formations(&mut self, h: AgentHandle) {
        for f in &mut self.formations {
            if f.members.contains(&h) {
                f.members.retain(|m| *m != h);
                f.manager.remove_member(h.index);
            }
        }
        if let Some(t) = self.slot_targets.get_mut(h.index as usize) {
            *t = None;
        }
    }
}

/// Phase 1b per space (a supertrait of `CrowdVector`, reachable only inside the crate):
/// formations are planar, so only 2D has them.
pub trait FormationSpace: Vector {
    /// Steps the formations of `world` over `agents`.
    // sealed (the module is private), so the crowd's private parts stay so
    #[allow(private_interfaces)]
    fn update_formations(agents: &Agents<Self>, world: &mut World<Self>, dt: f32)
    where
        Self: CrowdVector;
}

impl FormationSpace for Vec2 {
    #[allow(private_interfaces)]
    fn update_formations(agents: &Agents<Self>, world: &mut World<Self>, dt: f32) {
        update_formations(agents, world, dt);
    }
}

impl FormationSpace for Vec3 {
    #[allow(private_interfaces)]
    fn update_formations(_: &Agents<Self>, _: &mut World<Self>, _: f32) {}
}

/// Phase 1b: every formation's anchor steered and its slots updated, in formation order.
fn update_formations(agents: &Agents<Vec2>, world: &mut World<Vec2>, dt: f32) {
    if world.formations.is_empty() {
        return;
    }
    let view = agent_view!(agents);
    let (slots, position, velocity, orientation, rotation) =
        (&agents.slots, &agents.position, &agents.velocity, &agents.orientation, &agents.rotation);
    let state = |id: u32| -> Kinematic {
        match slots.get(id as usize) {
            Some(s) if s.index != FREE => {
                let i = s.index as usize;
                Kinematic {
                    position: position[i],
                    orientation: orientation[i],
                    velocity: velocity[i],
                    rotation: rotation[i],
                }
            }
            _ => Kinematic::default(),
        }
    };
    if world.slot_targets.len() < slots.len() {
        world.slot_targets.resize(slots.len(), None);
    }
    let summary = Summary::default();
    for f in world.formations.iter_mut().filter(|f| !f.disbanded) {
        let limits = *f.manager.anchor_limits();
        let cx = Context {
            me: *f.manager.anchor(),
            radius: 0.0,
            limits: &limits,
            dt,
            goal: None,
            waypoint: None,
            neighbours: &[],
            summary: &summary,
            separations: &[],
            paths: &world.paths,
            obstacles: world.obstacles.as_ref(),
            grid: None,
            finish: 0.0,
            path_done: false,
            slot_target: None,
            agents: view,
            customs: &world.customs,
            hazards: &world.hazards,
            motor: None,
        };
        let steering = evaluate(&f.anchor, &cx, &mut f.state, &mut f.avoid, &mut Notes::default())
            .unwrap_or_default();
        let steering = if steering.is_finite() { steering } else { Default::default() };
        for t in f.manager.update(dt, &steering, state) {
            world.slot_targets[t.member as usize] = Some(*t);
        }
    }
}
