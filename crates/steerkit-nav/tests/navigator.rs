//! The navigator over a crowd: agents cross a level on their routes, planning keeps to its
//! budget, an unreachable goal is reported once and the agent stops at the nearest reachable
//! point, and the thread count never changes a run.

use steerkit::crowd::{AgentSpec, Crowd, CrowdConfig, Group, Recipe};
use steerkit::geometry::{Aabb, Obstacle, ObstacleSet};
use steerkit::kinematic::Limits;
use steerkit::steering::{Approach, Arrive};
use steerkit::Vec2;
use steerkit_nav::{Level, NavEvent, NavSettings, Navigator};

/// A 20 × 10 m level cut by a wall at x = 0 with a door from y = 3 to y = 5 (`door`) or none.
fn level(door: bool) -> (Level, Vec<Obstacle>) {
    let top = if door { 3.0 } else { 5.0 };
    let wall = Obstacle::Box(Aabb::new(Vec2::new(-0.25, -5.0), Vec2::new(0.25, top)));
    let mut l = Level::rectangle(Vec2::new(-10.0, -5.0), Vec2::new(10.0, 5.0));
    l.add_obstacles(std::slice::from_ref(&wall));
    (l, vec![wall])
}

fn crowd(obstacles: Vec<Obstacle>, starts: &[(Vec2, Vec2)]) -> Crowd {
    let mut c = Crowd::new(CrowdConfig::new(2.0)).unwrap();
    c.set_obstacles(ObstacleSet::new(obstacles).unwrap());
    let arrive = Arrive::with_approach(0.02, Approach::Braking, 0.25).unwrap();
    let mut g = Group::new(Recipe::Navigate { arrive });
    g.non_penetration = true;
    let id = c.add_group(g).unwrap();
    let limits = Limits::new(1.5, 10.0, 4.0, 20.0).unwrap();
    for &(p, goal) in starts {
        c.spawn(AgentSpec { goal: Some(goal), ..AgentSpec::new(p, 0.3, limits, id) }).unwrap();
    }
    c
}

fn starts(n: usize) -> Vec<(Vec2, Vec2)> {
    (0..n)
        .map(|i| {
            let y = -4.0 + 8.0 * i as f32 / n.max(2) as f32;
            (Vec2::new(-8.0 + (i % 3) as f32, y), Vec2::new(8.0 - (i % 3) as f32, -y))
        })
        .collect()
}

#[test]
fn agents_cross_through_the_door_and_stop_on_their_goals() {
    let (level, obstacles) = level(true);
    let s = starts(12);
    let mut c = crowd(obstacles, &s);
    let mut nav = Navigator::new(level, NavSettings::default()).unwrap();
    for &h in c.handles().collect::<Vec<_>>().iter() {
        nav.add_agent(h, 0.3).unwrap();
    }
    for _ in 0..900 {
        assert!(nav.update(&mut c, 0.05).is_empty());
        c.step(0.05).unwrap();
    }
    assert_eq!(c.handles().len(), s.len());
    for h in c.handles() {
        let (p, goal) = (c.kinematic(h).unwrap().position, c.goal(h).unwrap());
        assert!(p.distance(goal) < 0.1, "{p} is not at {goal}");
    }
    // home on the last leg, a route is not planned again when its interval comes round (a
    // plan from there is the same leg): 3 s later every route is the one it was
    let routes: Vec<_> = c.handles().map(|h| nav.route(h).unwrap().clone()).collect();
    for _ in 0..60 {
        nav.update(&mut c, 0.05);
        c.step(0.05).unwrap();
    }
    for (h, before) in c.handles().zip(&routes) {
        assert_eq!(nav.route(h), Some(before));
    }
}

/// `n` agents through the door, each given its goal, under a budget of 3 plans a step: how
/// many have a route after each of `steps` updates of `dt` seconds.
fn routed_by_step(n: usize, steps: usize, dt: f32) -> Vec<usize> {
    let (level, obstacles) = level(true);
    let mut c = crowd(obstacles, &starts(n));
    let settings = NavSettings { max_plans_per_step: 3, ..NavSettings::default() };
    let mut nav = Navigator::new(level, settings).unwrap();
    let handles: Vec<_> = c.handles().collect();
    for &h in &handles {
        nav.add_agent(h, 0.3).unwrap();
    }
    (0..steps)
        .map(|_| {
            nav.update(&mut c, dt);
            handles.iter().filter(|h| nav.route(**h).is_some()).count()
        })
        .collect()
}

