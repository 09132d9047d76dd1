//! Recording round trips, limits and validation errors.

use super::*;
use steerkit::kinematic::Kinematic3;
use steerkit::path::Polyline;
use steerkit::{Quat, Vec3};

fn two_agents() -> Recorder<Vec2> {
    let meta = Meta::new("t", 1, 0.1, 10);
    let groups = vec![Group::new("a", "#112233", 0.5), Group::new("b", "#abc", 0.25)];
    Recorder::new(meta, World::default(), groups, vec![0, 1], RecordOptions::default()).unwrap()
}

#[test]
fn values_are_written_to_the_millimetre_and_read_back_within_half_a_millimetre() {
    let mut rec = two_agents();
    let p = [Vec2::new(1.23456, -7.0), Vec2::new(1e-4, 123.4567)];
    rec.push_frame(0, p.iter().map(|&p| (p, Vec2::new(0.5, 2.0), 1.23456))).unwrap();
    let r = rec.finish();
    let json = r.to_json();
    assert!(json.contains("\"position\":[1.235,-7,0,123.457]"), "{json}");
    assert!(json.contains("\"orientation\":[1.235,1.235]"), "{json}");
    let back = Recording::from_json(&json).unwrap();
    for (a, b) in back.frames[0].position.iter().zip(&r.frames[0].position) {
        assert!((a - b).abs() <= 0.0005 + 1e-6, "{a} vs {b}");
    }
    // writing what was read gives the same text
    assert_eq!(back.to_json(), json);
}

#[test]
fn non_finite_values_are_null_and_read_back_as_nan() {
    let mut rec = two_agents();
    let p = [Vec2::new(f32::NAN, 0.0), Vec2::new(1.0, f32::INFINITY)];
    rec.push_frame(0, p.iter().map(|&p| (p, Vec2::ZERO, 0.0))).unwrap();
    let json = rec.finish().to_json();
    assert!(json.contains("\"position\":[null,0,1,null]"), "{json}");
    let back = Recording::from_json(&json).unwrap();
    assert!(back.frames[0].position[0].is_nan() && back.frames[0].position[3].is_nan());
}

