//! The replay a simulation records: its groups and static world, then a frame when one is due
//! (every agent in file order with its steering, target, slot, controls and, for a few, its
//! obstacle-avoidance rays) and the events and shots of each step.

use super::{Simulation, SimulationError};
use crate::recording::{
    Group as RecGroup, Meta, PathShape, RecordOptions, Recorder, VehicleShape, PALETTE,
};
use crate::{Dim, Metric, Scenario, VehiclePlan};
use steerkit::crowd::CrowdEvent;
use steerkit::Vec2;

/// Agent-frames kept in a `steerkit run` replay (about 10 MB of JSON at most).
pub const REPLAY_BUDGET: usize = 300_000;

/// Agents whose obstacle-avoidance rays a replay keeps (rays cost about 60 bytes each per
/// frame: all 150 birds of `flock3d` would triple its replay; eight add a tenth).
pub const RAY_AGENTS: usize = 8;

/// A recorder and the agents (by number) whose rays it keeps: the first [`RAY_AGENTS`] of the
/// groups that avoid obstacles.
pub(super) struct Replay<V: Dim> {
    pub(super) recorder: Recorder<V>,
    ray_agents: Vec<bool>,
}

impl<V: Dim> Simulation<V> {
    /// The recorder of this simulation's world: groups with their colours, radii and vehicle
    /// bodies, the static world with a side view's platforms and planned jumps, the turrets.
    pub(super) fn replay(
        &self,
        scenario: &Scenario,
        budget: usize,
    ) -> Result<Replay<V>, SimulationError> {
        let world = &self.world;
        let steps = world.settings.steps;
        let steps32 = u32::try_from(steps).map_err(|_| SimulationError::TooManySteps(steps))?;
        let plan = scenario.plan::<V>();
        let groups: Vec<RecGroup> = world
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let gp = plan.map(|p| &p.groups[i]);
                let radius = gp.map_or(0.0, |p| p.radius);
                let colour =
                    g.colour.clone().unwrap_or_else(|| PALETTE[i % PALETTE.len()].to_owned());
                let mut group = RecGroup::new(g.name.clone(), colour, radius);
                group.vehicle = gp.and_then(|p| p.vehicle.as_ref()).map(vehicle_shape);
                group
            })
            .collect();
        let meta =
            Meta::new(world.settings.name.clone(), world.settings.seed, world.settings.dt, steps32)
                .with_description(&self.description);
        let n = self.agents;
        let mut recorder = Recorder::<V>::new(
            meta,
            V::recording_world(world),
            groups,
            self.numbering.agent_groups().to_vec(),
            RecordOptions::for_size(n, steps32, budget),
        )?;
        if let Some(sv) = &self.side_view {
            for (x0, x1, y) in sv.platforms() {
                recorder.add_wall(Vec2::new(x0, y), Vec2::new(x1, y));
            }
            for (name, points) in sv.arcs() {
                if let Ok(line) = steerkit::path::Polyline::open(points) {
                    recorder.add_path(PathShape::from_polyline(name, &line));
                }
            }
        }
        if !self.ballistics.is_empty() {
            let shapes = self
                .ballistics
                .shapes(|i| PALETTE[(world.groups.len() + i) % PALETTE.len()].to_owned());
            recorder.set_turrets(shapes);
        }
        let agent_groups = self.numbering.agent_groups();
        let mut ray_agents = vec![false; agent_groups.len()];
        let avoiding =
            (0..agent_groups.len()).filter(|&a| self.avoider(agent_groups[a] as usize).is_some());
        for a in avoiding.take(RAY_AGENTS) {
            ray_agents[a] = true;
        }
        Ok(Replay { recorder, ray_agents })
    }

    /// Keeps the frame at the current step: every agent in file order (NaN for one no longer
    /// in the crowd), its steering, target, neighbour radius and slot, and the frame's metrics
    /// (`min_gap`: the step's smallest gap between bodies).
    pub(super) fn record_frame(&mut self, min_gap: f32) -> Result<(), SimulationError> {
        let Some(mut replay) = self.replay.take() else { return Ok(()) };
        let result = self.write_frame(&mut replay, min_gap);
        self.replay = Some(replay);
        result
    }

    fn write_frame(&self, replay: &mut Replay<V>, min_gap: f32) -> Result<(), SimulationError> {
        let measures = self.measures.as_ref();
        let arrived =
            measures.filter(|m| m.plan.collects(Metric::Arrivals)).map(|m| m.events.arrived_total);
        let pairwise = measures.is_some_and(|m| m.pairwise);
        let crowd = &self.world.crowd;
        let n = replay.recorder.agent_count();
        let (p, v, o) = (crowd.positions(), crowd.velocities(), crowd.orientations());
        // storage order → file order
        let mut order = vec![usize::MAX; n];
        for (i, h) in crowd.handles().enumerate() {
            if let Some(a) = self.numbering.number(h) {
                order[a as usize] = i;
            }
        }
        let agents = order.iter().map(|&i| {
            if i == usize::MAX {
                (V::splat(f32::NAN), V::splat(f32::NAN), V::LOST)
            } else {
                (p[i], v[i], o[i])
            }
        });
        let step = u32::try_from(self.step).unwrap_or(u32::MAX);
        let mut frame = V::push_frame(&mut replay.recorder, step, agents)?;
        let debug = crowd.debug_info();
        let neighbour_radius = crowd.config().neighbour_radius;
        let agent_groups = self.numbering.agent_groups();
        let navigation = self.world.navigation.as_ref();
        let mut speed = 0.0f64;
        for (a, &i) in order.iter().enumerate() {
            if i == usize::MAX {
                continue;
            }
            let a32 = a as u32;
            speed += f64::from(v[i].length());
            // a jumper's recipe is inert: its motion comes from the side view, not a steering
            if !self.side_view.as_ref().is_some_and(|s| s.is_jumper(a32)) {
                frame.steering(a32, debug[i].steering.linear);
                if let Some(t) = debug[i].target {
                    frame.target(a32, t);
                }
            }
            frame.neighbour_radius(a32, neighbour_radius);
            let h = crowd.handle_at(i);
            if let Some(slot) = V::slot(crowd, h) {
                frame.slot(a32, slot);
            }
            if let Some(c) = crowd.controls(h) {
                frame.controls(a32, c.values());
            }
            // navigation is planar: a route's corners are 2D points on the ground
            if let Some(route) = navigation.and_then(|n| n.route(h)).filter(|_| frame.keeps(a32)) {
                frame.route(a32, route.ahead().iter().map(|c| V::lower(c.extend(0.0))));
            }
            if replay.ray_agents.get(a).copied().unwrap_or(false) && frame.keeps(a32) {
                let g = agent_groups[a] as usize;
                self.rays(g, h, |from, to, hit| frame.ray(a32, from, to, hit));
            }
        }
        frame.metric("mean speed", "m/s", if n > 0 { (speed / n as f64) as f32 } else { 0.0 });
        if pairwise {
            let gap = if min_gap.is_finite() { min_gap } else { f32::NAN };
            frame.metric("min separation", "m", gap);
        }
        if let Some(arrived) = arrived {
            frame.metric("arrived", "", arrived as f32);
        }
        Ok(())
    }
}

