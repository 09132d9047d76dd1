//! `steerkit ptsp`: races a controller on a PTSP map and writes the score, the trajectory and a
//! replay (maze, waypoints in visit order, the planned path, probes, escape points and the
//! action of every step).

use crate::recording::{
    ControlLayer, Event, Frame, Group, Meta, PathPoint, PathShape, PointLayer, RayLayer, Recording,
    Rect, VehicleShape, WaypointShape, World, FORMAT, VERSION,
};
use std::path::{Path, PathBuf};
use steerkit::Vec2;
use steerkit_ptsp::{
    race, Controller, Map, MapError, Naive, RaceLimits, RaceLog, Reference, ReferenceSettings,
    Ship, TourMethod, STEP,
};

/// Races your own controller on `map` with the default ship and writes its `score.json`,
/// `trajectory.csv`, `replay.html` and `snapshot.svg` to `dir`, under `name` (shown in the
/// score and the replay). Returns the race and the files written.
///
/// ```no_run
/// use steerkit_ptsp::{Action, Controller, RaceLimits, RaceView};
///
/// struct Coast;
/// impl Controller for Coast {
///     fn act(&mut self, _: &RaceView<'_>) -> Action {
///         Action::COAST
///     }
/// }
/// let map = steerkit_cli::ptsp::resolve_map("open").unwrap();
/// let dir = std::path::Path::new("out/ptsp-open-coast");
/// let (log, files) =
///     steerkit_cli::ptsp::race_and_write(dir, &map, &mut Coast, "coast", RaceLimits::default())
///         .unwrap();
/// println!("{} steps, replay: {}", log.score.steps, files[2].display());
/// ```
///
/// # Errors
/// A map whose waypoints the ship cannot reach (the planner's check), or any I/O error with
/// its path.
pub fn race_and_write(
    dir: &Path,
    map: &Map,
    controller: &mut dyn Controller,
    name: &str,
    limits: RaceLimits,
) -> Result<(RaceLog, Vec<PathBuf>), String> {
    let ship = Ship::default();
    steerkit_ptsp::Planner::new(map, &ship).map_err(|e| e.to_string())?;
    let log = race(map, &ship, controller, limits);
    let files = write(dir, map, &log, name)?;
    Ok((log, files))
}

/// The controllers `steerkit ptsp` can race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Racer {
    /// The reference controller (2-opt tour).
    Reference,
    /// The reference controller with the nearest-first tour.
    NearestFirst,
    /// The reference controller with a random tour (seeded).
    RandomOrder(u64),
    /// Straight for the nearest waypoint.
    Naive,
}

impl Racer {
    /// The name shown in outputs.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Racer::Reference => "reference".into(),
            Racer::NearestFirst => "nearest-first".into(),
            Racer::RandomOrder(seed) => format!("random-order (seed {seed})"),
            Racer::Naive => "naive".into(),
        }
    }
}

/// A map by shipped name or file path.
///
/// # Errors
/// An unknown name (listing the shipped ones) or any [`Map::load`] error.
pub fn resolve_map(arg: &str) -> Result<Map, String> {
    if let Some(map) = steerkit_ptsp::builtin_map(arg) {
        return Ok(map);
    }
    let path = Path::new(arg);
    if path.exists() || arg.contains('/') || path.extension().is_some() {
        return Map::load(path).map_err(|e| e.to_string());
    }
    let names: Vec<&str> = steerkit_ptsp::map::BUILTIN.iter().map(|(n, _)| *n).collect();
    Err(format!("no map file or shipped map named `{arg}` (shipped: {})", names.join(", ")))
}

