//! A real recording from the library: 30 agents in one world (arrivers with a detection box,
//! wanderers with feelers and separation, a squad following a path in formation), written as
//! `replay.html` and `snapshot.svg`, then read back and checked.
//!
//! The files go to `out/browser/` at the repository root (or `$STEERKIT_REPLAY_OUT`); the browser
//! test (`tests/browser/replay.mjs`) opens that `replay.html`.

use std::path::PathBuf;
use steerkit::geometry::{Circle, CollisionDetector, Obstacle, ObstacleSet, Ray, Segment};
use steerkit::kinematic::{Kinematic, Limits, SteeringOutput};
use steerkit::math::Vector;
use steerkit::neighbours::Neighbour;
use steerkit::path::Polyline;
use steerkit::steering::{
    Align, Arrive, Face, Falloff, FollowPath, LookWhereYoureGoing, OffsetPursuit, Seek, Separation,
    Wander,
};
use steerkit::Vec2;
use steerkit_cli::recording::{
    Group, Meta, OverlayCapture, PathShape, RecordOptions, Recorder, Recording, World, PALETTE,
};
use steerkit_cli::{replay, snapshot};

const DT: f32 = 1.0 / 60.0;
const RADIUS: f32 = 0.4;

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Arrive(Vec2),
    Wander,
    Leader,
    Follower(usize),
}

/// Facts about the run checked by the test.
struct Outcome {
    recording: Recording,
    final_agents: Vec<Kinematic>,
    roles: Vec<Role>,
    min_obstacle_clearance: f32,
    min_body_gap: f32,
    arrival_steps: Vec<Option<u32>>,
    max_slot_error_last_second: f32,
}

fn out_dir() -> PathBuf {
    let dir = std::env::var_os("STEERKIT_REPLAY_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../out/browser"));
    std::fs::create_dir_all(&dir).expect("output directory can be created");
    dir
}

/// Seeks the point `avoid` metres out of the first surface a feeler hits (Millington's wall
/// avoidance), if any does; records the feelers.
fn feelers(
    k: &Kinematic,
    world: &ObstacleSet,
    limits: &Limits,
    mut record: impl FnMut(Vec2, Vec2, Option<f32>),
) -> Option<SteeringOutput> {
    let heading = k.velocity.try_normalize().unwrap_or(Vec2::from_angle(k.orientation));
    let length = 1.5 + k.velocity.length() * 0.6;
    let mut best: Option<(f32, Vec2)> = None;
    for (angle, scale) in [(0.0, 1.0), (0.6, 0.6), (-0.6, 0.6)] {
        let dir = Vec2::from_angle(angle).rotate(heading);
        let ray = Ray::new(k.position, dir, length * scale);
        let hit = world.cast_ray(&ray);
        record(k.position, ray.end(), hit.map(|h| h.distance / ray.max_distance()));
        if let Some(h) = hit {
            if best.is_none_or(|(d, _)| h.distance < d) {
                best = Some((h.distance, h.position + h.normal * 2.0));
            }
        }
    }
    best.and_then(|(_, target)| Seek::new().steer(k, target, limits))
}

/// Buckland's detection box against disc obstacles: a box ahead of the agent as long as it
/// will travel in a second (at least 2 m) and as wide as its body plus a margin. The nearest disc
/// overlapping it pushes sideways, harder the nearer and the more central it is.
/// Returns the acceleration (`None`: nothing in the box) and the box's corners.
fn detection_box(k: &Kinematic, discs: &[Circle], limits: &Limits) -> (Option<Vec2>, [Vec2; 4]) {
    let heading = k.velocity.try_normalize().unwrap_or(Vec2::from_angle(k.orientation));
    let angle = heading.to_angle();
    let length = 2.0 + k.velocity.length();
    let half = RADIUS + 0.8;
    let corners = [
        Vec2::new(0.0, half),
        Vec2::new(length, half),
        Vec2::new(length, -half),
        Vec2::new(0.0, -half),
    ]
    .map(|c| k.position + Vec2::to_world(angle, c));
    let mut nearest: Option<(f32, Vec2)> = None;
    for d in discs {
        let local = Vec2::to_local(angle, d.center - k.position);
        let reach = d.radius + half;
        let inside =
            local.x + d.radius > 0.0 && local.x - d.radius < length && local.y.abs() < reach;
        if inside && nearest.is_none_or(|(x, _)| local.x < x) {
            let side = if local.y >= 0.0 { -1.0 } else { 1.0 };
            let closeness = 1.0 + (length - local.x).max(0.0) / length;
            let lateral = side * (0.5 + 0.5 * (reach - local.y.abs()) / reach) * closeness;
            let push = Vec2::to_world(angle, Vec2::new(0.0, lateral)) * limits.max_acceleration();
            nearest = Some((local.x, push));
        }
    }
    (nearest.map(|(_, p)| p), corners)
}

