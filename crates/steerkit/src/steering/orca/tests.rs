//! ORCA against brute force and in small scenes.

use super::lp::*;
use super::*;
use crate::math::Rng;

/// The brute-force answer: the best of a fine grid over the speed disc (feasible points
/// closest to `opt`; with no feasible point, the least largest violation).
fn brute(lines: &[OrcaLine], radius: f32, opt: Vec2) -> (bool, f32) {
    let n = 400;
    let (mut best_feasible, mut best_violation) = (f32::INFINITY, f32::INFINITY);
    for i in 0..=n {
        for j in 0..=n {
            let v = Vec2::new(i as f32, j as f32) / n as f32 * 2.0 * radius - Vec2::splat(radius);
            if v.length() > radius {
                continue;
            }
            let worst = lines
                .iter()
                .map(|l| l.direction.perp_dot(l.point - v))
                .fold(f32::NEG_INFINITY, f32::max);
            if worst <= 0.0 {
                best_feasible = best_feasible.min(v.distance(opt));
            }
            best_violation = best_violation.min(worst.max(0.0));
        }
    }
    if best_feasible.is_finite() {
        (true, best_feasible)
    } else {
        (false, best_violation)
    }
}

fn violation(lines: &[OrcaLine], v: Vec2) -> f32 {
    lines.iter().map(|l| l.direction.perp_dot(l.point - v)).fold(0.0, f32::max)
}

/// The incremental programs against a grid search on random constraint sets, feasible and
/// not: within the grid's resolution (2·radius/400 = 1 cm for radius 2, doubled).
#[test]
fn the_linear_programs_match_brute_force_on_random_constraint_sets() {
    let mut rng = Rng::new(5);
    let radius = 2.0;
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..200 {
        let n = 1 + (case % 7);
        let lines: Vec<OrcaLine> = (0..n)
            .map(|_| OrcaLine {
                point: Vec2::new(rng.clamped(), rng.clamped()) * 2.5,
                direction: Vec2::from_angle(rng.uniform() * core::f32::consts::TAU),
            })
            .collect();
        let opt = Vec2::new(rng.clamped(), rng.clamped()) * 2.5;
        let mut v = Vec2::ZERO;
        let fail = linear_program2(&lines, radius, opt, false, &mut v);
        let (ok, best) = brute(&lines, radius, opt);
        if fail == lines.len() {
            feasible += 1;
            assert!(ok, "case {case}: the program found {v} where the grid found nothing");
            assert!(violation(&lines, v) < 1e-3 && v.length() <= radius + 1e-4);
            assert!(v.distance(opt) <= best + 0.02, "case {case}: {} vs {best}", v.distance(opt));
        } else {
            infeasible += 1;
            linear_program3(&lines, 0, fail, radius, &mut Vec::new(), &mut v);
            let got = violation(&lines, v);
            if ok {
                // the 2D program gave up on a set the grid finds feasible only at its rim
                assert!(got < 0.02, "case {case}: violation {got}");
            } else {
                assert!(got <= best + 0.02, "case {case}: violation {got} vs {best}");
            }
            assert!(v.length() <= radius + 1e-3);
        }
    }
    assert!(feasible > 40 && infeasible > 20, "{feasible} feasible, {infeasible} not");
}

fn agent(p: Vec2, v: Vec2) -> Kinematic {
    Kinematic { position: p, velocity: v, ..Kinematic::default() }
}

/// Two agents exactly head on, each preferring to go straight through the other: stepped
/// together, they pass without their bodies touching and both get past.
#[test]
fn two_agents_head_on_pass_without_touching() {
    let orca = Orca::new(10.0, 10).unwrap();
    let (r, dt, speed) = (0.5, 0.1, 1.5);
    let mut a = agent(Vec2::new(-5.0, 0.0), Vec2::X * speed);
    let mut b = agent(Vec2::new(5.0, 0.0), -Vec2::X * speed);
    let mut scratch = OrcaScratch::default();
    let mut closest = f32::INFINITY;
    for _ in 0..200 {
        let na = Neighbour::new(1, b.position, b.velocity, r, a.position);
        let nb = Neighbour::new(0, a.position, a.velocity, r, b.position);
        let prefer_a = (Vec2::new(5.0, 0.0) - a.position).clamp_length_max(speed);
        let prefer_b = (Vec2::new(-5.0, 0.0) - b.position).clamp_length_max(speed);
        let va = orca.velocity(&a, r, prefer_a, speed, &[na], dt, &mut scratch);
        let vb = orca.velocity(&b, r, prefer_b, speed, &[nb], dt, &mut scratch);
        a.velocity = va;
        b.velocity = vb;
        a.position += va * dt;
        b.position += vb * dt;
        closest = closest.min(a.position.distance(b.position));
    }
    assert!(closest >= 2.0 * r - 1e-3, "bodies touched: centres {closest} m apart");
    assert!(a.position.distance(Vec2::new(5.0, 0.0)) < 0.5, "a got through: {a:?}");
    assert!(b.position.distance(Vec2::new(-5.0, 0.0)) < 0.5, "b got through: {b:?}");
}

