//! Recording a run: [`RecordOptions`] (frame stride, overlays kept, event cap), the
//! [`Recorder`] that collects frames, and the [`FrameWriter`] that adds a frame's overlays and
//! metric values.

use super::{
    invalid, Event, Frame, Group, Meta, MetricSeries, Overlays, PathShape, Recording,
    RecordingError, Shot, TurretShape, WallShape, World, FORMAT, MAX_SHOTS, VERSION,
};
use steerkit::kinematic::{Kinematic, Kinematic3};
use steerkit::math::Vector;
use steerkit::{Quat, Vec2, Vec3};

/// Appends a point's or vector's components to `out` (2 or 3 values, as the recording's
/// `dims`).
#[inline]
fn push<V: Vector>(v: V, out: &mut Vec<f32>) {
    for i in 0..V::DIM {
        out.push(v[i]);
    }
}

/// Which agents' debug overlays are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OverlayCapture {
    /// None: overlay calls are ignored.
    Off,
    /// Every agent's.
    #[default]
    All,
    /// Only these agents'.
    Only(Vec<u32>),
}

/// How much a [`Recorder`] keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordOptions {
    /// Keep a frame every `every` steps (and the last); ≥ 1.
    pub every: u32,
    /// Whose overlays to keep.
    pub overlays: OverlayCapture,
    /// Keep at most this many events; later ones are counted in `events_dropped`.
    pub max_events: usize,
}

impl Default for RecordOptions {
    /// Every step, all overlays, up to 100 000 events.
    fn default() -> Self {
        RecordOptions { every: 1, overlays: OverlayCapture::All, max_events: 100_000 }
    }
}

impl RecordOptions {
    /// Options that keep a recording of `agents` × `steps` to about `budget` agent-frames: one
    /// frame in `ceil(agents · (steps + 1) / budget)`, and overlays for all agents only when
    /// there are at most 200 of them (otherwise the first 50).
    #[must_use]
    pub fn for_size(agents: usize, steps: u32, budget: usize) -> Self {
        let every = stride_for(agents, steps, budget);
        let overlays = if agents <= 200 {
            OverlayCapture::All
        } else {
            OverlayCapture::Only((0..50).collect())
        };
        RecordOptions { every, overlays, ..RecordOptions::default() }
    }
}

/// Steps between kept frames so that `agents × kept frames` of a run of `steps` steps (frames
/// `0..=steps`) stays within about `budget`: `ceil(agents · (steps + 1) / budget)`, at least 1.
#[must_use]
pub fn stride_for(agents: usize, steps: u32, budget: usize) -> u32 {
    let total = agents.saturating_mul(steps as usize + 1);
    total.div_ceil(budget.max(1)).clamp(1, u32::MAX as usize) as u32
}

/// Collects a [`Recording`] while a simulation runs.
///
/// ```
/// use steerkit::kinematic::Kinematic;
/// use steerkit::Vec2;
/// use steerkit_scenario::recording::{Group, Meta, RecordOptions, Recorder, World};
/// let meta = Meta::new("demo", 7, 1.0 / 60.0, 2);
/// let groups = vec![Group::new("walkers", "#0072b2", 0.3)];
/// let mut rec =
///     Recorder::<Vec2>::new(meta, World::default(), groups, vec![0; 2], RecordOptions::default())?;
/// let mut agents = [Kinematic::at_rest(Vec2::ZERO, 0.0), Kinematic::at_rest(Vec2::X, 0.0)];
/// for step in 0..=2 {
///     if rec.records(step) {
///         let mut frame = rec.push_kinematics(step, &agents)?;
///         frame.target(0, Vec2::new(5.0, 0.0));
///         frame.metric("mean speed", "m/s", 0.0);
///     }
///     agents[0].position.x += 0.1;
/// }
/// let recording = rec.finish();
/// assert_eq!(recording.frames.len(), 3);
/// # Ok::<(), steerkit_scenario::recording::RecordingError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorder<V: Vector = Vec2> {
    recording: Recording,
    overlay_mask: Vec<bool>,
    max_events: usize,
    _space: core::marker::PhantomData<V>,
}

pub(super) fn check_colour(field: &str, colour: &str) -> Result<(), RecordingError> {
    let hex = colour.strip_prefix('#').unwrap_or("");
    if (hex.len() == 6 || hex.len() == 3) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(invalid(field, format!("{colour:?} is not a #rrggbb colour")))
    }
}