fn run_demo(steps: u32) -> Outcome {
    let bounds = (Vec2::new(-20.0, -12.0), Vec2::new(20.0, 12.0));
    let disc = Circle { center: Vec2::new(0.0, 1.4), radius: 2.5 };
    let wall = Segment { a: Vec2::new(-7.0, 7.5), b: Vec2::new(5.0, 7.5) };
    let route = [
        Vec2::new(-14.0, -9.5),
        Vec2::new(14.0, -9.5),
        Vec2::new(14.0, -5.0),
        Vec2::new(-14.0, -5.0),
    ];
    let path = Polyline::looping(route.to_vec()).expect("valid path");

    // obstacles the agents feel: the disc, the wall and the four sides of the world
    let (lo, hi) = bounds;
    let sides = [
        Segment { a: lo, b: Vec2::new(hi.x, lo.y) },
        Segment { a: Vec2::new(hi.x, lo.y), b: hi },
        Segment { a: hi, b: Vec2::new(lo.x, hi.y) },
        Segment { a: Vec2::new(lo.x, hi.y), b: lo },
    ];
    let mut felt: Vec<Obstacle> = vec![disc.into(), wall.into()];
    felt.extend(sides.iter().map(|&s| Obstacle::from(s)));
    let obstacles = ObstacleSet::new(felt).expect("valid obstacles");

    let mut world = World::bounded(lo, hi, false);
    world.add_obstacle(&disc.into());
    world.add_obstacle(&wall.into());
    world.add_path(PathShape::from_polyline("patrol", &path));

    // agents: 8 arrivers crossing the world, 18 wanderers, a squad of 4 on the path
    let mut agents = Vec::new();
    let mut roles = Vec::new();
    for i in 0..8 {
        let y = -3.5 + 1.4 * i as f32;
        agents.push(Kinematic::at_rest(Vec2::new(-13.0, y), 0.0));
        roles.push(Role::Arrive(Vec2::new(15.0, y + 0.3)));
    }
    let mut wanders = Vec::new();
    for i in 0..18 {
        let (col, row) = (i % 6, i / 6);
        let p = Vec2::new(-15.0 + 6.0 * col as f32, 2.5 + 3.5 * row as f32 + (col % 2) as f32);
        agents.push(Kinematic::at_rest(p, i as f32 * 1.1));
        roles.push(Role::Wander);
        let face = Face::new(Align::new(0.02, 0.8, 0.15).expect("valid"));
        wanders.push(Wander::new(3.0, 1.2, 2.5, face, 1000 + i).expect("valid"));
    }
    let leader = agents.len();
    agents.push(Kinematic::at_rest(Vec2::new(-10.0, -9.5), 0.0));
    roles.push(Role::Leader);
    let slots = [Vec2::new(-1.6, 1.2), Vec2::new(-1.6, -1.2), Vec2::new(-3.2, 0.0)];
    let pursuits: Vec<_> =
        slots.iter().map(|&o| OffsetPursuit::new(o, 1.0).expect("valid")).collect();
    for (j, o) in slots.iter().enumerate() {
        agents.push(Kinematic::at_rest(Vec2::new(-10.0, -9.5) + *o, 0.0));
        roles.push(Role::Follower(j));
    }
    assert_eq!(agents.len(), 30);

    let groups = vec![
        Group::new("arrive", PALETTE[0], RADIUS),
        Group::new("wander", PALETTE[1], RADIUS),
        Group::new("squad", PALETTE[2], RADIUS),
    ];
    let agent_groups = roles
        .iter()
        .map(|r| match r {
            Role::Arrive(_) => 0,
            Role::Wander => 1,
            Role::Leader | Role::Follower(_) => 2,
        })
        .collect();
    let meta = Meta::new("replay demo", 2026, DT, steps).with_description(
        "Arrivers cross the world and steer round the disc with a detection box; wanderers \
         meander, feel for walls with three rays and keep apart; a squad follows the patrol path \
         in formation.",
    );
    let options = RecordOptions { overlays: OverlayCapture::All, ..RecordOptions::default() };
    let mut rec = Recorder::new(meta, world, groups, agent_groups, options).expect("valid");

    let arrive_limits = Limits::new(5.0, 8.0, 6.0, 30.0).expect("valid");
    let wander_limits = Limits::new(2.5, 5.0, 4.0, 20.0).expect("valid");
    let squad_limits = Limits::new(3.0, 8.0, 5.0, 30.0).expect("valid");
    let follower_limits = Limits::new(4.5, 10.0, 6.0, 30.0).expect("valid");
    let arrive = Arrive::new(0.15, 4.0, 0.25).expect("valid");
    let look = LookWhereYoureGoing::new(Align::new(0.01, 0.6, 0.1).expect("valid"));
    let separation = Separation::new(0.5, Falloff::InverseSquare(0.6))
        .expect("valid")
        .radius_aware(0.05)
        .expect("valid");
    let neighbour_radius = 2.0;
    let mut follow = FollowPath::new(2.0).expect("valid").predictive(0.2).expect("valid");

    let mut outcome_clearance = f32::INFINITY;
    let mut outcome_gap = f32::INFINITY;
    let mut arrival_steps = vec![None; agents.len()];
    let mut slot_error = 0.0f32;
    let mut neighbours: Vec<Neighbour> = Vec::with_capacity(agents.len());

    for step in 0..=steps {
        // what each agent asks for this step, and the overlays that explain it
        let mut out = vec![SteeringOutput::default(); agents.len()];
        let mut rays: Vec<(u32, Vec2, Vec2, Option<f32>)> = Vec::new();
        let mut boxes: Vec<(u32, [Vec2; 4])> = Vec::new();
        let mut targets: Vec<(u32, Vec2)> = Vec::new();
        let mut circles: Vec<(u32, Vec2, f32, Vec2)> = Vec::new();
        let mut slot_points: Vec<(u32, Vec2)> = Vec::new();
        let snapshot = agents.clone();
        let mut wander_i = 0;
        for (i, k) in snapshot.iter().enumerate() {
            neighbours.clear();
            for (j, o) in snapshot.iter().enumerate() {
                let offset = o.position - k.position;
                let d2 = offset.length_squared();
                if j != i && d2 < neighbour_radius * neighbour_radius {
                    neighbours.push(Neighbour {
                        index: j,
                        position: o.position,
                        velocity: o.velocity,
                        radius: RADIUS,
                        offset,
                        distance_squared: d2,
                    });
                }
            }
            let sep = separation
                .steer(k, RADIUS, &neighbours, &Limits::new(4.0, 12.0, 1.0, 1.0).expect("valid"))
                .map_or(Vec2::ZERO, |s| s.linear);
            let a = i as u32;
            let s = match roles[i] {
                Role::Arrive(target) => {
                    targets.push((a, target));
                    let (push, corners) = detection_box(k, &[disc], &arrive_limits);
                    if k.velocity.length_squared() > 0.01 {
                        boxes.push((a, corners));
                    }
                    let go =
                        arrive.steer(k, target, &arrive_limits).map_or(Vec2::ZERO, |s| s.linear);
                    let angular = look.steer(k, &arrive_limits).map_or(0.0, |s| s.angular);
                    // the box has priority; arrive keeps a say so the agent keeps moving on
                    let linear = match push {
                        Some(push) => push + go * 0.5 + sep,
                        None => go + sep,
                    };
                    SteeringOutput { linear, angular }
                }
                Role::Wander => {
                    let w = &mut wanders[wander_i];
                    wander_i += 1;
                    let roam = w.steer(k, &wander_limits, DT).unwrap_or_default();
                    circles.push((a, w.circle_center(k), w.radius(), w.target()));
                    let avoid = feelers(k, &obstacles, &wander_limits, |from, to, hit| {
                        rays.push((a, from, to, hit));
                    });
                    // containment: back toward the middle when near the edge of the world
                    let inner = (lo + Vec2::splat(2.5), hi - Vec2::splat(2.5));
                    let outside =
                        k.position.cmplt(inner.0).any() || k.position.cmpgt(inner.1).any();
                    let avoid = match (avoid, outside) {
                        (None, true) => Seek::new().steer(k, Vec2::new(0.0, 3.0), &wander_limits),
                        (a, _) => a,
                    };
                    match avoid {
                        Some(s) => SteeringOutput {
                            linear: s.linear + sep,
                            angular: look.steer(k, &wander_limits).map_or(0.0, |s| s.angular),
                        },
                        None => SteeringOutput { linear: roam.linear + sep, angular: roam.angular },
                    }
                }
                Role::Leader => {
                    let s = follow.steer(k, &path, &squad_limits).unwrap_or_default();
                    targets.push((a, follow.target(&path)));
                    let angular = look.steer(k, &squad_limits).map_or(0.0, |s| s.angular);
                    SteeringOutput { linear: s.linear + sep * 0.5, angular }
                }
                Role::Follower(j) => {
                    let lead = &snapshot[leader];
                    let slot = pursuits[j].slot(lead);
                    slot_points.push((a, slot));
                    if step + 60 > steps {
                        slot_error = slot_error.max((k.position - slot).length());
                    }
                    let s = pursuits[j].steer(k, lead, &follower_limits).unwrap_or_default();
                    let angular = look.steer(k, &follower_limits).map_or(0.0, |s| s.angular);
                    SteeringOutput { linear: s.linear + sep * 0.5, angular }
                }
            };
            out[i] = s;
        }

        // facts about the state at this step
        let mut gap = f32::INFINITY;
        for (i, k) in agents.iter().enumerate() {
            outcome_clearance =
                outcome_clearance.min((k.position - disc.center).length() - disc.radius - RADIUS);
            for o in &agents[i + 1..] {
                gap = gap.min((k.position - o.position).length() - 2.0 * RADIUS);
            }
            if let Role::Arrive(t) = roles[i] {
                if arrival_steps[i].is_none() && (k.position - t).length() < 0.3 {
                    arrival_steps[i] = Some(step);
                    rec.event(step, "arrived", Some(i as u32));
                }
            }
        }
        outcome_gap = outcome_gap.min(gap);

        if rec.records(step) {
            let arrived = arrival_steps.iter().filter(|a| a.is_some()).count();
            let mean_speed =
                agents.iter().map(|k| k.velocity.length()).sum::<f32>() / agents.len() as f32;
            let mut f = rec.push_kinematics(step, &agents).expect("frames advance");
            for (i, s) in out.iter().enumerate() {
                f.steering(i as u32, s.linear);
                if roles[i] != Role::Leader && !matches!(roles[i], Role::Follower(_)) {
                    f.neighbour_radius(i as u32, neighbour_radius);
                }
            }
            for &(a, from, to, hit) in &rays {
                f.ray(a, from, to, hit);
            }
            for &(a, corners) in &boxes {
                f.detection_box(a, corners);
            }
            for &(a, t) in &targets {
                f.target(a, t);
            }
            for &(a, c, r, t) in &circles {
                f.wander(a, c, r, t);
            }
            for &(a, p) in &slot_points {
                f.slot(a, p);
            }
            f.metric("mean speed", "m/s", mean_speed);
            f.metric("closest gap between bodies", "m", gap);
            f.metric("arrived", "", arrived as f32);
        }
        if step == steps {
            break;
        }
        for ((k, s), role) in agents.iter_mut().zip(&out).zip(&roles) {
            let limits = match role {
                Role::Arrive(_) => &arrive_limits,
                Role::Wander => &wander_limits,
                Role::Leader => &squad_limits,
                Role::Follower(_) => &follower_limits,
            };
            k.integrate(s, limits, DT);
        }
    }
    Outcome {
        recording: rec.finish(),
        final_agents: agents,
        roles,
        min_obstacle_clearance: outcome_clearance,
        min_body_gap: outcome_gap,
        arrival_steps,
        max_slot_error_last_second: slot_error,
    }
}