fn violation_3d(planes: &[OrcaPlane], v: Vec3) -> f32 {
    planes.iter().map(|p| p.normal.dot(p.point - v)).fold(0.0, f32::max)
}

/// The exact optimum of `min |v − opt|` over the ball and the half-spaces, by enumerating
/// every active set of at most three boundaries (with or without the sphere); `None` when
/// nothing is feasible.
fn brute_3d(planes: &[OrcaPlane], radius: f32, opt: Vec3) -> Option<f32> {
    let feasible = |v: Vec3| v.length() <= radius + 1e-4 && violation_3d(planes, v) <= 1e-4;
    let mut candidates = vec![opt, opt.normalize_or_zero() * radius];
    let n = planes.len();
    let on_plane = |p: &OrcaPlane, x: Vec3| x + p.normal * (p.point - x).dot(p.normal);
    for i in 0..n {
        let pi = planes[i];
        let x = on_plane(&pi, opt);
        candidates.push(x);
        // the circle where plane i meets the sphere
        let c = pi.normal * pi.point.dot(pi.normal);
        let rr = radius * radius - c.length_squared();
        if rr >= 0.0 {
            candidates.push(c + (x - c).normalize_or_zero() * rr.sqrt());
        }
        for j in i + 1..n {
            let pj = planes[j];
            let d = pi.normal.cross(pj.normal);
            if d.length_squared() < 1e-8 {
                continue;
            }
            let d = d.normalize();
            // a point on both planes: solve in the span of the normals
            let (a, b) = (pi.normal.dot(pi.point), pj.normal.dot(pj.point));
            let k = pi.normal.dot(pj.normal);
            let det = 1.0 - k * k;
            let (s, t) = ((a - b * k) / det, (b - a * k) / det);
            let q = pi.normal * s + pj.normal * t;
            candidates.push(q + d * d.dot(opt - q));
            // where the line meets the sphere
            let (dot, len) = (q.dot(d), q.length_squared());
            let disc = dot * dot - len + radius * radius;
            if disc >= 0.0 {
                candidates.push(q + d * (-dot + disc.sqrt()));
                candidates.push(q + d * (-dot - disc.sqrt()));
            }
            for pk in &planes[j + 1..] {
                let m = glam::Mat3::from_cols(pi.normal, pj.normal, pk.normal).transpose();
                if m.determinant().abs() > 1e-6 {
                    let rhs = Vec3::new(a, b, pk.normal.dot(pk.point));
                    candidates.push(m.inverse() * rhs);
                }
            }
        }
    }
    candidates.into_iter().filter(|&v| feasible(v)).map(|v| v.distance(opt)).reduce(f32::min)
}

/// The 3D program against the exact enumeration on random sets of up to six half-spaces, and
/// the 4D fallback against a dense random sampling of the ball on the infeasible ones.
#[test]
fn the_3d_programs_match_brute_force_on_random_constraint_sets() {
    let mut rng = Rng::new(9);
    let radius = 2.0;
    let unit = |rng: &mut Rng| {
        Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()).try_normalize().unwrap_or(Vec3::X)
    };
    let (mut feasible, mut infeasible) = (0, 0);
    for case in 0..300 {
        let n = 1 + (case % 6);
        let planes: Vec<OrcaPlane> = (0..n)
            .map(|_| OrcaPlane {
                point: Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()) * 2.5,
                normal: unit(&mut rng),
            })
            .collect();
        let opt = Vec3::new(rng.clamped(), rng.clamped(), rng.clamped()) * 2.5;
        let mut v = Vec3::ZERO;
        let fail = linear_program3_3d(&planes, radius, opt, false, &mut v);
        let exact = brute_3d(&planes, radius, opt);
        if fail == planes.len() {
            feasible += 1;
            let best = exact.expect("the program found a velocity the enumeration did not");
            assert!(violation_3d(&planes, v) < 1e-3 && v.length() <= radius + 1e-3, "case {case}");
            assert!(v.distance(opt) <= best + 1e-3, "case {case}: {} vs {best}", v.distance(opt));
        } else {
            infeasible += 1;
            linear_program4_3d(&planes, 0, fail, radius, &mut Vec::new(), &mut v);
            let got = violation_3d(&planes, v);
            if exact.is_some() {
                // gave up only on a set feasible at its rim
                assert!(got < 0.01, "case {case}: violation {got}");
            } else {
                let sampled = (0..20_000)
                    .map(|_| unit(&mut rng) * radius * rng.uniform().cbrt())
                    .map(|s| violation_3d(&planes, s))
                    .fold(f32::INFINITY, f32::min);
                assert!(got <= sampled + 1e-3, "case {case}: violation {got} vs sampled {sampled}");
            }
            assert!(v.length() <= radius + 1e-3);
        }
    }
    assert!(feasible > 100 && infeasible > 30, "{feasible} feasible, {infeasible} not");
}

