//! The reference controller finishes random solvable maps: mazes of corridors, spirals, rooms
//! with narrow doors. A map is solvable when the planner accepts it (the ship fits at the start
//! and can come within its visit radius of every waypoint); the generators make such maps by
//! construction, and the test checks that most of them are accepted. 500 maps, about 3 s in a
//! debug build.

use std::sync::atomic::{AtomicUsize, Ordering};
use steerkit_ptsp::{race, Map, Planner, RaceLimits, Reference, ReferenceSettings, Ship};

/// A small deterministic generator (SplitMix64): the map follows from the test's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A whole number in `lo..=hi` (`lo` when `hi < lo`).
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi.saturating_sub(lo) + 1) as u64) as usize
    }
}

/// A map drawn pixel by pixel (scale 1): everything wall until carved.
struct Canvas {
    w: usize,
    h: usize,
    free: Vec<bool>,
    /// Carved rectangles `(x0, y0, x1, y1)` (px, rows from the top), where waypoints may go.
    rooms: Vec<(usize, usize, usize, usize)>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Canvas {
        Canvas { w, h, free: vec![false; w * h], rooms: Vec::new() }
    }

    /// Frees `x0..x1 × y0..y1` (rows from the top).
    fn carve(&mut self, x0: usize, y0: usize, x1: usize, y1: usize) {
        for y in y0..y1.min(self.h - 1) {
            for x in x0..x1.min(self.w - 1) {
                self.free[y * self.w + x] = true;
            }
        }
    }

    fn room(&mut self, x0: usize, y0: usize, x1: usize, y1: usize) {
        self.carve(x0, y0, x1, y1);
        self.rooms.push((x0, y0, x1, y1));
    }

    /// The map text with the start in the first room and up to `n` waypoints (at least one) in
    /// random rooms, each up to 6 px inside its room.
    fn text(&self, rng: &mut Rng, n: usize) -> String {
        let mut chars: Vec<u8> = self.free.iter().map(|&f| if f { b'.' } else { b'#' }).collect();
        let inside = |rng: &mut Rng, (x0, y0, x1, y1): (usize, usize, usize, usize)| {
            let m = 6.min((x1 - x0) / 2).min((y1 - y0) / 2);
            (rng.range(x0 + m, x1 - m - 1), rng.range(y0 + m, y1 - m - 1))
        };
        let (sx, sy) = inside(rng, self.rooms[0]);
        chars[sy * self.w + sx] = b'S';
        let mut placed = 0;
        // small rooms have few free spots: give up after a bounded number of tries
        for _ in 0..100 * n {
            if placed == n {
                break;
            }
            let room = self.rooms[rng.range(0, self.rooms.len() - 1)];
            let (x, y) = inside(rng, room);
            if chars[y * self.w + x] == b'.' {
                chars[y * self.w + x] = b'W';
                placed += 1;
            }
        }
        chars.chunks(self.w).map(|r| String::from_utf8_lossy(r).into_owned() + "\n").collect()
    }
}

/// A maze of corridors `c` px wide between walls `t` px thick (depth-first, every cell reached).
fn corridors(rng: &mut Rng) -> Canvas {
    let (c, t) = (rng.range(10, 18), rng.range(1, 6));
    let (nx, ny) = (rng.range(3, 6), rng.range(2, 5));
    let pitch = c + t;
    let mut canvas = Canvas::new(nx * pitch + t, ny * pitch + t);
    let cell = |i: usize, j: usize| (t + i * pitch, t + j * pitch);
    let mut seen = vec![false; nx * ny];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    let (x, y) = cell(0, 0);
    canvas.room(x, y, x + c, y + c);
    while let Some(&(i, j)) = stack.last() {
        let mut next = Vec::new();
        for (di, dj) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (a, b) = (i as i64 + di, j as i64 + dj);
            if a >= 0
                && b >= 0
                && (a as usize) < nx
                && (b as usize) < ny
                && !seen[b as usize * nx + a as usize]
            {
                next.push((a as usize, b as usize));
            }
        }
        if next.is_empty() {
            stack.pop();
            continue;
        }
        let (a, b) = next[rng.range(0, next.len() - 1)];
        seen[b * nx + a] = true;
        let ((x0, y0), (x1, y1)) = (cell(i.min(a), j.min(b)), cell(i.max(a), j.max(b)));
        canvas.carve(x0, y0, x1 + c, y1 + c);
        canvas.room(x1, y1, x1 + c, y1 + c);
        stack.push((a, b));
    }
    canvas
}

