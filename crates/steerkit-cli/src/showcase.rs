//! `steerkit run`: the built-in showcase; prints a summary and writes an SVG of the trajectories.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use steerkit::*;

const DT: f32 = 1.0 / 60.0;

/// One showcase run: named trajectories to draw and the numbers that tell the story.
struct Demo {
    name: &'static str,
    watch: &'static str,
    tracks: Vec<(&'static str, &'static str, Vec<Vec2>)>,
    marks: Vec<(Vec2, &'static str)>,
    result: String,
}

fn limits(max_speed: f32, max_acc: f32) -> Limits {
    Limits::new(max_speed, max_acc, 4.0, 20.0).expect("showcase limits are valid")
}

fn at(p: Vec2) -> Kinematic {
    Kinematic::at_rest(p, 0.0)
}

fn seek_vs_arrive() -> Demo {
    let l = limits(5.0, 8.0);
    let target = Vec2::new(12.0, 0.0);
    let arrive = Arrive::new(0.3, 4.0, 0.1).expect("valid");
    let (mut s, mut a) = (at(Vec2::new(0.0, 2.0)), at(Vec2::new(0.0, -2.0)));
    let target_s = target + Vec2::new(0.0, 2.0);
    let target_a = target + Vec2::new(0.0, -2.0);
    let (mut ts, mut ta) = (vec![], vec![]);
    for _ in 0..60 * 8 {
        s.integrate(&Seek::new().steer(&s, target_s, &l).unwrap_or_default(), &l, DT);
        a.integrate(&arrive.steer(&a, target_a, &l).unwrap_or_default(), &l, DT);
        ts.push(s.position);
        ta.push(a.position);
    }
    Demo {
        name: "seek vs arrive",
        watch:
            "seek overshoots and orbits its target; arrive slows inside its slow radius and stops",
        result: format!(
            "after 8 s: seek is {:.2} m from its target at {:.2} m/s; arrive {:.2} m at {:.3} m/s",
            (s.position - target_s).length(),
            s.velocity.length(),
            (a.position - target_a).length(),
            a.velocity.length()
        ),
        tracks: vec![("seek", "#d9534f", ts), ("arrive", "#2a9d8f", ta)],
        marks: vec![(target_s, "#d9534f"), (target_a, "#2a9d8f")],
    }
}

fn pursue_vs_seek() -> Demo {
    let l = limits(5.0, 10.0);
    let pursue = Pursue::new(3.0).expect("valid");
    let chase = |use_pursue: bool| {
        let mut me = at(Vec2::ZERO);
        let mut prey = Kinematic { velocity: Vec2::new(0.0, 3.0), ..at(Vec2::new(20.0, 0.0)) };
        let mut track = vec![];
        for i in 0..60 * 20 {
            if (prey.position - me.position).length() < 0.5 {
                return (i as f32 * DT, track, prey.position);
            }
            let s = if use_pursue {
                pursue.steer(&me, &prey, &l)
            } else {
                Seek::new().steer(&me, prey.position, &l)
            };
            me.integrate(&s.unwrap_or_default(), &l, DT);
            prey.position += prey.velocity * DT;
            track.push(me.position);
        }
        (f32::INFINITY, track, prey.position)
    };
    let (t_seek, track_seek, _) = chase(false);
    let (t_pursue, track_pursue, caught) = chase(true);
    let prey_track = (0..60 * 20)
        .map(|i| Vec2::new(20.0, 3.0 * i as f32 * DT))
        .take_while(|p| p.y < 3.0 * t_seek)
        .collect();
    Demo {
        name: "pursue vs seek",
        watch: "pursue heads for where the prey will be and cuts the corner; seek trails behind",
        result: format!("capture after {t_pursue:.2} s with pursue, {t_seek:.2} s with seek"),
        tracks: vec![
            ("prey", "#888888", prey_track),
            ("seek", "#d9534f", track_seek),
            ("pursue", "#2a9d8f", track_pursue),
        ],
        marks: vec![(caught, "#2a9d8f")],
    }
}

fn wander() -> Demo {
    let l = Limits::new(3.0, 6.0, 3.0, 12.0).expect("valid");
    let face = Face::new(Align::new(0.01, 0.6, 0.1).expect("valid"));
    let mut w = Wander::new(4.0, 1.5, 3.0, face, 7).expect("valid");
    let mut kw = KinematicWander::new(3.0, 7).expect("valid");
    let (mut d, mut k) = (at(Vec2::new(0.0, 0.0)), at(Vec2::new(0.0, 0.0)));
    let (mut td, mut tk) = (vec![], vec![]);
    let (mut jerk_d, mut jerk_k, mut prev_d, mut prev_k) = (0.0, 0.0, (0.0, 0.0), (0.0, 0.0));
    let turning = Limits::new(3.0, 6.0, 1e6, 12.0).expect("valid");
    for i in 0..60 * 20 {
        d.integrate(&w.steer(&d, &l, DT).unwrap_or_default(), &l, DT);
        let r = kw.steer(&k.to_static(), &l, DT);
        let before = k.orientation;
        k.apply_kinematic(&r, &turning, DT);
        td.push(d.position);
        tk.push(k.position);
        let dd = wrap_angle(d.orientation - prev_d.1);
        let dk = wrap_angle(k.orientation - before);
        if i > 1 {
            jerk_d += (dd - prev_d.0).abs();
            jerk_k += (dk - prev_k.0).abs();
        }
        prev_d = (dd, d.orientation);
        prev_k = (dk, k.orientation);
    }
    Demo {
        name: "wander",
        watch: "kinematic wander twitches; dynamic wander (circle ahead + face) meanders smoothly",
        result: format!(
            "mean heading jerk per frame: dynamic {:.5} rad, kinematic {:.5} rad",
            jerk_d / 1198.0,
            jerk_k / 1198.0
        ),
        tracks: vec![("kinematic", "#d9534f", tk), ("dynamic", "#2a9d8f", td)],
        marks: vec![],
    }
}

fn squad() -> Demo {
    let l = limits(6.0, 12.0);
    // a leader that turns slowly: a slot r metres out sweeps at r·ω when it wheels
    let leader_l = Limits::new(2.5, 4.0, 0.8, 4.0).expect("valid");
    let lwyg = LookWhereYoureGoing::new(Align::new(0.01, 0.5, 0.1).expect("valid"));
    let slots = [Vec2::new(-2.0, 2.0), Vec2::new(-2.0, -2.0), Vec2::new(-4.0, 0.0)];
    let pursuers: Vec<_> =
        slots.iter().map(|&o| OffsetPursuit::new(o, 1.0).expect("valid")).collect();
    let waypoints =
        [Vec2::new(15.0, 0.0), Vec2::new(15.0, 12.0), Vec2::new(0.0, 12.0), Vec2::new(0.0, 0.0)];
    let arrive = Arrive::new(0.5, 3.0, 0.2).expect("valid");
    let mut leader = at(Vec2::ZERO);
    let mut followers: Vec<_> = (0..3).map(|i| at(Vec2::new(-3.0 - i as f32, -3.0))).collect();
    let mut tracks = vec![vec![]; 4];
    let mut next = 0;
    let mut worst: f32 = 0.0;
    for step in 0..60 * 40 {
        if (leader.position - waypoints[next]).length() < 1.0 && next + 1 < waypoints.len() {
            next += 1;
        }
        let mut s = arrive.steer(&leader, waypoints[next], &leader_l).unwrap_or_default();
        s.angular = lwyg.steer(&leader, &leader_l).map_or(0.0, |a| a.angular);
        leader.integrate(&s, &leader_l, DT);
        for (f, p) in followers.iter_mut().zip(&pursuers) {
            f.integrate(&p.steer(f, &leader, &l).unwrap_or_default(), &l, DT);
            if step > 60 * 5 {
                worst = worst.max((f.position - p.slot(&leader)).length());
            }
        }
        tracks[0].push(leader.position);
        for (t, f) in tracks[1..].iter_mut().zip(&followers) {
            t.push(f.position);
        }
    }
    let [t0, t1, t2, t3]: [Vec<Vec2>; 4] = tracks.try_into().expect("four tracks");
    Demo {
        name: "offset pursuit squad",
        watch: "three followers hold their slots in the leader's frame round a square route",
        result: format!("worst slot error after the first 5 s: {worst:.2} m"),
        tracks: vec![
            ("leader", "#264653", t0),
            ("left", "#e76f51", t1),
            ("right", "#f4a261", t2),
            ("rear", "#2a9d8f", t3),
        ],
        marks: waypoints.iter().map(|&w| (w, "#264653")).collect(),
    }
}

fn svg(demos: &[Demo]) -> String {
    let (cell_w, cell_h) = (480.0f32, 360.0f32);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="13">"#,
        cell_w * 2.0,
        cell_h * demos.len().div_ceil(2) as f32
    );
    for (i, d) in demos.iter().enumerate() {
        let (ox, oy) = ((i % 2) as f32 * cell_w, (i / 2) as f32 * cell_h);
        let pts: Vec<Vec2> = d
            .tracks
            .iter()
            .flat_map(|t| t.2.iter().copied())
            .chain(d.marks.iter().map(|m| m.0))
            .collect();
        let (lo, hi) =
            pts.iter().fold((Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)), |(a, b), p| {
                (a.min(*p), b.max(*p))
            });
        let span = (hi - lo).max(Vec2::splat(1.0));
        let scale = ((cell_w - 40.0) / span.x).min((cell_h - 80.0) / span.y);
        // y up in the world, down in SVG
        let map = |p: Vec2| {
            Vec2::new(ox + 20.0 + (p.x - lo.x) * scale, oy + cell_h - 20.0 - (p.y - lo.y) * scale)
        };
        let _ = write!(
            out,
            r##"<rect x="{ox}" y="{oy}" width="{cell_w}" height="{cell_h}" fill="#fbfbf8" stroke="#ddd"/>"##
        );
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#,
            ox + 10.0,
            oy + 20.0,
            d.name
        );
        let _ = write!(
            out,
            r##"<text x="{}" y="{}" fill="#555">{}</text>"##,
            ox + 10.0,
            oy + 38.0,
            d.result
        );
        for (j, (label, colour, track)) in d.tracks.iter().enumerate() {
            let path: Vec<String> = track
                .iter()
                .step_by(2)
                .map(|p| {
                    let q = map(*p);
                    format!("{:.1},{:.1}", q.x, q.y)
                })
                .collect();
            let _ = write!(
                out,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="1.6" points="{}"/>"#,
                path.join(" ")
            );
            let _ = write!(
                out,
                r#"<text x="{}" y="{}" fill="{colour}">{label}</text>"#,
                ox + 10.0 + 80.0 * j as f32,
                oy + 56.0
            );
        }
        for (p, colour) in &d.marks {
            let q = map(*p);
            let _ = write!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                q.x, q.y
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// Runs the showcase.
pub fn run() -> ExitCode {
    let demos = vec![seek_vs_arrive(), pursue_vs_seek(), wander(), squad()];
    println!("steerkit showcase ({} scenarios, dt = 1/60 s)\n", demos.len());
    for d in &demos {
        println!("{:<22} {}\n{:<22} watch: {}\n", d.name, d.result, "", d.watch);
    }
    let dir = PathBuf::from("out/showcase");
    let file = dir.join("snapshot.svg");
    match std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&file, svg(&demos))) {
        Ok(()) => {
            println!("trajectories drawn in {}", file.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", file.display());
            ExitCode::FAILURE
        }
    }
}
