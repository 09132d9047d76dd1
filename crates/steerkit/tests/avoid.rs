//! Obstacle and wall avoidance (Millington §3.3.15; Green and Buckland §9, §10, §22) and hide
//! (§17): the phenomena with numbers.

mod common;
use common::*;
use steerkit::geometry::{Aabb, Circle, Segment};
use steerkit::prelude::*;
use steerkit::steering::{AdaptiveFan, AvoidTarget, DetectionBox, RayLayout, RepelObstacle};

const DT: f32 = 1.0 / 60.0;

/// Keep going: full acceleration along the current velocity (what avoidance overrides).
fn cruise(k: &Kinematic, l: &Limits) -> SteeringOutput {
    SteeringOutput::linear(k.velocity.normalize_or_zero() * l.max_acceleration())
}

/// Runs avoidance with priority over cruising; returns the track.
fn drive(
    mut av: ObstacleAvoidance,
    world: &ObstacleSet,
    start: Kinematic,
    l: &Limits,
    seconds: f32,
) -> Vec<Kinematic> {
    let mut k = start;
    let mut track = vec![k];
    for _ in 0..(seconds / DT) as usize {
        let s = av.steer(&k, world, l, DT).unwrap_or_else(|| cruise(&k, l));
        k.integrate(&s, l, DT);
        track.push(k);
    }
    track
}

fn closest_to(world: &ObstacleSet, track: &[Kinematic]) -> f32 {
    track
        .iter()
        .filter_map(|k| world.closest(k.position, f32::INFINITY))
        .map(|c| c.distance)
        .fold(f32::INFINITY, f32::min)
}

fn whiskers() -> RayLayout {
    RayLayout::Whiskers { half_angle: 0.3, whisker_ratio: 0.6 }
}

/// A single ray along the path misses a box corner 0.3 m beside it, so a body of radius 0.5
/// clips the corner; whiskers see it and the body stays clear.
#[test]
fn a_single_ray_grazes_a_wall_corner_while_whiskers_do_not() {
    let l = limits(4.0, 8.0);
    let world =
        ObstacleSet::new([Aabb::new(Vec2::new(10.0, 0.3), Vec2::new(14.0, 4.0)).into()]).unwrap();
    let start = moving(0.0, 0.0, 4.0, 0.0);
    let single = ObstacleAvoidance::new(RayLayout::Single, 1.0, 6.0).unwrap();
    let whisk = ObstacleAvoidance::new(whiskers(), 1.0, 6.0).unwrap();
    let single_gap = closest_to(&world, &drive(single, &world, start, &l, 5.0));
    let whisker_gap = closest_to(&world, &drive(whisk, &world, start, &l, 5.0));
    assert!((single_gap - 0.3).abs() < 1e-4, "single ray: the centre passes 0.3 m from the corner");
    assert!(single_gap < 0.5, "so a 0.5 m body grazes it: {single_gap}");
    assert!(whisker_gap > 0.5, "whiskers keep the body clear: {whisker_gap}");
    let fan =
        ObstacleAvoidance::new(RayLayout::Fan { half_angle: 0.4, rays: 5 }, 1.0, 6.0).unwrap();
    let fan_gap = closest_to(&world, &drive(fan, &world, start, &l, 5.0));
    assert!(fan_gap > 0.5, "so does a five-ray fan: {fan_gap}");
}