impl<V: Vector> Recorder<V> {
    /// Starts a recording of `agent_groups.len()` agents; `meta.dims` and `meta.every` are set
    /// from `V` and the options.
    ///
    /// # Errors
    /// If `dt` is not finite and positive, `every` is 0, a group's colour is not `#rrggbb` or its
    /// radius is negative or not finite, or an agent names a group that does not exist.
    pub fn new(
        mut meta: Meta,
        world: World,
        groups: Vec<Group>,
        agent_groups: Vec<u32>,
        options: RecordOptions,
    ) -> Result<Self, RecordingError> {
        if options.every == 0 {
            return Err(invalid("every", "must be at least 1"));
        }
        meta.dims = V::DIM as u8;
        meta.every = options.every;
        let n = agent_groups.len();
        let mut overlay_mask = vec![false; n];
        match &options.overlays {
            OverlayCapture::Off => {}
            OverlayCapture::All => overlay_mask.fill(true),
            OverlayCapture::Only(list) => {
                for &a in list {
                    if let Some(m) = overlay_mask.get_mut(a as usize) {
                        *m = true;
                    }
                }
            }
        }
        let recording = Recording {
            format: FORMAT.to_owned(),
            version: VERSION,
            meta,
            world,
            groups,
            agent_groups,
            frames: Vec::new(),
            events: Vec::new(),
            events_dropped: 0,
            metrics: Vec::new(),
            shots: Vec::new(),
            shots_dropped: 0,
        };
        recording.validate_header()?;
        Ok(Recorder {
            recording,
            overlay_mask,
            max_events: options.max_events,
            _space: Default::default(),
        })
    }

    /// The number of agents.
    #[must_use]
    pub fn agent_count(&self) -> usize {
        self.recording.agent_groups.len()
    }

    /// True when a frame should be kept at `step`: every `every` steps from 0, and the last.
    #[must_use]
    pub fn records(&self, step: u32) -> bool {
        step % self.recording.meta.every == 0 || step == self.recording.meta.steps
    }

    /// Adds the frame at `step` from `(position, velocity, heading)` per agent, in agent order,
    /// and returns a writer for its overlays and metrics.
    ///
    /// # Errors
    /// If `step` is not after the previous frame's, or the number of agents differs from
    /// [`agent_count`](Self::agent_count).
    pub fn push_frame(
        &mut self,
        step: u32,
        agents: impl IntoIterator<Item = (V, V, f32)>,
    ) -> Result<FrameWriter<'_, V>, RecordingError> {
        if let Some(last) = self.recording.frames.last() {
            if step <= last.step {
                return Err(invalid(
                    "step",
                    format!("{step} is not after the previous frame's step {}", last.step),
                ));
            }
        }
        let n = self.agent_count();
        let d = V::DIM;
        let mut frame = Frame {
            step,
            position: Vec::with_capacity(n * d),
            velocity: Vec::with_capacity(n * d),
            orientation: Vec::with_capacity(n),
            attitude: Vec::new(),
            overlays: Overlays::default(),
        };
        for (p, v, heading) in agents {
            push(p, &mut frame.position);
            push(v, &mut frame.velocity);
            frame.orientation.push(heading);
        }
        if frame.orientation.len() != n {
            return Err(invalid(
                "agents",
                format!(
                    "frame at step {step} has {} agents, expected {n}",
                    frame.orientation.len()
                ),
            ));
        }
        self.recording.frames.push(frame);
        for series in &mut self.recording.metrics {
            series.values.push(f32::NAN);
        }
        Ok(self.writer())
    }

    fn writer(&mut self) -> FrameWriter<'_, V> {
        let Recording { frames, metrics, .. } = &mut self.recording;
        let frame_count = frames.len();
        FrameWriter {
            frame: frames.last_mut().expect("a frame was just pushed"),
            metrics,
            frame_count,
            mask: &self.overlay_mask,
            _space: Default::default(),
        }
    }

    /// Records an event (at any step, recorded or not).
    pub fn event(&mut self, step: u32, kind: impl Into<String>, agent: Option<u32>) {
        if self.recording.events.len() < self.max_events {
            self.recording.events.push(Event { step, kind: kind.into(), agent });
        } else {
            self.recording.events_dropped += 1;
        }
    }

    /// The recording so far.
    #[must_use]
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Adds a wall segment to the world (a side view's platform tops).
    pub fn add_wall(&mut self, a: Vec2, b: Vec2) {
        self.recording.world.walls.push(WallShape { a: a.into(), b: b.into() });
    }

    /// Adds a path to the world (drawn like the scenario's paths).
    pub fn add_path(&mut self, path: PathShape) {
        self.recording.world.add_path(path);
    }

    /// Sets the world's turrets.
    pub fn set_turrets(&mut self, turrets: Vec<TurretShape>) {
        self.recording.world.turrets = turrets;
    }

    /// Keeps a finished shot (up to [`MAX_SHOTS`]; the others are counted in `shots_dropped`).
    pub fn shot(&mut self, shot: Shot) {
        if self.recording.shots.len() < MAX_SHOTS {
            self.recording.shots.push(shot);
        } else {
            self.recording.shots_dropped += 1;
        }
    }

    /// Ends the recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        self.recording
    }
}

impl Recorder<Vec2> {
    /// [`push_frame`](Self::push_frame) from 2D kinematics.
    ///
    /// # Errors
    /// As [`push_frame`](Self::push_frame).
    pub fn push_kinematics(
        &mut self,
        step: u32,
        agents: &[Kinematic],
    ) -> Result<FrameWriter<'_, Vec2>, RecordingError> {
        self.push_frame(step, agents.iter().map(|k| (k.position, k.velocity, k.orientation)))
    }
}

