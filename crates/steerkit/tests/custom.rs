//! Behaviours of the user's own in the crowd: registered once, named by recipes, composed with
//! built-in leaves, deterministic at any thread count.

use steerkit::crowd::{
    AgentContext, AgentSpec, BehaviourId, Crowd2, CrowdConfig, CrowdError, CustomBehaviour, Group,
    Recipe, Target, WorldBounds,
};
use steerkit::kinematic::{Limits, SteeringOutput};
use steerkit::steering::{Arrive, Falloff, Separation};
use steerkit::{ParamError, Vec2};

/// Flee a fire at a fixed point while within `reach` m of it, at full acceleration.
struct FleeFire {
    at: Vec2,
    reach: f32,
}

impl CustomBehaviour for FleeFire {
    fn steer(&self, agent: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
        let away = agent.kinematic().position - self.at;
        if away.length() >= self.reach {
            return None;
        }
        agent.set_target(self.at);
        Some(SteeringOutput::linear(away.normalize_or(Vec2::X) * agent.limits().max_acceleration()))
    }
}

/// A random kick from the agent's own generator plus a push from each neighbour within 1 m:
/// exercises the generator and the neighbour list.
struct Jostle;

impl CustomBehaviour for Jostle {
    fn steer(&self, agent: &mut AgentContext<'_, '_>) -> Option<SteeringOutput> {
        let me = agent.kinematic().position;
        let mut push = Vec2::ZERO;
        for n in agent.neighbours() {
            let d = me - n.position;
            if d.length_squared() < 1.0 {
                push += d.normalize_or_zero();
            }
        }
        let kick = Vec2::new(agent.rng().clamped(), agent.rng().clamped());
        Some(SteeringOutput::linear(push * 2.0 + kick))
    }

    fn needs_neighbours(&self) -> bool {
        true
    }
}

fn limits() -> Limits {
    Limits::new(3.0, 6.0, 4.0, 20.0).unwrap()
}

#[test]
fn a_custom_leaf_in_a_priority_group_flees_the_fire_then_arrives_at_the_goal() {
    let mut crowd = Crowd2::new(CrowdConfig::new(2.0)).unwrap();
    let fire = crowd.add_behaviour(FleeFire { at: Vec2::ZERO, reach: 4.0 });
    let arrive = Arrive::new(0.1, 2.0, 0.2).unwrap();
    let recipe = Recipe::Priority {
        groups: vec![Recipe::Custom(fire), Recipe::Arrive { target: Target::Goal, arrive }],
        epsilon: steerkit::combine::Epsilon::new(1e-3).unwrap(),
    };
    let g = crowd.add_group(Group::new(recipe)).unwrap();
    // the goal lies on the far side of the fire: the agent must skirt the 4 m disc
    let mut spec = AgentSpec::new(Vec2::new(-1.0, 0.5), 0.3, limits(), g);
    spec.goal = Some(Vec2::new(8.0, 0.0));
    let h = crowd.spawn(spec).unwrap();
    let first = {
        crowd.step(0.05).unwrap();
        crowd.debug(h).unwrap()
    };
    // inside the fire's reach, the custom leaf wins: straight away from the fire at 6 m/s²
    let away = Vec2::new(-1.0, 0.5).normalize();
    assert!((first.steering.linear - away * 6.0).length() < 1e-5, "{:?}", first.steering);
    assert_eq!(first.target, Some(Vec2::ZERO), "the custom leaf's target is recorded");
    for _ in 0..400 {
        crowd.step(0.05).unwrap();
    }
    let end = crowd.kinematic(h).unwrap();
    // the arrive pulls it back toward the fire's edge on the goal's side and no further: the
    // agent settles where the two balance, never inside 3.5 m of the fire
    assert!(end.position.length() > 3.5, "ended {:?} inside the fire's reach", end.position);
}

#[test]
fn custom_leaves_blend_with_built_in_ones_and_are_bit_identical_at_any_thread_count() {
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
            let config = CrowdConfig::new(1.5)
                .with_bounds(WorldBounds::Toroidal {
                    min: Vec2::splat(-20.0),
                    max: Vec2::splat(20.0),
                })
                .with_seed(11);
            let mut crowd = Crowd2::new(config).unwrap();
            let jostle = crowd.add_behaviour(Jostle);
            let separation = Separation::new(1.0, Falloff::Linear).unwrap();
            let recipe = Recipe::Blend(vec![
                (1.0, Recipe::Custom(jostle)),
                (1.0, Recipe::Separation(separation)),
            ]);
            let g = crowd.add_group(Group::new(recipe)).unwrap();
            for i in 0..1500 {
                let p = Vec2::new((i % 40) as f32 - 19.5, (i / 40) as f32 - 19.5);
                crowd.spawn(AgentSpec::new(p, 0.2, limits(), g)).unwrap();
            }
            for _ in 0..100 {
                crowd.step(1.0 / 30.0).unwrap();
            }
            let mut state: Vec<_> = crowd
                .handles()
                .map(|h| (h.index, crowd.kinematic(h).unwrap().position.to_array()))
                .collect();
            state.sort_by_key(|s| s.0);
            state
        })
    };
    let one = run(1);
    // agents moved, and not all the same way: the kicks come from each agent's generator
    let moved = one.iter().filter(|(i, p)| {
        let start = Vec2::new((*i % 40) as f32 - 19.5, (*i / 40) as f32 - 19.5);
        (Vec2::from(*p) - start).length() > 0.05
    });
    assert!(moved.count() > 1400);
    assert_eq!(run(2), one, "2 threads differ from 1");
    assert_eq!(run(4), one, "4 threads differ from 1");
}

#[test]
fn a_recipe_naming_an_unregistered_behaviour_is_refused_by_name() {
    let mut crowd = Crowd2::new(CrowdConfig::new(2.0)).unwrap();
    let e = crowd.add_group(Group::new(Recipe::Custom(BehaviourId(0)))).unwrap_err();
    assert!(matches!(e, CrowdError::Param(ParamError::Invalid { name: "custom", .. })), "{e:?}");
    assert!(e.to_string().contains("custom"), "{e}");
    // once registered, the same id is accepted
    let id = crowd.add_behaviour(FleeFire { at: Vec2::ZERO, reach: 1.0 });
    assert_eq!(id, BehaviourId(0));
    crowd.add_group(Group::new(Recipe::Custom(id))).unwrap();
}