/// Two walls meeting at 40° (an acute V, apex at (20, 0), arms 15 m). A character cruising into
/// it with narrow whiskers or parallel rays flips between the walls, homes into the apex and
/// goes through; the adaptive fan with a committed side turns round and leaves the V.
#[test]
fn narrow_rays_are_caught_in_an_acute_corner_while_the_adaptive_fan_escapes() {
    let a = 20f32.to_radians();
    let apex = Vec2::new(20.0, 0.0);
    let up = apex + Vec2::new(-a.cos(), a.sin()) * 15.0;
    let down = apex + Vec2::new(-a.cos(), -a.sin()) * 15.0;
    let world =
        ObstacleSet::new([Segment::new(up, apex).into(), Segment::new(apex, down).into()]).unwrap();
    let mouth_x = apex.x - 15.0 * a.cos(); // 5.9 m
    let l = limits(4.0, 8.0);
    let start = moving(0.0, 0.3, 4.0, 0.0);
    let apex_gap =
        |t: &[Kinematic]| t.iter().map(|k| k.position.distance(apex)).fold(f32::INFINITY, f32::min);
    let narrow = [
        ObstacleAvoidance::new(whiskers(), 1.5, 5.0).unwrap(),
        ObstacleAvoidance::new(RayLayout::Parallel { half_width: 0.5 }, 1.5, 5.0).unwrap(),
    ];
    for av in narrow {
        let track = drive(av, &world, start, &l, 20.0);
        let end = track.last().unwrap().position;
        assert!(apex_gap(&track) < 0.35, "homes into the apex: {}", apex_gap(&track));
        assert!(closest_to(&world, &track) < 0.02, "touches the walls");
        assert!(end.x > apex.x + 30.0, "and ends up through them: {end:?}");
    }
    let fan = ObstacleAvoidance::new(whiskers(), 1.5, 5.0)
        .unwrap()
        .adaptive(AdaptiveFan { min_half_angle: 0.3, max_half_angle: 0.8, rate: 1.5 })
        .unwrap()
        .with_commitment(0.5)
        .unwrap();
    let track = drive(fan, &world, start, &l, 20.0);
    let end = track.last().unwrap().position;
    assert!(apex_gap(&track) > 3.0, "turns round {} m before the apex", apex_gap(&track));
    assert!(
        closest_to(&world, &track) > 0.6,
        "never nearer a wall than {}",
        closest_to(&world, &track)
    );
    assert!(end.x < mouth_x - 20.0, "and leaves the V: {end:?}");
}

/// The book's target `hit + normal·avoid_distance` in front of a wall hit square-on lies on the
/// path: no turn, the character runs into the wall. The lateral rule turns (left, by the fixed
/// choice for a dead-ahead hit) and keeps clear.
#[test]
fn book_target_runs_into_a_square_on_wall_while_the_lateral_rule_turns() {
    let l = limits(4.0, 8.0);
    let world =
        ObstacleSet::new([Segment::new(Vec2::new(10.0, -20.0), Vec2::new(10.0, 20.0)).into()])
            .unwrap();
    let start = moving(0.0, 0.0, 4.0, 0.0);
    let book = ObstacleAvoidance::new(RayLayout::Single, 1.0, 5.0)
        .unwrap()
        .with_target(AvoidTarget::Normal);
    let mut probe = book;
    let first = probe.steer(&moving(5.5, 0.0, 4.0, 0.0), &world, &l, DT).unwrap();
    assert_eq!(first.linear.y, 0.0, "no sideways component at all");
    let lateral = ObstacleAvoidance::new(RayLayout::Single, 1.0, 5.0).unwrap();
    let mut probe = lateral;
    let turn = probe.steer(&moving(5.5, 0.0, 4.0, 0.0), &world, &l, DT).unwrap();
    assert!(turn.linear.y > 1.0, "turns left: {:?}", turn.linear);
    let book_track = drive(book, &world, start, &l, 6.0);
    assert!(book_track.iter().any(|k| k.position.x >= 10.0), "book form reaches the wall");
    let lateral_track = drive(lateral, &world, start, &l, 2.5);
    let worst = lateral_track.iter().map(|k| k.position.x).fold(f32::MIN, f32::max);
    let end = lateral_track.last().unwrap();
    assert!(worst < 8.5, "lateral rule turns 1.5 m short of the wall: max x {worst}");
    assert!(end.velocity.y > 3.5, "and runs along it: {:?}", end.velocity);
    // a single ray then drifts into the wall it runs along (it never sees it); whiskers do not
    let whisk = ObstacleAvoidance::new(whiskers(), 1.0, 5.0).unwrap();
    let worst =
        drive(whisk, &world, start, &l, 10.0).iter().map(|k| k.position.x).fold(f32::MIN, f32::max);
    assert!(worst < 9.5, "whiskers keep 0.5 m off the wall: max x {worst}");
}

