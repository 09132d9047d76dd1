//! PTSP maps: a wall bitmap with a start and waypoints, read from a plain text file.
//!
//! # Format
//!
//! ```text
//! ; a comment (whole line)
//! scale 4          optional, before the grid: each character is a 4 × 4 px square (1 to 16)
//! ##########
//! #S...#..W#       '#' wall, '.' or ' ' free, 'S' the start (exactly one),
//! #....#...#       'W' a waypoint (1 to 64 of them); every row as long as the first
//! #..W.....#
//! ##########
//! ```
//! Units are map pixels (px), x to the right and y **up**: the file's top row is the top of the
//! map as drawn. The area outside the map counts as wall. The start and the waypoints sit at the
//! centres of their squares.

use steerkit::Vec2;

/// Largest map side (px), after scaling.
pub const MAX_SIDE: usize = 4096;
/// Most waypoints a map may hold.
pub const MAX_WAYPOINTS: usize = 64;
/// Largest map file read (bytes): 24 MiB, room for the largest grid ([`MAX_SIDE`] rows of
/// [`MAX_SIDE`] characters at scale 1, 16 MiB) and its comments.
pub const MAX_FILE_SIZE: u64 = 24 * 1024 * 1024;

/// What is wrong with a map file: one line naming the place, the value and what is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapError {
    /// The file could not be read.
    #[error("{name}: cannot read the map: {reason}")]
    Unreadable {
        /// The file.
        name: String,
        /// The I/O error.
        reason: String,
    },
    /// A structural problem at a line (1-based) of the file.
    #[error("{name}:{line}: {reason}")]
    At {
        /// The file.
        name: String,
        /// Line number (1-based).
        line: usize,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// A problem with the map as a whole.
    #[error("{name}: {reason}")]
    Map {
        /// The file.
        name: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
}

/// A PTSP map: the wall bitmap (px), the start and the waypoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    name: String,
    width: usize,
    height: usize,
    /// Row-major from the bottom row (`y = 0`) up.
    wall: Vec<bool>,
    start: Vec2,
    waypoints: Vec<Vec2>,
}

