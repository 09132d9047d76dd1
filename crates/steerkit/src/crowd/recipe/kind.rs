//! The one exhaustive table of what the crowd must know about each kind of recipe node.

use super::*;

/// What the crowd must know about a kind of recipe node. [`RecipeKind::info`] is the one
/// exhaustive table: a new kind does not compile until it answers every field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KindInfo {
    /// A combiner (blend, priority, running sum, dither) rather than a leaf.
    pub combiner: bool,
    /// Planar: a 3D crowd refuses a recipe holding it.
    pub planar: bool,
    /// Outputs a velocity and a rotation (set at commit), not accelerations: the whole recipe
    /// only.
    pub kinematic: bool,
    /// Reads the neighbours (the sums of the single neighbour pass).
    pub neighbours: bool,
    /// Reads the neighbours one by one (gathered into a list).
    pub neighbour_list: bool,
    /// Reads the crowd's static obstacles and walls.
    pub obstacles: bool,
    /// Keeps the agent's path parameter (follows a registered path).
    pub path: bool,
    /// Keeps the agent's wander target.
    pub wander: bool,
    /// Keeps the agent's obstacle-avoidance state (fan angle, committed side).
    pub avoidance: bool,
    /// Draws from the agent's generator.
    pub random: bool,
    /// Reads the agent's formation slot.
    pub slot: bool,
    /// Runs user code registered with the crowd; what it reads is the behaviour's own answer
    /// ([`CustomBehaviour::needs_neighbours`](crate::crowd::CustomBehaviour::needs_neighbours)).
    pub custom: bool,
}

impl KindInfo {
    /// A leaf that reads only the agent itself and other agents by handle.
    const LEAF: KindInfo = KindInfo {
        combiner: false,
        planar: false,
        kinematic: false,
        neighbours: false,
        neighbour_list: false,
        obstacles: false,
        path: false,
        wander: false,
        avoidance: false,
        random: false,
        slot: false,
        custom: false,
    };
    const COMBINER: KindInfo = KindInfo { combiner: true, ..Self::LEAF };
    const GROUP: KindInfo = KindInfo { neighbours: true, ..Self::LEAF };
    const GROUP_LIST: KindInfo = KindInfo { neighbour_list: true, ..Self::GROUP };
    const PATH: KindInfo = KindInfo { path: true, ..Self::LEAF };
    /// Reads the static world in 2D and 3D.
    const WORLD: KindInfo = KindInfo { obstacles: true, ..Self::LEAF };
    /// Reads the static world, 2D only.
    const PLANAR_WORLD: KindInfo = KindInfo { planar: true, ..Self::WORLD };
    const ORIENTATION: KindInfo = Self::LEAF;
    const KINEMATIC: KindInfo = KindInfo { kinematic: true, ..Self::LEAF };
}

impl RecipeKind {
    /// The kind's name in scenario files and error messages (`seek`, `obstacle_avoidance`).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Every kind, in declaration order.
    pub fn all() -> impl Iterator<Item = RecipeKind> {
        <RecipeKind as strum::IntoEnumIterator>::iter()
    }

    /// What the crowd must know about this kind: the one place every classification comes
    /// from.
    #[must_use]
    pub const fn info(self) -> KindInfo {
        use RecipeKind as K;
        match self {
            K::Seek | K::Flee | K::Arrive | K::Pursue | K::Evade | K::VelocityMatch => {
                KindInfo::LEAF
            }
            K::FleeHazards | K::Navigate => KindInfo::LEAF,
            K::Interpose | K::OffsetPursuit => KindInfo::LEAF,
            K::Wander => KindInfo { wander: true, random: true, ..KindInfo::LEAF },
            K::Separation | K::Cohesion | K::Alignment | K::MillingtonFlock => KindInfo::GROUP,
            K::BucklandFlock => KindInfo { wander: true, random: true, ..KindInfo::GROUP },
            K::CollisionAvoidance | K::ConeCheck => KindInfo::GROUP_LIST,
            K::FollowPath | K::DogOnAString | K::Reprojection | K::GrapplingHooks => KindInfo::PATH,
            K::Blend | K::Priority | K::RunningSum | K::Sequence => KindInfo::COMBINER,
            K::Dither => KindInfo { random: true, ..KindInfo::COMBINER },
            K::ObstacleAvoidance => KindInfo { avoidance: true, ..KindInfo::WORLD },
            K::RepelObstacle => KindInfo::WORLD,
            K::WallFeelers | K::DetectionBox | K::Hide => KindInfo::PLANAR_WORLD,
            K::LookWhereYoureGoing | K::Face | K::Align => KindInfo::ORIENTATION,
            K::Slot => KindInfo { slot: true, planar: true, ..KindInfo::ORIENTATION },
            K::KinematicSeek | K::KinematicArrive => KindInfo::KINEMATIC,
            K::KinematicWander => KindInfo { planar: true, random: true, ..KindInfo::KINEMATIC },
            K::Pipeline => KindInfo::PLANAR_WORLD,
            K::Custom => KindInfo { custom: true, ..KindInfo::LEAF },
        }
    }
}