/// The adaptive fan widens while the rays hit and narrows back when clear; rays lengthen with
/// speed; nothing at rest.
#[test]
fn adaptive_fan_widens_on_hits_and_narrows_when_clear() {
    let l = limits(4.0, 8.0);
    let world = ObstacleSet::new([Circle::new(Vec2::new(4.0, 0.0), 1.0).into()]).unwrap();
    let mut av = ObstacleAvoidance::new(whiskers(), 1.0, 5.0)
        .unwrap()
        .adaptive(AdaptiveFan { min_half_angle: 0.2, max_half_angle: 1.0, rate: 1.0 })
        .unwrap()
        .with_lookahead_time(1.0)
        .unwrap();
    let k = moving(0.0, 0.0, 2.0, 0.0);
    for _ in 0..30 {
        assert!(av.steer(&k, &world, &l, DT).is_some());
    }
    assert!((av.half_angle() - (0.2 + 1.0 * 0.5)).abs() < 1e-4, "0.2 + 1 rad/s · 0.5 s");
    for _ in 0..120 {
        av.steer(&moving(0.0, 10.0, 2.0, 0.0), &world, &l, DT);
    }
    assert!((av.half_angle() - 0.2).abs() < 1e-6, "back to the minimum");
    let mut lengths = vec![];
    av.for_each_ray(&moving(0.0, 0.0, 3.0, 0.0), |r, _| lengths.push(r.max_distance()));
    assert_eq!(lengths.len(), 3);
    assert!((lengths[0] - 8.0).abs() < 1e-5 && (lengths[1] - 4.8).abs() < 1e-5, "{lengths:?}");
    assert!(av.steer(&at(3.5, 0.0), &world, &l, DT).is_none(), "nothing at rest");
}

/// Buckland's detection box: length grows with speed; behind, too far and too far sideways are
/// ignored; the nearest intersection wins; the lateral push grows as the obstacle nears.
#[test]
fn detection_box_finds_the_nearest_threat_in_local_space() {
    let l = limits(4.0, 10.0);
    let b = DetectionBox::new(10.0).unwrap();
    assert_eq!(b.length(0.0, &l), 10.0);
    assert_eq!(b.length(4.0, &l), 20.0);
    let me = moving(0.0, 0.0, 0.0, 2.0); // heading +y: local x is world y
    let c = |x: f32, y: f32, r: f32| Circle::new(Vec2::new(x, y), r);
    assert!(b.steer(&me, 0.5, [c(0.0, -3.0, 1.0)], &l).is_none(), "behind");
    assert!(b.steer(&me, 0.5, [c(0.0, 17.0, 1.0)], &l).is_none(), "beyond L = 15");
    assert!(b.steer(&me, 0.5, [c(1.6, 5.0, 1.0)], &l).is_none(), "|y| ≥ R = 1.5");
    let t = b.threat(&me, 0.5, [c(0.0, 9.0, 1.0), c(-1.0, 6.0, 1.0)], &l).unwrap();
    assert_eq!(t.circle.center, Vec2::new(-1.0, 6.0), "nearer intersection wins");
    assert!((t.distance - (6.0 - (1.5f32 * 1.5 - 1.0).sqrt())).abs() < 1e-5);
    // inside the expanded circle: distance 0, most urgent
    let t = b.threat(&me, 0.5, [c(0.0, 1.0, 1.0), c(0.0, 4.0, 1.0)], &l).unwrap();
    assert_eq!((t.circle.center, t.distance), (Vec2::new(0.0, 1.0), 0.0));
    let near = b.steer(&me, 0.5, [c(-0.5, 3.0, 1.0)], &l).unwrap().linear;
    let far = b.steer(&me, 0.5, [c(-0.5, 12.0, 1.0)], &l).unwrap().linear;
    assert!(near.x > 0.0 && far.x > 0.0, "obstacle on the left (−x): pushed right");
    assert!(near.x > far.x && near.y < far.y, "nearer: more lateral and more braking");
    // through an obstacle set (bounding circles)
    let set = ObstacleSet::new([c(-0.5, 3.0, 1.0).into()]).unwrap();
    assert_eq!(b.steer_in(&me, 0.5, &set, &l).unwrap().linear, near);
}