#[test]
fn frames_must_advance_and_have_every_agent() {
    let mut rec = two_agents();
    let one = [(Vec2::ZERO, Vec2::ZERO, 0.0)];
    let err = rec.push_frame(0, one).err().unwrap();
    assert_eq!(err, invalid("agents", "frame at step 0 has 1 agents, expected 2"));
    rec.push_frame(3, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
    let err = rec.push_frame(3, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).err().unwrap();
    assert!(matches!(err, RecordingError::Invalid { ref field, .. } if field == "step"));
}

#[test]
fn bad_groups_and_options_are_named() {
    let meta = Meta::new("t", 1, 0.1, 10);
    let bad = |groups: Vec<Group>, agents: Vec<u32>, every: u32| {
        let o = RecordOptions { every, ..RecordOptions::default() };
        match Recorder::<Vec2>::new(meta.clone(), World::default(), groups, agents, o) {
            Err(RecordingError::Invalid { field, .. }) => field,
            other => panic!("expected an error, got {other:?}"),
        }
    };
    assert_eq!(bad(vec![Group::new("a", "red", 1.0)], vec![0], 1), "groups[0].colour");
    assert_eq!(bad(vec![Group::new("a", "#12345g", 1.0)], vec![0], 1), "groups[0].colour");
    assert_eq!(bad(vec![Group::new("a", "#123456", -1.0)], vec![0], 1), "groups[0].radius");
    assert_eq!(bad(vec![Group::new("a", "#123456", 1.0)], vec![0, 1], 1), "agent_groups[1]");
    assert_eq!(bad(vec![], vec![], 0), "every");
}

#[test]
fn every_kth_step_and_the_last_are_recorded() {
    let meta = Meta::new("t", 1, 0.1, 10);
    let o = RecordOptions { every: 4, ..RecordOptions::default() };
    let rec = Recorder::<Vec2>::new(meta, World::default(), vec![], vec![], o).unwrap();
    let kept: Vec<u32> = (0..=10).filter(|&s| rec.records(s)).collect();
    assert_eq!(kept, [0, 4, 8, 10]);
}

#[test]
fn overlays_are_kept_only_for_chosen_agents_and_metrics_align_with_frames() {
    let meta = Meta::new("t", 1, 0.1, 10);
    let groups = vec![Group::new("a", "#112233", 0.5)];
    let o =
        RecordOptions { overlays: OverlayCapture::Only(vec![1, 99]), ..RecordOptions::default() };
    let mut rec = Recorder::<Vec2>::new(meta, World::default(), groups, vec![0; 3], o).unwrap();
    let agents = [(Vec2::ZERO, Vec2::ZERO, 0.0); 3];
    {
        let mut f = rec.push_frame(0, agents).unwrap();
        f.steering(0, Vec2::X);
        f.steering(1, Vec2::Y);
        f.ray(1, Vec2::ZERO, Vec2::X, Some(1.5));
        f.ray(1, Vec2::ZERO, Vec2::Y, None);
        f.metric("speed", "m/s", 1.0);
    }
    rec.push_frame(1, agents).unwrap().metric("later", "", 2.0);
    rec.event(1, "arrived", Some(2));
    let r = rec.finish();
    let ov = &r.frames[0].overlays;
    assert_eq!(ov.steering.agent, [1]);
    assert_eq!(ov.steering.vector, [0.0, 1.0]);
    assert_eq!(ov.rays.hit, [1.0, -1.0]);
    assert_eq!(r.metrics[0].values[0], 1.0);
    assert!(r.metrics[0].values[1].is_nan());
    assert!(r.metrics[1].values[0].is_nan());
    assert_eq!(r.metrics[1].values[1], 2.0);
    let back = Recording::from_json(&r.to_json()).unwrap();
    assert_eq!(back.frames[0].overlays, r.frames[0].overlays);
    assert_eq!(back.events, r.events);
}

#[test]
fn inconsistent_json_is_rejected_naming_the_field() {
    let mut rec = two_agents();
    rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
    let json = rec.finish().to_json();
    let short = json.replace("\"orientation\":[0,0]", "\"orientation\":[0]");
    match Recording::from_json(&short) {
        Err(RecordingError::Invalid { field, .. }) => {
            assert_eq!(field, "frames[0].orientation")
        }
        other => panic!("{other:?}"),
    }
    let unknown = json.replace("\"wrap\":false", "\"wrap\":false,\"wrapp\":true");
    assert!(
        matches!(Recording::from_json(&unknown), Err(RecordingError::Json(m)) if m.contains("wrapp"))
    );
}

/// Three fliers in a 3D world with every 3D shape; the second banks, the third is gone.
fn fliers() -> Recording {
    let mut world = World::default().with_volume(Vec3::new(-10.0, 0.0, -8.0), Vec3::splat(10.0));
    world.add_sphere(Vec3::new(1.0, 4.0, -2.0), 1.5);
    world.add_cuboid(Vec3::new(3.0, 0.0, 3.0), Vec3::new(5.0, 2.5, 4.0));
    let route = vec![Vec3::new(0.0, 2.0, 0.0), Vec3::new(6.0, 5.5, -1.0), Vec3::new(2.0, 3.0, 4.0)];
    world.add_path(PathShape::from_polyline3("loop", &Polyline::looping(route).unwrap()));
    let meta = Meta::new("fliers", 1, 0.1, 1);
    let groups = vec![Group::new("birds", "#0072b2", 0.3)];
    let o = RecordOptions::default();
    let mut rec = Recorder::<Vec3>::new(meta, world, groups, vec![0; 3], o).unwrap();
    let bank = Quat::from_rotation_y(0.5) * Quat::from_rotation_x(-0.6);
    let ks = [
        Kinematic3 { position: Vec3::new(1.0, 2.0, 3.0), ..Kinematic3::default() },
        Kinematic3 { orientation: bank, velocity: Vec3::X, ..Kinematic3::default() },
        Kinematic3 { position: Vec3::NAN, ..Kinematic3::default() },
    ];
    rec.push_kinematics3(0, &ks).unwrap().target(1, Vec3::new(0.0, 1.0, -4.0));
    rec.push_kinematics3(1, &ks).unwrap();
    rec.finish()
}

#[test]
fn attitudes_and_3d_shapes_round_trip() {
    let r = fliers();
    let f = &r.frames[0];
    assert_eq!(f.attitude.len(), 12);
    assert_eq!(f.attitude[..4], [0.0, 0.0, 0.0, 1.0]);
    assert!(f.attitude[8..].iter().all(|q| q.is_nan()), "the agent gone has no attitude");
    let json = r.to_json();
    assert!(json.contains("\"attitude\":[0,0,0,1,"), "{json}");
    assert!(json.contains(",null,null,null,null]"), "{json}");
    assert!(
        json.contains("\"volume\":{\"min\":[-10.0,0.0,-8.0],\"max\":[10.0,10.0,10.0]}"),
        "{json}"
    );
    assert!(json.contains("\"spheres\":[{\"center\":[1.0,4.0,-2.0],\"radius\":1.5}]"), "{json}");
    assert!(json.contains("\"cuboids\":[{\"min\":[3.0,0.0,3.0],\"max\":[5.0,2.5,4.0]}]"), "{json}");
    assert!(json.contains("\"points\":[[0.0,2.0,0.0],[6.0,5.5,-1.0],[2.0,3.0,4.0]]"), "{json}");
    let back = Recording::from_json(&json).unwrap();
    assert_eq!(back.world, r.world);
    let q = Quat::from_slice(&back.frames[0].attitude[4..8]);
    let want = Quat::from_slice(&f.attitude[4..8]);
    assert!(q.angle_between(want) < 2e-3, "{q} vs {want}");
    assert!((q.length() - 1.0).abs() < 2e-3);
    assert_eq!(back.to_json(), json);
    // the top view and the snapshot see a 3D path point at (x, −z)
    assert_eq!(back.world.paths[0].points[1].plane(), Vec2::new(6.0, 1.0));
    assert_eq!(back.world.paths[0].points[1].space(), Vec3::new(6.0, 5.5, -1.0));
}

#[test]
fn two_d_recordings_are_written_as_before() {
    let mut world = World::bounded(Vec2::ZERO, Vec2::splat(4.0), false);
    let path = Polyline::open(vec![Vec2::new(1.0, 2.0), Vec2::new(3.5, 2.0)]).unwrap();
    world.add_path(PathShape::from_polyline("p", &path));
    let json = serde_json::to_string(&world).unwrap();
    assert_eq!(
        json,
        "{\"bounds\":{\"min\":[0.0,0.0],\"max\":[4.0,4.0]},\"wrap\":false,\"circles\":[],\
         \"polygons\":[],\"boxes\":[],\"walls\":[],\"paths\":[{\"name\":\"p\",\
         \"points\":[[1.0,2.0],[3.5,2.0]],\"looping\":false}]}"
    );
    let mut rec = two_agents();
    rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
    let json = rec.finish().to_json();
    assert!(!json.contains("attitude") && !json.contains("volume"), "{json}");
    assert!(!json.contains("spheres") && !json.contains("cuboids"), "{json}");
}

#[test]
fn recordings_without_the_3d_additions_still_read() {
    let r = fliers();
    let mut old = r.to_json();
    // an older 3D recording: no attitude, no 3D shapes, paths in the ground plane
    while let Some(start) = old.find(",\"attitude\"") {
        let end = start + old[start..].find(']').unwrap() + 1;
        old.replace_range(start..end, "");
    }
    let start = old.find(",\"volume\"").unwrap();
    let end = old.find(",\"groups\"").unwrap() - 1;
    old.replace_range(start..end, "");
    old = old.replace("[[0.0,2.0,0.0],[6.0,5.5,-1.0],[2.0,3.0,4.0]]", "[[0,0],[6,1],[2,-4]]");
    let back = Recording::from_json(&old).unwrap_or_else(|e| panic!("{e}: {old}"));
    assert!(back.frames.iter().all(|f| f.attitude.is_empty()));
    assert!(!back.world.has_3d_shapes());
    assert_eq!(back.world.paths[0].points[1], PathPoint::Plane([6.0, 1.0]));
    assert_eq!(back.world.paths[0].points[1].space(), Vec3::new(6.0, 0.0, -1.0));
}

#[test]
fn bad_attitudes_and_3d_shapes_are_named() {
    let field_of = |r: Recording| match r.validate() {
        Err(RecordingError::Invalid { field, reason }) => {
            assert!(!reason.is_empty());
            field
        }
        other => panic!("expected an error, got {other:?}"),
    };
    let edit = |f: &dyn Fn(&mut Recording)| {
        let mut r = fliers();
        f(&mut r);
        field_of(r)
    };
    assert_eq!(edit(&|r| r.frames[1].attitude.truncate(11)), "frames[1].attitude");
    assert_eq!(edit(&|r| r.world.spheres[0].radius = 0.0), "world.spheres[0].radius");
    assert_eq!(edit(&|r| r.world.spheres[0].radius = f32::NAN), "world.spheres[0].radius");
    assert_eq!(edit(&|r| r.world.spheres[0].center[2] = f32::INFINITY), "world.spheres[0].center");
    assert_eq!(edit(&|r| r.world.cuboids[0].min[1] = 3.0), "world.cuboids[0]");
    assert_eq!(edit(&|r| r.world.volume.as_mut().unwrap().max[0] = f32::NAN), "world.volume.max");
    assert_eq!(
        edit(&|r| r.world.paths[0].points[2] = PathPoint::Space([0.0, f32::NAN, 0.0])),
        "world.paths[0].points[2]"
    );
    // a 2D recording has no attitude and no 3D shapes
    let mut rec = two_agents();
    rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
    let flat = rec.finish();
    let edit2 = |f: &dyn Fn(&mut Recording)| {
        let mut r = flat.clone();
        f(&mut r);
        field_of(r)
    };
    assert_eq!(edit2(&|r| r.frames[0].attitude = vec![0.0, 0.0, 0.0, 1.0]), "frames[0].attitude");
    assert_eq!(edit2(&|r| r.world.add_sphere(Vec3::ZERO, 1.0)), "world.spheres");
    assert_eq!(edit2(&|r| r.world.add_cuboid(Vec3::ZERO, Vec3::ONE)), "world.cuboids");
    assert_eq!(edit2(&|r| r.world.set_volume(Vec3::ZERO, Vec3::ONE)), "world.volume");
    let path3 = PathShape {
        name: "up".into(),
        points: vec![Vec3::ZERO.into(), Vec3::ONE.into()],
        looping: false,
    };
    assert_eq!(edit2(&|r| r.world.add_path(path3.clone())), "world.paths[0].points[0]");
    // a recorder checks the world it is given
    let mut world = World::default();
    world.add_sphere(Vec3::ZERO, -1.0);
    let o = RecordOptions::default();
    let err = Recorder::<Vec3>::new(Meta::new("t", 1, 0.1, 1), world, vec![], vec![], o);
    assert!(
        matches!(err, Err(RecordingError::Invalid { field, .. }) if field == "world.spheres[0].radius")
    );
    // a path point has 2 or 3 components
    let json = fliers().to_json().replace("[6.0,5.5,-1.0]", "[6.0,5.5,-1.0,2.0]");
    match Recording::from_json(&json) {
        Err(RecordingError::Json(m)) => assert!(m.contains("2 or 3 components"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn for_size_keeps_about_the_budget() {
    let o = RecordOptions::for_size(1000, 999, 300_000);
    assert_eq!(o.every, 4);
    assert_eq!(o.overlays, OverlayCapture::Only((0..50).collect()));
    assert_eq!(RecordOptions::for_size(30, 600, 300_000).every, 1);
}

/// A navigation route is kept whole (its points in order, their count), round-trips through
/// JSON, and counts that disagree with the points are refused naming the layer.
#[test]
fn routes_round_trip_and_bad_counts_are_named() {
    let mut rec = two_agents();
    let route = [Vec2::new(1.0, 2.0), Vec2::new(3.0, 4.0), Vec2::new(5.0, 6.0)];
    {
        let mut f = rec.push_frame(0, [(Vec2::ZERO, Vec2::ZERO, 0.0); 2]).unwrap();
        f.route(1, route);
        f.route(0, [Vec2::new(-1.0, 0.5)]);
    }
    let r = rec.finish();
    let l = &r.frames[0].overlays.routes;
    assert_eq!((l.agent.as_slice(), l.count.as_slice()), ([1, 0].as_slice(), [3, 1].as_slice()));
    assert_eq!(l.point, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, 0.5]);
    let json = r.to_json();
    assert_eq!(Recording::from_json(&json).unwrap().frames[0].overlays.routes, *l);
    let bad = json.replace("\"count\":[3,1]", "\"count\":[3,2]");
    match Recording::from_json(&bad) {
        Err(RecordingError::Invalid { field, .. }) => {
            assert_eq!(field, "frames[0].overlays.routes")
        }
        other => panic!("{other:?}"),
    }
}