#[test]
fn demo_replay_is_self_contained_round_trips_and_snapshot_has_every_agent() {
    let steps = 600;
    let o = run_demo(steps);
    let r = &o.recording;
    assert_eq!(r.frames.len(), steps as usize + 1);
    assert_eq!(r.agent_count(), 30);

    // the run shows what it is meant to
    let arrivers = o.roles.iter().filter(|r| matches!(r, Role::Arrive(_))).count();
    let arrived = o.arrival_steps.iter().filter(|a| a.is_some()).count();
    assert_eq!(arrived, arrivers, "arrival steps {:?}", o.arrival_steps);
    for (k, role) in o.final_agents.iter().zip(&o.roles) {
        if let Role::Arrive(t) = role {
            let miss = (k.position - *t).length();
            assert!(miss < 0.35, "an arriver ends {miss} m from its target");
        }
    }
    // the detection box is a steering hint, not a constraint (the crowd engine's
    // non-penetration is): bodies may graze the disc but no centre enters it
    assert!(
        o.min_obstacle_clearance > -RADIUS,
        "a body entered the disc by {}",
        -o.min_obstacle_clearance
    );
    assert!(
        o.max_slot_error_last_second < 2.0,
        "followers {} m from their slots",
        o.max_slot_error_last_second
    );
    println!(
        "demo: arrivals at steps {:?}; deepest body overlap with the disc {:.3} m; smallest gap between bodies {:.3} m; \
         followers within {:.3} m of their slots in the last second",
        o.arrival_steps.iter().flatten().collect::<Vec<_>>(),
        -o.min_obstacle_clearance,
        o.min_body_gap,
        o.max_slot_error_last_second
    );
    let ov = &r.frames[300].overlays;
    assert_eq!(ov.steering.agent.len(), 30);
    assert_eq!(ov.rays.agent.len(), 18 * 3);
    assert_eq!(ov.boxes.agent.len(), 8);
    assert_eq!(ov.wander.agent.len(), 18);
    assert_eq!(ov.slots.agent.len(), 3);
    assert_eq!(ov.target.agent.len(), 9);
    let hits = r.frames.iter().flat_map(|f| &f.overlays.rays.hit).filter(|&&t| t >= 0.0).count();
    assert!(hits > 100, "feelers hit something in {hits} ray-frames");

    // files
    let dir = out_dir();
    let html_path = dir.join("replay.html");
    let svg_path = dir.join("snapshot.svg");
    replay::write_html(r, &html_path).unwrap();
    snapshot::write_svg(r, &svg_path).unwrap();
    let html = std::fs::read_to_string(&html_path).unwrap();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let mut bare = r.clone();
    bare.frames.iter_mut().for_each(|f| f.overlays = Default::default());
    println!(
        "30 agents x {} frames: replay.html {} bytes (JSON {} bytes, {} without overlays), \
         snapshot.svg {} bytes",
        r.frames.len(),
        html.len(),
        r.to_json().len(),
        bare.to_json().len(),
        svg.len()
    );

    // nothing loaded from the network
    for scheme in
        ["http://", "https://", "ftp://", "//cdn", "<link", "<img", "<iframe", "@import", "url("]
    {
        assert!(!html.contains(scheme), "replay.html contains {scheme}");
    }
    assert!(!html.contains(" src="), "replay.html loads a script or image");

    // the inlined JSON round-trips
    let json = replay::embedded_json(&html).expect("the page has the recording");
    let back = Recording::from_json(json).expect("the inlined JSON reads back");
    assert_eq!(back.frames.len(), r.frames.len());
    assert_eq!(back.meta, r.meta);
    assert_eq!(back.world, r.world);
    assert_eq!(back.groups, r.groups);
    assert_eq!(back.events, r.events);
    assert_eq!(back.events.len(), 8);
    let mut worst = 0.0f32;
    for (a, b) in back.frames.iter().zip(&r.frames) {
        assert_eq!(a.step, b.step);
        assert_eq!(a.overlays.rays.agent, b.overlays.rays.agent);
        for (x, y) in a.position.iter().zip(&b.position).chain(a.velocity.iter().zip(&b.velocity)) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst <= 0.0005 + 1e-5, "positions and velocities read back within {worst} m");
    for (a, b) in back.metrics.iter().zip(&r.metrics) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.values, b.values, "metric {} is kept exactly", a.name);
    }
    assert_eq!(back.to_json(), r.to_json());

    // the snapshot is XML with one marker per agent and one trail per agent
    let doc = roxmltree::Document::parse(&svg).expect("snapshot.svg is well-formed XML");
    let class = |c: &str| doc.descendants().filter(|n| n.attribute("class") == Some(c)).count();
    assert_eq!(class("agent"), 30);
    let trails: usize = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("trails"))
        .map(|g| g.children().filter(|c| c.has_tag_name("path")).count())
        .sum();
    assert_eq!(trails, 30);
    assert_eq!(class("wall"), 1);
    assert_eq!(class("obstacle"), 1);
    assert_eq!(class("path"), 1);
}