/// Feelers: no force when clear; the push is along the wall normal facing the character with
/// the nearest feeler's own overshoot.
#[test]
fn feelers_push_away_from_the_wall_they_cross() {
    let l = limits(4.0, 10.0);
    let f = WallFeelers::new(4.0).unwrap();
    let me = moving(0.0, 0.0, 3.0, 0.0);
    let far =
        ObstacleSet::new([Segment::new(Vec2::new(5.0, -5.0), Vec2::new(5.0, 5.0)).into()]).unwrap();
    assert!(f.steer(&me, &far, &l).is_none());
    // a wall at 45° across the left feeler only: tip (√2, √2), wall x + y = 2.5 hit at 2.5/√2
    let slanted =
        ObstacleSet::new([Segment::new(Vec2::new(2.0, 0.5), Vec2::new(0.5, 2.0)).into()]).unwrap();
    let centre_tip = Vec2::new(4.0, 0.0);
    assert!(slanted.first_hit(Vec2::ZERO, centre_tip).is_none(), "centre feeler misses");
    let s = f.steer(&me, &slanted, &l).unwrap().linear;
    let overshoot = 2.0 - 2.5 / 2f32.sqrt();
    let expect = Vec2::new(-1.0, -1.0).normalize() * (10.0 * overshoot / 2.0);
    assert!((s - expect).length() < 1e-4, "{s:?} vs {expect:?}");
}

/// Green's RepelObstacle: strength max·(contact_gap/x)³, so halving the gap multiplies it by 8;
/// full strength at contact and inside; nothing beyond the range.
#[test]
fn repel_obstacle_falls_off_with_the_cube_of_the_gap() {
    let l = limits(4.0, 10.0);
    let r = RepelObstacle::new(2.0, 0.1).unwrap();
    let set = ObstacleSet::new([Circle::new(Vec2::new(1.2, 0.0), 0.5).into()]).unwrap();
    let a = r.steer(&at(0.0, 0.0), 0.5, &set, &l).unwrap().linear; // gap 0.2
    assert!((a - Vec2::new(-10.0 / 8.0, 0.0)).length() < 1e-5, "{a:?}");
    let b = r.steer(&at(-0.2, 0.0), 0.5, &set, &l).unwrap().linear; // gap 0.4
    assert!((a.x / b.x - 8.0).abs() < 1e-3, "ratio {}", a.x / b.x);
    let touching = r.steer(&at(0.15, 0.0), 0.5, &set, &l).unwrap().linear; // gap 0.05
    assert_eq!(touching, Vec2::new(-10.0, 0.0));
    let inside = r.steer(&at(1.0, 0.0), 0.5, &set, &l).unwrap().linear;
    assert_eq!(inside, Vec2::new(-10.0, 0.0), "pushed out the near side");
    assert!(r.steer(&at(-2.0, 0.0), 0.5, &set, &l).is_none(), "gap 2.2 > range");
    assert!(r.strength(0.1, 10.0) == 10.0 && r.strength(1.0, 10.0) < 0.011);
}