/// The brute-force signed distance of `v` from the obstacle's velocity obstacle
/// `K = ⋃_{σ ≥ 1/τ} σ·O_ρ`: `−min` over sampled points of `K` (boundary of each `σ·O_ρ`) when
/// `v` is outside, by a dense sampling of σ and of the rounded outline.
fn sampled_distance(vertices: &[Vec2], rho: f32, tau: f32, v: Vec2) -> f32 {
    let mut best = f32::INFINITY;
    for s in 0..400 {
        let sigma = 1.0 / tau * (1.0 + s as f32 * 0.05);
        for (i, &p) in vertices.iter().enumerate() {
            let q = vertices[(i + 1) % vertices.len()];
            for k in 0..=40 {
                let on_edge = p + (q - p) * (k as f32 / 40.0);
                for a in 0..72 {
                    let x = (on_edge + Vec2::from_angle(a as f32 * 0.0873) * rho) * sigma;
                    best = best.min(x.distance(v));
                }
            }
        }
    }
    best
}

/// Random discs, walls and boxes: the obstacle's constraint keeps every velocity that would
/// hit it within the horizon out (sampled), admits the current velocity exactly when it is
/// safe, and lies on the velocity obstacle's boundary at the distance a brute-force sampling
/// finds (within 2 cm/s).
#[test]
fn obstacle_constraints_are_the_supporting_lines_of_the_velocity_obstacle() {
    let orca = Orca::new(10.0, 10).unwrap().with_obstacle_time_horizon(2.0).unwrap();
    let mut rng = Rng::new(17);
    let radius = 0.5;
    let mut checked = 0;
    for case in 0..60 {
        let centre = Vec2::new(rng.clamped(), rng.clamped()) * 6.0;
        let (vertices, rounding): (Vec<Vec2>, f32) = match case % 3 {
            0 => (vec![centre], 0.3 + rng.uniform()),
            1 => (vec![centre, centre + Vec2::from_angle(rng.uniform() * 6.3) * 3.0], 0.0),
            _ => {
                let h = Vec2::new(0.5 + rng.uniform(), 0.5 + rng.uniform());
                let (lo, hi) = (centre - h, centre + h);
                (vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)], 0.0)
            }
        };
        let closest = match vertices.len() {
            1 => vertices[0],
            2 => {
                crate::geometry::Segment::new(vertices[0], vertices[1]).closest_point(Vec2::ZERO).0
            }
            _ => crate::geometry::Aabb { min: vertices[0], max: vertices[2] }
                .closest_point(Vec2::ZERO),
        };
        let rho = radius + rounding;
        if closest.length() < rho + 0.05 {
            continue; // overlapping: the push-out case, tested in the scene below
        }
        let v = Vec2::new(rng.clamped(), rng.clamped()) * 4.0;
        let me = agent(Vec2::ZERO, v);
        let line = orca.obstacle_line(&me, radius, &vertices, rounding, closest);
        let permitted = |q: Vec2| line.direction.perp_dot(line.point - q) <= 1e-4;
        // every velocity reaching the grown obstacle within 2 s is refused
        for s in [1.0f32, 1.3, 2.0, 5.0] {
            for (i, &p) in vertices.iter().enumerate() {
                let q = vertices[(i + 1) % vertices.len()];
                for k in 0..=10 {
                    let on = p + (q - p) * (k as f32 / 10.0);
                    for a in 0..24 {
                        let x = (on + Vec2::from_angle(a as f32 * 0.2618) * rho * 0.999) * s / 2.0;
                        assert!(
                            !permitted(x) || x.distance(line.point) < 1e-3 || {
                                // on the boundary line itself
                                line.direction.perp_dot(line.point - x).abs() < 1e-3
                            },
                            "case {case}: {x} hits the obstacle but is permitted"
                        );
                    }
                }
            }
        }
        // the current velocity's signed distance matches the sampling
        let signed = -line.direction.perp_dot(line.point - v);
        let sampled = sampled_distance(&vertices, rho, 2.0, v);
        if signed > 0.0 {
            assert!((signed - sampled).abs() < 0.02, "case {case}: {signed} vs {sampled}");
        } else {
            assert!(sampled < 0.02 || signed < 0.0, "case {case}: inside but sampled {sampled}");
        }
        checked += 1;
    }
    assert!(checked > 40, "{checked}");
}