#[test]
fn planning_keeps_to_its_budget_new_goals_first() {
    assert_eq!(routed_by_step(10, 4, 0.05), [3, 6, 9, 10]);
}

#[test]
fn an_unreachable_goal_is_reported_once_and_the_agent_stops_short_of_it() {
    let (level, obstacles) = level(false);
    let mut c = crowd(obstacles, &[(Vec2::new(-5.0, 1.0), Vec2::new(5.0, 2.0))]);
    let mut nav = Navigator::new(level, NavSettings::default()).unwrap();
    let h = c.handles().next().unwrap();
    nav.add_agent(h, 0.3).unwrap();
    let mut events = Vec::new();
    for _ in 0..400 {
        events.extend_from_slice(nav.update(&mut c, 0.05));
        c.step(0.05).unwrap();
    }
    assert_eq!(events.len(), 1, "{events:?}");
    let NavEvent::Unreachable { agent, stop, .. } = events[0];
    assert_eq!(agent, h);
    // the nearest reachable point: the wall's face less radius and clearance, level with the goal
    assert!((stop - Vec2::new(-0.65, 2.0)).length() < 0.01, "{stop}");
    let p = c.kinematic(h).unwrap().position;
    assert!(p.distance(stop) < 0.1, "stopped at {p}, not {stop}");
}

/// The same run on one and on two threads, bit for bit: through one door, and both ways
/// through two (routes round the door taken the other way, single file at the 1.6 m one).
#[test]
fn the_thread_count_never_changes_a_run() {
    let run = |threads: usize, two: bool| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (level, obstacles) = if two { two_doors(1.6) } else { level(true) };
            let mut s = starts(40);
            if two {
                // every other walker the other way
                s.iter_mut().skip(1).step_by(2).for_each(|(a, b)| std::mem::swap(a, b));
            }
            let mut c = crowd(obstacles, &s);
            let mut nav = Navigator::new(level, NavSettings::default()).unwrap();
            for &h in c.handles().collect::<Vec<_>>().iter() {
                nav.add_agent(h, 0.3).unwrap();
            }
            for _ in 0..300 {
                nav.update(&mut c, 0.05);
                c.step(0.05).unwrap();
            }
            c.positions().iter().flat_map(|p| [p.x.to_bits(), p.y.to_bits()]).collect::<Vec<_>>()
        })
    };
    for two in [false, true] {
        assert_eq!(run(1, two), run(2, two), "two doors: {two}");
    }
}

/// A walker waiting for its turn at a door with a wall 3 m behind it: its hold point, 4 m back
/// from the door's mouth, lies in that wall, and the waypoint it is given is put on the mesh
/// instead (a waypoint in a wall has it press into the wall while it waits).
#[test]
fn a_waiting_walker_holds_at_a_point_on_the_mesh() {
    let wall = Obstacle::Box(Aabb::new(Vec2::new(-0.25, -5.0), Vec2::new(0.25, 3.0)));
    let mut level = Level::rectangle(Vec2::new(-3.0, -5.0), Vec2::new(10.0, 5.0));
    level.add_obstacles(std::slice::from_ref(&wall));
    // two bound west through the door, so west has the first turn; one bound east waits
    let s = [
        (Vec2::new(1.5, 4.5), Vec2::new(-2.0, -4.0)),
        (Vec2::new(2.5, 3.5), Vec2::new(-2.0, -2.0)),
        (Vec2::new(-2.0, 4.0), Vec2::new(8.0, 4.0)),
    ];
    let mut c = crowd(vec![wall], &s);
    // 4 diameters (2.4 m): the door is a passage, the 2.75 m room behind it is not
    let settings = NavSettings { passage_width: 4.0, ..NavSettings::default() };
    let mut nav = Navigator::new(level, settings).unwrap();
    let handles: Vec<_> = c.handles().collect();
    for &h in &handles {
        nav.add_agent(h, 0.3).unwrap();
    }
    assert_eq!(nav.mesh_for(0.3).unwrap().passages(4.0 * 0.6).len(), 1, "the door is a passage");
    nav.update(&mut c, 0.05);
    let w = c.waypoint(handles[2]).unwrap().point;
    assert!(w.x < -1.0, "the eastbound walker waits west of the door: {w}");
    assert!(nav.mesh_for(0.3).unwrap().contains(w), "{w} is off the mesh");
}

