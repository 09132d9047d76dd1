//! Passage detection ([`NavMesh::passages`]) on small meshes: doors and a corridor are found
//! with their widths and mouths, open ground and wide gaps are not.

use steerkit::Vec2;
use steerkit_nav::{Level, NavMesh, Passage};

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Vec2> {
    vec![Vec2::new(x0, y0), Vec2::new(x1, y0), Vec2::new(x1, y1), Vec2::new(x0, y1)]
}

/// Radius 0.4 m, clearance 0.1 m (the mesh is the level shrunk by 0.5 m); gaps narrower than
/// 8 diameters (6.4 m) are passages.
fn passages(level: &Level) -> Vec<Passage> {
    NavMesh::build(level, 0.4, 0.1).unwrap().passages(8.0 * 0.8)
}

#[test]
fn four_doors_of_2_m_are_four_passages_1_m_wide_across_their_walls() {
    // four 20 × 20 m rooms, 0.5 m walls, one 2 m door per wall
    let mut level = Level { outline: rect(-20.0, -20.0, 20.0, 20.0), obstacles: Vec::new() };
    for (a, b) in [(-20.0, -11.0), (-9.0, 9.0), (11.0, 20.0)] {
        level.obstacles.push(rect(-0.25, a, 0.25, b));
        level.obstacles.push(rect(a, -0.25, b, 0.25));
    }
    let found = passages(&level);
    assert_eq!(found.len(), 4, "{found:?}");
    for door in
        [Vec2::new(0.0, -10.0), Vec2::new(0.0, 10.0), Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0)]
    {
        let p = found
            .iter()
            .find(|p| ((p.a + p.b) * 0.5).distance(door) < 0.2)
            .unwrap_or_else(|| panic!("no passage at the door {door}: {found:?}"));
        // 2 m door − 2 × 0.5 m inflation
        assert!((p.width - 1.0).abs() < 0.01, "{p:?}");
        // across the wall (0.5 m) and its rounded jambs (0.5 m each side), give or take
        assert!((1.0..2.5).contains(&p.length()), "{p:?}");
        // the axis crosses the wall: along x for a door in a wall along y, and the reverse
        let across_x = door.x == 0.0;
        let axis = p.axis();
        assert!(if across_x { axis.x.abs() > 0.99 } else { axis.y.abs() > 0.99 }, "{p:?}");
    }
}

#[test]
fn a_corridor_40_m_by_6_m_is_one_passage_from_end_to_end() {
    let mut level = Level { outline: rect(-50.0, -15.0, 50.0, 15.0), obstacles: Vec::new() };
    level.obstacles.push(rect(-20.0, 3.0, 20.0, 15.0));
    level.obstacles.push(rect(-20.0, -15.0, 20.0, -3.0));
    let found = passages(&level);
    assert_eq!(found.len(), 1, "{found:?}");
    let p = found[0];
    assert!((p.width - 5.0).abs() < 0.01, "{p:?}");
    // the ends at ±20 m and the jambs' rounding (0.5 m) beyond them
    assert!((40.0..42.0).contains(&p.length()), "{p:?}");
    // both mouths on the middle line: an axis a degree off put the far one 0.7 m toward a
    // wall, and bodies entering along the other wall were not seen entering
    for end in [p.a, p.b] {
        assert!((end.x.abs() - 20.25).abs() < 0.3 && end.y.abs() < 0.1, "{p:?}");
    }
}

#[test]
fn open_ground_and_gaps_wider_than_the_limit_are_not_passages() {
    let open = Level { outline: rect(-20.0, -20.0, 20.0, 20.0), obstacles: Vec::new() };
    assert!(passages(&open).is_empty());
    // a 7 m gap between two walls (wider than 6.4 m)
    let mut wide = open.clone();
    wide.obstacles.push(rect(-0.25, -20.0, 0.25, -3.5));
    wide.obstacles.push(rect(-0.25, 3.5, 0.25, 20.0));
    assert!(passages(&wide).is_empty(), "{:?}", passages(&wide));
    // the same gap is a passage for a limit of 10 diameters (8 m)
    let mesh = NavMesh::build(&wide, 0.4, 0.1).unwrap();
    assert_eq!(mesh.passages(8.0).len(), 1);
    // and nothing is a passage with turn-taking off
    assert!(mesh.passages(0.0).is_empty());
}