/// A synthetic crowd of `agents` wanderers in a wrap-around world, `frames` frames, overlays
/// for the first 50 agents.
fn crowd(agents: usize, frames: u32) -> Recording {
    let (lo, hi) = (Vec2::new(-60.0, -40.0), Vec2::new(60.0, 40.0));
    let size = hi - lo;
    let meta = Meta::new("crowd", 1, DT, frames - 1);
    let groups = (0..4).map(|g| Group::new(format!("group {g}"), PALETTE[g], 0.3)).collect();
    let options = RecordOptions {
        overlays: OverlayCapture::Only((0..50).collect()),
        ..RecordOptions::default()
    };
    let mut rec = Recorder::new(
        meta,
        World::bounded(lo, hi, true),
        groups,
        (0..agents as u32).map(|a| a % 4).collect(),
        options,
    )
    .expect("valid");
    let limits = Limits::new(1.5, 3.0, 3.0, 12.0).expect("valid");
    let face = Face::new(Align::new(0.02, 0.8, 0.15).expect("valid"));
    let mut ks: Vec<Kinematic> = (0..agents)
        .map(|i| {
            let p =
                lo + Vec2::new((i * 37 % 113) as f32 / 113.0, (i * 71 % 97) as f32 / 97.0) * size;
            Kinematic::at_rest(p, i as f32)
        })
        .collect();
    let mut ws: Vec<Wander> =
        (0..agents).map(|i| Wander::new(2.0, 1.0, 2.0, face, i as u64).expect("valid")).collect();
    for step in 0..frames {
        let out: Vec<SteeringOutput> = ks
            .iter()
            .zip(&mut ws)
            .map(|(k, w)| w.steer(k, &limits, DT).unwrap_or_default())
            .collect();
        let mut f = rec.push_kinematics(step, &ks).expect("frames advance");
        for (i, s) in out.iter().enumerate().take(50) {
            f.steering(i as u32, s.linear);
            f.wander(i as u32, ws[i].circle_center(&ks[i]), ws[i].radius(), ws[i].target());
        }
        f.metric(
            "mean speed",
            "m/s",
            ks.iter().map(|k| k.velocity.length()).sum::<f32>() / agents as f32,
        );
        for (k, s) in ks.iter_mut().zip(&out) {
            k.integrate(s, &limits, DT);
            k.position = lo + (k.position - lo).rem_euclid(size);
        }
    }
    rec.finish()
}

#[test]
fn a_thousand_agents_for_300_frames_make_a_replay_of_a_few_megabytes() {
    let r = crowd(1000, 300);
    assert_eq!(r.frames.len(), 300);
    let json = r.to_json();
    let html = replay::render_html(&r);
    let svg = snapshot::render_svg(&r);
    println!(
        "1000 agents x 300 frames: replay.html {} bytes (JSON {} bytes), snapshot.svg {} bytes",
        html.len(),
        json.len(),
        svg.len()
    );
    // about 33 bytes per agent-frame: position, velocity and heading to 3 decimals
    let per_agent_frame = json.len() as f64 / 300_000.0;
    assert!(per_agent_frame < 40.0, "{per_agent_frame:.1} bytes per agent-frame");
    assert!(html.len() < 13_000_000, "replay.html is {} bytes", html.len());
    assert!(svg.len() < 4_000_000, "snapshot.svg is {} bytes", svg.len());
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    assert_eq!(doc.descendants().filter(|n| n.attribute("class") == Some("agent")).count(), 1000);
    // every fourth frame: a quarter of the size
    let mut quarter = r.clone();
    quarter.frames = r.frames.iter().step_by(4).cloned().collect();
    for m in &mut quarter.metrics {
        m.values = m.values.iter().step_by(4).copied().collect();
    }
    quarter.validate().expect("consistent");
    let ratio = quarter.to_json().len() as f64 / json.len() as f64;
    assert!((0.2..0.3).contains(&ratio), "every 4th frame keeps {ratio:.3} of the bytes");
}

#[test]
fn a_2d_crowd_of_2000_agents_is_written_for_the_browser_test() {
    let r = crowd(2000, 200);
    assert_eq!(r.frames.len(), 200);
    let html = replay::render_html(&r);
    println!("2000 agents x 200 frames in 2D: replay.html {} bytes", html.len());
    assert!(html.len() < 16_000_000, "replay.html is {} bytes", html.len());
    // the browser test plays it and times the drawing: a big crowd must stay smooth
    std::fs::write(out_dir().join("crowd-replay.html"), html).unwrap();
}

/// Radii of the two groups of the bodies-to-scale recording (metres).
const SMALL: f32 = 0.5;
const LARGE: f32 = 1.0;

/// Bodies at known places for the browser test to measure on screen: one isolated agent of each
/// of two radii, a pair of small agents exactly touching and a pair 0.3 m apart, all gliding along
/// +x at 0.4 m/s (heading 0) for 10 s.
#[test]
fn a_bodies_to_scale_replay_is_written_for_the_browser_test() {
    let dt = 1.0 / 30.0;
    let steps = 300;
    let meta = Meta::new("bodies", 1, dt, steps).with_description(
        "Bodies to scale: an agent of radius 0.5 m and one of 1 m, each alone; two of 0.5 m \
         touching (centres 1 m apart) and two with a 0.3 m gap, all gliding east at 0.4 m/s",
    );
    let groups =
        vec![Group::new("small", PALETTE[0], SMALL), Group::new("large", PALETTE[1], LARGE)];
    let start = [
        Vec2::new(-6.0, 4.0),
        Vec2::new(2.0, 4.0),
        Vec2::new(-6.0, -2.0),
        Vec2::new(-6.0 + 2.0 * SMALL, -2.0),
        Vec2::new(2.0, -2.0),
        Vec2::new(2.0 + 2.0 * SMALL + 0.3, -2.0),
    ];
    let mut rec = Recorder::new(
        meta,
        World::bounded(Vec2::new(-10.0, -6.0), Vec2::new(10.0, 8.0), false),
        groups,
        vec![0, 1, 0, 0, 0, 0],
        RecordOptions::default(),
    )
    .expect("valid");
    let velocity = Vec2::new(0.4, 0.0);
    for step in 0..=steps {
        let ks: Vec<Kinematic> = start
            .iter()
            .map(|&p| Kinematic {
                velocity,
                ..Kinematic::at_rest(p + velocity * (step as f32 * dt), 0.0)
            })
            .collect();
        rec.push_kinematics(step, &ks).expect("frames advance");
    }
    let r = rec.finish();
    assert_eq!(r.frames.len(), steps as usize + 1);
    assert_eq!(r.groups[1].radius, LARGE);
    let html = replay::render_html(&r);
    let back = Recording::from_json(replay::embedded_json(&html).unwrap()).unwrap();
    assert_eq!(back.frames[0].position[4..6], [-6.0, -2.0]);
    assert_eq!(back.frames[0].position[6], -5.0, "the touching pair's centres are 2 r apart");
    let dir = out_dir().join("bodies");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("replay.html"), html).unwrap();
}

