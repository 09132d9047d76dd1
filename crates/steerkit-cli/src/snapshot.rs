//! `snapshot.svg`: the final frame of a [`Recording`] with every agent's trail.
//!
//! The world is drawn as in the player's top view: bounds, paths (dashed), obstacles (a 3D run's
//! spheres and cuboids by their ground footprint, `(x, −z)`), walls, then trails
//! (one path per agent, broken where a wrap-around world wraps), then agents as oriented
//! triangles (`<polygon class="agent">`, one per agent with a finite position) and a legend.
//! Coordinates are pixels (`y` down), 1000 px across the world. Trails are thinned so the file
//! stays small: points closer than half a pixel to the last one kept are dropped, and at most
//! 200 000 trail points are written in all.

use crate::recording::{Cuboid, Frame, Recording};
use std::fmt::Write as _;
use std::path::Path;
use steerkit::Vec2;

/// Target width of the world in the picture (px).
const WIDTH: f32 = 1000.0;
/// Margin around the world (px).
const MARGIN: f32 = 24.0;
/// At most this many trail points in all.
const TRAIL_BUDGET: usize = 200_000;

/// Escapes text for XML content and attribute values.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// The world region drawn: the bounds, or the extent of everything in the recording.
fn extent(r: &Recording) -> (Vec2, Vec2) {
    if let Some(b) = r.world.bounds {
        return (b.min.into(), b.max.into());
    }
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    let mut add = |p: Vec2| {
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    };
    let w = &r.world;
    for c in &w.circles {
        add(Vec2::from(c.center) - Vec2::splat(c.radius));
        add(Vec2::from(c.center) + Vec2::splat(c.radius));
    }
    w.polygons.iter().flat_map(|p| &p.points).for_each(|&p| add(p.into()));
    w.paths.iter().flat_map(|p| &p.points).for_each(|&p| add(p.into()));
    for b in &w.boxes {
        add(b.min.into());
        add(b.max.into());
    }
    for s in &w.walls {
        add(s.a.into());
        add(s.b.into());
    }
    // 3D shapes by their ground footprint
    for b in w.volume.iter().chain(&w.cuboids) {
        let (a, c) = footprint(b);
        add(a);
        add(c);
    }
    for b in &w.spheres {
        let c = ground(b.center);
        add(c - Vec2::splat(b.radius));
        add(c + Vec2::splat(b.radius));
    }
    for f in &r.frames {
        for i in 0..r.agent_count() {
            add(r.plane_position(f, i));
        }
    }
    if lo.x > hi.x {
        return (Vec2::splat(-10.0), Vec2::splat(10.0));
    }
    // a little room for bodies, and never a zero-size picture
    let pad = Vec2::splat(1.0) + (hi - lo) * 0.03;
    (lo - pad, hi + pad)
}

/// A 3D point on the drawing plane, `(x, −z)`.
fn ground(p: [f32; 3]) -> Vec2 {
    Vec2::new(p[0], -p[2])
}

/// The lower and upper corners of a 3D box's ground footprint.
fn footprint(b: &Cuboid) -> (Vec2, Vec2) {
    (Vec2::new(b.min[0], -b.max[2]), Vec2::new(b.max[0], -b.min[2]))
}

struct View {
    lo: Vec2,
    hi: Vec2,
    scale: f32,
}

impl View {
    fn px(&self, p: Vec2) -> (f32, f32) {
        (MARGIN + (p.x - self.lo.x) * self.scale, MARGIN + (self.hi.y - p.y) * self.scale)
    }
}

fn point(out: &mut String, (x, y): (f32, f32)) {
    let _ = write!(out, "{x:.1},{y:.1}");
}

/// The `d` of a path through points, with a new sub-path wherever `broken(prev, next)`.
fn thinned_path(
    view: &View,
    points: impl Iterator<Item = Vec2>,
    max_points: usize,
    jump: Option<Vec2>,
) -> String {
    let mut d = String::new();
    let mut last: Option<Vec2> = None;
    let mut kept = 0;
    let min_step = 0.5 / view.scale;
    for p in points {
        if !p.is_finite() || kept >= max_points {
            last = None;
            continue;
        }
        match last {
            Some(q) if (p - q).abs().cmplt(Vec2::splat(min_step)).all() => continue,
            Some(q) if jump.is_none_or(|j| !(p - q).abs().cmpgt(j).any()) => d.push('L'),
            _ => d.push('M'),
        }
        point(&mut d, view.px(p));
        last = Some(p);
        kept += 1;
    }
    d
}

/// A darker shade of `#rrggbb` / `#rgb` for outlines.
fn darker(colour: &str) -> String {
    let hex = colour.trim_start_matches('#');
    let full: String =
        if hex.len() == 3 { hex.chars().flat_map(|c| [c, c]).collect() } else { hex.into() };
    let v = u32::from_str_radix(&full, 16).unwrap_or(0);
    let ch = |s: u32| (((v >> s) & 0xff) as f32 * 0.6) as u32;
    format!("#{:02x}{:02x}{:02x}", ch(16), ch(8), ch(0))
}

