//! Planning on a PTSP map: a navigation grid for steerkit's A*, clearance queries for probes and
//! line of sight, reachability, and tours (the order of the waypoints).

use crate::{Map, MapError, Ship};
use steerkit::pipeline::{AStar, Graph};
use steerkit::Vec2;

/// Navigation cell edge (px).
const CELL: f32 = 2.0;
/// Path cost per px at a clearance of `c` px is `1 + WALL_COST / c`: paths keep off walls.
const WALL_COST: f32 = 6.0;

/// The navigation grid: one node per 2 × 2 px cell, 8-connected, blocked where the ship's disc
/// would touch a wall (with a 1 px margin), costs growing near walls.
#[derive(Clone, Debug)]
pub struct NavGrid {
    w: usize,
    h: usize,
    /// Clearance (px) at each cell's centre.
    clear: Vec<f32>,
    free_from: f32,
}

impl NavGrid {
    fn free(&self, x: usize, y: usize) -> bool {
        self.clear[y * self.w + x] >= self.free_from
    }
}

impl Graph<Vec2> for NavGrid {
    fn node_count(&self) -> usize {
        self.w * self.h
    }

    fn node_at(&self, p: Vec2) -> Option<usize> {
        let q = p / CELL;
        if !(q.x >= 0.0 && q.y >= 0.0) {
            return None;
        }
        let (x, y) = (q.x as usize, q.y as usize);
        (x < self.w && y < self.h).then_some(y * self.w + x)
    }

    fn position(&self, node: usize) -> Vec2 {
        (Vec2::new((node % self.w) as f32, (node / self.w) as f32) + 0.5) * CELL
    }

    fn for_each_edge(&self, node: usize, mut f: impl FnMut(usize, f32)) {
        let (x, y) = ((node % self.w) as i64, (node / self.w) as i64);
        let ok = |dx: i64, dy: i64| {
            let (nx, ny) = (x + dx, y + dy);
            nx >= 0
                && ny >= 0
                && (nx as usize) < self.w
                && (ny as usize) < self.h
                && self.free(nx as usize, ny as usize)
        };
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if (dx, dy) == (0, 0)
                    || !ok(dx, dy)
                    || (dx != 0 && dy != 0 && !(ok(dx, 0) && ok(0, dy)))
                {
                    continue;
                }
                let next = (y + dy) as usize * self.w + (x + dx) as usize;
                let length =
                    if dx != 0 && dy != 0 { CELL * core::f32::consts::SQRT_2 } else { CELL };
                f(next, length * (1.0 + WALL_COST / self.clear[next].max(0.5)));
            }
        }
    }
}

/// The planner of a map for a ship: navigation grid, A*, clearance and each waypoint's goal cell.
#[derive(Clone, Debug)]
pub struct Planner {
    grid: NavGrid,
    astar: AStar,
    /// Clearance (px) at each pixel centre (the map's chamfer distance).
    pixel_clear: Vec<f32>,
    width: usize,
    height: usize,
    radius: f32,
    goals: Vec<usize>,
}

impl Planner {
    /// Builds the planner and checks that the ship can reach every waypoint from the start.
    ///
    /// # Errors
    /// A start where the ship does not fit, or a waypoint the ship cannot come within its visit
    /// radius of, named with its number (1-based, in file order) and position.
    pub fn new(map: &Map, ship: &Ship) -> Result<Planner, MapError> {
        let (width, height) = (map.width(), map.height());
        let pixel_clear = map.clearance();
        let (w, h) =
            ((width as f32 / CELL).ceil() as usize, (height as f32 / CELL).ceil() as usize);
        let mut clear = vec![0.0; w * h];
        for y in 0..h {
            for x in 0..w {
                // the smallest pixel clearance in the cell, less the half pixel to its edge
                let mut c = f32::INFINITY;
                for py in (y * 2)..((y * 2 + 2).min(height)) {
                    for px in (x * 2)..((x * 2 + 2).min(width)) {
                        c = c.min(pixel_clear[py * width + px]);
                    }
                }
                clear[y * w + x] = c - 0.5;
            }
        }
        let grid = NavGrid { w, h, clear, free_from: ship.radius + 1.0 };
        let map_error = |reason: String| MapError::Map { name: map.name().into(), reason };
        let start = nearest_free(&grid, map.start(), ship.radius)
            .filter(|_| !map.disc_hits_wall(map.start(), ship.radius))
            .ok_or_else(|| {
                map_error(format!(
                    "the start at ({:.0}, {:.0}) px has no room for the ship (radius {} px)",
                    map.start().x,
                    map.start().y,
                    ship.radius
                ))
            })?;
        let reach = flood(&grid, start);
        let mut goals = Vec::new();
        for (i, &p) in map.waypoints().iter().enumerate() {
            let goal = nearest_free(&grid, p, ship.visit_radius)
                .filter(|&g| reach[g])
                .ok_or_else(|| {
                    map_error(format!(
                        "waypoint {} at ({:.0}, {:.0}) px cannot be reached from the start by the ship (radius {} px, visits within {} px)",
                        i + 1,
                        p.x,
                        p.y,
                        ship.radius,
                        ship.visit_radius
                    ))
                })?;
            goals.push(goal);
        }
        Ok(Planner {
            grid,
            astar: AStar::new(),
            pixel_clear,
            width,
            height,
            radius: ship.radius,
            goals,
        })
    }