/// Recordings at the edges of the schema, for the browser test to open: a 3D run in a
/// wrap-around world with an agent that leaves the simulation (NaN), and an empty recording.
#[test]
fn edge_case_replays_are_written_and_read_back() {
    use steerkit::kinematic::Kinematic3;
    use steerkit::{Quat, Vec3};
    let dir = out_dir();

    let (lo, hi) = (Vec2::new(-5.0, -5.0), Vec2::new(5.0, 5.0));
    let meta = Meta::new("edge: 3D, wrap-around, a lost agent", 3, 0.1, 40)
        .with_description("</script><b>not markup</b> \u{2028}");
    let groups = vec![Group::new("fliers", "#0072b2", 0.3), Group::new("lost", "#d55e00", 0.3)];
    let mut rec = Recorder::<Vec3>::new(
        meta,
        World::bounded(lo, hi, true),
        groups,
        vec![0, 0, 1],
        RecordOptions { every: 3, ..RecordOptions::default() },
    )
    .expect("valid");
    let mut ks = [
        Kinematic3 { velocity: Vec3::new(2.0, 0.5, 0.0), ..Kinematic3::default() },
        Kinematic3 { velocity: Vec3::new(0.0, 0.0, -3.0), ..Kinematic3::default() },
        Kinematic3 { velocity: Vec3::new(1.0, 0.0, 1.0), ..Kinematic3::default() },
    ];
    for step in 0..=40 {
        if step == 20 {
            ks[2].position = Vec3::NAN;
        }
        if rec.records(step) {
            let mut f = rec.push_kinematics3(step, &ks).expect("frames advance");
            f.steering(0, Vec3::new(0.0, 0.0, 1.0));
            f.target(1, Vec3::new(0.0, 1.0, -4.0));
            f.metric("height", "m", if step < 20 { ks[0].position.y } else { f32::NAN });
        }
        if step == 20 {
            rec.event(step, "quarantined", Some(2));
            rec.event(step, "half time", None);
        }
        for k in &mut ks[..2] {
            k.position += k.velocity * 0.1;
            // wrap x and the ground's second axis (−z)
            k.position.x = lo.x + (k.position.x - lo.x).rem_euclid(hi.x - lo.x);
            k.position.z = -(lo.y + (-k.position.z - lo.y).rem_euclid(hi.y - lo.y));
            k.orientation = Quat::from_rotation_y(0.1 * step as f32);
        }
    }
    let r = rec.finish();
    let kept: Vec<u32> = r.frames.iter().map(|f| f.step).collect();
    assert_eq!(kept, [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 40]);
    assert_eq!(r.meta.dims, 3);
    assert_eq!(r.frames[0].position.len(), 9);
    let html = replay::render_html(&r);
    let back = Recording::from_json(replay::embedded_json(&html).unwrap()).unwrap();
    assert!(back.frames[7].position[6].is_nan(), "the lost agent reads back as NaN");
    assert_eq!(back.meta.description, r.meta.description);
    assert_eq!(back.events[1].agent, None);
    std::fs::write(dir.join("edge-3d-replay.html"), html).unwrap();
    // the same run as a recording made before frames carried attitudes: the player turns the
    // bodies by their velocity
    let mut old = r.clone();
    old.frames.iter_mut().for_each(|f| f.attitude.clear());
    let html = replay::render_html(&old);
    assert!(!replay::embedded_json(&html).unwrap().contains("attitude"));
    std::fs::write(dir.join("edge-3d-old-replay.html"), html).unwrap();
    let svg = snapshot::render_svg(&r);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let agents = doc.descendants().filter(|n| n.attribute("class") == Some("agent")).count();
    assert_eq!(agents, 2, "the lost agent has no marker");

    let empty = Recorder::<Vec2>::new(
        Meta::new("edge: empty", 0, 0.1, 0),
        World::default(),
        vec![],
        vec![],
        RecordOptions::default(),
    )
    .expect("valid")
    .finish();
    let html = replay::render_html(&empty);
    assert_eq!(Recording::from_json(replay::embedded_json(&html).unwrap()).unwrap(), empty);
    std::fs::write(dir.join("edge-empty-replay.html"), html).unwrap();
    roxmltree::Document::parse(&snapshot::render_svg(&empty)).expect("well-formed");
}