/// Boxes and convex polygons: the constraint found among their edges' outward normals (the
/// crowd's call) is the one found among the normals of every pair of vertices, up to rounding,
/// away from the exactly head-on case (where a tie may pick the round part).
#[test]
fn edge_normals_give_the_constraint_of_every_vertex_pair() {
    let orca = Orca::new(10.0, 10).unwrap().with_obstacle_time_horizon(2.0).unwrap();
    let mut rng = Rng::new(23);
    let mut checked = 0;
    for case in 0..400 {
        let centre = Vec2::new(rng.clamped(), rng.clamped()) * 6.0;
        let h = Vec2::new(0.5 + rng.uniform(), 0.5 + rng.uniform());
        let (lo, hi) = (centre - h, centre + h);
        let polygon = if case % 2 == 0 {
            crate::geometry::Polygon::new(vec![
                lo,
                Vec2::new(hi.x, lo.y),
                hi,
                Vec2::new(lo.x, hi.y),
            ])
        } else {
            // a pentagon, counter-clockwise
            let turn = rng.uniform();
            crate::geometry::Polygon::new(
                (0..5)
                    .map(|k| centre + Vec2::from_angle(turn + k as f32 * 1.2566) * h.x * 2.0)
                    .collect::<Vec<_>>(),
            )
        }
        .unwrap();
        let me = agent(Vec2::ZERO, Vec2::new(rng.clamped(), rng.clamped()) * 4.0);
        let closest = polygon.closest_point(Vec2::ZERO);
        if closest.length() < 0.55 {
            continue; // overlapping: no search
        }
        let (points, normals) = (polygon.points(), Some(polygon.normals()));
        let all = orca.obstacle_line(&me, 0.5, points, 0.0, closest);
        let edges = orca.obstacle_line_edges(&me, 0.5, points, 0.0, closest, normals);
        let near = |a: Vec2, b: Vec2| a.distance(b) < 1e-4;
        assert!(
            near(all.point, edges.point) && near(all.direction, edges.direction),
            "case {case}: {all:?} vs {edges:?}"
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
}

/// An agent closing on a box's corner exactly along its diagonal (Blocks' agents on the
/// diagonal do): the corner's round part is the nearest boundary, straight back, and the
/// constraint is the right leg through zero instead (the line of the two other corners, a
/// candidate among every pair of vertices, tied with the round part and hid it).
#[test]
fn a_box_corner_met_head_on_is_turned_from_by_the_right_leg() {
    let orca = Orca::new(5.0, 10).unwrap().with_obstacle_time_horizon(5.0).unwrap();
    let b = crate::geometry::Aabb { min: Vec2::splat(10.0), max: Vec2::splat(40.0) };
    let corners = [b.min, Vec2::new(b.max.x, b.min.y), b.max, Vec2::new(b.min.x, b.max.y)];
    let normals = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];
    // 7.07 m from the corner: over the 5 s horizon it is 1.41 m/s away, a disc of 0.4 m/s
    let me = agent(Vec2::splat(45.0), Vec2::splat(-0.85));
    let closest = b.closest_point(me.position);
    let line = orca.obstacle_line_edges(&me, 2.0, &corners, 0.0, closest, Some(&normals));
    assert_eq!(line.point, Vec2::ZERO);
    // the current velocity is refused, a turn to the right of it permitted
    assert!(line.direction.perp_dot(line.point - me.velocity) > 0.0);
    assert!(line.direction.perp_dot(line.point - Vec2::new(-0.85, 0.85)) <= 0.0);
}

/// An agent driven straight at a wall and one driven at 45° across it, with the wall as an
/// ORCA obstacle: neither body ever crosses the wall, the first stops short of it and the
/// second slides along it (plain ORCA: keeping right would send the first along the wall too).
#[test]
fn a_wall_is_never_crossed() {
    let orca =
        Orca::new(10.0, 10).unwrap().with_obstacle_time_horizon(2.0).unwrap().with_escape(false);
    let (r, dt, speed) = (0.5, 0.1, 2.0);
    let wall = [Vec2::new(-100.0, 5.0), Vec2::new(100.0, 5.0)];
    let segment = crate::geometry::Segment::new(wall[0], wall[1]);
    for (heading, slides) in [(Vec2::Y, false), (Vec2::new(1.0, 1.0).normalize(), true)] {
        let mut a = agent(Vec2::ZERO, Vec2::ZERO);
        let mut scratch = OrcaScratch::default();
        let mut nearest = f32::INFINITY;
        for _ in 0..200 {
            let closest = segment.closest_point(a.position).0;
            scratch.add_obstacle(orca.obstacle_line(&a, r, &wall, 0.0, closest));
            let v =
                orca.velocity_with(&a, r, heading * speed, speed, &[], |_| None, dt, &mut scratch);
            a.velocity = v;
            a.position += v * dt;
            nearest = nearest.min(5.0 - a.position.y);
        }
        assert!(nearest >= r - 1e-3, "heading {heading}: {nearest} m from the wall");
        assert!(nearest < r + 0.1, "heading {heading}: stopped {nearest} m short");
        if slides {
            assert!(a.position.x > 20.0 * 0.7, "slid only to x = {}", a.position.x);
        } else {
            assert!(a.position.x.abs() < 1e-3, "{a:?}");
        }
    }
}

/// Two agents exactly head on in 3D pass without touching and both get past.
#[test]
fn two_agents_head_on_pass_without_touching_in_3d() {
    let orca = Orca::new(10.0, 10).unwrap();
    let (r, dt, speed) = (0.5, 0.1, 1.5);
    let k = |p: Vec3, v: Vec3| Kinematic::<Vec3> { position: p, velocity: v, ..Default::default() };
    let (ga, gb) = (Vec3::new(5.0, 1.0, 2.0), Vec3::new(-5.0, 1.0, 2.0));
    let mut a = k(gb, Vec3::ZERO);
    let mut b = k(ga, Vec3::ZERO);
    let mut scratch = OrcaScratch::default();
    let mut closest = f32::INFINITY;
    for _ in 0..200 {
        let na = Neighbour::new(1, b.position, b.velocity, r, a.position);
        let nb = Neighbour::new(0, a.position, a.velocity, r, b.position);
        let pa = (ga - a.position).clamp_length_max(speed);
        let pb = (gb - b.position).clamp_length_max(speed);
        let va = orca.velocity_3d(&a, r, pa, speed, &[na], |_| Some(0.5), dt, &mut scratch);
        let vb = orca.velocity_3d(&b, r, pb, speed, &[nb], |_| Some(0.5), dt, &mut scratch);
        a.velocity = va;
        b.velocity = vb;
        a.position += va * dt;
        b.position += vb * dt;
        closest = closest.min(a.position.distance(b.position));
    }
    assert!(closest >= 2.0 * r - 1e-3, "bodies touched: centres {closest} m apart");
    assert!(a.position.distance(ga) < 0.5 && b.position.distance(gb) < 0.5, "{a:?} {b:?}");
}

/// A sphere obstacle in the way of a 3D agent: never entered, and the agent gets round it.
#[test]
fn a_sphere_obstacle_is_gone_round_in_3d() {
    let orca = Orca::new(5.0, 10).unwrap();
    let (r, dt, speed) = (0.5, 0.1, 2.0);
    let (centre, big) = (Vec3::new(5.0, 0.0, 0.0), 1.5);
    let goal = Vec3::new(10.0, 0.0, 0.0);
    let mut a = Kinematic::<Vec3>::default();
    let mut scratch = OrcaScratch::default();
    let mut nearest = f32::INFINITY;
    for _ in 0..150 {
        scratch.add_obstacle_3d(orca.obstacle_plane(&a, r, centre, big));
        let pref = (goal - a.position).clamp_length_max(speed);
        let v = orca.velocity_3d(&a, r, pref, speed, &[], |_| None, dt, &mut scratch);
        a.velocity = v;
        a.position += v * dt;
        nearest = nearest.min(a.position.distance(centre));
    }
    assert!(nearest >= r + big - 1e-3, "entered: centre {nearest} m from the sphere's");
    assert!(a.position.distance(goal) < 0.3, "{a:?}");
}

/// Priorities split the avoidance: two agents crossing at right angles, one of priority 3 and
/// one of 1: the first keeps its line far better than the second (it takes a quarter).
#[test]
fn priorities_split_the_avoidance() {
    let orca = Orca::new(5.0, 10).unwrap();
    let (r, dt, speed) = (0.5, 0.1, 1.5);
    let mut a = agent(Vec2::new(-6.0, 0.0), Vec2::X * speed); // priority 3, along y = 0
    let mut b = agent(Vec2::new(0.0, -6.0), Vec2::Y * speed); // priority 1, along x = 0
    let mut scratch = OrcaScratch::default();
    let (mut off_a, mut off_b, mut closest) = (0.0f32, 0.0f32, f32::INFINITY);
    for _ in 0..120 {
        let na = Neighbour::new(1, b.position, b.velocity, r, a.position);
        let nb = Neighbour::new(0, a.position, a.velocity, r, b.position);
        let va = orca.velocity_with(
            &a,
            r,
            Vec2::X * speed,
            speed,
            &[na],
            |_| Some(0.25),
            dt,
            &mut scratch,
        );
        let vb = orca.velocity_with(
            &b,
            r,
            Vec2::Y * speed,
            speed,
            &[nb],
            |_| Some(0.75),
            dt,
            &mut scratch,
        );
        a.velocity = va;
        b.velocity = vb;
        a.position += va * dt;
        b.position += vb * dt;
        off_a = off_a.max(a.position.y.abs());
        off_b = off_b.max(b.position.x.abs());
        closest = closest.min(a.position.distance(b.position));
    }
    assert!(closest >= 2.0 * r - 1e-3, "touched: {closest}");
    assert!(
        off_a * 2.0 < off_b,
        "the high-priority agent left its line by {off_a} m, the other {off_b} m"
    );
}

/// A disc exactly in the line of an agent and its goal: never entered, and the agent goes
/// round it to the goal instead of braking to a standstill in front.
#[test]
fn a_disc_dead_ahead_is_gone_round() {
    let orca = Orca::new(5.0, 10).unwrap();
    let (r, dt, speed) = (0.5, 0.1, 2.0);
    let (centre, big, goal) = (Vec2::new(5.0, 0.0), 1.5, Vec2::new(10.0, 0.0));
    let mut a = agent(Vec2::ZERO, Vec2::ZERO);
    let mut scratch = OrcaScratch::default();
    let mut nearest = f32::INFINITY;
    for _ in 0..150 {
        scratch.add_obstacle(orca.obstacle_line(&a, r, &[centre], big, centre));
        let pref = (goal - a.position).clamp_length_max(speed);
        let v = orca.velocity_with(&a, r, pref, speed, &[], |_| None, dt, &mut scratch);
        a.velocity = v;
        a.position += v * dt;
        nearest = nearest.min(a.position.distance(centre));
    }
    assert!(nearest >= r + big - 1e-3, "entered: centre {nearest} m from the disc's");
    assert!(a.position.distance(goal) < 0.3, "{a:?}");
}

/// Priority splits the slack too: A (share ⅓ of the avoidance, a standing arrived neighbour
/// of lower priority beside it) heads east at 1 m/s past B standing 4 m north (combined
/// radius 2, τ = 10 s), clear of B's velocity obstacle by |u| = √3/2 m/s. A may use ⅔ of that
/// slack (B, standing, would use ⅓), and the two constraints together are exactly the
/// obstacle's tangent: the pair's guarantee holds.
#[test]
fn the_agent_that_avoids_less_keeps_more_of_the_slack() {
    let orca = Orca::new(10.0, 10).unwrap();
    let (r, dt) = (1.0, 0.25);
    let a = agent(Vec2::ZERO, Vec2::X);
    let b = agent(Vec2::new(0.0, 4.0), Vec2::ZERO);
    let na = Neighbour::new(1, b.position, b.velocity, r, a.position);
    let nb = Neighbour::new(0, a.position, a.velocity, r, b.position);
    let mut scratch = OrcaScratch::default();
    let _ = orca.velocity_with(&a, r, Vec2::X, 2.0, &[na], |_| Some(1.0 / 3.0), dt, &mut scratch);
    let la = scratch.lines()[0];
    let _ =
        orca.velocity_with(&b, r, Vec2::ZERO, 2.0, &[nb], |_| Some(2.0 / 3.0), dt, &mut scratch);
    let lb = scratch.lines()[0];
    let (n, slack) = (la.direction.perp(), 0.75f32.sqrt());
    // A's velocity lies ⅔ of the slack inside its half-plane (⅓ before the split)
    let margin = n.dot(a.velocity - la.point);
    assert!((margin - 2.0 / 3.0 * slack).abs() < 1e-4, "A keeps {margin} m/s of slack");
    let margin_b = (-n).dot(b.velocity - lb.point);
    assert!((margin_b - slack / 3.0).abs() < 1e-4, "B keeps {margin_b} m/s of slack");
    // any pair of velocities on the two boundaries touches the tangent of the obstacle
    let relative = n.dot(la.point - lb.point);
    let tangent = n.dot(a.velocity - b.velocity) - slack;
    assert!((relative - tangent).abs() < 1e-4, "{relative} against {tangent}");
}

/// A dense fallback keeps "no contact before the next step" hard: A is boxed in by four
/// bodies that do not avoid it (east 3.05 m, west 3.4 m, north and south 3.2 m away, combined
/// radius 3), all closing at 0.5 m/s, so the 10 s constraints leave nothing; the velocity
/// chosen still keeps every body clear after the 0.25 s step, where the least violation of
/// the 10 s constraints alone runs into the eastern one.
#[test]
fn the_dense_fallback_keeps_the_next_step_free_of_contact() {
    let orca = Orca::new(10.0, 10).unwrap();
    let (r, dt, speed) = (1.5, 0.25, 2.0);
    let a = agent(Vec2::ZERO, Vec2::ZERO);
    let others: Vec<_> = [(Vec2::X, 3.05), (-Vec2::X, 3.4), (Vec2::Y, 3.2), (-Vec2::Y, 3.2)]
        .iter()
        .enumerate()
        .map(|(i, &(dir, d))| Neighbour::new(i + 1, dir * d, -dir * 0.5, r, a.position))
        .collect();
    let mut scratch = OrcaScratch::default();
    let v =
        orca.velocity_with(&a, r, Vec2::X * speed, speed, &others, |_| Some(1.0), dt, &mut scratch);
    let mut soft = Vec2::ZERO;
    assert!(
        linear_program2(scratch.lines(), speed, Vec2::X * speed, false, &mut soft)
            < scratch.lines().len(),
        "the 10 s constraints must leave nothing"
    );
    for n in &others {
        let gap = (n.position + n.velocity * dt).distance(v * dt) - 2.0 * r;
        assert!(gap >= -1e-4, "{v}: {gap} m into the body at {}", n.position);
    }
    let mut projected = Vec::new();
    linear_program3(scratch.lines(), 0, 0, speed, &mut projected, &mut soft);
    let east = &others[0];
    let gap = (east.position + east.velocity * dt).distance(soft * dt) - 2.0 * r;
    assert!(gap < -1e-3, "the soft program alone keeps {gap} m");
}

/// Escape sidesteps only an agent held up: wanting 2 m/s and offered no progress, it turns
/// when it moves slower than 1 m/s (half its preference) or beside a static obstacle, not
/// when it is under way at 1.5 m/s (ORCA turning it aside, past its goal say).
#[test]
fn escape_starts_a_standing_agent_and_leaves_one_under_way() {
    let orca = Orca::new(10.0, 10).unwrap().with_escape(true);
    let (pref_sq, max_speed) = (4.0, 2.0);
    assert!(orca.blocked(pref_sq, 0.0, max_speed, 0.2 * 0.2, false));
    assert!(!orca.blocked(pref_sq, 0.0, max_speed, 1.5 * 1.5, false));
    assert!(orca.blocked(pref_sq, 0.0, max_speed, 1.5 * 1.5, true));
    // progress enough, or a preference too slow to be keen on: no sidestep
    assert!(!orca.blocked(pref_sq, 0.5 * pref_sq, max_speed, 0.0, false));
    assert!(!orca.blocked(0.4 * 0.4, 0.0, max_speed, 0.0, true));
    assert!(!Orca::new(10.0, 10)
        .unwrap()
        .with_escape(false)
        .blocked(pref_sq, 0.0, max_speed, 0.0, true));
}

/// The crowd's shortcut for an agent whose preference keeps clear of every neighbour
/// ([`Orca::clear_velocity_2d`], [`Reach::clear`]): on random scenes built to sit near the
/// test's boundary (relative velocities and changes of preference from 10⁻⁵ to 1 m/s,
/// neighbours from just outside contact to 20 m away, every share, a third of the pairs at
/// rest), whenever it answers, the
/// answer is that of every constraint built, to the bit, in 2D and 3D; and both sides of the
/// test are taken often.
#[test]
fn the_shortcut_for_clear_agents_changes_no_answer() {
    let mut rng = Rng::new(11);
    // log-uniform over 10⁻⁵..1
    let small = |rng: &mut Rng| 10f32.powf(-5.0 * rng.uniform());
    let (mut taken, mut built) = ([0; 2], [0; 2]);
    for case in 0..40_000 {
        let three = case % 2 == 1;
        let tau = [1.0, 5.0, 10.0][case % 3];
        let orca = Orca::new(tau, 10).unwrap();
        let (r, max_speed, dt) = (0.5 + rng.uniform(), 2.0, 0.25);
        let dir = |rng: &mut Rng| {
            Vec3::new(rng.clamped(), if three { rng.clamped() } else { 0.0 }, rng.clamped())
                .normalize_or(Vec3::X)
        };
        let v = dir(&mut rng) * 2.5 * rng.uniform();
        let change = small(&mut rng);
        let preferred = v + dir(&mut rng) * change;
        let n = 1 + case % 6;
        let others: Vec<(Vec3, Vec3, Option<Pair>)> = (0..n)
            .map(|k| {
                let d = 2.0 * r + 0.01 + 20.0 * rng.uniform() * rng.uniform();
                let w = dir(&mut rng) * small(&mut rng);
                let share = [Some(0.5), Some(1.0 / 3.0), Some(1.0), None][(case + k) % 4];
                // every third pair at rest (one of the two arrived and standing)
                let rest = (case / 4 + k) % 3 == 0;
                // every fifth an arrived agent making room for one passing it
                let room = if (case + k) % 5 == 0 { YIELD_ROOM } else { 1.0 };
                (dir(&mut rng) * d, v - w, share.map(|share| Pair { share, rest, room }))
            })
            .collect();
        let pair = |i: usize| others[i - 1].2;
        let mut scratch = OrcaScratch::default();
        let (quick, full) = if three {
            let all_clear = |reach: &Reach<Vec3>| {
                others.iter().all(|&(p, u, s)| s.is_none_or(|s| reach.clear(p, u, 2.0 * r, s)))
            };
            let quick = orca.clear_velocity_3d(v, preferred, max_speed, all_clear);
            let me = Kinematic::<Vec3> { velocity: v, ..Kinematic::default() };
            let list: Vec<_> = (others.iter().enumerate())
                .map(|(i, &(p, u, _))| Neighbour::new(i + 1, p, u, r, Vec3::ZERO))
                .collect();
            let full = orca.velocity_pairs(
                &me,
                r,
                preferred,
                max_speed,
                &list,
                |o| pair(o.index),
                dt,
                &mut scratch,
            );
            (quick.map(|q| q.to_array().to_vec()), full.to_array().to_vec())
        } else {
            let flat = |x: Vec3| Vec2::new(x.x, x.z);
            let all_clear = |reach: &Reach<Vec2>| {
                (others.iter())
                    .all(|&(p, u, s)| s.is_none_or(|s| reach.clear(flat(p), flat(u), 2.0 * r, s)))
            };
            let quick = orca.clear_velocity_2d(flat(v), flat(preferred), max_speed, all_clear);
            let me = agent(Vec2::ZERO, flat(v));
            let list: Vec<_> = (others.iter().enumerate())
                .map(|(i, &(p, u, _))| Neighbour::new(i + 1, flat(p), flat(u), r, Vec2::ZERO))
                .collect();
            let full = orca.velocity_pairs(
                &me,
                r,
                flat(preferred),
                max_speed,
                &list,
                |o| pair(o.index),
                dt,
                &mut scratch,
            );
            (quick.map(|q| q.to_array().to_vec()), full.to_array().to_vec())
        };
        let side = usize::from(three);
        match quick {
            Some(quick) => {
                let bits = |x: &[f32]| x.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&quick),
                    bits(&full),
                    "case {case}: the shortcut changed the answer"
                );
                taken[side] += 1;
            }
            None => built[side] += 1,
        }
    }
    for side in 0..2 {
        assert!(
            taken[side] > 4_000 && built[side] > 4_000,
            "{} taken, {} built ({}D)",
            taken[side],
            built[side],
            side + 2
        );
    }
}
