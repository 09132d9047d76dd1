//! Lanes in wide passages: a corridor wide enough for two streams is crossed both ways at
//! once, each direction in its right half, so the streams pass instead of meeting head on.

use crate::mesh::NavMesh;
use crate::passage::Passage;
use crate::turns::{crossing, Crossing};
use steerkit::crowd::{Lane, Waypoint};
use steerkit::Vec2;

/// Route distance (m) before a two-way passage's mouth from which a walker keeps to its lane.
const LANE_APPROACH: f32 = 25.0;

/// How far (passage widths) past a two-way passage's far mouth a walker keeps to its side, so
/// that it does not cut across the other stream's way in at the mouth.
const EXIT_RUN: f32 = 1.0;

/// How far out (passage widths) from a two-way passage's mouth a walker still on the wrong
/// side of the middle line is held until it has moved over: the apron the other stream
/// comes out onto.
const APRON: f32 = 5.0;

/// How far (m) past a passage's strip a path point still counts as in it: a string-pulled
/// path touches the strip's corners at the mouths.
const EDGE: f32 = 0.05;

/// Routes a path (from `start` through `points`) that crosses one of `lanes` through that
/// passage's right half: the points it had inside the strip give way to two, each mouth's
/// middle moved a quarter of the width to the right of the crossing direction (the middle of
/// the right half). A path that starts inside keeps only the exit point; a path that only
/// clips a corner of the strip, or whose new legs would leave the mesh, stays as it was.
pub(crate) fn keep_to_lanes(
    mesh: &NavMesh,
    lanes: &[Passage],
    start: Vec2,
    points: &mut Vec<Vec2>,
) {
    for g in lanes {
        if let Some(routed) = through_lane(mesh, g, start, points) {
            *points = routed;
        }
    }
}

/// The path through `g`'s right half, or `None` to keep it.
fn through_lane(mesh: &NavMesh, g: &Passage, start: Vec2, points: &[Vec2]) -> Option<Vec<Vec2>> {
    let len = g.length();
    let half = g.width * 0.5 + EDGE;
    let poly: Vec<Vec2> = std::iter::once(start).chain(points.iter().copied()).collect();
    // the stretch inside the strip: from (segment, t) to (segment, t)
    let mut first: Option<(usize, f32)> = None;
    let mut last: Option<(usize, f32)> = None;
    for i in 0..poly.len() - 1 {
        if let Some((t0, t1)) = clip(g.local(poly[i]), g.local(poly[i + 1]), len, half) {
            first.get_or_insert((i, t0));
            last = Some((i, t1));
        }
    }
    let ((i_in, t_in), (i_out, t_out)) = (first?, last?);
    let at = |i: usize, t: f32| poly[i] + (poly[i + 1] - poly[i]) * t;
    let (x_in, x_out) = (g.local(at(i_in, t_in)).x, g.local(at(i_out, t_out)).x);
    // a real crossing runs most of the passage's length
    if (x_out - x_in).abs() < 0.5 * len {
        return None;
    }
    let forward = if x_out > x_in { g.axis() } else { -g.axis() };
    let right = -forward.perp() * (g.width * 0.25);
    let (mouth_in, mouth_out) = if x_out > x_in { (g.a, g.b) } else { (g.b, g.a) };
    let started_inside = i_in == 0 && t_in <= 0.0;
    let mut routed: Vec<Vec2> = points[..i_in].to_vec();
    if !started_inside {
        routed.push(mouth_in + right);
    }
    routed.push(mouth_out + right);
    // a goal inside the strip: the path stays as it was
    if i_out + 2 == poly.len() && t_out >= 1.0 {
        return None;
    }
    routed.extend_from_slice(&points[i_out..]);
    let clear = |a: Vec2, b: Vec2| mesh.sees(a, b);
    let mut prev = start;
    for &p in &routed {
        if !mesh.contains(p) || !clear(prev, p) {
            return None;
        }
        prev = p;
    }
    Some(routed)
}