    /// Clearance at `p` (px to the nearest wall pixel, 0 in a wall or outside the map).
    #[must_use]
    pub fn clearance(&self, p: Vec2) -> f32 {
        if !(p.x >= 0.0 && p.y >= 0.0) {
            return 0.0;
        }
        let (x, y) = (p.x as usize, p.y as usize);
        if x >= self.width || y >= self.height {
            return 0.0;
        }
        (self.pixel_clear[y * self.width + x] - 0.5).max(0.0)
    }

    /// True when the ship's disc fits all along the straight line `a`–`b` (sampled every px,
    /// with a margin of `margin` px).
    #[must_use]
    pub fn line_of_sight(&self, a: Vec2, b: Vec2, margin: f32) -> bool {
        let n = (a.distance(b).ceil() as usize).max(1);
        (0..=n).all(|i| self.clearance(a.lerp(b, i as f32 / n as f32)) >= self.radius + margin)
    }

    /// A least-cost path (px) from `from` to waypoint `goal` (0-based): it starts at `from` and
    /// ends at the centre of the waypoint's goal cell, the free 2 × 2 px cell nearest the
    /// waypoint (so up to about 1.4 px from the waypoint's centre, or farther where the
    /// waypoint sits close to a wall; always within the ship's visit radius). When the ship is
    /// closer to a wall than the grid allows (its own cell is blocked), the path's first point
    /// after `from` is the nearest free cell within 8 px: following it steps away from the
    /// wall. When the ship has gone where the grid's 1 px margin leaves no way back (through
    /// a door narrower than its diameter plus the margin, say, at speed), the search is made
    /// again with no margin, on every cell where the ship's disc fits. `None` when there is no
    /// way there even then.
    pub fn path_to(&mut self, from: Vec2, goal: usize) -> Option<Vec<Vec2>> {
        let margin = self.grid.free_from;
        self.search(from, goal).or_else(|| {
            self.grid.free_from = self.radius;
            let tight = self.search(from, goal);
            self.grid.free_from = margin;
            tight
        })
    }

    /// [`Planner::path_to`] on the grid as its margin stands.
    fn search(&mut self, from: Vec2, goal: usize) -> Option<Vec<Vec2>> {
        let own = self.grid.node_at(from);
        let free = own.filter(|&n| self.grid.free(n % self.grid.w, n / self.grid.w));
        let start = free.or_else(|| nearest_free(&self.grid, from, 8.0)).or(own)?;
        let nodes = self.astar.find(&self.grid, start, *self.goals.get(goal)?)?;
        let mut out: Vec<Vec2> = Vec::with_capacity(nodes.len() + 1);
        out.push(from);
        // the ship's own cell is where it is already; a cell it escapes to is the first target
        let skip = usize::from(Some(start) == own);
        out.extend(nodes.iter().skip(skip).map(|&n| self.grid.position(n)));
        Some(out)
    }

    /// The [`Leg`] between every two of the start (index 0) and the waypoints (index `i + 1`):
    /// `legs[a][b]` from A* on the navigation grid (zero for `a == b` and for `b == 0`, the
    /// start, which no tour returns to).
    #[must_use]
    pub fn legs(&mut self, map: &Map) -> Vec<Vec<Leg>> {
        let n = map.waypoints().len() + 1;
        let point = |i: usize| if i == 0 { map.start() } else { map.waypoints()[i - 1] };
        let mut legs = Vec::with_capacity(n);
        for a in 0..n {
            let mut row = Vec::with_capacity(n);
            for b in 0..n {
                let path = if b == 0 || a == b {
                    Vec::new()
                } else {
                    self.path_to(point(a), b - 1).unwrap_or_default()
                };
                row.push(Leg::of(&path));
            }
            legs.push(row);
        }
        legs
    }
}

/// One leg of a tour: the A* path between two points of the map, summarised for planning.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Leg {
    /// Path length (px).
    pub length: f32,
    /// Unit direction in which the path leaves its first point (over its first 20 px).
    pub leave: Vec2,
    /// Unit direction in which the path reaches its last point (over its last 20 px).
    pub arrive: Vec2,
}

impl Leg {
    /// The leg of a path (all zero for a path of fewer than two points).
    #[must_use]
    pub fn of(path: &[Vec2]) -> Leg {
        if path.len() < 2 {
            return Leg::default();
        }
        let length: f32 = path.windows(2).map(|s| s[0].distance(s[1])).sum();
        let leave = towards(path[0], path.iter().copied());
        let arrive = -towards(path[path.len() - 1], path.iter().rev().copied());
        Leg { length, leave, arrive }
    }
}

