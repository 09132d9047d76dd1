//! The navigation mesh on small levels: paths against a brute-force visibility graph, goals
//! that cannot be reached, bad levels.

use steerkit::Vec2;
use steerkit_nav::{Level, NavError, NavMesh};

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Vec2> {
    vec![Vec2::new(x0, y0), Vec2::new(x1, y0), Vec2::new(x1, y1), Vec2::new(x0, y1)]
}

/// Four 20 × 20 m rooms, 0.5 m walls, one 2 m door in each wall half.
fn rooms() -> Level {
    let mut level = Level { outline: rect(-20.0, -20.0, 20.0, 20.0), obstacles: Vec::new() };
    let w = 0.25;
    for (a, b) in [(-20.0, -11.0), (-9.0, 9.0), (11.0, 20.0)] {
        level.obstacles.push(rect(-w, a, w, b));
        level.obstacles.push(rect(a, -w, b, w));
    }
    level
}

/// Is the segment inside the mesh (sampled every 2 cm, a hair of slack at the boundary)?
fn visible(mesh: &NavMesh, a: Vec2, b: Vec2) -> bool {
    let n = (a.distance(b) / 0.02).ceil().max(1.0) as usize;
    (1..n).all(|i| {
        let p = a.lerp(b, i as f32 / n as f32);
        mesh.nearest(p).distance(p) < 2e-3
    })
}

/// Shortest path over the visibility graph of the mesh's vertices (Dijkstra, dense).
fn brute_force(mesh: &NavMesh, from: Vec2, to: Vec2) -> f32 {
    let mut nodes = vec![from, to];
    for poly in mesh.polygons() {
        for v in poly {
            if !nodes.iter().any(|n| n.distance_squared(*v) < 1e-10) {
                nodes.push(*v);
            }
        }
    }
    let n = nodes.len();
    let mut dist = vec![f32::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n).filter(|&i| !done[i]).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        else {
            break;
        };
        done[u] = true;
        if u == 1 {
            break;
        }
        for v in 0..n {
            if !done[v] {
                let d = dist[u] + nodes[u].distance(nodes[v]);
                if d < dist[v] && visible(mesh, nodes[u], nodes[v]) {
                    dist[v] = d;
                }
            }
        }
    }
    dist[1]
}

#[test]
fn paths_are_the_any_angle_optimum_of_the_inflated_mesh() {
    let mesh = NavMesh::build(&rooms(), 0.4, 0.1).unwrap();
    let cases = [
        (Vec2::new(-15.0, -15.0), Vec2::new(15.0, 15.0)),
        (Vec2::new(-5.0, -3.0), Vec2::new(6.0, 12.0)),
        (Vec2::new(-18.0, 5.0), Vec2::new(-3.0, -17.0)),
        (Vec2::new(3.0, 3.0), Vec2::new(17.0, 2.0)),
    ];
    for (from, to) in cases {
        let path = mesh.path(from, to).expect("the rooms connect");
        let walked: f32 = std::iter::once(from)
            .chain(path.points.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| w[0].distance(w[1]))
            .sum();
        assert!(
            (walked - path.length).abs() < 1e-3 * walked.max(1.0),
            "{walked} vs {}",
            path.length
        );
        let best = brute_force(&mesh, from, to);
        assert!(walked <= best * 1.01 + 1e-3, "{from} → {to}: {walked} m, optimum {best} m");
        assert!(
            walked >= best * 0.99 - 1e-3,
            "{from} → {to}: {walked} m below the optimum {best} m"
        );
        // every leg stays on the mesh
        let mut a = from;
        for &b in &path.points {
            assert!(visible(&mesh, a, b), "leg {a} → {b} leaves the mesh");
            a = b;
        }
    }
}

#[test]
fn the_mesh_keeps_radius_plus_clearance_from_every_wall() {
    let mesh = NavMesh::build(&rooms(), 0.4, 0.1).unwrap();
    assert!(!mesh.contains(Vec2::new(0.6, 5.0)), "0.35 m from the wall face");
    assert!(mesh.contains(Vec2::new(0.8, 5.0)), "0.55 m from the wall face");
    assert!(!mesh.contains(Vec2::new(-19.6, 0.0 + 5.0)), "0.4 m from the outline");
    assert!(mesh.contains(Vec2::new(0.0, 10.0)), "the middle of a door");
    let q = mesh.nearest(Vec2::new(0.1, 5.0));
    assert!((q.x.abs() - 0.75).abs() < 0.01 && (q.y - 5.0).abs() < 0.01, "{q}");
}

#[test]
fn an_unreachable_goal_gives_the_nearest_reachable_point() {
    // two rooms with no door
    let mut level = Level { outline: rect(-10.0, -5.0, 10.0, 5.0), obstacles: Vec::new() };
    level.obstacles.push(rect(-0.25, -5.0, 0.25, 5.0));
    let mesh = NavMesh::build(&level, 0.4, 0.1).unwrap();
    let (from, goal) = (Vec2::new(-5.0, 0.0), Vec2::new(5.0, 1.0));
    assert!(mesh.path(from, goal).is_none());
    let stop = mesh.nearest_reachable(from, goal);
    assert!((stop.x + 0.75).abs() < 0.01 && (stop.y - 1.0).abs() < 0.01, "{stop}");
    assert!(mesh.path(from, stop).is_some());
}

#[test]
fn bad_levels_are_refused_naming_the_polygon() {
    let mut level = Level { outline: rect(0.0, 0.0, 10.0, 10.0), obstacles: Vec::new() };
    level.obstacles.push(vec![Vec2::ZERO, Vec2::ONE, Vec2::new(2.0, 2.0)]);
    let e = NavMesh::build(&level, 0.4, 0.1).unwrap_err();
    assert!(matches!(&e, NavError::Degenerate { what, .. } if what == "obstacles[0]"), "{e}");
    let small = Level { outline: rect(0.0, 0.0, 0.5, 0.5), obstacles: Vec::new() };
    let e = NavMesh::build(&small, 0.4, 0.1).unwrap_err();
    assert!(matches!(e, NavError::Empty { .. }), "{e}");
    let e = NavMesh::build(&rooms(), f32::NAN, 0.1).unwrap_err();
    assert_eq!(e.to_string(), "radius: NaN is not a finite number ≥ 0");
}
