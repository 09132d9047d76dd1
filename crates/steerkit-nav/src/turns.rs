//! Turn-taking at passages: two streams meeting in a narrow place jam (each body's avoidance
//! waits for the other), so the walkers take turns, one direction at a time, as at a
//! single-lane bridge.

use crate::passage::Passage;
use steerkit::Vec2;

/// Route distance (m) from its mouth within which a walker bound through a passage queues:
/// it counts for its direction, and waits there while the other direction has the passage.
pub const QUEUE_RANGE: f32 = 15.0;
/// A walker this close (m) to its mouth when its direction's turn ends goes on in.
const COMMIT: f32 = 1.0;
/// The longest turn (s) of a direction while the other waits: this plus [`GREEN_PER_METRE`]
/// for each metre of the passage.
pub const GREEN_BASE: f32 = 15.0;
/// Seconds of turn per metre of passage (s/m).
pub const GREEN_PER_METRE: f32 = 1.0;
/// The longest wait (s) for the last walkers of a closed turn to leave the passage: this plus
/// 2 s per metre of passage (0.5 m/s), after which the other side goes anyway.
const CLEAR_BASE: f32 = 10.0;

/// What a walker bound through a passage the other way costs a route, in body diameters of
/// walking: it crosses in single file while this direction waits (one diameter), and the
/// turn it holds keeps the passage from running full (about one more).
pub const COUNTERFLOW: f32 = 2.0;

/// Where an agent's route meets a passage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Crossing {
    /// The passage (index in its mesh's list).
    pub passage: u32,
    /// 0: from mouth `a` to `b`; 1: from `b` to `a`.
    pub dir: u8,
    /// Route distance (m) to the mouth it enters by; 0 inside.
    pub dist: f32,
    /// Already inside the passage.
    pub inside: bool,
}

/// The first passage the route from `p` through `ahead` crosses within `look` (m) of route
/// distance, or the one `p` is inside. `margin` (m) widens each passage's strip on both sides
/// (a body pushed off the mesh's width is still in the gap).
pub(crate) fn crossing(
    passages: &[Passage],
    p: Vec2,
    ahead: &[Vec2],
    look: f32,
    margin: f32,
) -> Option<Crossing> {
    let mut best: Option<Crossing> = None;
    for (pi, g) in passages.iter().enumerate() {
        // too far to matter: skip without walking the route
        if p.distance((g.a + g.b) * 0.5) > look + g.length() * 0.5 + g.width * 0.5 + margin {
            continue;
        }
        let Some(c) = meets(g, pi as u32, p, ahead, look, margin) else { continue };
        if c.inside {
            return Some(c);
        }
        if best.is_none_or(|b| c.dist < b.dist) {
            best = Some(c);
        }
    }
    best
}

/// Where the route from `p` through `ahead` first meets passage `g` (index `pi`) within
/// `look` (m) of route distance: entering it by a mouth, or leaving it when `p` is inside.
pub(crate) fn meets(
    g: &Passage,
    pi: u32,
    p: Vec2,
    ahead: &[Vec2],
    look: f32,
    margin: f32,
) -> Option<Crossing> {
    let (len, half) = (g.length(), g.width * 0.5 + margin);
    let start = g.local(p);
    let inside = (0.0..=len).contains(&start.x) && start.y.abs() <= half;
    let (mut prev, mut walked) = (start, 0.0);
    let mut prev_world = p;
    for &q in ahead {
        let cur = g.local(q);
        let seg = prev_world.distance(q);
        let d = cur.x - prev.x;
        let cut = |s: f32| {
            let t = (s - prev.x) / d;
            (t, prev.y + (cur.y - prev.y) * t)
        };
        let mut hit: Option<(u8, f32)> = None;
        if d.abs() > 1e-9 {
            let ends: [(f32, u8); 2] = if inside {
                // leaving: by b going forward (a → b), by a going back
                [(len, 0), (0.0, 1)]
            } else {
                // entering: by a going forward, by b going back
                [(0.0, 0), (len, 1)]
            };
            for (s, dir) in ends {
                // a → b is forward along the axis
                let right_way = (d > 0.0) == (dir == 0);
                let (t, y) = cut(s);
                if right_way && (0.0..=1.0).contains(&t) && y.abs() <= half {
                    let at = walked + seg * t;
                    if hit.is_none_or(|(_, h)| at < h) {
                        hit = Some((dir, at));
                    }
                }
            }
        }
        if let Some((dir, at)) = hit {
            let dist = if inside { 0.0 } else { at };
            return (inside || at <= look).then_some(Crossing { passage: pi, dir, dist, inside });
        }
        walked += seg;
        if walked > look && !inside {
            return None;
        }
        (prev, prev_world) = (cur, q);
    }
    None
}