/// The part `[t0, t1]` of the segment from `p` to `q` (in a passage's frame) inside the strip
/// `0 ≤ x ≤ len`, `|y| ≤ half` (Liang–Barsky), if any.
fn clip(p: Vec2, q: Vec2, len: f32, half: f32) -> Option<(f32, f32)> {
    let d = q - p;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (num, den) in
        [(p.x + EDGE, -d.x), (len + EDGE - p.x, d.x), (p.y + half, -d.y), (half - p.y, d.y)]
    {
        if den.abs() < 1e-12 {
            if num < 0.0 {
                return None;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((t0, t1))
}

/// Keeps a walker at `p` whose route ahead is `ahead` to its lane: sets `w.lane` (see
/// [`lane`]) while its route enters one of `lanes` within [`LANE_APPROACH`] of route, while
/// inside, and until it is [`EXIT_RUN`] widths past the far mouth along the passage's axis,
/// unless its goal is nearer (`came_out` remembers the passage; `margin` widens each strip as
/// in [`crossing`]). A walker across its divider (held on the wrong side within the apron, or
/// pushed over the middle line inside or past the passage) steers straight across to the
/// middle of its half instead of along its route, which would press it against the divider.
pub(crate) fn keep_lane(
    mesh: &NavMesh,
    lanes: &[Passage],
    margin: f32,
    came_out: &mut Option<Crossing>,
    (p, ahead): (Vec2, &[Vec2]),
    w: &mut Waypoint,
) {
    let c = crossing(lanes, p, ahead, LANE_APPROACH, margin);
    if let Some(c) = c.filter(|c| c.inside) {
        *came_out = Some(c);
    } else if let Some(out) = *came_out {
        let g = &lanes[out.passage as usize];
        let mouth = if out.dir == 0 { g.b } else { g.a };
        // the stretch is measured along the passage: sliding along the divider back toward a
        // goal beside the mouth never takes a walker farther out
        let (run, out_of) = (EXIT_RUN * g.width, |q: Vec2| (q - mouth).dot(forward(g, &out)));
        // a walker whose goal lies in that stretch goes straight to it
        let ends_near = ahead.last().is_some_and(|&end| out_of(end) <= run);
        if c.is_some() || ends_near || out_of(p) > run {
            *came_out = None;
        }
    }
    let Some(c) = c.or(*came_out) else {
        w.lane = None;
        return;
    };
    let g = &lanes[c.passage as usize];
    let right = -forward(g, &c).perp();
    let l = lane(g, &c, p);
    w.lane = Some(l);
    // across its divider (on the wrong side of the middle line, inside or past the passage, or
    // held at the apron): along its route it would press against the divider, so it moves
    // straight over to the middle of its half
    if (p - l.point).dot(l.normal) < 0.0 {
        let across = (g.a - p).dot(right) + g.width * 0.25;
        w.point = mesh.nearest(p + right * across);
    }
}

/// The unit direction of a crossing.
fn forward(g: &Passage, c: &Crossing) -> Vec2 {
    if c.dir == 0 {
        g.axis()
    } else {
        -g.axis()
    }
}

/// The divider a walker at `p` crossing passage `g` as `c` keeps to: on its side of the middle
/// line (its right), that line; on the wrong side inside the passage or past it (pushed over
/// by the crowd), that line too, which lets it stand or come back but not go further into the
/// other stream's half; on the wrong side before the mouth, a line across the approach
/// [`APRON`] widths out from the mouth (inside that line it may stand or back off, not come
/// closer).
fn lane(g: &Passage, c: &Crossing, p: Vec2) -> Lane {
    let forward = forward(g, c);
    let right = -forward.perp();
    if c.inside || (p - g.a).dot(right) >= 0.0 {
        Lane { point: g.a, normal: right }
    } else {
        let mouth = if c.dir == 0 { g.a } else { g.b };
        Lane { point: mouth - forward * (APRON * g.width), normal: -forward }
    }
}