/// A 3D run for the browser test's 3D view: 40 fliers in a volume with two spheres, a tower and a
/// figure-eight path that climbs over one sphere and dives under the other. Sixteen follow the
/// path, sixteen circle the spheres, a squad of four flies a high oval in formation and four
/// scouts wander. Bodies bank into their turns and pitch with their climb (faked rotation axes,
/// Millington §3.9.8), so the replay's attitudes carry roll and pitch.
fn run_flight(steps: u32) -> Recording {
    use steerkit::geometry::{Aabb, Ray3, Sphere};
    use steerkit::kinematic::{Kinematic3, SteeringOutput3};
    use steerkit::steering::Stateful;
    use steerkit::three_d::{Face3, FakeRotation, Wander3};
    use steerkit::{Quat, Vec3};

    const FLY_DT: f32 = 1.0 / 30.0;
    const BODY: f32 = 0.5;
    let volume = (Vec3::new(-28.0, 0.0, -18.0), Vec3::new(28.0, 20.0, 18.0));
    let spheres =
        [Sphere::new(Vec3::new(-11.5, 9.0, 0.0), 3.5), Sphere::new(Vec3::new(11.5, 9.0, 0.0), 4.5)];
    let tower = Aabb::new(Vec3::new(-2.0, 0.0, 11.0), Vec3::new(2.0, 13.0, 15.0));
    // the figure eight: round sphere B high, round sphere A low, crossing 6 m apart in height
    let eight: Vec<Vec3> = (0..48)
        .map(|i| {
            let t = i as f32 / 48.0 * std::f32::consts::TAU;
            Vec3::new(20.0 * t.cos(), 9.0 + 3.0 * t.sin(), 9.0 * (2.0 * t).sin())
        })
        .collect();
    // a coherent search (10 m of arc either side) keeps followers on their branch at the crossing
    let eight = Polyline::looping(eight)
        .and_then(|p| p.with_search_window(Some(10.0)))
        .expect("valid path");
    let oval: Vec<Vec3> = (0..36)
        .map(|i| {
            let t = i as f32 / 36.0 * std::f32::consts::TAU;
            Vec3::new(24.0 * t.cos(), 16.0 + 1.5 * (2.0 * t).sin(), -14.0 * t.sin())
        })
        .collect();
    let oval =
        Polyline::looping(oval).and_then(|p| p.with_search_window(Some(10.0))).expect("valid path");

    let mut world = World::default().with_volume(volume.0, volume.1);
    for s in spheres {
        world.add_sphere(s.center, s.radius);
    }
    world.add_cuboid(tower.min, tower.max);
    world.add_path(PathShape::from_polyline3("figure eight", &eight));
    world.add_path(PathShape::from_polyline3("squad oval", &oval));

    #[derive(Clone, Copy, PartialEq)]
    enum Flier {
        Eight,
        Orbit { sphere: usize, radius: f32, height: f32, turn: f32 },
        Leader,
        Wing(usize),
        Scout,
    }
    // predictive, and placed on the path by a whole-path search on the first step
    let place = |f: FollowPath| f.predictive(0.3).expect("valid").with_state(f32::NAN);
    let mut roles = Vec::new();
    let mut ks: Vec<Kinematic3> = Vec::new();
    let mut followers = Vec::new();
    for i in 0..16 {
        let t = i as f32 / 16.0 * std::f32::consts::TAU;
        let p = Vec3::new(20.0 * t.cos(), 9.0 + 3.0 * t.sin(), 9.0 * (2.0 * t).sin());
        ks.push(Kinematic3 { position: p, ..Kinematic3::default() });
        roles.push(Flier::Eight);
        followers.push(place(FollowPath::new(2.5).expect("valid")));
    }
    for i in 0..16 {
        let sphere = i % 2;
        let radius = spheres[sphere].radius + 2.2 + (i / 2 % 4) as f32 * 0.9;
        let height = spheres[sphere].center.y - 3.0 + (i / 2) as f32 * 0.8;
        let turn = if i / 2 % 2 == 0 { 1.0 } else { -1.0 };
        let a = i as f32 * 1.3;
        let c = spheres[sphere].center;
        let p = Vec3::new(c.x + radius * a.cos(), height, c.z + radius * a.sin());
        ks.push(Kinematic3 { position: p, ..Kinematic3::default() });
        roles.push(Flier::Orbit { sphere, radius, height, turn });
    }
    let leader = ks.len();
    ks.push(Kinematic3 { position: Vec3::new(24.0, 16.0, 0.0), ..Kinematic3::default() });
    roles.push(Flier::Leader);
    followers.push(place(FollowPath::new(3.0).expect("valid")));
    let wing_offsets =
        [Vec3::new(-2.2, 0.0, -2.0), Vec3::new(-2.2, 0.0, 2.0), Vec3::new(-4.4, 0.0, 0.0)];
    let wings: Vec<_> =
        wing_offsets.iter().map(|&o| OffsetPursuit::new(o, 1.0).expect("valid")).collect();
    for (j, o) in wing_offsets.iter().enumerate() {
        ks.push(Kinematic3 { position: Vec3::new(24.0, 16.0, 0.0) + *o, ..Kinematic3::default() });
        roles.push(Flier::Wing(j));
    }
    let mut scouts = Vec::new();
    for i in 0..4 {
        let p = Vec3::new(-20.0 + 13.0 * i as f32, 4.0 + i as f32, -14.0 + 2.0 * i as f32);
        let orientation = Quat::from_rotation_y(0.7 + 1.6 * i as f32);
        ks.push(Kinematic3 { position: p, orientation, ..Kinematic3::default() });
        roles.push(Flier::Scout);
        let face = Face3::new(Align::new(0.02, 0.8, 0.15).expect("valid"));
        scouts.push(
            Wander3::new(face, Vec3::new(4.0, 0.0, 0.0), 2.5, 0.8, 0.5, 77 + i).expect("valid"),
        );
    }
    assert_eq!(ks.len(), 40);
    // every body starts flying along its route
    for (k, role) in ks.iter_mut().zip(&roles) {
        let heading = match role {
            Flier::Scout => k.orientation * Vec3::X,
            Flier::Orbit { sphere, turn, .. } => {
                let r = k.position - spheres[*sphere].center;
                Vec3::new(-r.z, 0.0, r.x) * -*turn
            }
            _ => Vec3::new(-k.position.z, 0.0, k.position.x) * -1.0,
        };
        k.velocity = heading.normalize_or(Vec3::X) * 4.0;
    }

    let groups = vec![
        Group::new("figure eight", PALETTE[0], BODY),
        Group::new("orbiters", PALETTE[1], BODY),
        Group::new("squad", PALETTE[2], BODY),
        Group::new("scouts", PALETTE[3], BODY),
    ];
    let agent_groups = roles
        .iter()
        .map(|r| match r {
            Flier::Eight => 0,
            Flier::Orbit { .. } => 1,
            Flier::Leader | Flier::Wing(_) => 2,
            Flier::Scout => 3,
        })
        .collect();
    let meta = Meta::new("replay 3D: fliers", 2027, FLY_DT, steps).with_description(
        "Forty fliers in a volume: sixteen follow a figure eight that climbs over one sphere and \
         dives under the other, sixteen circle the spheres, a squad flies a high oval in \
         formation over the tower and four scouts wander. Bodies bank into their turns.",
    );
    // overlays for one of each kind: path follower, orbiter, the squad, a scout
    let watched = vec![0, 16, 17, 32, 33, 34, 35, 36, 37, 38, 39];
    let options = RecordOptions { overlays: OverlayCapture::Only(watched), ..Default::default() };
    let mut rec = Recorder::<Vec3>::new(meta, world, groups, agent_groups, options).expect("valid");

    let limits = Limits::new(6.0, 7.0, 3.0, 12.0).expect("valid");
    let scout_limits = Limits::new(4.5, 5.0, 2.5, 6.0).expect("valid");
    let fake = FakeRotation::new(2.0, 1.0).expect("valid");
    let separation = Separation::new(1.2, Falloff::InverseSquare(0.8)).expect("valid");
    let sep_limits = Limits::new(4.0, 6.0, 1.0, 1.0).expect("valid");
    let neighbour_radius = 2.5;
    let mut yaw_rate = vec![0.0f32; ks.len()];
    let mut laps = vec![0.0f32; ks.len()];
    let mut neighbours: Vec<Neighbour<Vec3>> = Vec::new();
    let feel = |from: Vec3, dir: Vec3, length: f32| {
        let ray = Ray3::new(from, dir, length);
        let mut best: Option<f32> = None;
        let hits = spheres.iter().map(|s| s.cast_ray(&ray)).chain([tower.cast_ray(&ray)]);
        for h in hits.flatten() {
            if best.is_none_or(|d| h.distance < d) {
                best = Some(h.distance);
            }
        }
        (ray.end(), best.map(|d| d / length))
    };

    for step in 0..=steps {
        let snapshot = ks.clone();
        let mut out = vec![SteeringOutput3::default(); ks.len()];
        let mut targets: Vec<(u32, Vec3)> = Vec::new();
        for (i, k) in snapshot.iter().enumerate() {
            neighbours.clear();
            for (j, o) in snapshot.iter().enumerate() {
                let offset = o.position - k.position;
                let d2 = offset.length_squared();
                if j != i && d2 < neighbour_radius * neighbour_radius {
                    neighbours.push(Neighbour {
                        index: j,
                        position: o.position,
                        velocity: o.velocity,
                        radius: BODY,
                        offset,
                        distance_squared: d2,
                    });
                }
            }
            let sep = separation
                .steer(k, BODY, &neighbours, &sep_limits)
                .map_or(Vec3::ZERO, |s| s.linear);
            out[i] = match roles[i] {
                Flier::Eight => {
                    let s = followers[i].steer(k, &eight, &limits).unwrap_or_default();
                    targets.push((i as u32, followers[i].target(&eight)));
                    SteeringOutput3 { linear: s.linear + sep, ..Default::default() }
                }
                Flier::Orbit { sphere, radius, height, turn } => {
                    let c = spheres[sphere].center;
                    let r = k.position - c;
                    let angle = r.z.atan2(r.x) + turn * 0.55;
                    let bob = height + 1.2 * (step as f32 * FLY_DT * 0.7 + i as f32).sin();
                    let carrot =
                        Vec3::new(c.x + radius * angle.cos(), bob, c.z + radius * angle.sin());
                    targets.push((i as u32, carrot));
                    let s = Seek::new().steer(k, carrot, &limits).unwrap_or_default();
                    SteeringOutput3 { linear: s.linear + sep, ..Default::default() }
                }
                Flier::Leader => {
                    let f = &mut followers[16];
                    let s = f.steer(k, &oval, &limits).unwrap_or_default();
                    targets.push((i as u32, f.target(&oval)));
                    SteeringOutput3 { linear: s.linear, ..Default::default() }
                }
                Flier::Wing(j) => {
                    let s = wings[j].steer(k, &snapshot[leader], &limits).unwrap_or_default();
                    SteeringOutput3 { linear: s.linear + sep * 0.5, ..Default::default() }
                }
                Flier::Scout => {
                    // Wander3 moves the target on its ellipsoid ahead; the scout seeks it
                    let w = &mut scouts[i - 36];
                    w.steer(k, &scout_limits, FLY_DT);
                    let radii = Vec3::new(w.radius_xz(), w.radius_y(), w.radius_xz());
                    let aim = k.position + k.orientation * (w.offset() + w.wander_target() * radii);
                    // away from a sphere it nears; back toward the middle near the walls
                    let inner = (volume.0 + Vec3::splat(5.0), volume.1 - Vec3::splat(5.0));
                    let near_sphere = spheres
                        .iter()
                        .find(|sp| (k.position - sp.center).length() < sp.radius + 4.0);
                    let outside =
                        k.position.cmplt(inner.0).any() || k.position.cmpgt(inner.1).any();
                    let aim = match (near_sphere, outside) {
                        (Some(sp), _) => k.position + (k.position - sp.center).normalize() * 8.0,
                        (None, true) => Vec3::new(0.0, 6.0, -10.0),
                        (None, false) => aim,
                    };
                    targets.push((i as u32, aim));
                    let s = Seek::new().steer(k, aim, &scout_limits).unwrap_or_default();
                    SteeringOutput3 { linear: s.linear + sep, ..Default::default() }
                }
            };
        }

        if rec.records(step) {
            let speed = ks.iter().map(|k| k.velocity.length()).sum::<f32>() / ks.len() as f32;
            let bank = ks.iter().map(|k| (k.orientation * Vec3::Z).y.asin().abs()).sum::<f32>()
                / ks.len() as f32;
            let clearance = ks
                .iter()
                .flat_map(|k| spheres.iter().map(|s| (k.position - s.center).length() - s.radius))
                .fold(f32::INFINITY, f32::min);
            let mut f = rec.push_kinematics3(step, &ks).expect("frames advance");
            for (i, s) in out.iter().enumerate() {
                f.steering(i as u32, s.linear);
            }
            for &(a, t) in &targets {
                f.target(a, t);
            }
            for a in [0u32, 16, 17] {
                let k = &ks[a as usize];
                f.neighbour_radius(a, neighbour_radius);
                let q = k.orientation;
                let length = 3.0 + k.velocity.length();
                for dir in [Vec3::X, Vec3::new(1.0, 0.0, 0.45), Vec3::new(1.0, 0.0, -0.45)] {
                    let dir = (q * dir).normalize();
                    let (end, hit) = feel(k.position, dir, length);
                    f.ray(a, k.position, end, hit);
                }
            }
            for (j, wing) in wings.iter().enumerate() {
                f.slot(33 + j as u32, wing.slot(&ks[leader]));
            }
            for (w, a) in scouts.iter().zip(36u32..) {
                let k = &ks[a as usize];
                let q = k.orientation;
                let center = k.position + q * w.offset();
                let radii = Vec3::new(w.radius_xz(), w.radius_y(), w.radius_xz());
                let target = center + q * (w.wander_target() * radii);
                f.wander(a, center, w.radius_xz(), target);
            }
            f.metric("mean speed", "m/s", speed);
            f.metric("mean bank", "°", bank.to_degrees());
            f.metric("closest approach to a sphere", "m", clearance);
        }
        if step == steps {
            break;
        }
        for (i, (k, s)) in ks.iter_mut().zip(&out).enumerate() {
            let before = k.velocity;
            let l = if roles[i] == Flier::Scout { &scout_limits } else { &limits };
            k.integrate(s, l, FLY_DT);
            // bank and pitch for display: yaw from the velocity, a smoothed yaw rate for the roll
            let heading = |v: Vec3| (-v.z).atan2(v.x);
            let mut turn = heading(k.velocity) - heading(before);
            turn -= (turn / std::f32::consts::TAU).round() * std::f32::consts::TAU;
            yaw_rate[i] += (turn / FLY_DT - yaw_rate[i]) * 0.15;
            if let Flier::Orbit { turn: dir, .. } = roles[i] {
                laps[i] += turn.abs();
                if laps[i] >= std::f32::consts::TAU {
                    laps[i] -= std::f32::consts::TAU;
                    if i == 16 || i == 17 {
                        rec.event(
                            step,
                            if dir > 0.0 { "lap (clockwise)" } else { "lap" },
                            Some(i as u32),
                        );
                    }
                }
            }
            let level = Kinematic3 {
                orientation: Quat::from_rotation_y(heading(k.velocity)),
                rotation: Vec3::Y * yaw_rate[i],
                ..*k
            };
            k.orientation = fake.orientation(&level);
            k.rotation = Vec3::ZERO;
        }
    }
    rec.finish()
}