/// In a two-way passage each direction keeps to its right half: on the 40 × 6 m corridor
/// (walls to x = ±20, the mesh 5 m wide at r = 0.4 m plus 0.1 m clearance) with
/// `two_way_width` 6 diameters (the default), an eastbound walker's route enters and leaves
/// by points at least 1 m right of the middle line (y ≤ −1) and a westbound one's at y ≥ 1;
/// each has the divider as its waypoint's lane, normal to its right (both start on their own
/// side). With 8 (as `passage_width`) the corridor takes turns and no route has a lane.
#[test]
fn walkers_in_a_two_way_passage_keep_to_their_right_half() {
    let walls = [
        Obstacle::Box(Aabb::new(Vec2::new(-20.0, 3.0), Vec2::new(20.0, 15.0))),
        Obstacle::Box(Aabb::new(Vec2::new(-20.0, -15.0), Vec2::new(20.0, -3.0))),
    ];
    let mut level = Level::rectangle(Vec2::new(-50.0, -15.0), Vec2::new(50.0, 15.0));
    level.add_obstacles(&walls);
    let s = [
        (Vec2::new(-22.0, -1.0), Vec2::new(40.0, 5.0)),
        (Vec2::new(22.0, 1.0), Vec2::new(-40.0, -5.0)),
    ];
    for (two_way, lanes) in [(6.0, true), (8.0, false)] {
        let mut c = crowd(walls.to_vec(), &s);
        let settings = NavSettings { two_way_width: two_way, ..NavSettings::default() };
        let mut nav = Navigator::new(level.clone(), settings).unwrap();
        let handles: Vec<_> = c.handles().collect();
        for &h in &handles {
            nav.add_agent(h, 0.4).unwrap();
        }
        nav.update(&mut c, 1.0 / 30.0);
        for (h, side) in handles.iter().zip([-1.0f32, 1.0]) {
            let route = nav.route(*h).unwrap().ahead().to_vec();
            // near each mouth, a point in the right half (a left turn after it widens it
            // toward the wall)
            let at_mouth =
                |x: f32| route.iter().any(|p| (p.x - x).abs() < 1.0 && p.y * side >= 1.0);
            assert_eq!(at_mouth(-20.5) && at_mouth(20.5), lanes, "{side}: {route:?}");
            let lane = c.waypoint(*h).unwrap().lane;
            if lanes {
                let lane = lane.unwrap_or_else(|| panic!("{side}: no lane"));
                assert!(lane.point.y.abs() < 0.1, "{lane:?}");
                assert!((lane.normal - Vec2::new(0.0, side)).length() < 1e-2, "{lane:?}");
            } else {
                assert_eq!(lane, None);
            }
        }
    }
}

/// A gap of 5.25 m (over 6 diameters) between a block and the level's wall is two-way when it
/// is a corridor (the block 10 m long) and open ground when it is shorter than it is wide (a
/// 2 m pillar): crossing it takes a few steps, and walkers arriving at goals beside it were
/// held to a divider there (the pillar level's outer gaps).
#[test]
fn a_wide_gap_shorter_than_it_is_wide_has_no_lanes() {
    for (length, two_way) in [(10.0, 1), (2.0, 0)] {
        let half = length * 0.5;
        let block = Obstacle::Box(Aabb::new(Vec2::new(12.75, -half), Vec2::new(14.75, half)));
        let mut level = Level::rectangle(Vec2::new(-20.0, -20.0), Vec2::new(20.0, 20.0));
        level.add_obstacles(std::slice::from_ref(&block));
        let mut nav = Navigator::new(level, NavSettings::default()).unwrap();
        nav.mesh_for(0.4).unwrap();
        assert_eq!(nav.two_way_passages(0.4).len(), two_way, "{length} m");
        assert!(nav.passages(0.4).is_empty(), "{length} m: {:?}", nav.passages(0.4));
    }
}

/// A 20 × 20 m level cut by a wall at x = 0 with two doors: A from y = 1 to y = 1 + `a`
/// (m wide) and B from y = −5 to y = −3.
fn two_doors(a: f32) -> (Level, Vec<Obstacle>) {
    let walls = vec![
        Obstacle::Box(Aabb::new(Vec2::new(-0.25, 1.0 + a), Vec2::new(0.25, 10.0))),
        Obstacle::Box(Aabb::new(Vec2::new(-0.25, -3.0), Vec2::new(0.25, 1.0))),
        Obstacle::Box(Aabb::new(Vec2::new(-0.25, -10.0), Vec2::new(0.25, -5.0))),
    ];
    let mut l = Level::rectangle(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0));
    l.add_obstacles(&walls);
    (l, walls)
}

