//! Fast paths for the recipes most groups use: a flat blend of group leaves and a lone
//! direct leaf, evaluated without walking the tree.

use super::evaluate::{alignment, cohesion};
use super::*;
use crate::crowd::CrowdVector;
use crate::kinematic::{Kinematic, Limits, SteeringOutput};
use crate::math::Vector;
use crate::steering::{Alignment, Arrive, Cohesion, Flee, Seek, Separation};

/// A leaf of a [`FlatBlend`], with its separation sum resolved once per group.
#[derive(Clone, Copy, Debug)]
enum FlatLeaf {
    /// The separation and the index of its running sum in `Summary::separation`.
    Separation(Separation, usize),
    Cohesion(Cohesion),
    Alignment(Alignment),
}

/// The common flocking shape, `Blend` of separation, cohesion and alignment leaves, flattened
/// when the group is added: evaluated straight from the neighbour sums, without walking the
/// recipe tree or searching the separation sums per agent. The arithmetic and its order are
/// those of [`evaluate`] and [`blend`], so the result is bit-identical.
///
/// [`blend`]: crate::combine::blend
/// [`evaluate`]: fn@evaluate
#[derive(Clone, Debug)]
pub(crate) struct FlatBlend {
    members: Vec<(f32, FlatLeaf)>,
    /// The members in the lane form (`blend::steer_eight`), when every leaf has one.
    lanes: Option<Vec<(f32, LaneLeaf)>>,
}

/// A flat blend's leaf that eight agents evaluate at once in lanes (`blend::steer_eight`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum LaneLeaf {
    /// A summing separation and the index of its running sum.
    Separation(usize),
    /// Cohesion by full-acceleration seek.
    Cohesion,
    /// Heading alignment with its response time (s).
    Alignment(f32),
}

impl FlatBlend {
    /// The flat form of `recipe`, when it has the shape.
    pub(crate) fn of<V: Vector>(recipe: &Recipe<V>, plan: &Plan) -> Option<Self> {
        let Recipe::Blend(members) = recipe else {
            return None;
        };
        let mut flat = FlatBlend { members: Vec::with_capacity(members.len()), lanes: None };
        for (w, r) in members {
            let leaf = match r {
                Recipe::Separation(s) => {
                    FlatLeaf::Separation(*s, plan.separations.iter().position(|x| x == s)?)
                }
                Recipe::Cohesion(c) => FlatLeaf::Cohesion(*c),
                Recipe::Alignment(a) => FlatLeaf::Alignment(*a),
                _ => return None,
            };
            flat.members.push((*w, leaf));
        }
        let lane = |leaf: &FlatLeaf| match *leaf {
            FlatLeaf::Separation(s, k) => s.sums().then_some(LaneLeaf::Separation(k)),
            FlatLeaf::Cohesion(Cohesion::Seek(seek)) => {
                seek.full_acceleration().then_some(LaneLeaf::Cohesion)
            }
            FlatLeaf::Alignment(Alignment::Heading { time_to_target }) => {
                Some(LaneLeaf::Alignment(time_to_target))
            }
            _ => None,
        };
        flat.lanes = flat.members.iter().map(|(w, leaf)| Some((*w, lane(leaf)?))).collect();
        Some(flat)
    }

    /// The members in the lane form, when every leaf has one.
    pub(crate) fn lanes(&self) -> Option<&[(f32, LaneLeaf)]> {
        self.lanes.as_deref()
    }

    /// The blended steering (what [`evaluate`] returns for the recipe, never `None`).
    ///
    /// [`evaluate`]: fn@evaluate
    #[inline]
    fn evaluate<V: CrowdVector>(
        &self,
        me: &Kinematic<V>,
        limits: &Limits,
        summary: &Summary<V>,
        notes: &mut Notes<V>,
    ) -> SteeringOutput<V> {
        let mut sum = SteeringOutput::<V>::ZERO;
        for (w, leaf) in &self.members {
            let s = match leaf {
                FlatLeaf::Separation(s, k) => s.finish(&summary.separation[*k], limits),
                FlatLeaf::Cohesion(c) => cohesion(c, me, limits, summary, notes),
                FlatLeaf::Alignment(a) => alignment(a, me, limits, summary),
            };
            sum = sum + s.unwrap_or_default() * *w;
        }
        sum.clamped(limits.max_acceleration(), limits.max_angular_acceleration())
    }
}

/// Seek, flee or arrive: the leaves a [`Direct`] recipe may be alone.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Toward {
    Seek(Seek),
    Flee(Flee),
    Arrive(Arrive),
}

/// A recipe the step evaluates from the agent, its limits, its goal and its neighbour sums
/// alone, without building the whole context or walking the tree: a [`FlatBlend`], or a single
/// seek, flee or arrive for a fixed point (`Some`) or the agent's goal (`None`), the usual
/// preferred velocity under ORCA. Same arithmetic as [`evaluate`], so bit-identical results.
///
/// [`evaluate`]: fn@evaluate
#[derive(Clone, Debug)]
pub(crate) enum Direct<V: Vector> {
    Blend(FlatBlend),
    Toward(Toward, Option<V>),
}

impl<V: CrowdVector> Direct<V> {
    /// The direct form of `recipe`, when it has one.
    pub(crate) fn of(recipe: &Recipe<V>, plan: &Plan) -> Option<Self> {
        let point = |t: &Target<V>| match t {
            Target::Point(p) => Some(Some(*p)),
            Target::Goal => Some(None),
            Target::Agent(_) => None,
        };
        Some(match recipe {
            Recipe::Seek { target, seek } => Direct::Toward(Toward::Seek(*seek), point(target)?),
            Recipe::Flee { target, flee } => Direct::Toward(Toward::Flee(*flee), point(target)?),
            Recipe::Arrive { target, arrive } => {
                Direct::Toward(Toward::Arrive(*arrive), point(target)?)
            }
            _ => Direct::Blend(FlatBlend::of(recipe, plan)?),
        })
    }

    /// The steering (what [`evaluate`] returns for the recipe, zero for `None`).
    ///
    /// [`evaluate`]: fn@evaluate
    #[inline]
    pub(crate) fn evaluate(
        &self,
        me: &Kinematic<V>,
        limits: &Limits,
        goal: Option<V>,
        summary: &Summary<V>,
        notes: &mut Notes<V>,
    ) -> SteeringOutput<V> {
        match self {
            Direct::Blend(flat) => flat.evaluate(me, limits, summary, notes),
            Direct::Toward(leaf, point) => {
                let Some(p) = point.or(goal) else {
                    return SteeringOutput::default();
                };
                notes.target = Some(p);
                match leaf {
                    Toward::Seek(seek) => seek.steer(me, p, limits),
                    Toward::Flee(flee) => flee.steer(me, p, limits),
                    Toward::Arrive(arrive) => arrive.steer(me, p, limits),
                }
                .unwrap_or_default()
            }
        }
    }
}