#[test]
fn a_3d_flight_replay_has_banking_attitudes_and_3d_shapes() {
    let r = run_flight(450);
    assert_eq!(r.meta.dims, 3);
    assert_eq!(r.agent_count(), 40);
    assert_eq!(r.frames.len(), 451);
    assert!(r.world.volume.is_some());
    assert_eq!(r.world.spheres.len(), 2);
    assert_eq!(r.world.cuboids.len(), 1);
    assert!(r.world.paths.iter().all(|p| p.points.iter().all(|q| q.components().len() == 3)));
    // every frame has a unit quaternion per agent, and the fliers bank and pitch
    let mut max_bank = 0.0f32;
    let mut max_pitch = 0.0f32;
    for f in &r.frames {
        assert_eq!(f.attitude.len(), 4 * 40);
        for q in f.attitude.chunks_exact(4) {
            let q = steerkit::Quat::from_slice(q);
            assert!((q.length() - 1.0).abs() < 1e-3, "{q}");
            max_bank = max_bank.max((q * steerkit::Vec3::Z).y.asin().abs());
            max_pitch = max_pitch.max((q * steerkit::Vec3::X).y.asin().abs());
        }
    }
    assert!(max_bank.to_degrees() > 25.0, "banks at most {:.1}°", max_bank.to_degrees());
    assert!(max_pitch.to_degrees() > 5.0, "pitches at most {:.1}°", max_pitch.to_degrees());
    let ov = &r.frames[200].overlays;
    assert_eq!(ov.rays.agent.len(), 9);
    assert_eq!(ov.slots.agent.len(), 3);
    assert_eq!(ov.wander.agent.len(), 4);
    assert_eq!(ov.neighbour_radius.agent.len(), 3);
    assert_eq!(ov.steering.vector.len(), 11 * 3);
    assert_eq!(r.metrics.len(), 3);
    // nobody flies through a sphere, and everybody stays in the volume (with a margin)
    let (lo, hi) = r.world.volume.map(|v| (v.min, v.max)).unwrap();
    let mut clearance = f32::INFINITY;
    for f in &r.frames {
        for (agent, p) in f.position.chunks_exact(3).enumerate() {
            for s in &r.world.spheres {
                let c = steerkit::Vec3::from(s.center);
                clearance = clearance.min((steerkit::Vec3::from_slice(p) - c).length() - s.radius);
            }
            for a in 0..3 {
                assert!(
                    p[a] > lo[a] - 3.0 && p[a] < hi[a] + 3.0,
                    "agent {agent} left the volume at step {}: {p:?}",
                    f.step
                );
            }
        }
    }
    assert!(clearance > 0.5, "a flier came within {clearance} m of a sphere's surface");
    println!(
        "3D flight: banks up to {:.1}°, pitches up to {:.1}°, {:.2} m from a sphere at the closest, \
         {} events",
        max_bank.to_degrees(),
        max_pitch.to_degrees(),
        clearance,
        r.events.len()
    );

    let html = replay::render_html(&r);
    let back = Recording::from_json(replay::embedded_json(&html).unwrap()).unwrap();
    assert_eq!(back.world, r.world);
    assert_eq!(back.frames[100].attitude.len(), 160);
    std::fs::write(out_dir().join("replay3d.html"), &html).unwrap();
    let svg = snapshot::render_svg(&r);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let class = |c: &str| doc.descendants().filter(|n| n.attribute("class") == Some(c)).count();
    assert_eq!(class("agent"), 40);
    assert_eq!(class("obstacle"), 3, "two spheres and the tower, seen from above");
    assert_eq!(class("path"), 2);
    std::fs::write(out_dir().join("snapshot3d.svg"), svg).unwrap();
}

