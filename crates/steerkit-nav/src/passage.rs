//! The narrow places of a navigation mesh: doors and corridors where two streams cannot pass
//! each other, found once when the mesh is built.

use crate::mesh::NavMesh;
use steerkit::Vec2;

/// A narrow place of the mesh, straight from mouth `a` to mouth `b`: a door, a gap between two
/// obstacles, a corridor. Bodies cross it from `a` to `b` or from `b` to `a`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Passage {
    /// The middle of the first mouth (m), on the mesh.
    pub a: Vec2,
    /// The middle of the second mouth (m), on the mesh.
    pub b: Vec2,
    /// The mesh's width across its narrowest cross-section (m): the room body centres have,
    /// so the gap between the obstacles is `width + 2 × inflation`.
    pub width: f32,
}

impl Passage {
    /// Its length from mouth to mouth (m).
    #[must_use]
    pub fn length(&self) -> f32 {
        self.a.distance(self.b)
    }

    /// The unit direction from `a` to `b`.
    #[must_use]
    pub fn axis(&self) -> Vec2 {
        (self.b - self.a).normalize_or(Vec2::X)
    }

    /// `p` in the passage's frame: (distance along the axis from `a`, distance to its left) (m).
    #[must_use]
    pub fn local(&self, p: Vec2) -> Vec2 {
        let n = self.axis();
        let q = p - self.a;
        Vec2::new(q.dot(n), n.perp_dot(q))
    }
}

/// Step (m) of the walk along a passage's axis that finds its mouths.
const MARCH: f32 = 0.1;
/// The longest passage followed (m).
const LONGEST: f32 = 500.0;
/// Directions tried (each side of the span's, 2° apart) for the narrowest cross-section.
const TURNS: i32 = 30;
/// Far enough (m) for every width measured.
const FAR: f32 = 1.0e4;
/// Points (0.25 m apart) each way along a passage where its narrowest cross-section is sought.
const SEEK: i32 = 8;

impl NavMesh {
    /// The narrow places of the mesh for a gap between obstacles narrower than `max_gap` (m,
    /// obstacle to obstacle, so the mesh is narrower than `max_gap − 2 × inflation` there).
    ///
    /// The rule: a narrow place starts at a **span**, an edge shared by two polygons whose
    /// both ends lie on the mesh's boundary (the triangulation joins the two sides of a gap
    /// there), shorter than the limit. Its cross-section is the shortest chord through the
    /// span's middle within 60° of the span's direction; the passage runs along the normal of
    /// that chord, both ways, for as long as the chord parallel to it (from boundary to
    /// boundary) stays under the limit and on the mesh, measured every 0.1 m. Spans are taken
    /// shortest first; one whose middle lies in a passage already found belongs to it (the
    /// two ends of a corridor give one passage). A passage is straight: a corridor that bends
    /// gives the stretch up to its bend.
    ///
    /// Deterministic (spans in a fixed order, ties by position); a few hundred boundary scans
    /// per span, once per mesh.
    #[must_use]
    pub fn passages(&self, max_gap: f32) -> Vec<Passage> {
        let limit = max_gap - 2.0 * self.inflation();
        if limit.is_nan() || limit <= 0.0 {
            return Vec::new();
        }
        let mut spans: Vec<(f32, usize)> = self
            .spans
            .iter()
            .enumerate()
            .map(|(i, (a, b))| (a.distance(*b), i))
            .filter(|(l, _)| *l < limit)
            .collect();
        spans.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        let mut found: Vec<Passage> = Vec::new();
        for (_, i) in spans {
            let (a, b) = self.spans[i];
            let mid = (a + b) * 0.5;
            if found.iter().any(|p| holds(p, mid, 0.5)) {
                continue;
            }
            if let Some(p) = self.passage_from(mid, (b - a).normalize_or(Vec2::X), limit) {
                if !found.iter().any(|q| holds(q, (p.a + p.b) * 0.5, 0.5)) {
                    found.push(p);
                }
            }
        }
        found
    }

    /// The chord through `p` along the unit `d`: (its length, its middle) (m).
    fn chord(&self, p: Vec2, d: Vec2) -> (f32, Vec2) {
        let (f, g) = (self.free_distance(p, d, FAR), self.free_distance(p, -d, FAR));
        (f + g, p + d * ((f - g) * 0.5))
    }

    /// The narrowest chord through `p` within [`TURNS`] × 2° of the unit `u`: (its length, its
    /// middle, its direction).
    fn narrowest(&self, p: Vec2, u: Vec2, turns: i32) -> (f32, Vec2, Vec2) {
        let step = 2f32.to_radians();
        let mut best = (f32::INFINITY, p, u);
        for k in -turns..=turns {
            let d = Vec2::from_angle(step * k as f32).rotate(u);
            let (w, c) = self.chord(p, d);
            if w < best.0 {
                best = (w, c, d);
            }
        }
        best
    }

    /// The passage whose narrowest cross-section is near `mid`, the span's direction `u`.
    fn passage_from(&self, mid: Vec2, u: Vec2, limit: f32) -> Option<Passage> {
        if !self.contains(mid) {
            return None;
        }
        let first = self.narrowest(mid, u, TURNS);
        // a true gap opens both ways along the passage: a span on an obstacle's rounded
        // corner does not
        let open = |c: Vec2, d: Vec2| self.free_distance(c, d, 1.0) >= 0.1;
        let along = first.2.perp();
        if first.0 >= limit || !open(first.1, along) || !open(first.1, -along) {
            return None;
        }
        // the narrowest cross-section within 2 m along the passage
        let (mut width, mut centre, mut across) = first;
        for k in -SEEK..=SEEK {
            let p = first.1 + along * (k as f32 * 0.25);
            if k != 0 && self.contains(p) {
                let (w, c, d) = self.narrowest(p, first.2, TURNS / 3);
                if w < width - 1e-4 {
                    (width, centre, across) = (w, c, d);
                }
            }
        }
        let n = across.perp();
        if width >= limit || !self.contains(centre) || !open(centre, n) || !open(centre, -n) {
            return None;
        }
        let reach = |dir: Vec2| {
            let mut s = 0.0;
            while s < LONGEST {
                let x = centre + dir * (s + MARCH);
                if !self.contains(x) || self.chord(x, across).0 >= limit {
                    break;
                }
                s += MARCH;
            }
            s
        };
        let (back, ahead) = (reach(-n), reach(n));
        // each mouth on the middle of its own cross-section: the axis found 1° off would
        // leave a long corridor's far mouth by a wall, and bodies along that wall outside
        // its strip
        let mouth =
            |p: Vec2, inward: Vec2| self.chord(p + inward * MARCH.min(back + ahead), across).1;
        let (a, b) = (centre - n * back, centre + n * ahead);
        Some(Passage { a: mouth(a, n), b: mouth(b, -n), width })
    }
}

/// Whether `p` lies within `margin` (m) of the passage's strip (its length, its width).
fn holds(passage: &Passage, p: Vec2, margin: f32) -> bool {
    let l = passage.local(p);
    (-margin..=passage.length() + margin).contains(&l.x)
        && l.y.abs() <= passage.width * 0.5 + margin
}