/// A hider ends behind the obstacle: the segment hunter → hider passes through it.
#[test]
fn a_hider_ends_behind_an_obstacle_out_of_the_hunters_sight() {
    let l = limits(3.0, 6.0);
    let hunter = at(0.0, 0.0);
    let rocks = [Circle::new(Vec2::new(10.0, 0.0), 2.0), Circle::new(Vec2::new(-12.0, 8.0), 1.0)];
    let hide = Hide::new(1.5).unwrap();
    assert_eq!(hide.hiding_spot(rocks[0], hunter.position), Some(Vec2::new(13.5, 0.0)));
    let start = at(8.0, 6.0);
    assert_eq!(
        hide.best_spot(start.position, hunter.position, rocks),
        Some(Vec2::new(13.5, 0.0)),
        "the nearer spot"
    );
    assert!(
        !rocks[0].overlaps_segment(&Segment::new(hunter.position, start.position)),
        "seen at the start"
    );
    let track = run(start, &l, DT, 600, |k, _| hide.steer(k, &hunter, rocks, &l));
    let end = track.last().unwrap();
    assert!(end.position.distance(Vec2::new(13.5, 0.0)) < 0.1, "ended at {:?}", end.position);
    assert!(end.velocity.length() < 0.05);
    let sight = Segment::new(hunter.position, end.position);
    assert!(rocks[0].overlaps_segment(&sight), "line of sight blocked");
    assert!(sight.distance_to_point(rocks[0].center) < 0.1, "right behind the centre");
    // no cover: evade
    let away = hide.steer(&start, &hunter, [], &l).unwrap().linear;
    assert!(away.dot(start.position - hunter.position) > 0.0);
    // a threat range: a distant hunter is ignored
    let calm = hide.with_threat_range(5.0).unwrap();
    assert!(calm.steer(&start, &hunter, rocks, &l).is_none());
    // through an obstacle set, walls give no cover
    let set = ObstacleSet::new([
        rocks[0].into(),
        Segment::new(Vec2::new(7.0, 5.0), Vec2::new(9.0, 7.0)).into(),
    ])
    .unwrap();
    assert_eq!(
        hide.steer_in(&start, &hunter, &set, &l),
        hide.steer(&start, &hunter, [rocks[0]], &l)
    );
}

/// Parallel corridor walls are not a corner: the commitment never engages and the character
/// runs down the corridor without touching either wall.
#[test]
fn corridor_walls_do_not_trigger_the_corner_commitment() {
    let l = limits(4.0, 8.0);
    let world = ObstacleSet::new([
        Segment::new(Vec2::new(0.0, 1.5), Vec2::new(60.0, 1.5)).into(),
        Segment::new(Vec2::new(0.0, -1.5), Vec2::new(60.0, -1.5)).into(),
    ])
    .unwrap();
    let mut av = ObstacleAvoidance::new(whiskers(), 1.0, 5.0)
        .unwrap()
        .adaptive(AdaptiveFan { min_half_angle: 0.3, max_half_angle: 0.8, rate: 1.5 })
        .unwrap()
        .with_commitment(0.5)
        .unwrap();
    let mut k = moving(0.0, 0.3, 3.9, 0.9);
    let mut gap = f32::INFINITY;
    for _ in 0..(8.0 / DT) as usize {
        let s = av.steer(&k, &world, &l, DT).unwrap_or_else(|| cruise(&k, &l));
        assert_eq!(av.committed_side(), 0.0);
        k.integrate(&s, &l, DT);
        gap = gap.min(1.5 - k.position.y.abs());
    }
    assert!(gap > 0.3, "closest approach to a wall {gap}");
    assert!(k.position.x > 25.0, "made progress: {:?}", k.position);
}