/// The unit direction from `origin` to the first of `points` at least 20 px away (or the last).
fn towards(origin: Vec2, points: impl Iterator<Item = Vec2>) -> Vec2 {
    let mut end = origin;
    for p in points {
        end = p;
        if p.distance(origin) >= 20.0 {
            break;
        }
    }
    (end - origin).normalize_or_zero()
}

/// The free cell nearest `p` within `radius` px (ties: the lowest index), if any.
fn nearest_free(grid: &NavGrid, p: Vec2, radius: f32) -> Option<usize> {
    let r = (radius / CELL).ceil() as i64 + 1;
    let (cx, cy) = ((p.x / CELL).floor() as i64, (p.y / CELL).floor() as i64);
    let mut best: Option<(f32, usize)> = None;
    for y in (cy - r)..=(cy + r) {
        for x in (cx - r)..=(cx + r) {
            if x < 0 || y < 0 || x as usize >= grid.w || y as usize >= grid.h {
                continue;
            }
            let node = y as usize * grid.w + x as usize;
            let d = grid.position(node).distance(p);
            if grid.free(x as usize, y as usize)
                && d <= radius
                && best.is_none_or(|(bd, bn)| d < bd || (d == bd && node < bn))
            {
                best = Some((d, node));
            }
        }
    }
    best.map(|(_, n)| n)
}

/// Which cells the ship can reach from `start` (the grid's edges).
fn flood(grid: &NavGrid, start: usize) -> Vec<bool> {
    let mut seen = vec![false; grid.node_count()];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(n) = stack.pop() {
        grid.for_each_edge(n, |m, _| {
            if !seen[m] {
                seen[m] = true;
                stack.push(m);
            }
        });
    }
    seen
}

/// How a tour (the order of the waypoints) is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TourMethod {
    /// Always the nearest unvisited waypoint by path length.
    NearestFirst,
    /// Nearest first, then 2-opt on path length plus the turns the ship must make.
    TwoOpt,
    /// A random order from this seed (a baseline).
    Random(u64),
}

/// The tour's cost: path lengths plus `turn_cost` px per radian of turning at each waypoint (the
/// angle between the direction the ship arrives in and the direction it leaves in): a ship
/// with inertia pays for reversing.
#[must_use]
pub fn tour_cost(legs: &[Vec<Leg>], order: &[usize], turn_cost: f32) -> f32 {
    let mut cost = 0.0;
    let mut at = 0;
    let mut arrive: Option<Vec2> = None;
    for &w in order {
        let leg = legs[at][w + 1];
        if let Some(a) = arrive {
            cost += turn_cost * a.angle_to(leg.leave).abs();
        }
        cost += leg.length;
        arrive = Some(leg.arrive);
        at = w + 1;
    }
    cost
}

/// The order of the waypoints (0-based) by `method` over `legs` (from [`Planner::legs`]);
/// `turn_cost` (px per radian, see [`tour_cost`]) is used by [`TourMethod::TwoOpt`] only.
#[must_use]
pub fn tour(legs: &[Vec<Leg>], method: TourMethod, turn_cost: f32) -> Vec<usize> {
    let n = legs.len() - 1;
    if let TourMethod::Random(seed) = method {
        let mut rng = steerkit::math::Rng::new(seed);
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (rng.next_u32() as usize) % (i + 1);
            order.swap(i, j);
        }
        return order;
    }
    let mut order = Vec::with_capacity(n);
    let mut left: Vec<usize> = (0..n).collect();
    let mut at = 0;
    while !left.is_empty() {
        let (k, _) = left
            .iter()
            .enumerate()
            .min_by(|a, b| legs[at][a.1 + 1].length.total_cmp(&legs[at][b.1 + 1].length))
            .expect("not empty");
        let w = left.remove(k);
        order.push(w);
        at = w + 1;
    }
    if method == TourMethod::TwoOpt {
        // 2-opt on the open tour (reverse order[i..=j]), then moving single waypoints (or-opt),
        // until neither improves
        let mut best = tour_cost(legs, &order, turn_cost);
        let mut improved = true;
        while improved {
            improved = false;
            for i in 0..n {
                for j in i + 1..n {
                    order[i..=j].reverse();
                    let c = tour_cost(legs, &order, turn_cost);
                    if c + 1e-3 < best {
                        best = c;
                        improved = true;
                    } else {
                        order[i..=j].reverse();
                    }
                }
            }
            for i in 0..n {
                for j in 0..n {
                    if i == j {
                        continue;
                    }
                    let w = order.remove(i);
                    order.insert(j, w);
                    let c = tour_cost(legs, &order, turn_cost);
                    if c + 1e-3 < best {
                        best = c;
                        improved = true;
                    } else {
                        let w = order.remove(j);
                        order.insert(i, w);
                    }
                }
            }
        }
    }
    order
}
