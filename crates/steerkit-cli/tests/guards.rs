//! Inputs that could take the machine down and outputs that could be redirected: piles refused
//! at `validate`, PTSP maps that are no regular file refused at once, planted links at output
//! names replaced and never followed, and what `validate` accepts at the stated range
//! boundaries runs.

use proptest::prelude::*;
use std::path::PathBuf;
use std::process::{Command, Output};
use steerkit_cli::run::{run, run_in, RunOptions};
use steerkit_scenario::Scenario;

fn steerkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_steerkit")).args(args).output().expect("the binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("steerkit-guards-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One line on standard error, exit status 1.
fn refused(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    e
}

const GROUP: &str = "radius = 0.5\nlimits = { max_speed = 2, max_acceleration = 4, max_rotation \
                     = 3, max_angular_acceleration = 10 }\nbehaviour = { kind = \"seek\", target \
                     = [0, 0] }\n[metrics]\ncollect = [\"agent_overlaps\", \"min_separation\"]\n";

/// The report's two files: 20 000 listed agents on one point (460 KB) and 10⁶ agents on a
/// 1 m ring. `validate` and `run` refuse both (before, the first aborted at 5.7 GB and the
/// second at 6.1 GB), and the refused run leaves no file behind.
#[test]
fn piles_are_refused_by_validate_and_run() {
    let dir = temp("piles");
    let head = "name = \"pile\"\ndt = 0.02\nsteps = 5\n[world]\nneighbour_radius = 2\n";
    let list = vec!["{ position = [0, 0] }"; 20_000].join(", ");
    let point = dir.join("point.toml");
    std::fs::write(
        &point,
        format!("{head}[[groups]]\nname = \"heap\"\nagents = [{list}]\n{GROUP}"),
    )
    .unwrap();
    let ring = dir.join("ring.toml");
    std::fs::write(
        &ring,
        format!(
            "{head}[[groups]]\nname = \"ring\"\ncount = 1000000\nspawn = {{ shape = \"ring\", \
             center = [0, 0], radius = 1 }}\n{GROUP}"
        ),
    )
    .unwrap();
    for (file, key) in [(&point, "groups[0].agents[256].position"), (&ring, "groups[0].spawn")] {
        let f = file.to_str().unwrap();
        let e = refused(&steerkit(&["validate", f]));
        assert!(e.contains(key) && e.contains("at most 256"), "{e}");
        let out = dir.join("out");
        let e = refused(&steerkit(&["run", f, "--out", out.to_str().unwrap()]));
        assert!(e.contains(key), "{e}");
        assert!(!out.join("trajectories.csv.partial").exists());
    }
}

/// A PTSP map that is a FIFO, a device or a huge file is refused at once with one line (a FIFO
/// used to block for ever, `/dev/zero` was read to 4.2 GB).
#[test]
fn ptsp_maps_that_are_no_regular_file_are_refused() {
    let dir = temp("maps");
    let fifo = dir.join("fifo.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let huge = dir.join("huge.txt");
    std::fs::File::create(&huge).unwrap().set_len(400_000_000).unwrap();
    let mut cases =
        vec![("/dev/zero".into(), "not a regular file"), (huge, "larger than the limit")];
    if made {
        cases.push((fifo, "not a regular file"));
    }
    for (map, expected) in cases {
        let e = refused(&steerkit(&["ptsp", map.to_str().unwrap(), "--out", "/nonexistent/x"]));
        assert!(e.contains(expected) && e.contains("cannot read the map"), "{e}");
    }
}

/// A link planted at each output's name (and at the partial trajectory file's) is replaced by
/// the output; the file it pointed to keeps its bytes.
#[cfg(unix)]
#[test]
fn planted_links_at_output_names_are_replaced_not_followed() {
    let dir = temp("links");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let names = [
        "metrics.json",
        "trajectories.csv",
        "replay.html",
        "snapshot.svg",
        "trajectories.csv.partial",
    ];
    for name in names {
        let victim = dir.join(format!("victim-{name}"));
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    let o = steerkit(&["run", "arrive", "--out", out.to_str().unwrap(), "--steps", "20"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in names {
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("victim-{name}"))).unwrap(),
            "precious"
        );
    }
    for name in &names[..4] {
        let meta = std::fs::symlink_metadata(out.join(name)).unwrap();
        assert!(meta.file_type().is_file() && meta.len() > 0, "{name}");
    }
    assert!(!out.join("trajectories.csv.partial").exists());
    // the race's files too
    let race = dir.join("race");
    std::fs::create_dir_all(&race).unwrap();
    for name in ["score.json", "trajectory.csv", "replay.html", "snapshot.svg"] {
        std::os::unix::fs::symlink(dir.join("victim-metrics.json"), race.join(name)).unwrap();
    }
    let o = steerkit(&["ptsp", "open", "--out", race.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("victim-metrics.json")).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(race.join("score.json")).unwrap().file_type().is_file());
}

/// A value at a stated range boundary, or just past it.
fn edge(values: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(values)
}

/// What `validate` accepts, `run` runs: 2D crowds with circles, 3D crowds with spheres and
/// side views with jumpers, their numbers at the boundaries of the documented ranges.
fn accepted_runs(text: &str) -> Result<(), TestCaseError> {
    let Ok(s) = Scenario::from_toml_str(text, "edge.toml") else { return Ok(()) };
    let options = RunOptions { threads: Some(1), ..RunOptions::default() };
    let result = if s.dimensions() == 3 {
        run_in::<steerkit::Vec3>(&s, &options).map(|_| ())
    } else {
        run(&s, &options).map(|_| ())
    };
    prop_assert!(result.is_ok(), "validate accepted, run refused: {:?}\n{}", result.err(), text);
    Ok(())
}

const ZERO_UP: &[&str] = &["0", "1e-6", "0.5", "1e5", "1e6"];
const POSITIVE: &[&str] = &["1e-6", "0.001", "1", "1e5", "1e6"];
const COORD: &[&str] = &["-1e5", "0", "1e5"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn validate_accepted_runs_2d_and_3d(
        three in any::<bool>(), dt in edge(&["1e-6", "0.02", "1"]), nr in edge(POSITIVE),
        radius in edge(ZERO_UP), body in edge(ZERO_UP), speed in edge(ZERO_UP),
        accel in edge(ZERO_UP), x in edge(COORD), agents in 1usize..4,
    ) {
        let (dims, p, obstacle) = if three {
            ("dimensions = 3\n", format!("[{x}, 0, 0]"), "sphere")
        } else {
            ("", format!("[{x}, 0]"), "circle")
        };
        let origin = if three { "[0, 0, 0]" } else { "[0, 0]" };
        let list = vec![format!("{{ position = {p} }}"); agents].join(", ");
        let text = format!(
            "name = \"edge\"\n{dims}dt = {dt}\nsteps = 3\n[world]\nneighbour_radius = {nr}\n\
             [[obstacles]]\nshape = \"{obstacle}\"\ncenter = {origin}\nradius = {radius}\n\
             [[groups]]\nname = \"a\"\nagents = [{list}]\nradius = {body}\nlimits = {{ \
             max_speed = {speed}, max_acceleration = {accel}, max_rotation = 3, \
             max_angular_acceleration = 10 }}\nbehaviour = {{ kind = \"seek\", target = {origin} \
             }}\n[metrics]\ncollect = [\"agent_overlaps\", \"min_separation\"]\n"
        );
        accepted_runs(&text)?;
    }

    #[test]
    fn validate_accepted_side_views_run(
        dt in edge(&["1e-6", "0.02", "1"]), gravity in edge(POSITIVE), body in edge(ZERO_UP),
        speed in edge(ZERO_UP), accel in edge(ZERO_UP), jump in edge(POSITIVE),
        hole in edge(&["0", "1", "1e5"]),
    ) {
        let text = format!(
            "name = \"course\"\ndt = {dt}\nsteps = 3\n[world]\nmin = [-2, -5]\nmax = [30, 5]\n\
             neighbour_radius = 1\n[side_view]\ngravity = {gravity}\nhole_width = {hole}\n\
             [[platforms]]\nfrom = [0, 0]\nto = [10, 0]\n[[platforms]]\nfrom = [12, 1]\n\
             to = [20, 1]\n[[groups]]\nname = \"runner\"\nradius = {body}\nlimits = {{ \
             max_speed = {speed}, max_acceleration = {accel}, max_rotation = 3, \
             max_angular_acceleration = 10 }}\njump = {{ jump_speed = {jump} }}\n\
             agents = [{{ position = [1, 0] }}, {{ position = [1, 0] }}]\n"
        );
        accepted_runs(&text)?;
    }
}