/// A square spiral corridor `c` px wide with walls `t` px thick, winding inward from the top
/// left: legs of `L, L, L, L − p, L − p, L − 2p, L − 2p, …` px (`p` the pitch `c + t`).
fn spiral(rng: &mut Rng) -> Canvas {
    let (c, t) = (rng.range(10, 16), rng.range(1, 4));
    let rings = rng.range(2, 3);
    let pitch = c + t;
    let side = 2 * rings * pitch + t + c;
    let mut canvas = Canvas::new(side, side);
    let full = side - 2 * t - c;
    let mut lengths = vec![full, full, full];
    let mut k = 1;
    while full > k * pitch + pitch {
        lengths.extend([full - k * pitch, full - k * pitch]);
        k += 1;
    }
    let (mut x, mut y) = (t, t);
    canvas.room(x, y, x + c, y + c);
    for (dir, len) in lengths.into_iter().enumerate() {
        let (nx, ny) = match dir % 4 {
            0 => (x + len, y),
            1 => (x, y + len),
            2 => (x - len, y),
            _ => (x, y - len),
        };
        canvas.room(x.min(nx), y.min(ny), x.max(nx) + c, y.max(ny) + c);
        (x, y) = (nx, ny);
    }
    canvas
}

/// Rooms on a grid joined by doors `d` px wide (a spanning tree, plus an extra door or two).
fn rooms(rng: &mut Rng) -> Canvas {
    let (nx, ny) = (rng.range(2, 4), rng.range(2, 3));
    let (size, t) = (rng.range(26, 44), rng.range(2, 6));
    let pitch = size + t;
    let mut canvas = Canvas::new(nx * pitch + t, ny * pitch + t);
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = (t + i * pitch, t + j * pitch);
            canvas.room(x, y, x + size, y + size);
        }
    }
    // doors: every room to its right and lower neighbour on a random spanning tree (by a
    // random walk that joins unjoined rooms), plus a random extra one
    let mut joined = vec![false; nx * ny];
    joined[0] = true;
    let mut doors = Vec::new();
    while joined.iter().any(|j| !j) {
        let a = rng.range(0, nx * ny - 1);
        let (i, j) = (a % nx, a / nx);
        let b = match rng.range(0, 3) {
            0 if i + 1 < nx => a + 1,
            1 if j + 1 < ny => a + nx,
            2 if i > 0 => a - 1,
            3 if j > 0 => a - nx,
            _ => continue,
        };
        if joined[a] != joined[b] {
            joined[a] = true;
            joined[b] = true;
            doors.push((a.min(b), a.max(b)));
        }
    }
    doors.push((0, 1));
    for (a, b) in doors {
        let d = rng.range(10, 14);
        let (i, j) = (a % nx, a / nx);
        let (x, y) = (t + i * pitch, t + j * pitch);
        let at = rng.range(2, size - d - 2);
        if b == a + 1 {
            canvas.carve(x + size, y + at, x + pitch, y + at + d);
        } else {
            canvas.carve(x + at, y + size, x + at + d, y + pitch);
        }
    }
    canvas
}

static ACCEPTED: AtomicUsize = AtomicUsize::new(0);
static REFUSED: AtomicUsize = AtomicUsize::new(0);