/// Races `racer` on `map` with the default ship and `limits`.
///
/// # Errors
/// A map whose waypoints the ship cannot reach (the planner's check).
pub fn race_on(map: &Map, racer: Racer, limits: RaceLimits) -> Result<RaceLog, MapError> {
    let ship = Ship::default();
    // the reachability check applies to every controller: a race that cannot finish is refused
    steerkit_ptsp::Planner::new(map, &ship)?;
    let settings = |tour| ReferenceSettings { tour, ..ReferenceSettings::default() };
    let mut controller: Box<dyn Controller> = match racer {
        Racer::Reference => Box::new(Reference::new(map, &ship, settings(TourMethod::TwoOpt))?),
        Racer::NearestFirst => {
            Box::new(Reference::new(map, &ship, settings(TourMethod::NearestFirst))?)
        }
        Racer::RandomOrder(seed) => {
            Box::new(Reference::new(map, &ship, settings(TourMethod::Random(seed)))?)
        }
        Racer::Naive => Box::new(Naive::new()),
    };
    Ok(race(map, &ship, controller.as_mut(), limits))
}

/// The replay of a race: the map's walls as boxes, the waypoints with their visit steps, the
/// ship (a `ship` vehicle with its action as controls), the target and escape points, probes
/// as rays and the tour's planned path (A* legs in visit order, from the first step's notes).
#[must_use]
pub fn recording(map: &Map, log: &RaceLog, controller: &str) -> Recording {
    let ship = Ship::default();
    let mut world =
        World::bounded(Vec2::ZERO, Vec2::new(map.width() as f32, map.height() as f32), false);
    world.boxes =
        map.wall_rects().into_iter().map(|(a, b)| Rect { min: a.into(), max: b.into() }).collect();
    world.waypoints = map
        .waypoints()
        .iter()
        .zip(&log.visited)
        .map(|(w, v)| WaypointShape { center: (*w).into(), radius: ship.visit_radius, visited: *v })
        .collect();
    world.paths = planned_paths(map, log);
    let mut group = Group::new("ship", "#0072b2", ship.radius);
    group.vehicle = Some(VehicleShape {
        model: "ship".into(),
        length: 3.0 * ship.radius,
        width: 2.2 * ship.radius,
        wheelbase: None,
        max_steer: None,
        track_width: None,
    });
    let frame = |step: u32, k: &steerkit::kinematic::Kinematic| Frame {
        step,
        position: vec![k.position.x, k.position.y],
        velocity: vec![k.velocity.x, k.velocity.y],
        orientation: vec![k.orientation],
        ..Frame::default()
    };
    let mut frames = vec![frame(0, &log.start)];
    for s in &log.steps {
        let mut f = frame(s.step, &s.state);
        let o = &mut f.overlays;
        o.controls = ControlLayer {
            agent: vec![0],
            value: vec![f32::from(u8::from(s.action.thrust)), s.action.turn.sign(), 0.0],
        };
        if let Some(t) = s.notes.target {
            o.target = PointLayer { agent: vec![0], point: vec![t.x, t.y] };
        }
        let mut rays = RayLayer::default();
        for &(a, b, hit) in &s.notes.probes {
            rays.agent.push(0);
            rays.from.extend([a.x, a.y]);
            rays.to.extend([b.x, b.y]);
            rays.hit.push(hit.unwrap_or(-1.0));
        }
        o.rays = rays;
        frames.push(f);
    }
    let mut events: Vec<Event> = log
        .visited
        .iter()
        .filter_map(|v| v.map(|step| Event { step, kind: "waypoint".into(), agent: Some(0) }))
        .collect();
    events.extend(log.steps.iter().filter(|s| s.collided).map(|s| Event {
        step: s.step,
        kind: "collision".into(),
        agent: Some(0),
    }));
    // an escape begins when a probe first finds a wall
    events.extend(
        log.steps
            .windows(2)
            .filter(|w| w[1].notes.escape.is_some() && w[0].notes.escape.is_none())
            .map(|w| Event { step: w[1].step, kind: "escape".into(), agent: Some(0) }),
    );
    events.sort_by_key(|e| e.step);
    let score = log.score;
    let description = format!(
        "PTSP on map `{}` ({} × {} px) with the {} controller: {} of {} waypoints in {} steps \
         of 40 ms ({}), {} wall collisions. Waypoints fill green with their visit number; dashed \
         lines are the planned tour (straight, in the controller's order) and the A* paths planned to each; select the ship for its action (thrust, turn), \
         the point it steers for and its probes (red where a probe found a wall, which makes it \
         seek an escape point instead).",
        map.name(),
        map.width(),
        map.height(),
        controller,
        score.visited,
        score.waypoints,
        score.steps,
        score.outcome.name(),
        score.collisions
    );
    Recording {
        format: FORMAT.into(),
        version: VERSION,
        meta: Meta {
            every: 1,
            unit: "px".into(),
            ..Meta::new(format!("ptsp {}", map.name()), 0, STEP, score.steps)
        }
        .with_description(description),
        world,
        groups: vec![group],
        agent_groups: vec![0],
        frames,
        events,
        events_dropped: 0,
        metrics: Vec::new(),
        shots: Vec::new(),
        shots_dropped: 0,
    }
}