/// One passage's turn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Signal {
    /// The direction whose turn it is.
    green: Option<u8>,
    /// The turn is over: nobody else enters, the last ones leave.
    closing: bool,
    /// Seconds since the turn (or its closing) began.
    time: f32,
    /// This step's walkers queued for each direction (outside, within [`QUEUE_RANGE`]).
    queue: [u32; 2],
    /// This step's walkers inside, by direction.
    inside: [u32; 2],
}

/// The passages of one mesh and whose turn it is at each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Signals {
    pub passages: Vec<Passage>,
    signals: Vec<Signal>,
    /// This step's routes bound through each passage, by direction (from anywhere).
    demand: Vec<[u32; 2]>,
    /// The mesh's inflation (m): a body is in a passage up to this far beyond its width.
    pub margin: f32,
}

impl Signals {
    pub fn new(passages: Vec<Passage>, margin: f32) -> Self {
        let n = passages.len();
        Signals { signals: vec![Signal::default(); n], demand: vec![[0; 2]; n], passages, margin }
    }

    /// Forgets the last step's counts.
    pub fn clear_counts(&mut self) {
        for s in &mut self.signals {
            s.queue = [0; 2];
            s.inside = [0; 2];
        }
        self.demand.fill([0; 2]);
    }

    /// Every passage the route from `p` through `ahead` crosses, with how, when the mesh has
    /// more than one (with one there is no other way to choose). A passage whose strip lies
    /// outside the route's bounding box is skipped without walking the route.
    fn crossed<'a>(
        passages: &'a [Passage],
        margin: f32,
        p: Vec2,
        ahead: &'a [Vec2],
    ) -> impl Iterator<Item = Crossing> + 'a {
        let (lo, hi) = ahead.iter().fold((p, p), |(lo, hi), &q| (lo.min(q), hi.max(q)));
        let many = passages.len() >= 2;
        passages.iter().enumerate().filter(move |_| many).filter_map(move |(pi, g)| {
            let reach = Vec2::splat(g.length() * 0.5 + g.width * 0.5 + margin);
            let c = (g.a + g.b) * 0.5;
            let near = (c + reach).cmpge(lo).all() && (c - reach).cmple(hi).all();
            near.then(|| meets(g, pi as u32, p, ahead, f32::INFINITY, margin)).flatten()
        })
    }

    /// Counts the passages ahead on a walker's route from `p` through `ahead`.
    pub fn count_demand(&mut self, p: Vec2, ahead: &[Vec2]) {
        for c in Self::crossed(&self.passages, self.margin, p, ahead) {
            self.demand[c.passage as usize][c.dir as usize] += 1;
        }
    }

    /// The delay (m of walking) a route from `p` through `ahead` meets at passages, for a body
    /// of `radius` (m): for each passage it crosses, [`COUNTERFLOW`] body diameters for each
    /// walker bound through it the other way (last step's
    /// [`count_demand`](Self::count_demand)); and the passage of the largest share, if any.
    pub fn counterflow(&self, p: Vec2, ahead: &[Vec2], radius: f32) -> (f32, Option<u32>) {
        let per_walker = COUNTERFLOW * 2.0 * radius;
        let (mut total, mut worst) = (0.0, None::<(u32, f32)>);
        for c in Self::crossed(&self.passages, self.margin, p, ahead) {
            let delay = self.demand[c.passage as usize][1 - c.dir as usize] as f32 * per_walker;
            total += delay;
            if delay > 0.0 && worst.is_none_or(|(_, w)| delay > w) {
                worst = Some((c.passage, delay));
            }
        }
        (total, worst.map(|(pi, _)| pi))
    }

    /// Counts a walker.
    pub fn count(&mut self, c: &Crossing) {
        let s = &mut self.signals[c.passage as usize];
        if c.inside {
            s.inside[c.dir as usize] += 1;
        } else if c.dist <= QUEUE_RANGE {
            s.queue[c.dir as usize] += 1;
        }
    }

    /// Moves every passage's turn on by `dt` seconds from this step's counts: with no turn,
    /// the direction with the longer queue (a on a tie) gets it; a turn closes when its
    /// queue is empty or after `GREEN_BASE + GREEN_PER_METRE × length`, but only while the
    /// other direction waits; a closed turn passes to the other side once nobody of it is
    /// left inside (or after `CLEAR_BASE` + 2 s/m × length).
    pub fn switch(&mut self, dt: f32) {
        for (s, g) in self.signals.iter_mut().zip(&self.passages) {
            let len = g.length();
            s.time += dt;
            let Some(d) = s.green else {
                if s.queue[0] + s.queue[1] > 0 {
                    s.green = Some(u8::from(s.queue[1] > s.queue[0]));
                    s.time = 0.0;
                }
                continue;
            };
            let (d, o) = (d as usize, 1 - d as usize);
            if !s.closing {
                let long = s.time >= GREEN_BASE + GREEN_PER_METRE * len;
                if s.queue[o] > 0 && (s.queue[d] == 0 || long) {
                    s.closing = true;
                    s.time = 0.0;
                } else if s.queue == [0; 2] && s.inside[d] == 0 {
                    s.green = None;
                }
            }
            if s.closing && (s.inside[d] == 0 || s.time >= CLEAR_BASE + 2.0 * len) {
                s.green = Some(o as u8);
                s.closing = false;
                s.time = 0.0;
            }
        }
    }

    /// Whether a walker crossing as `c` may go on: it is inside, or its direction has the
    /// passage, or its direction's turn is closing and it is within a metre of its mouth.
    /// Everyone else within [`QUEUE_RANGE`] waits where it is (held back from the mouth).
    pub fn goes(&self, c: &Crossing) -> bool {
        let s = &self.signals[c.passage as usize];
        c.inside || (s.green == Some(c.dir) && (!s.closing || c.dist < COMMIT))
    }

    /// How far (m) from its mouth a waiting walker holds: twice the gap's width, at least
    /// 4 m, so that the other direction has room to come out before it meets the queue.
    fn hold_distance(&self, c: &Crossing) -> f32 {
        (2.0 * (self.passages[c.passage as usize].width + 2.0 * self.margin)).max(4.0)
    }

    /// Where a walker at `p` waiting to cross as `c` stands: where it is, moved back to the
    /// holding distance from its mouth and to its right of the passage's middle line (a
    /// quarter of the width beyond it), so that the other direction comes out and spreads by
    /// the other half.
    pub fn hold(&self, c: &Crossing, p: Vec2) -> Vec2 {
        let g = &self.passages[c.passage as usize];
        let (mouth, inward) = if c.dir == 0 { (g.a, g.axis()) } else { (g.b, -g.axis()) };
        let right = -inward.perp();
        let q = p - mouth;
        let (out, side) = (-q.dot(inward), q.dot(right));
        let hold = self.hold_distance(c);
        let out2 = out.max(hold);
        let side2 = side.max(g.width * 0.25 + self.margin);
        let at = mouth - inward * out2 + right * side2;
        if at.distance_squared(p) < 1e-6 {
            // a waypoint on the body reads as none: a millimetre outward
            p - inward * 1e-3
        } else {
            at
        }
    }
}
