//! The crowd's fast path for direct recipes (flat blends of group leaves: separation,
//! cohesion, alignment; a lone seek, flee or arrive for a point or the goal) gives bit for bit
//! what the general recipe evaluation gives.

use steerkit::crowd::{CrowdVector, Group, Target, WorldBounds};
use steerkit::kinematic::{Integration, Scheme};
use steerkit::math::Rng;
use steerkit::prelude::*;
use steerkit::steering::Gather;

fn limits() -> Limits {
    Limits::new(2.0, 4.0, 4.0, 20.0).unwrap()
}

/// Two separations (one radius-aware, nearest only), velocity and heading alignment, seek
/// cohesion: every leaf the fast path takes.
fn flat<V: CrowdVector>() -> Recipe<V> {
    Recipe::Blend(vec![
        (2.0, Recipe::Separation(Separation::new(0.6, Falloff::Linear).unwrap())),
        (
            1.5,
            Recipe::Separation(
                Separation::new(0.4, Falloff::InverseSquare(0.05))
                    .unwrap()
                    .with_gather(Gather::Nearest)
                    .radius_aware(0.05)
                    .unwrap(),
            ),
        ),
        (0.5, Recipe::Cohesion(Cohesion::Seek(Seek::new()))),
        (0.7, Recipe::Alignment(Alignment::heading(0.5).unwrap())),
        (0.3, Recipe::Alignment(Alignment::Velocity(VelocityMatch::new(0.4).unwrap()))),
    ])
}

/// The same steering through the general evaluation: a priority with one group returns that
/// group's output whatever the threshold.
fn general<V: CrowdVector>() -> Recipe<V> {
    Recipe::Priority { groups: vec![flat()], epsilon: Epsilon::new(0.01).unwrap() }
}

fn world<V: CrowdVector>(recipe: Recipe<V>, side: f32, make: impl Fn(&mut Rng) -> V) -> Crowd<V> {
    let bounds = WorldBounds::Toroidal { min: V::ZERO, max: V::from_axes([side; 3]) };
    let mut crowd =
        Crowd::<V>::new(CrowdConfig::new(1.0).with_bounds(bounds).with_seed(3)).unwrap();
    let g = crowd.add_group(Group::new(recipe)).unwrap();
    let mut rng = Rng::new(17);
    for _ in 0..900 {
        let p = make(&mut rng) * side;
        let v = make(&mut rng) * 2.0 - V::from_axes([1.0; 3]);
        crowd.spawn(AgentSpec { velocity: v, ..AgentSpec::new(p, 0.1, limits(), g) }).unwrap();
    }
    crowd
}

/// Steps both crowds 300 times at 30 Hz and checks after each step that positions,
/// velocities, steering and debug targets are equal bit for bit.
fn steps_alike<V: CrowdVector>(a: &mut Crowd<V>, b: &mut Crowd<V>) {
    for step in 0..300 {
        a.step(1.0 / 30.0).unwrap();
        b.step(1.0 / 30.0).unwrap();
        assert_eq!(a.positions(), b.positions(), "positions differ at step {step}");
        assert_eq!(a.velocities(), b.velocities(), "velocities differ at step {step}");
        for (x, y) in a.debug_info().iter().zip(b.debug_info()) {
            assert_eq!(x.steering, y.steering, "steering differs at step {step}");
            assert_eq!(x.target, y.target, "debug target differs at step {step}");
        }
    }
}

fn same_run<V: CrowdVector>(side: f32, make: impl Fn(&mut Rng) -> V + Copy) {
    let mut a = world(flat(), side, make);
    let mut b = world(general(), side, make);
    steps_alike(&mut a, &mut b);
    // the run did flock: agents moved and had neighbours to steer by
    assert!(a.debug_info().iter().filter(|d| d.target.is_some()).count() > 800);
}

#[test]
fn flat_blend_fast_path_is_bit_identical_to_the_recipe_tree_in_2d() {
    same_run(20.0, |r: &mut Rng| Vec2::new(r.uniform(), r.uniform()));
}

#[test]
fn flat_blend_fast_path_is_bit_identical_to_the_recipe_tree_in_3d() {
    same_run(9.0, |r: &mut Rng| Vec3::new(r.uniform(), r.uniform(), r.uniform()));
}

/// `recipe` through the general evaluation (see [`general`]).
fn wrapped<V: CrowdVector>(recipe: Recipe<V>) -> Recipe<V> {
    Recipe::Priority { groups: vec![recipe], epsilon: Epsilon::new(0.01).unwrap() }
}

/// Three groups on a crossing: arrive at each agent's goal under ORCA, seek a point, flee a
/// point; `direct` gives each recipe alone (the fast path) or wrapped (the recipe tree).
fn crossing(direct: bool) -> Crowd2 {
    let mut crowd = Crowd2::new(CrowdConfig::new(3.0).with_seed(5)).unwrap();
    let pick = |r: Recipe<Vec2>| if direct { r } else { wrapped(r) };
    let arrive = Arrive::new(0.2, 2.0, 0.25).unwrap();
    let mut orca = Group::new(pick(Recipe::Arrive { target: Target::Goal, arrive }));
    orca.orca = Some(steerkit::steering::Orca::new(4.0, 10).unwrap());
    orca.integration = Integration::new(Scheme::SemiImplicit, 0.0, 0.0).unwrap();
    let groups = [
        crowd.add_group(orca).unwrap(),
        crowd
            .add_group(Group::new(pick(Recipe::Seek {
                target: Target::Point(Vec2::new(5.0, -3.0)),
                seek: Seek::new(),
            })))
            .unwrap(),
        crowd
            .add_group(Group::new(pick(Recipe::Flee {
                target: Target::Point(Vec2::new(-2.0, 4.0)),
                flee: Flee::new(),
            })))
            .unwrap(),
    ];
    let mut rng = Rng::new(23);
    for k in 0..240 {
        let p = Vec2::new(rng.uniform(), rng.uniform()) * 30.0 - Vec2::splat(15.0);
        let spec = AgentSpec::new(p, 0.3, limits(), groups[k % 3]);
        crowd.spawn(AgentSpec { goal: (k % 3 == 0).then_some(-p), ..spec }).unwrap();
    }
    crowd
}

#[test]
fn lone_seek_flee_and_arrive_fast_path_is_bit_identical_to_the_recipe_tree() {
    let (mut a, mut b) = (crossing(true), crossing(false));
    steps_alike(&mut a, &mut b);
    // every agent steered for its point or goal, and the ORCA group made way on its crossing
    assert!(a.debug_info().iter().all(|d| d.target.is_some()));
    let moved = a.positions().iter().filter(|p| p.length() > 1.0).count();
    assert!(moved > 200, "{moved}");
}