/// The controller's intended tour, as it first stated it (straight from the start through the
/// waypoints in its order; the visits, filled in green, show what became of it), then the
/// path flown to each waypoint, as planned when the ship set out for it.
fn planned_paths(map: &Map, log: &RaceLog) -> Vec<PathShape> {
    let mut paths = Vec::new();
    if let Some(s) = log.steps.iter().find(|s| !s.notes.tour.is_empty()) {
        let mut points = vec![PathPoint::from(map.start())];
        points.extend(
            s.notes
                .tour
                .iter()
                .filter_map(|&w| map.waypoints().get(w))
                .map(|&w| PathPoint::from(w)),
        );
        paths.push(PathShape { name: "planned tour".into(), points, looping: false });
    }
    let (mut current, mut legs) = (None, 0);
    for s in &log.steps {
        let Some(&last) = s.notes.path.last() else { continue };
        if current != Some(last) && s.notes.path.len() >= 2 {
            current = Some(last);
            legs += 1;
            paths.push(PathShape {
                name: format!("leg {legs}"),
                points: s.notes.path.iter().map(|&p| PathPoint::from(p)).collect(),
                looping: false,
            });
        }
    }
    paths
}

/// `score.json`: the score and the visit step of each waypoint; under time rules also the
/// budgets, the setup and slowest step times (ms) and the over-budget steps.
#[must_use]
pub fn score_json(map: &Map, log: &RaceLog, controller: &str) -> String {
    let s = log.score;
    let visits: Vec<String> =
        log.visited.iter().map(|v| v.map_or("null".into(), |s| s.to_string())).collect();
    let timing = log.timing.as_ref().map_or(String::new(), |t| {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let over: Vec<String> = t.over_budget.iter().map(u32::to_string).collect();
        format!(
            ",\n  \"time_rules\": {{\"step_budget_ms\": {:.3}, \"setup_budget_ms\": {:.3}, \
             \"strict\": {}, \"setup_ms\": {:.3}, \"setup_over_budget\": {}, \
             \"slowest_step_ms\": {:.3}, \"over_budget_steps\": [{}]}}",
            ms(t.rules.step),
            ms(t.rules.setup),
            t.rules.strict,
            ms(t.setup),
            t.setup_over_budget(),
            ms(t.slowest_step),
            over.join(", ")
        )
    });
    format!(
        "{{\n  \"format\": \"steerkit-ptsp-score\",\n  \"version\": 1,\n  \"map\": {},\n  \
         \"controller\": {},\n  \"outcome\": \"{}\",\n  \"steps\": {},\n  \"visited\": {},\n  \
         \"waypoints\": {},\n  \"collisions\": {},\n  \"visit_steps\": [{}]{}\n}}\n",
        serde_json::to_string(map.name()).unwrap_or_default(),
        serde_json::to_string(controller).unwrap_or_default(),
        s.outcome.name(),
        s.steps,
        s.visited,
        s.waypoints,
        s.collisions,
        visits.join(", "),
        timing
    )
}

