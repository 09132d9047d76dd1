//! Navigation mesh build and path query times on the comparison levels
//! (`scripts/detour/levels/*.json`, shared with the DetourCrowd driver):
//!
//! ```sh
//! cargo run --release -p steerkit-nav --example levels -- scripts/detour/levels/*.json
//! ```
//!
//! For each level: the mesh for its agent radius (clearance 0.1 m) built 10 times (fastest and
//! median, ms), the navigator's setup for that radius as a run makes it (the mesh and its
//! passages, fastest of three, ms), its polygon count, and every start-to-goal path of its largest case planned
//! once (mean µs per path, and the sum over the N agents).

use std::time::Instant;
use steerkit::Vec2;
use steerkit_nav::{Level, NavMesh, NavSettings, Navigator};

fn main() {
    for file in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&file).expect("a level file");
        let d: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let num = |v: &serde_json::Value| v.as_f64().expect("a number") as f32;
        let point = |v: &serde_json::Value| Vec2::new(num(&v[0]), num(&v[1]));
        let w = &d["walkable"];
        let mut level =
            Level::rectangle(Vec2::new(num(&w[0]), num(&w[1])), Vec2::new(num(&w[2]), num(&w[3])));
        for b in d["obstacles"].as_array().expect("obstacles") {
            let (lo, hi) = (Vec2::new(num(&b[0]), num(&b[1])), Vec2::new(num(&b[2]), num(&b[3])));
            level.obstacles.push(vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]);
        }
        let radius = num(&d["agent_radius"]);
        let clearance = NavSettings::default().clearance;
        let mut times = Vec::new();
        let mut mesh = None;
        for _ in 0..10 {
            let t = Instant::now();
            mesh = Some(NavMesh::build(&level, radius, clearance).expect("builds"));
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let mesh = mesh.expect("built");
        let setup = (0..3)
            .map(|_| {
                let t = Instant::now();
                let mut nav = Navigator::new(level.clone(), NavSettings::default()).expect("valid");
                nav.mesh_for(radius).expect("builds");
                t.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min);
        let case = d["cases"].as_array().expect("cases").last().expect("a case");
        let (starts, goals) =
            (case["starts"].as_array().unwrap(), case["goals"].as_array().unwrap());
        let t = Instant::now();
        let mut found = 0;
        for (s, g) in starts.iter().zip(goals) {
            found += usize::from(mesh.path(point(s), point(g)).is_some());
        }
        let all = t.elapsed().as_secs_f64();
        println!(
            "{} build_ms={:.2} (median {:.2}) navigator_ms={:.1} polygons={} paths={}/{} path_us={:.1} all_paths_ms={:.1}",
            d["name"].as_str().unwrap_or("?"),
            times[0],
            times[times.len() / 2],
            setup,
            mesh.polygons().len(),
            found,
            starts.len(),
            all * 1e6 / starts.len() as f64,
            all * 1e3
        );
    }
}