/// A synthetic 3D crowd for the browser test to time the 3D view: `agents` fliers circling
/// vertical axes at many heights, banked into their turns, `frames` frames at 30 per second.
fn crowd3d(agents: usize, frames: u32) -> Recording {
    use steerkit::kinematic::Kinematic3;
    use steerkit::{Quat, Vec3};
    let mut world =
        World::default().with_volume(Vec3::new(-60.0, 0.0, -40.0), Vec3::new(60.0, 30.0, 40.0));
    world.add_sphere(Vec3::new(-25.0, 12.0, 0.0), 6.0);
    world.add_sphere(Vec3::new(25.0, 15.0, 5.0), 8.0);
    world.add_cuboid(Vec3::new(-4.0, 0.0, -30.0), Vec3::new(4.0, 18.0, -22.0));
    let meta = Meta::new("crowd 3D", 1, 1.0 / 30.0, frames - 1);
    let groups = (0..4).map(|g| Group::new(format!("group {g}"), PALETTE[g], 0.3)).collect();
    let options = RecordOptions {
        overlays: OverlayCapture::Only((0..50).collect()),
        ..RecordOptions::default()
    };
    let agent_groups = (0..agents as u32).map(|a| a % 4).collect();
    let mut rec = Recorder::<Vec3>::new(meta, world, groups, agent_groups, options).expect("valid");
    let mut ks = vec![Kinematic3::default(); agents];
    for step in 0..frames {
        let t = step as f32 / 30.0;
        for (i, k) in ks.iter_mut().enumerate() {
            let center = Vec3::new(
                -50.0 + (i * 37 % 101) as f32,
                3.0 + (i * 13 % 23) as f32,
                -32.0 + (i * 53 % 67) as f32,
            );
            let radius = 3.0 + (i % 7) as f32;
            let rate = if i % 2 == 0 { 1.0 } else { -1.0 } * 4.0 / radius;
            let a = i as f32 + rate * t;
            k.position =
                center + Vec3::new(radius * a.cos(), 0.8 * (a * 2.0).sin(), -radius * a.sin());
            k.velocity =
                Vec3::new(-a.sin(), 1.6 * (a * 2.0).cos() / radius, -a.cos()) * radius * rate;
            let heading = (-k.velocity.z).atan2(k.velocity.x);
            // bank into the turn: a left turn (rate > 0) lowers the left wing
            k.orientation =
                Quat::from_rotation_y(heading) * Quat::from_rotation_x(-(rate * 0.7).atan());
        }
        let mut f = rec.push_kinematics3(step, &ks).expect("frames advance");
        for i in 0..50 {
            f.steering(i, (ks[i as usize].velocity * -0.5).with_y(0.0));
        }
        f.metric("mean height", "m", ks.iter().map(|k| k.position.y).sum::<f32>() / agents as f32);
    }
    rec.finish()
}

#[test]
fn a_3d_crowd_of_2000_agents_is_written_for_the_browser_test() {
    let r = crowd3d(2000, 90);
    assert_eq!(r.frames.len(), 90);
    assert!(r.frames.iter().all(|f| f.attitude.len() == 8000));
    let html = replay::render_html(&r);
    println!("2000 agents x 90 frames in 3D: replay.html {} bytes", html.len());
    assert!(html.len() < 20_000_000, "replay.html is {} bytes", html.len());
    std::fs::write(out_dir().join("crowd3d-replay.html"), html).unwrap();
}
