//! Passage detection on small meshes, and turn-taking in a corridor swap.

use steerkit::Vec2;
use steerkit_nav::{Level, NavMesh, Passage};

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Vec2> {
    vec![Vec2::new(x0, y0), Vec2::new(x1, y0), Vec2::new(x1, y1), Vec2::new(x0, y1)]
}

/// Radius 0.4 m, clearance 0.1 m: the mesh is the level shrunk by 0.5 m.
fn passages(level: &Level) -> Vec<Passage> {
    let mesh = NavMesh::build(level, 0.4, 0.1).unwrap();
    mesh.passages(8.0 * 0.8)
}

#[test]
fn print_levels() {
    // the corridor of the comparison: 40 x 6 m between two open ends
    let mut corridor = Level { outline: rect(-50.0, -15.0, 50.0, 15.0), obstacles: Vec::new() };
    corridor.obstacles.push(rect(-20.0, 3.0, 20.0, 15.0));
    corridor.obstacles.push(rect(-20.0, -15.0, 20.0, -3.0));
    println!("corridor {:?}", passages(&corridor));
    let mut rooms = Level { outline: rect(-60.0, -60.0, 60.0, 60.0), obstacles: Vec::new() };
    for o in [
        [-0.25, -60., 0.25, -31.],
        [-0.25, -29., 0.25, 29.],
        [-0.25, 31., 0.25, 60.],
        [-60., -0.25, -31., 0.25],
        [-29., -0.25, -0.25, 0.25],
        [0.25, -0.25, 29., 0.25],
        [31., -0.25, 60., 0.25],
    ] {
        rooms.obstacles.push(rect(o[0], o[1], o[2], o[3]));
    }
    println!("rooms {:?}", passages(&rooms));
    let mut pillars = Level { outline: rect(-50.0, -50.0, 50.0, 50.0), obstacles: Vec::new() };
    for i in 0..8 {
        for j in 0..5 {
            let (x, y) = (-43.75 + 12.5 * i as f32, -40.0 + 20.0 * j as f32);
            pillars.obstacles.push(rect(x - 1.0, y - 1.0, x + 1.0, y + 1.0));
        }
    }
    println!("pillars {:?}", passages(&pillars));
}