/// The 3D rays: the 2D layout in the (heading, left) plane and again in the (heading, up)
/// plane, central rays once; left = UP × heading (−z when flying along +x), up = heading ×
/// left; straight up or down the frame is that of a character pitched from facing +x.
#[test]
fn three_d_rays_repeat_the_layout_left_right_up_and_down() {
    use steerkit::{Quat, Vec3};
    let rays = |layout: RayLayout, velocity: Vec3| {
        let av = ObstacleAvoidance::new(layout, 1.0, 4.0).unwrap();
        let k = Kinematic3 { velocity, ..Kinematic3::at_rest(Vec3::ONE, Quat::IDENTITY) };
        let mut out = Vec::new();
        av.for_each_ray_3d(&k, |ray, lean| out.push((ray, lean)));
        out
    };
    let w = rays(whiskers(), Vec3::X * 2.0);
    assert_eq!(w.len(), 5);
    let leans: Vec<Vec3> = w.iter().map(|(_, lean)| *lean).collect();
    assert_eq!(leans, vec![Vec3::ZERO, Vec3::NEG_Z, Vec3::Z, Vec3::Y, Vec3::NEG_Y]);
    for (ray, lean) in &w {
        assert_eq!(ray.origin(), Vec3::ONE);
        // each side ray leans its way out of the heading by the half angle (0.3 rad)
        if *lean != Vec3::ZERO {
            assert!((ray.direction().dot(*lean) - 0.3f32.sin()).abs() < 1e-6, "{ray:?}");
            assert!((ray.max_distance() - 2.4).abs() < 1e-6, "whisker ratio 0.6 of 4 m");
        } else {
            assert_eq!((ray.direction(), ray.max_distance()), (Vec3::X, 4.0));
        }
    }
    assert_eq!(rays(RayLayout::Single, Vec3::X).len(), 1);
    assert_eq!(rays(RayLayout::Fan { half_angle: 0.6, rays: 7 }, Vec3::X).len(), 13);
    assert_eq!(rays(RayLayout::Fan { half_angle: 0.6, rays: 4 }, Vec3::X).len(), 8);
    // parallel rays: offset left, right, up and down by the half width
    let p = rays(RayLayout::Parallel { half_width: 0.5 }, Vec3::X);
    let origins: Vec<Vec3> = p.iter().map(|(r, _)| r.origin() - Vec3::ONE).collect();
    assert_eq!(origins, [Vec3::NEG_Z, Vec3::Z, Vec3::Y, Vec3::NEG_Y].map(|v| v * 0.5));
    // flying straight up: left −z, up −x; straight down: left −z, up +x
    let leans = |v: Vec3| rays(whiskers(), v).iter().map(|(_, l)| *l).collect::<Vec<_>>();
    assert_eq!(leans(Vec3::Y), vec![Vec3::ZERO, Vec3::NEG_Z, Vec3::Z, Vec3::NEG_X, Vec3::X]);
    assert_eq!(leans(Vec3::NEG_Y), vec![Vec3::ZERO, Vec3::NEG_Z, Vec3::Z, Vec3::X, Vec3::NEG_X]);
    // at rest: nothing
    assert!(rays(whiskers(), Vec3::ZERO).is_empty());
}

/// 3D avoidance of a box met square-on turns (left by default), and a sphere hit on its
/// upper half turns the character down, away from the hits.
#[test]
fn three_d_avoidance_turns_away_from_the_hits() {
    use steerkit::geometry::{Obstacle3, ObstacleSet3, Sphere};
    use steerkit::{Quat, Vec3};
    let l = limits(3.0, 6.0);
    let k =
        Kinematic3 { velocity: Vec3::X * 2.0, ..Kinematic3::at_rest(Vec3::ZERO, Quat::IDENTITY) };
    let wall = ObstacleSet3::new([Obstacle3::Box(Aabb::new(
        Vec3::new(3.0, -5.0, -5.0),
        Vec3::new(4.0, 5.0, 5.0),
    ))])
    .unwrap();
    let mut av = ObstacleAvoidance::new(whiskers(), 1.0, 4.0).unwrap();
    let a = av.steer_3d(&k, &wall, &l, DT).unwrap().linear;
    // left is −z; square-on: a turn of at least 45° (the target 4 m aside, 1 m short of the
    // hit 3 m ahead: 63°)
    assert!(a.z < -a.x.abs() && a.y.abs() < 1e-6, "{a}");
    assert!((a.length() - 6.0).abs() < 1e-4, "{a}");
    // a sphere above the path: the central ray misses, the up whisker hits: turn down
    let above = ObstacleSet3::new([Obstacle3::Sphere(Sphere::new(Vec3::new(1.8, 0.75, 0.0), 0.3))])
        .unwrap();
    let a = av.steer_3d(&k, &above, &l, DT).unwrap().linear;
    assert!(a.y < 0.0 && a.z.abs() < 1e-5, "{a}");
    // nothing ahead: nothing; at rest: nothing
    let empty = ObstacleSet3::new([]).unwrap();
    assert!(av.steer_3d(&k, &empty, &l, DT).is_none());
    assert!(av.steer_3d(&Kinematic3::default(), &wall, &l, DT).is_none());
}