impl Map {
    /// Reads a map file: a regular file (a FIFO, device or directory is refused before it is
    /// opened) of at most [`MAX_FILE_SIZE`] bytes (a larger one is refused before a byte is
    /// read), UTF-8 text.
    ///
    /// # Errors
    /// An unreadable, irregular, too large or non-UTF-8 file, or any [`Map::parse`] error.
    pub fn load(path: &std::path::Path) -> Result<Map, MapError> {
        let name = path.display().to_string();
        let unreadable = |reason: String| MapError::Unreadable { name: name.clone(), reason };
        let bytes = steerkit_files::read_limited(path, MAX_FILE_SIZE)
            .map_err(|e| unreadable(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            unreadable(format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
        })?;
        Map::parse(&text, &name)
    }

    /// Parses a map in the [format above](self); `name` is used in errors and shown in replays.
    ///
    /// # Errors
    /// An unknown character, a row of another length, a bad `scale`, no or several starts, no
    /// waypoint or more than [`MAX_WAYPOINTS`], or a map wider or taller than [`MAX_SIDE`] px.
    pub fn parse(text: &str, name: &str) -> Result<Map, MapError> {
        let at = |line: usize, reason: String| MapError::At { name: name.into(), line, reason };
        let mut scale = 1usize;
        let mut rows: Vec<(usize, &[u8])> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            if line.starts_with(';') || (rows.is_empty() && line.trim().is_empty()) {
                continue;
            }
            if let Some(value) = line.strip_prefix("scale") {
                if !rows.is_empty() {
                    return Err(at(i + 1, "`scale` must come before the grid".into()));
                }
                scale = match value.trim().parse::<usize>() {
                    Ok(s @ 1..=16) => s,
                    _ => {
                        return Err(at(
                            i + 1,
                            format!(
                                "scale = {:?}: allowed a whole number from 1 to 16",
                                value.trim()
                            ),
                        ))
                    }
                };
                continue;
            }
            rows.push((i + 1, line.as_bytes()));
        }
        while rows.last().is_some_and(|(_, r)| r.iter().all(|c| *c == b' ')) {
            rows.pop();
        }
        let Some(&(_, first)) = rows.first() else {
            return Err(MapError::Map { name: name.into(), reason: "no grid rows".into() });
        };
        let cols = first.len();
        let (width, height) = (cols * scale, rows.len() * scale);
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::Map {
                name: name.into(),
                reason: format!(
                    "the map is {width} × {height} px; allowed at most {MAX_SIDE} px a side"
                ),
            });
        }
        let mut wall = vec![false; width * height];
        let mut start = None;
        let mut waypoints = Vec::new();
        for (r, &(line, row)) in rows.iter().enumerate() {
            if row.len() != cols {
                return Err(at(
                    line,
                    format!("the row has {} characters; every row must have {cols}", row.len()),
                ));
            }
            for (c, &ch) in row.iter().enumerate() {
                let centre = Vec2::new(
                    (c as f32 + 0.5) * scale as f32,
                    ((rows.len() - 1 - r) as f32 + 0.5) * scale as f32,
                );
                match ch {
                    b'#' => {
                        for dy in 0..scale {
                            let y = (rows.len() - 1 - r) * scale + dy;
                            let x0 = c * scale;
                            wall[y * width + x0..y * width + x0 + scale].fill(true);
                        }
                    }
                    b'.' | b' ' => {}
                    b'S' if start.is_some() => {
                        return Err(at(line, "a second start 'S': a map has exactly one".into()))
                    }
                    b'S' => start = Some(centre),
                    b'W' => waypoints.push(centre),
                    other => {
                        return Err(at(
                            line,
                            format!(
                                "character {:?} in column {}: allowed '#', '.', ' ', 'S', 'W'",
                                char::from(other),
                                c + 1
                            ),
                        ))
                    }
                }
            }
        }
        let map_error = |reason: String| MapError::Map { name: name.into(), reason };
        let start = start.ok_or_else(|| map_error("no start 'S': a map has exactly one".into()))?;
        if waypoints.is_empty() || waypoints.len() > MAX_WAYPOINTS {
            return Err(map_error(format!(
                "{} waypoints 'W': allowed 1 to {MAX_WAYPOINTS}",
                waypoints.len()
            )));
        }
        Ok(Map { name: name.into(), width, height, wall, start, waypoints })
    }

    /// The name given when loading.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Width (px).
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height (px).
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// The ship's start (px).
    #[must_use]
    pub fn start(&self) -> Vec2 {
        self.start
    }

    /// The waypoints (px), in file order (left to right, top to bottom).
    #[must_use]
    pub fn waypoints(&self) -> &[Vec2] {
        &self.waypoints
    }

    /// True when pixel `(x, y)` is a wall; pixels outside the map are.
    #[must_use]
    pub fn is_wall(&self, x: i64, y: i64) -> bool {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return true;
        }
        self.wall[y as usize * self.width + x as usize]
    }

    /// True when the pixel containing `p` is a wall (NaN counts as wall).
    #[must_use]
    pub fn wall_at(&self, p: Vec2) -> bool {
        if !p.is_finite() {
            return true;
        }
        self.is_wall(p.x.floor() as i64, p.y.floor() as i64)
    }

    /// True when a disc of `radius` px at `centre` overlaps a wall pixel (a pixel `(x, y)` is the
    /// square `[x, x+1) × [y, y+1)`).
    #[must_use]
    pub fn disc_hits_wall(&self, centre: Vec2, radius: f32) -> bool {
        if !centre.is_finite() {
            return true;
        }
        let (x0, x1) = ((centre.x - radius).floor() as i64, (centre.x + radius).floor() as i64);
        let (y0, y1) = ((centre.y - radius).floor() as i64, (centre.y + radius).floor() as i64);
        let r2 = radius * radius;
        for y in y0..=y1 {
            for x in x0..=x1 {
                if self.is_wall(x, y) {
                    let nearest = centre.clamp(
                        Vec2::new(x as f32, y as f32),
                        Vec2::new(x as f32 + 1.0, y as f32 + 1.0),
                    );
                    if nearest.distance_squared(centre) < r2 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Distance (px) from `from` along the direction `dir` to the first wall pixel, or `max`
    /// if there is none within `max` px (pixels outside the map are wall): the lectures'
    /// "ray" for collision detection. 0 when `from` is in a wall; `max` (at most 8192 px) for a
    /// zero or non-finite direction. Exact: the pixels the ray crosses are walked one by one.
    #[must_use]
    pub fn ray(&self, from: Vec2, dir: Vec2, max: f32) -> f32 {
        let max = if max.is_finite() { max.clamp(0.0, 8192.0) } else { 0.0 };
        let dir = dir.normalize_or_zero();
        if !from.is_finite() || self.wall_at(from) {
            return 0.0;
        }
        if dir == Vec2::ZERO {
            return max;
        }
        // Amanatides & Woo: the distance along the ray to the next vertical and horizontal
        // pixel edge, and how far apart those edges are along it
        let (mut x, mut y) = (from.x.floor() as i64, from.y.floor() as i64);
        let step = |d: f32| if d > 0.0 { 1i64 } else { -1 };
        let (sx, sy) = (step(dir.x), step(dir.y));
        let first = |p: f32, cell: i64, d: f32| {
            if d > 0.0 {
                (cell as f32 + 1.0 - p) / d
            } else if d < 0.0 {
                (p - cell as f32) / -d
            } else {
                f32::INFINITY
            }
        };
        let (mut tx, mut ty) = (first(from.x, x, dir.x), first(from.y, y, dir.y));
        let (dx, dy) = (1.0 / dir.x.abs(), 1.0 / dir.y.abs());
        loop {
            let t = tx.min(ty);
            if t >= max {
                return max;
            }
            if tx < ty {
                x += sx;
                tx += dx;
            } else {
                y += sy;
                ty += dy;
            }
            if self.is_wall(x, y) {
                return t;
            }
        }
    }

    /// Distance (px) from `p` to the nearest wall pixel (the square `[x, x+1) × [y, y+1)`),
    /// or `max` if none is nearer (pixels outside the map are wall). The ship's disc of radius
    /// `r` at `p` touches a wall exactly when this is below `r` (see [`Map::disc_hits_wall`]).
    /// Looks at the `(2·max + 3)²` pixels around `p`, so keep `max` small (≤ 64 px); 0 for a
    /// point that is not finite.
    #[must_use]
    pub fn clearance_at(&self, p: Vec2, max: f32) -> f32 {
        let max = if max.is_finite() { max.clamp(0.0, 64.0) } else { 0.0 };
        if !p.is_finite() {
            return 0.0;
        }
        let (cx, cy) = (p.x.floor() as i64, p.y.floor() as i64);
        let r = max.ceil() as i64 + 1;
        let mut best = max;
        for y in cy - r..=cy + r {
            for x in cx - r..=cx + r {
                if self.is_wall(x, y) {
                    let nearest = p.clamp(
                        Vec2::new(x as f32, y as f32),
                        Vec2::new(x as f32 + 1.0, y as f32 + 1.0),
                    );
                    best = best.min(nearest.distance(p));
                }
            }
        }
        best
    }

    /// The walls as rectangles `(min, max)` (px): runs of wall pixels along each row, merged
    /// with identical runs in the rows above (for drawing; every wall pixel is in one).
    #[must_use]
    pub fn wall_rects(&self) -> Vec<(Vec2, Vec2)> {
        // open rectangles: (x0, x1, y0) keyed by their run, extended while the next row repeats it
        let mut done = Vec::new();
        let mut open: Vec<(usize, usize, usize)> = Vec::new();
        for y in 0..=self.height {
            let mut runs = Vec::new();
            if y < self.height {
                let mut x = 0;
                while x < self.width {
                    if self.wall[y * self.width + x] {
                        let x0 = x;
                        while x < self.width && self.wall[y * self.width + x] {
                            x += 1;
                        }
                        runs.push((x0, x));
                    } else {
                        x += 1;
                    }
                }
            }
            let mut next = Vec::new();
            for &(x0, x1, y0) in &open {
                if runs.contains(&(x0, x1)) {
                    next.push((x0, x1, y0));
                } else {
                    done.push((Vec2::new(x0 as f32, y0 as f32), Vec2::new(x1 as f32, y as f32)));
                }
            }
            for &(x0, x1) in &runs {
                if !next.iter().any(|&(a, b, _)| (a, b) == (x0, x1)) {
                    next.push((x0, x1, y));
                }
            }
            open = next;
        }
        done
    }

    /// Distance (px) from each pixel centre to the nearest wall pixel's centre, row-major from
    /// the bottom row: the two-pass chamfer transform with weights 1 and √2 (within 8 % of the
    /// Euclidean distance), with the map's border counted as wall.
    #[must_use]
    pub fn clearance(&self) -> Vec<f32> {
        let (w, h) = (self.width, self.height);
        let mut d = vec![f32::INFINITY; w * h];
        for y in 0..h {
            for x in 0..w {
                if self.wall[y * w + x] {
                    d[y * w + x] = 0.0;
                } else {
                    // the outside is wall: one pixel beyond the border
                    let edge = (x + 1).min(y + 1).min(w - x).min(h - y);
                    d[y * w + x] = edge as f32;
                }
            }
        }
        let s2 = core::f32::consts::SQRT_2;
        let at = |d: &Vec<f32>, x: i64, y: i64| {
            if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                f32::INFINITY
            } else {
                d[y as usize * w + x as usize]
            }
        };
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let v = d[y as usize * w + x as usize]
                    .min(at(&d, x - 1, y) + 1.0)
                    .min(at(&d, x, y - 1) + 1.0)
                    .min(at(&d, x - 1, y - 1) + s2)
                    .min(at(&d, x + 1, y - 1) + s2);
                d[y as usize * w + x as usize] = v;
            }
        }
        for y in (0..h as i64).rev() {
            for x in (0..w as i64).rev() {
                let v = d[y as usize * w + x as usize]
                    .min(at(&d, x + 1, y) + 1.0)
                    .min(at(&d, x, y + 1) + 1.0)
                    .min(at(&d, x + 1, y + 1) + s2)
                    .min(at(&d, x - 1, y + 1) + s2);
                d[y as usize * w + x as usize] = v;
            }
        }
        d
    }
}

/// The maps shipped with the crate, easiest first: `(name, text)`.
pub const BUILTIN: &[(&str, &str)] = &[
    ("open", include_str!("../maps/open.txt")),
    ("rooms", include_str!("../maps/rooms.txt")),
    ("maze", include_str!("../maps/maze.txt")),
    ("spiral", include_str!("../maps/spiral.txt")),
    ("doors", include_str!("../maps/doors.txt")),
];

/// A shipped map by name.
#[must_use]
pub fn builtin(name: &str) -> Option<Map> {
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| Map::parse(text, n).expect("a shipped map parses"))
}