impl Recorder<Vec3> {
    /// [`push_frame`](Self::push_frame) from 3D kinematics; headings are ground headings, and
    /// the frame's `attitude` holds each body's orientation quaternion (NaN for an agent whose
    /// position or orientation is not finite: one that left the simulation).
    ///
    /// # Errors
    /// As [`push_frame`](Self::push_frame).
    pub fn push_kinematics3(
        &mut self,
        step: u32,
        agents: &[Kinematic3],
    ) -> Result<FrameWriter<'_, Vec3>, RecordingError> {
        self.push_frame(
            step,
            agents.iter().map(|k| {
                (k.position, k.velocity, steerkit::math::ground::quat_to_heading(k.orientation))
            }),
        )?;
        let frame = self.recording.frames.last_mut().expect("a frame was just pushed");
        frame.attitude.reserve_exact(4 * agents.len());
        for k in agents {
            let q = if k.position.is_finite() && k.orientation.is_finite() {
                k.orientation
            } else {
                Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN)
            };
            frame.attitude.extend_from_slice(&q.to_array());
        }
        Ok(self.writer())
    }
}

/// Adds overlays and metric values to the frame just pushed. Overlays of agents not chosen by
/// [`OverlayCapture`] (or out of range) are ignored.
pub struct FrameWriter<'a, V: Vector> {
    frame: &'a mut Frame,
    metrics: &'a mut Vec<MetricSeries>,
    frame_count: usize,
    mask: &'a [bool],
    _space: core::marker::PhantomData<V>,
}

impl<V: Vector> FrameWriter<'_, V> {
    /// True when the frame keeps `agent`'s overlays (chosen by [`OverlayCapture`]): a caller
    /// can skip computing the others.
    #[inline]
    #[must_use]
    pub fn keeps(&self, agent: u32) -> bool {
        self.mask.get(agent as usize).copied().unwrap_or(false)
    }

    /// The steering (acceleration, m/s²) asked for by `agent`.
    pub fn steering(&mut self, agent: u32, acceleration: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.steering;
            l.agent.push(agent);
            push(acceleration, &mut l.vector);
        }
    }

    /// The point `agent` is heading for (seek/arrive target, path rabbit).
    pub fn target(&mut self, agent: u32, point: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.target;
            l.agent.push(agent);
            push(point, &mut l.point);
        }
    }

    /// A wander circle and its target.
    pub fn wander(&mut self, agent: u32, center: V, radius: f32, target: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.wander;
            l.agent.push(agent);
            push(center, &mut l.center);
            l.radius.push(radius);
            push(target, &mut l.target);
        }
    }

    /// A feeler or ray `from → to`; `hit` is the fraction along it of the first hit, if any.
    pub fn ray(&mut self, agent: u32, from: V, to: V, hit: Option<f32>) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.rays;
            l.agent.push(agent);
            push(from, &mut l.from);
            push(to, &mut l.to);
            l.hit.push(hit.map_or(-1.0, |t| t.clamp(0.0, 1.0)));
        }
    }

    /// A detection box given by its four corners in order.
    pub fn detection_box(&mut self, agent: u32, corners: [V; 4]) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.boxes;
            l.agent.push(agent);
            for c in corners {
                push(c, &mut l.corners);
            }
        }
    }

    /// The radius within which `agent` looks for neighbours.
    pub fn neighbour_radius(&mut self, agent: u32, radius: f32) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.neighbour_radius;
            l.agent.push(agent);
            l.radius.push(radius);
        }
    }

    /// The controls `agent`'s vehicle used this step (three values, see
    /// [`ControlLayer`](super::ControlLayer)).
    pub fn controls(&mut self, agent: u32, values: [f32; 3]) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.controls;
            l.agent.push(agent);
            l.value.extend_from_slice(&values);
        }
    }

    /// `agent`'s navigation route ahead, from its next corner to its goal.
    pub fn route(&mut self, agent: u32, points: impl IntoIterator<Item = V>) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.routes;
            let before = l.point.len();
            for p in points {
                push(p, &mut l.point);
            }
            let count = (l.point.len() - before) / V::DIM.max(1);
            l.agent.push(agent);
            l.count.push(u32::try_from(count).unwrap_or(u32::MAX));
        }
    }

    /// The formation slot assigned to `agent`.
    pub fn slot(&mut self, agent: u32, point: V) {
        if self.keeps(agent) {
            let l = &mut self.frame.overlays.slots;
            l.agent.push(agent);
            push(point, &mut l.point);
        }
    }

    /// This frame's value of a metric; a new series is filled with NaN for earlier frames.
    pub fn metric(&mut self, name: &str, unit: &str, value: f32) {
        let series = match self.metrics.iter().position(|m| m.name == name) {
            Some(i) => &mut self.metrics[i],
            None => {
                self.metrics.push(MetricSeries {
                    name: name.to_owned(),
                    unit: unit.to_owned(),
                    values: vec![f32::NAN; self.frame_count],
                });
                self.metrics.last_mut().expect("just pushed")
            }
        };
        if let Some(last) = series.values.last_mut() {
            *last = value;
        }
    }
}