/// Writes `score.json`, `trajectory.csv` (step, time, x, y, vx, vy, heading, action, collided),
/// `replay.html` and `snapshot.svg` to `dir` for a race of the controller named `controller`
/// ([`Racer::name`] for the built-in ones, any name for yours); returns the files.
///
/// # Errors
/// Any I/O error, with the path.
pub fn write(
    dir: &Path,
    map: &Map,
    log: &RaceLog,
    controller: &str,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let files =
        ["score.json", "trajectory.csv", "replay.html", "snapshot.svg"].map(|f| dir.join(f));
    let io = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    steerkit_files::write_atomic(&files[0], score_json(map, log, controller).as_bytes())
        .map_err(|e| io(&files[0], e))?;
    let mut csv = String::from("step,time,x,y,vx,vy,heading,action,collided\n");
    let mut row = |step: u32, k: &steerkit::kinematic::Kinematic, action: &str, hit: bool| {
        csv.push_str(&format!(
            "{step},{:.2},{:.3},{:.3},{:.3},{:.3},{:.4},{action},{}\n",
            step as f32 * STEP,
            k.position.x,
            k.position.y,
            k.velocity.x,
            k.velocity.y,
            k.orientation,
            u8::from(hit)
        ));
    };
    row(0, &log.start, "", false);
    for s in &log.steps {
        row(s.step, &s.state, s.action.name(), s.collided);
    }
    steerkit_files::write_atomic(&files[1], csv.as_bytes()).map_err(|e| io(&files[1], e))?;
    let rec = recording(map, log, controller);
    crate::replay::write_html(&rec, &files[2]).map_err(|e| io(&files[2], e))?;
    crate::snapshot::write_svg(&rec, &files[3]).map_err(|e| io(&files[3], e))?;
    Ok(files.to_vec())
}

/// Two races' `score.json` side by side (`steerkit ptsp --compare A B`): for each waypoint in
/// the order A visited it, the step each visited it at and B − A (negative: B was there
/// first), then the totals. `a` and `b` are `(name, text)` pairs; the names appear in errors.
///
/// # Errors
/// A text that is not a score (one line naming the file and the key), or scores of maps with
/// different waypoint counts.
pub fn compare(a: (&str, &str), b: (&str, &str)) -> Result<String, String> {
    let read = |(name, text): (&str, &str)| -> Result<(String, Vec<Option<u64>>, u64), String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{name}: not JSON: {e}"))?;
        if v["format"] != "steerkit-ptsp-score" {
            return Err(format!(
                "{name}: format = {}: allowed \"steerkit-ptsp-score\"",
                v["format"]
            ));
        }
        let visits = v["visit_steps"]
            .as_array()
            .ok_or_else(|| format!("{name}: visit_steps: allowed a list of steps or null"))?
            .iter()
            .map(serde_json::Value::as_u64)
            .collect();
        let steps =
            v["steps"].as_u64().ok_or_else(|| format!("{name}: steps: allowed a whole number"))?;
        let who = v["controller"].as_str().unwrap_or("?").to_string();
        Ok((who, visits, steps))
    };
    let (ca, va, sa) = read(a)?;
    let (cb, vb, sb) = read(b)?;
    if va.len() != vb.len() {
        return Err(format!(
            "{} has {} waypoints and {} has {}: compare races on the same map",
            a.0,
            va.len(),
            b.0,
            vb.len()
        ));
    }
    let mut order: Vec<usize> = (0..va.len()).collect();
    order.sort_by_key(|&w| (va[w].unwrap_or(u64::MAX), w));
    let step = |s: Option<u64>| s.map_or("-".to_string(), |s| s.to_string());
    let mut out = format!("waypoint  A: {ca:>12}  B: {cb:>12}  B - A\n");
    for w in order {
        let diff = match (va[w], vb[w]) {
            (Some(x), Some(y)) => format!("{:+}", y as i64 - x as i64),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{:>8}  {:>15}  {:>15}  {diff:>5}\n",
            w + 1,
            step(va[w]),
            step(vb[w])
        ));
    }
    out.push_str(&format!("{:>8}  {sa:>15}  {sb:>15}  {:>+5}\n", "steps", sb as i64 - sa as i64));
    Ok(out)
}
