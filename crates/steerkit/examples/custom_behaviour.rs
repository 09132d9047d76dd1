//! A behaviour of the game's own in the crowd: "stay in the light".
//!
//! Lamps light discs of the world; an agent in the dark seeks the nearest lamp, one in the
//! light says nothing, and a wander blended in keeps everyone moving. The custom leaf composes
//! in a priority group like any built-in leaf and runs in the crowd's parallel step.
//!
//! ```sh
//! cargo run --release -p steerkit --example custom_behaviour
//! ```

use steerkit::combine::Epsilon;
use steerkit::crowd::{
    AgentContext, AgentSpec, Crowd2, CrowdConfig, CustomBehaviour, Group, Recipe, WorldBounds,
};
use steerkit::kinematic::{Limits, SteeringOutput};
use steerkit::steering::{Seek, WorldWander};
use steerkit::Vec2;

/// Seek the nearest lamp while outside every lit disc.
struct StayInTheLight {
    lamps: Vec<Vec2>,
    /// Radius of a lamp's light (m).
    light: f32,
}

impl CustomBehaviour for StayInTheLight {
    fn steer(&self, agent: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
        let p = agent.kinematic().position;
        let nearest = self
            .lamps
            .iter()
            .copied()
            .min_by(|a, b| a.distance_squared(p).total_cmp(&b.distance_squared(p)))?;
        if nearest.distance(p) <= self.light {
            return None;
        }
        agent.set_target(nearest);
        Seek::new().steer(agent.kinematic(), nearest, agent.limits())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lamps = vec![Vec2::new(-12.0, 0.0), Vec2::new(12.0, 6.0), Vec2::new(0.0, -12.0)];
    let light = 4.0;
    let config = CrowdConfig::new(3.0)
        .with_bounds(WorldBounds::Bounded { min: Vec2::splat(-25.0), max: Vec2::splat(25.0) })
        .with_seed(3);
    let mut crowd = Crowd2::new(config)?;
    let stay = crowd.add_behaviour(StayInTheLight { lamps: lamps.clone(), light });
    let recipe = Recipe::Priority {
        groups: vec![Recipe::Custom(stay), Recipe::Wander(WorldWander::new(1.0, 2.0, 4.0)?)],
        epsilon: Epsilon::new(1e-3)?,
    };
    let g = crowd.add_group(Group::new(recipe))?;
    let limits = Limits::new(3.0, 8.0, 4.0, 20.0)?;
    for i in 0..300 {
        let p = Vec2::new((i % 20) as f32 * 2.0 - 19.0, (i / 20) as f32 * 2.0 - 15.0);
        crowd.spawn(AgentSpec::new(p, 0.3, limits, g))?;
    }
    let lit = |crowd: &Crowd2| {
        crowd.positions().iter().filter(|p| lamps.iter().any(|l| l.distance(**p) <= light)).count()
    };
    println!("in the light at the start: {} of {}", lit(&crowd), crowd.len());
    for _ in 0..600 {
        crowd.step(1.0 / 30.0)?;
    }
    println!("in the light after 20 s:   {} of {}", lit(&crowd), crowd.len());
    Ok(())
}