/// Whether a route goes through door B (a corner by the wall below y = −2).
fn through_b(route: &[Vec2]) -> bool {
    route.iter().any(|p| p.x.abs() < 1.0 && p.y < -2.0)
}

/// Routes avoid walking against a stream: a walker at (3, 1) bound for (−8, 0) goes through
/// door A (B is ~3 m longer). With ten walkers bound east through A (each costing a westbound
/// route `COUNTERFLOW` = 2 diameters, 12 m in all), its route planned again after 2 s goes
/// through B; with nobody else it stays with A.
#[test]
fn a_route_goes_round_a_door_taken_the_other_way() {
    for stream in [false, true] {
        let (level, walls) = two_doors(2.0);
        let mut s = vec![(Vec2::new(3.0, 1.0), Vec2::new(-8.0, 0.0))];
        if stream {
            s.extend((0..10).map(|i| {
                let p = Vec2::new(-9.0 + (i % 2) as f32, 0.5 + 0.8 * (i / 2) as f32);
                (p, p + Vec2::new(17.0, 0.0))
            }));
        }
        let mut c = crowd(walls, &s);
        let mut nav = Navigator::new(level, NavSettings::default()).unwrap();
        let handles: Vec<_> = c.handles().collect();
        for &h in &handles {
            nav.add_agent(h, 0.3).unwrap();
        }
        nav.update(&mut c, 0.05);
        assert!(!through_b(nav.route(handles[0]).unwrap().ahead()), "first plan by A");
        for _ in 0..50 {
            nav.update(&mut c, 0.05);
            c.step(0.05).unwrap();
        }
        let route = nav.route(handles[0]).unwrap().ahead().to_vec();
        assert_eq!(through_b(&route), stream, "stream {stream}: {route:?}");
    }
}

/// At a door narrower than `single_file_width` (4 diameters) a walker whose turn it is gets
/// the waypoint priority `e^(−d/ℓ)`, `d` its route distance to the mouth: `ℓ = r` at a door
/// where three cannot go abreast (the 1.6 m door A at r = 0.3 m, 2.7 diameters), `ℓ = 2r` at
/// one where they can (2 m, 3.3 diameters); priority 1 with the key at 0, at a door beyond it
/// (2 m with the key at 3) and at a 2.6 m door (4.3 diameters).
#[test]
fn walkers_at_a_narrow_door_go_by_their_distance_to_it() {
    let default = NavSettings::default().single_file_width;
    assert_eq!((default, steerkit_nav::SINGLE_FILE, steerkit_nav::ABREAST_ORDER), (4.0, 3.0, 2.0));
    for (a, key, length) in [
        (1.6, default, Some(0.3)),
        (1.6, 0.0, None),
        (2.0, default, Some(0.6)),
        (2.0, 3.0, None),
        (2.6, default, None),
    ] {
        let (level, walls) = two_doors(a);
        let mut c = crowd(walls, &[(Vec2::new(-3.0, 1.0 + a * 0.5), Vec2::new(6.0, 1.8))]);
        let settings = NavSettings { single_file_width: key, ..NavSettings::default() };
        let mut nav = Navigator::new(level, settings).unwrap();
        let h = c.handles().next().unwrap();
        nav.add_agent(h, 0.3).unwrap();
        nav.update(&mut c, 0.05);
        let door = nav.passages(0.3).iter().find(|p| p.a.y > 0.0).copied().unwrap();
        let p = c.kinematic(h).unwrap().position;
        let d = p.distance(door.a.x.min(door.b.x) * Vec2::X + Vec2::Y * door.a.y);
        let priority = c.waypoint(h).unwrap().priority;
        let want = length.map_or(1.0, |l: f32| (-d / l).exp());
        eprintln!("{a} m door, key {key}: d {d} m, priority {priority}");
        assert!(want < 0.5 || length.is_none(), "{a} m door: the walker is {d} m out");
        assert!((priority / want - 1.0).abs() < 0.05, "{a} m door: {priority} vs {want}");
    }
}

/// A crowd given its goals at once gets its first routes within a second whatever the budget:
/// 100 new goals at a budget of 3 a step and 0.1 s steps are planned 10 a step (an equal share
/// of the ten steps in the second), not over 34 steps.
#[test]
fn every_new_goal_has_its_route_within_a_second() {
    assert_eq!(routed_by_step(100, 10, 0.1), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
}
