//! Checking a recipe tree before a group takes it: each leaf's parameters, nested kinematic
//! leaves, path references.

use super::*;
use crate::error::{finite, non_negative, ParamError};
use crate::math::Vector;

impl<V: Vector> Recipe<V> {
    /// A kinematic leaf inside a combiner: its output is a velocity, which cannot be summed
    /// with accelerations.
    fn nested_kinematic(&self) -> Result<(), ParamError> {
        let mut kind = None;
        self.for_each_leaf(&mut |r| kind = kind.or(r.kinematic_kind()));
        match kind {
            Some(kind) => Err(ParamError::Invalid {
                name: kind,
                expected:
                    "the whole recipe (a kinematic leaf sets the velocity; it cannot be combined)",
            }),
            None => Ok(()),
        }
    }

    /// Checks what the constructors of the leaves cannot: finite weights, wander parameters,
    /// path ids below `paths`, finite offsets, orientations and targets, flock weights, dither
    /// probabilities in [0, 1]. (Whether the space supports a leaf is checked by the crowd:
    /// see [`planar_leaf`](Self::planar_leaf).)
    ///
    /// # Errors
    /// [`ParamError`] naming the field, prefixed by the leaf's kind for the newer leaves
    /// (`weight`, `wander_radius`, `path`, `grappling_hooks.path`, `dither.probability`,
    /// `offset_pursuit.offset`, `align.orientation`, `millington_flock.weights.cohesion`, ...).
    pub fn validate(&self, paths: usize) -> Result<(), ParamError> {
        match self {
            Recipe::KinematicWander { rate } => {
                non_negative("kinematic_wander.rate", *rate)?;
            }
            Recipe::FleeHazards { margin, .. } => {
                non_negative("flee_hazards.margin", *margin)?;
            }
            Recipe::Pipeline { goal, bounds, cell_size, clearance, margin, .. } => {
                pipeline(goal, bounds, *cell_size, *clearance, *margin)?;
            }
            Recipe::KinematicSeek { target: Target::Point(p) }
            | Recipe::KinematicArrive { target: Target::Point(p), .. }
                if !p.is_finite() =>
            {
                return Err(ParamError::Invalid { name: "target", expected: "a finite point" });
            }
            Recipe::FollowPath { path, .. }
            | Recipe::DogOnAString { path, .. }
            | Recipe::Reprojection { path, .. }
            | Recipe::GrapplingHooks { path, .. }
                if path.0 as usize >= paths =>
            {
                return Err(ParamError::Count {
                    name: self.path_field(),
                    count: path.0 as usize,
                    expected: "the id of a registered path",
                });
            }
            Recipe::OffsetPursuit { pursuit, .. } if !pursuit.offset.is_finite() => {
                return Err(ParamError::Invalid {
                    name: "offset_pursuit.offset",
                    expected: "a finite vector",
                });
            }
            Recipe::Align { orientation, .. } => {
                finite("align.orientation", *orientation)?;
            }
            Recipe::Face { target: Target::Point(p), .. } if !p.is_finite() => {
                return Err(ParamError::Invalid {
                    name: "face.target",
                    expected: "a finite point",
                });
            }
            Recipe::MillingtonFlock(f) => {
                finite("millington_flock.weights.separation", f.weights.separation)?;
                finite("millington_flock.weights.alignment", f.weights.alignment)?;
                finite("millington_flock.weights.cohesion", f.weights.cohesion)?;
            }
            Recipe::BucklandFlock(f) => {
                finite("buckland_flock.weights.separation", f.weights.separation)?;
                finite("buckland_flock.weights.alignment", f.weights.alignment)?;
                finite("buckland_flock.weights.cohesion", f.weights.cohesion)?;
                finite("buckland_flock.weights.wander", f.weights.wander)?;
            }
            Recipe::Dither { members, .. } => {
                self.nested_kinematic()?;
                dither(members, paths)?;
            }
            Recipe::VelocityMatch { velocity, .. } if !velocity.is_finite() => {
                return Err(ParamError::Invalid { name: "velocity", expected: "a finite vector" });
            }
            Recipe::Seek { target: Target::Point(p), .. }
            | Recipe::Flee { target: Target::Point(p), .. }
            | Recipe::Arrive { target: Target::Point(p), .. }
                if !p.is_finite() =>
            {
                return Err(ParamError::Invalid { name: "target", expected: "a finite point" });
            }
            Recipe::Blend(members) | Recipe::RunningSum(members) => {
                self.nested_kinematic()?;
                for (w, r) in members {
                    finite("weight", *w)?;
                    r.validate(paths)?;
                }
            }
            Recipe::Priority { groups, .. } => {
                self.nested_kinematic()?;
                for r in groups {
                    r.validate(paths)?;
                }
            }
            Recipe::Sequence { first, then } => {
                self.nested_kinematic()?;
                sequence(first, then, paths)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The field an out-of-range path id is reported under, naming the leaf's kind.
    fn path_field(&self) -> &'static str {
        match self {
            Recipe::DogOnAString { .. } => "dog_on_a_string.path",
            Recipe::Reprojection { .. } => "reprojection.path",
            Recipe::GrapplingHooks { .. } => "grappling_hooks.path",
            _ => "path",
        }
    }
}

/// The pipeline leaf's goal, planning grid and margin.
fn pipeline<V: Vector>(
    goal: &Target<V>,
    bounds: &Aabb,
    cell_size: f32,
    clearance: f32,
    margin: f32,
) -> Result<(), ParamError> {
    if let Target::Point(p) = goal {
        if !p.is_finite() {
            return Err(ParamError::Invalid { name: "pipeline.goal", expected: "a finite point" });
        }
    }
    crate::error::positive("pipeline.cell_size", cell_size)?;
    non_negative("pipeline.clearance", clearance)?;
    finite("pipeline.margin", margin)?;
    if margin <= 1.0 {
        return Err(ParamError::OutOfRange {
            name: "pipeline.margin",
            value: margin,
            range: "above 1",
        });
    }
    if !(bounds.min.is_finite() && bounds.max.is_finite())
        || bounds.max.x <= bounds.min.x
        || bounds.max.y <= bounds.min.y
    {
        return Err(ParamError::OutOfRange {
            name: "pipeline.bounds",
            value: bounds.max.x - bounds.min.x,
            range: "finite, max above min on both axes",
        });
    }
    let cells = ((bounds.max - bounds.min) / cell_size).ceil();
    if cells.x * cells.y > 4.0e6 {
        return Err(ParamError::OutOfRange {
            name: "pipeline.cell_size",
            value: cell_size,
            range: "at most 4 million cells over the bounds",
        });
    }
    Ok(())
}

/// A dither's members: finite weights, probabilities in [0, 1], valid recipes.
fn dither<V: Vector>(members: &[(f32, f32, Recipe<V>)], paths: usize) -> Result<(), ParamError> {
    for (w, p, r) in members {
        finite("dither.weight", *w)?;
        non_negative("dither.probability", *p)?;
        if *p > 1.0 {
            return Err(ParamError::OutOfRange {
                name: "dither.probability",
                value: *p,
                range: "in [0, 1]",
            });
        }
        r.validate(paths)?;
    }
    Ok(())
}

/// A sequence's stages: the first holds a path leaf (the route it finishes), the second none.
fn sequence<V: Vector>(
    first: &Recipe<V>,
    then: &Recipe<V>,
    paths: usize,
) -> Result<(), ParamError> {
    first.validate(paths)?;
    then.validate(paths)?;
    if !first.any_leaf(|i| i.path) {
        return Err(ParamError::Invalid {
            name: "sequence.first",
            expected: "a recipe holding a path leaf (the route the stage finishes)",
        });
    }
    if then.any_leaf(|i| i.path) {
        return Err(ParamError::Invalid {
            name: "sequence.then",
            expected: "a recipe without a path leaf (the agent's path is finished \
                           by the time it runs)",
        });
    }
    Ok(())
}