/// The replay's name for an event; `None` for agent contacts, which the replay does not list
/// (a dense crowd has them every step).
pub(super) fn event_kind(e: &CrowdEvent) -> Option<&'static str> {
    Some(match e {
        CrowdEvent::Arrived { .. } => "arrived",
        CrowdEvent::PathFinished { .. } => "path finished",
        CrowdEvent::Stuck { .. } => "stuck",
        CrowdEvent::Quarantined { .. } => "quarantined",
        CrowdEvent::ObstacleCollision { .. } => "obstacle contact",
        CrowdEvent::WallCrossing { .. } => "wall crossing refused",
        CrowdEvent::AgentCollision { .. } => return None,
    })
}

/// The body a replay draws for a group's vehicle.
fn vehicle_shape(v: &VehiclePlan) -> VehicleShape {
    use steerkit::motor::VehicleModel as M;
    let (model, wheelbase, max_steer, track_width) = match &v.motor.model {
        M::Car(c) => ("car", Some(c.params().wheelbase), Some(c.params().max_steer), None),
        M::Motorbike(b) => {
            let c = b.as_car().params();
            ("motorbike", Some(c.wheelbase), Some(c.max_steer), None)
        }
        M::Tank(t) => ("tank", None, None, Some(t.params().track_width)),
        M::Human(_) => ("human", None, None, None),
        M::Discrete(_) => ("discrete_car", None, None, None),
    };
    VehicleShape {
        model: model.to_owned(),
        length: v.length,
        width: v.width,
        wheelbase,
        max_steer,
        track_width,
    }
}