fn generate(kind: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let canvas = match kind {
        0 => corridors(&mut rng),
        1 => spiral(&mut rng),
        _ => rooms(&mut rng),
    };
    let n = rng.range(2, 7);
    canvas.text(&mut rng, n)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 500,
        failure_persistence: None,
        // the seed names the map: shrinking it only finds other maps
        max_shrink_iters: 0,
        // the same maps on every run
        rng_seed: proptest::test_runner::RngSeed::Fixed(47),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Every generated map the planner accepts is finished by the reference controller (run
    /// by `random_solvable_maps_are_finished`, which checks it is not vacuous).
    fn the_reference_finishes_random_solvable_maps(kind in 0usize..3, seed in proptest::prelude::any::<u64>()) {
        let text = generate(kind, seed);
        let map = Map::parse(&text, "random").unwrap();
        let ship = Ship::default();
        if Planner::new(&map, &ship).is_err() {
            REFUSED.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        ACCEPTED.fetch_add(1, Ordering::Relaxed);
        let mut reference = Reference::new(&map, &ship, ReferenceSettings::default()).unwrap();
        let t = std::time::Instant::now();
        let log = race(&map, &ship, &mut reference, RaceLimits::default());
        if std::env::var_os("PTSP_TRACE").is_some() {
            eprintln!("kind {kind} seed {seed}: {:?} {:.2} s", log.score, t.elapsed().as_secs_f32());
        }
        proptest::prop_assert!(log.score.finished(), "kind {kind} seed {seed}: {:?}\n{text}", log.score);
    }
}

/// The property above, and that it is not vacuous: nearly every generated map is accepted.
#[test]
fn random_solvable_maps_are_finished() {
    let t = std::time::Instant::now();
    the_reference_finishes_random_solvable_maps();
    let (ok, refused) = (ACCEPTED.load(Ordering::Relaxed), REFUSED.load(Ordering::Relaxed));
    eprintln!(
        "{ok} maps finished, {refused} refused by the planner, {:.1} s",
        t.elapsed().as_secs_f32()
    );
    // doors and corridors of 10 px are refused about one time in seven (the grid's cells do
    // not line up with them); 11 px and wider always pass
    assert!(ok >= 350, "only {ok} of 500 random maps were accepted");
}

/// The generators make what the property above assumes: every map parses, has one start with
/// room for the ship, 2 to 7 waypoints (fewer only when a small room had no free spot), a wall
/// all round, and the same text for the same seed.
#[test]
fn generated_maps_are_well_formed_and_follow_their_seed() {
    let ship = Ship::default();
    for kind in 0..3 {
        for seed in 0..40u64 {
            let text = generate(kind, seed);
            assert_eq!(text, generate(kind, seed), "kind {kind} seed {seed}");
            let map = Map::parse(&text, "random").unwrap();
            let n = map.waypoints().len();
            assert!((1..=7).contains(&n), "kind {kind} seed {seed}: {n} waypoints");
            assert!(!map.disc_hits_wall(map.start(), ship.radius), "kind {kind} seed {seed}");
            let rows: Vec<&str> = text.lines().collect();
            let border = rows[0].bytes().chain(rows[rows.len() - 1].bytes());
            assert!(
                border
                    .chain(
                        rows.iter().flat_map(|r| [r.as_bytes()[0], *r.as_bytes().last().unwrap()])
                    )
                    .all(|c| c == b'#'),
                "kind {kind} seed {seed}: no wall all round"
            );
        }
    }
}

/// Maps other proptest seeds drew that the reference once failed: two where the ship shot
/// through a 10 px door the navigation grid's 1 px margin closes and had no path back (it
/// pressed into a wall for the rest of the race), one where it shuttled past a narrow door it
/// could not turn into at speed.
#[test]
fn maps_once_failed_are_finished() {
    let ship = Ship::default();
    for (kind, seed) in [
        (2, 3_465_982_224_675_729_732),
        (2, 17_975_669_077_555_046_125),
        (2, 8_985_411_421_362_222_710),
    ] {
        let map = Map::parse(&generate(kind, seed), "random").unwrap();
        let mut reference = Reference::new(&map, &ship, ReferenceSettings::default()).unwrap();
        let score = race(&map, &ship, &mut reference, RaceLimits::default()).score;
        assert!(score.finished(), "kind {kind} seed {seed}: {score:?}");
    }
}