/// The SVG of a recording's final frame with trails.
#[must_use]
pub fn render_svg(r: &Recording) -> String {
    let (lo, hi) = extent(r);
    let size = (hi - lo).max(Vec2::splat(1e-3));
    let scale = WIDTH / size.x.max(size.y * 0.75);
    let view = View { lo, hi, scale };
    let (w, h) = (size.x * scale + 2.0 * MARGIN, size.y * scale + 2.0 * MARGIN + 30.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">"#
    );
    let last = r.frames.last();
    let title = match last {
        Some(f) => format!("{} — step {}, t = {:.2} s", r.meta.scenario, f.step, r.frame_time(f)),
        None => format!("{} — no frames", r.meta.scenario),
    };
    let _ = writeln!(s, "<title>{}</title>", xml(&title));
    background(&mut s, r, &view, size);
    world(&mut s, r, &view);
    trails(&mut s, r, &view, size);
    if let Some(f) = last {
        bodies(&mut s, r, &view, f);
    }
    legend(&mut s, r, h, &title);
    s.push_str("</svg>\n");
    s
}

/// The page and the world's rectangle (dashed when the world wraps).
fn background(s: &mut String, r: &Recording, view: &View, size: Vec2) {
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#f6f7f9"/>"##);
    let (x0, y0) = view.px(Vec2::new(view.lo.x, view.hi.y));
    let _ = writeln!(
        s,
        r##"<rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="#ffffff" stroke="#c5cad3" stroke-width="1"{}/>"##,
        size.x * view.scale,
        size.y * view.scale,
        if r.world.wrap { r#" stroke-dasharray="6 4""# } else { "" }
    );
}

/// The fill and outline of every obstacle.
const OBSTACLE: &str = r##"fill="#dfe3ea" stroke="#8a94a6" stroke-width="1.5""##;

/// The static world: paths, circles and boxes, waypoints, polygons, 3D shapes, walls.
fn world(s: &mut String, r: &Recording, view: &View) {
    let (w, scale, obstacle) = (&r.world, view.scale, OBSTACLE);
    for p in &w.paths {
        let mut d = thinned_path(view, p.points.iter().map(|&q| q.into()), usize::MAX, None);
        if p.looping {
            d.push('Z');
        }
        let _ = writeln!(
            s,
            r##"<path class="path" d="{d}" fill="none" stroke="#14a098" stroke-width="2" stroke-dasharray="8 5" opacity="0.8"><title>{}</title></path>"##,
            xml(&p.name)
        );
    }
    for c in &w.circles {
        let (cx, cy) = view.px(c.center.into());
        let _ = writeln!(
            s,
            r#"<circle class="obstacle" cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" {obstacle}/>"#,
            c.radius * scale
        );
    }
    for b in &w.boxes {
        let (x, y) = view.px(Vec2::new(b.min[0], b.max[1]));
        let _ = writeln!(
            s,
            r#"<rect class="obstacle" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" {obstacle}/>"#,
            (b.max[0] - b.min[0]) * scale,
            (b.max[1] - b.min[1]) * scale
        );
    }
    waypoints(s, r, view);
    for p in &w.polygons {
        let mut pts = String::new();
        for (i, &q) in p.points.iter().enumerate() {
            if i > 0 {
                pts.push(' ');
            }
            point(&mut pts, view.px(q.into()));
        }
        let _ = writeln!(s, r#"<polygon class="obstacle" points="{pts}" {obstacle}/>"#);
    }
    solids_3d(s, r, view);
    for wall in &w.walls {
        let ((x1, y1), (x2, y2)) = (view.px(wall.a.into()), view.px(wall.b.into()));
        let _ = writeln!(
            s,
            r##"<line class="wall" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#3b4350" stroke-width="4" stroke-linecap="round"/>"##
        );
    }
}

/// A race's waypoints: green with the visit number once visited, an orange ring if never.
fn waypoints(s: &mut String, r: &Recording, view: &View) {
    let w = &r.world;
    let mut visits: Vec<(u32, usize)> =
        w.waypoints.iter().enumerate().filter_map(|(i, p)| p.visited.map(|v| (v, i))).collect();
    visits.sort_unstable();
    for (i, p) in w.waypoints.iter().enumerate() {
        let (cx, cy) = view.px(p.center.into());
        let r = (p.radius * view.scale).max(4.0);
        match visits.iter().position(|&(_, k)| k == i) {
            Some(rank) => {
                let _ = writeln!(
                    s,
                    r##"<circle class="waypoint" cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="#009e73" stroke="#006b4f" stroke-width="2"/><text x="{cx:.1}" y="{:.1}" font-size="11" fill="#fff" text-anchor="middle">{}</text>"##,
                    cy + 4.0,
                    rank + 1
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    r##"<circle class="waypoint" cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="none" stroke="#e69f00" stroke-width="2"/>"##
                );
            }
        }
    }
}

/// 3D shapes seen from above (3D recordings): spheres as circles, cuboids by their footprint.
fn solids_3d(s: &mut String, r: &Recording, view: &View) {
    let (w, scale, obstacle) = (&r.world, view.scale, OBSTACLE);
    for c in &w.spheres {
        let (cx, cy) = view.px(ground(c.center));
        let _ = writeln!(
            s,
            r#"<circle class="obstacle" cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" {obstacle}/>"#,
            c.radius * scale
        );
    }
    for b in &w.cuboids {
        let (lo, hi) = footprint(b);
        let (x, y) = view.px(Vec2::new(lo.x, hi.y));
        let _ = writeln!(
            s,
            r#"<rect class="obstacle" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" {obstacle}/>"#,
            (hi.x - lo.x) * scale,
            (hi.y - lo.y) * scale
        );
    }
}

/// Every agent's trail, grouped so each group is one `<g>`; a wrap-around world breaks a trail
/// where it wraps.
fn trails(s: &mut String, r: &Recording, view: &View, size: Vec2) {
    let n = r.agent_count();
    let per_agent = TRAIL_BUDGET.checked_div(n).unwrap_or(0).max(2);
    let jump = if r.world.wrap { Some(size * 0.5) } else { None };
    for (gi, g) in r.groups.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<g class="trails" fill="none" stroke="{}" stroke-width="1.3" stroke-linejoin="round" opacity="0.45">"#,
            xml(&g.colour)
        );
        for a in (0..n).filter(|&a| r.agent_groups[a] as usize == gi) {
            // the most recent points are the ones kept when thinning runs out of budget
            let d = thinned_path(
                view,
                r.frames.iter().rev().map(|f| r.plane_position(f, a)),
                per_agent,
                jump,
            );
            if d.len() > 1 {
                let _ = writeln!(s, r#"<path d="{d}"/>"#);
            }
        }
        let _ = writeln!(s, "</g>");
    }
}

/// The agents of frame `f` as oriented triangles, one `<g>` per group.
fn bodies(s: &mut String, r: &Recording, view: &View, f: &Frame) {
    let n = r.agent_count();
    for (gi, g) in r.groups.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<g class="agents" fill="{}" stroke="{}" stroke-width="1">"#,
            xml(&g.colour),
            darker(&g.colour)
        );
        let body = (g.radius * view.scale).max(3.5);
        for a in (0..n).filter(|&a| r.agent_groups[a] as usize == gi) {
            let p = r.plane_position(f, a);
            let heading = f.orientation[a];
            if !p.is_finite() || !heading.is_finite() {
                continue;
            }
            let (cx, cy) = view.px(p);
            // screen y is down, so the heading turns clockwise on screen
            let (sin, cos) = (-heading).sin_cos();
            let corner = |fx: f32, fy: f32| (cx + fx * cos - fy * sin, cy + fx * sin + fy * cos);
            let mut pts = String::new();
            point(&mut pts, corner(1.5 * body, 0.0));
            pts.push(' ');
            point(&mut pts, corner(-body, 0.9 * body));
            pts.push(' ');
            point(&mut pts, corner(-0.55 * body, 0.0));
            pts.push(' ');
            point(&mut pts, corner(-body, -0.9 * body));
            let _ = writeln!(s, r#"<polygon class="agent" data-agent="{a}" points="{pts}"/>"#);
        }
        let _ = writeln!(s, "</g>");
    }
}

