//! Lanes in wide passages: a corridor wide enough for two streams is crossed both ways at
//! once, each direction in its right half, so the streams pass instead of meeting head on.

use crate::mesh::NavMesh;
use crate::passage::Passage;
use steerkit::Vec2;

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
    let clear = |a: Vec2, b: Vec2| {
        let d = b.distance(a);
        d <= 1e-4 || mesh.free_distance(a, (b - a) / d, d + 1e-3) >= d
    };
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