/// The caption (title) above the world and the legend of groups below it, in a picture `h` px
/// high.
fn legend(s: &mut String, r: &Recording, h: f32, title: &str) {
    let mut x = MARGIN;
    let y = h - 14.0;
    let _ = writeln!(
        s,
        r##"<text x="{x:.1}" y="{:.1}" font-size="13" fill="#2b303a" font-weight="600">{}</text>"##,
        MARGIN - 8.0,
        xml(title)
    );
    for (gi, g) in r.groups.iter().enumerate() {
        let count = r.agent_groups.iter().filter(|&&a| a as usize == gi).count();
        let label = format!("{} ({count})", g.name);
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{:.1}" width="12" height="12" rx="2" fill="{}"/><text x="{:.1}" y="{y:.1}" font-size="12" fill="#2b303a">{}</text>"##,
            y - 10.0,
            xml(&g.colour),
            x + 17.0,
            xml(&label)
        );
        x += 30.0 + 7.0 * label.chars().count() as f32;
    }
}

/// Writes `snapshot.svg` for a recording to `path`, through a temporary name and a rename (a
/// link planted at `path` is replaced, not followed).
///
/// # Errors
/// Any I/O error.
pub fn write_svg(recording: &Recording, path: &Path) -> std::io::Result<()> {
    steerkit_files::write_atomic(path, render_svg(recording).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn darker_scales_each_channel() {
        assert_eq!(darker("#ff8040"), "#994c26");
        assert_eq!(darker("#fff"), "#999999");
    }

    #[test]
    fn xml_escapes_markup_and_drops_control_characters() {
        assert_eq!(xml("a<b>&\"'\u{1}"), "a&lt;b&gt;&amp;&quot;&apos;");
    }
}
