//! Paths for path following (Millington §3.3.12, Green §18, Buckland §18.4).
//!
//! A [`Path`] maps positions to a **parameter** (arc length from the start, in metres) and
//! back. [`get_param`](Path::get_param) is *coherent*: it searches only a window of arc length
//! around the previous parameter, so a follower on one leg of a hairpin never jumps to the
//! other leg when the two pass close together (Millington Fig 3.19). [`Polyline`] is the usual
//! path of straight segments, open or looping, in 2D or 3D, with waypoint access for
//! waypoint ("grappling hook") followers and a [`WaypointCursor`] for Buckland's style.
//!
//! Parameters: an open path's parameter is clamped to `[0, length]`; a looping path's wraps
//! into `[0, length)`, and [`Path::param_difference`] gives the signed shortest difference
//! across the seam (for monotonic-target checks and lap counting).

use crate::error::{at_least_one, non_negative, ParamError};
use crate::geometry::closest_point_on_segment;
use crate::math::Vector;
use glam::{Vec2, Vec3};

/// A path that a follower can map positions onto (Millington's `Path`).
pub trait Path<V: Vector = Vec2> {
    /// Total arc length (m). 0 for a single point.
    fn length(&self) -> f32;

    /// True when the end joins back to the start.
    fn is_looping(&self) -> bool;

    /// The point at arc length `param` (m). Open paths clamp `param` into `[0, length]`
    /// (the book leaves the ends unspecified; clamping means a follower "chasing the rabbit"
    /// past the end seeks the end point instead of looping back); looping paths wrap it. A
    /// NaN `param` is treated as 0.
    fn get_position(&self, param: f32) -> V;

    /// The parameter of the path point nearest to `position`, searching only arc lengths within
    /// `window` of `last_param` (`None` searches the whole path; so does a NaN `last_param`,
    /// for a follower not yet placed on the path). Ties go to the candidate nearest
    /// `last_param` along the path.
    fn get_param_within(&self, position: V, last_param: f32, window: Option<f32>) -> f32;

    /// The coherence window [`get_param`](Path::get_param) uses (m): `None` is global.
    fn search_window(&self) -> Option<f32> {
        None
    }

    /// Millington's `getParam(position, lastParam)`: the nearest path parameter to `position`
    /// within [`search_window`](Path::search_window) of `last_param`.
    fn get_param(&self, position: V, last_param: f32) -> f32 {
        self.get_param_within(position, last_param, self.search_window())
    }

    /// `param` clamped into `[0, length]` (open) or wrapped into `[0, length)` (looping); NaN
    /// becomes 0.
    fn wrap_param(&self, param: f32) -> f32 {
        let len = self.length();
        if param.is_nan() || len.is_nan() || len <= 0.0 {
            return 0.0;
        }
        if self.is_looping() {
            let w = param.rem_euclid(len);
            // rem_euclid can round up to exactly `len`, and is NaN for an infinite param
            if w < len {
                w
            } else {
                0.0
            }
        } else {
            param.clamp(0.0, len)
        }
    }

    /// The signed arc length from `from` to `to`: `to − from` on an open path; on a looping path
    /// the shortest way round, in `[−length/2, length/2)`.
    fn param_difference(&self, from: f32, to: f32) -> f32 {
        let d = to - from;
        let len = self.length();
        if self.is_looping() && len > 0.0 && d.is_finite() {
            let half = 0.5 * len;
            let w = (d + half).rem_euclid(len) - half;
            if w < half {
                w
            } else {
                -half
            }
        } else if d.is_nan() {
            0.0
        } else {
            d
        }
    }
}

/// A path of straight segments through waypoints, parameterised by arc length, open or
/// looping, in 2D (`Polyline`) or 3D ([`Polyline3`]).
///
/// Segment `i` runs from waypoint `i` to waypoint `i + 1` (a looping path adds a closing
/// segment from the last waypoint back to the first). Zero-length segments (repeated
/// waypoints) are allowed and simply take no arc length; a single waypoint is a valid path of
/// length 0 whose every parameter maps to that point.
///
/// `get_param` costs O(log n + k) with a window (k segments overlap it) and O(n) without.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline<V: Vector = Vec2> {
    points: Vec<V>,
    /// `cumulative[i]` = arc length at the start of segment `i`; the last entry is the length.
    cumulative: Vec<f32>,
    looping: bool,
    window: Option<f32>,
}

/// A 3D polyline path.
pub type Polyline3 = Polyline<Vec3>;

impl<V: Vector> Polyline<V> {
    /// A validated path through `points`; `looping` closes it back to the first point. The
    /// coherence window starts as `None` (global search); see
    /// [`with_search_window`](Self::with_search_window).
    ///
    /// # Errors
    /// [`ParamError::Count`] (`"path points"`) for no points, [`ParamError::Invalid`]
    /// (`"path point"`) for a NaN or infinite coordinate, and [`ParamError::OutOfRange`]
    /// (`"path length"`) when the total length overflows f32.
    pub fn new(points: impl Into<Vec<V>>, looping: bool) -> Result<Self, ParamError> {
        let points: Vec<V> = points.into();
        at_least_one("path points", points.len(), "at least one point")?;
        if points.iter().any(|p| !p.is_finite()) {
            return Err(ParamError::Invalid { name: "path point", expected: "a finite point" });
        }
        let n = points.len();
        let segments = match (n, looping) {
            (1, _) => 0,
            (_, false) => n - 1,
            (_, true) => n,
        };
        let mut cumulative = Vec::with_capacity(segments + 1);
        let mut total = 0.0f64;
        cumulative.push(0.0);
        for i in 0..segments {
            let a = points[i];
            let b = points[(i + 1) % n];
            total += f64::from((b - a).length());
            cumulative.push(total as f32);
        }
        if !(total as f32).is_finite() {
            return Err(ParamError::OutOfRange {
                name: "path length",
                value: f32::INFINITY,
                range: "finite",
            });
        }
        Ok(Polyline { points, cumulative, looping, window: None })
    }

    /// An open path from the first point to the last.
    ///
    /// # Errors
    /// As [`Polyline::new`].
    pub fn open(points: impl Into<Vec<V>>) -> Result<Self, ParamError> {
        Self::new(points, false)
    }

    /// A closed path that returns from the last point to the first (patrols, race tracks).
    ///
    /// # Errors
    /// As [`Polyline::new`].
    pub fn looping(points: impl Into<Vec<V>>) -> Result<Self, ParamError> {
        Self::new(points, true)
    }

    /// The same path with a coherence window: `get_param` searches arc lengths within
    /// `window` metres either side of the last parameter. Make it comfortably larger than the
    /// distance a follower moves between calls, and smaller than the arc length between parts
    /// of the path that pass close to each other. `None` searches globally (lets a follower
    /// dragged away by another behaviour rejoin anywhere: deliberate corner cutting).
    ///
    /// # Errors
    /// [`ParamError`] when the window is negative or not finite.
    pub fn with_search_window(mut self, window: Option<f32>) -> Result<Self, ParamError> {
        self.window = match window {
            Some(w) => Some(non_negative("search_window", w)?),
            None => None,
        };
        Ok(self)
    }

    /// The waypoints.
    #[must_use]
    #[inline]
    pub fn points(&self) -> &[V] {
        &self.points
    }

    /// Number of segments: `n − 1` open, `n` looping, 0 for a single point.
    #[must_use]
    #[inline]
    pub fn segment_count(&self) -> usize {
        self.cumulative.len() - 1
    }

    /// Segment `i` as `(start, end)`, or `None` when `i ≥ segment_count()`.
    #[must_use]
    #[inline]
    pub fn segment(&self, i: usize) -> Option<(V, V)> {
        (i < self.segment_count())
            .then(|| (self.points[i], self.points[(i + 1) % self.points.len()]))
    }

    /// The arc length at waypoint `i` (`None` when out of range).
    #[must_use]
    #[inline]
    pub fn waypoint_param(&self, i: usize) -> Option<f32> {
        (i < self.points.len()).then(|| self.cumulative.get(i).copied().unwrap_or(0.0))
    }

    /// The segment that contains `param` (after clamping or wrapping): the last segment starting
    /// at or before it, so a parameter exactly on a waypoint belongs to the segment leaving it
    /// (the final segment at the very end of an open path). `None` for a single point.
    #[must_use]
    pub fn segment_index_at(&self, param: f32) -> Option<usize> {
        let segments = self.segment_count();
        if segments == 0 {
            return None;
        }
        let s = self.wrap_param(param);
        Some(self.cumulative[..segments].partition_point(|&c| c <= s).saturating_sub(1))
    }

    /// The first waypoint strictly ahead of `param`: the end of the segment containing it. On
    /// an open path, `None` once `param` reaches the end (the follower has arrived); on a
    /// looping path this wraps to waypoint 0 after the last. `None` for a single point.
    #[must_use]
    pub fn next_waypoint(&self, param: f32) -> Option<usize> {
        let i = self.segment_index_at(param)?;
        if !self.looping && self.wrap_param(param) >= self.length() {
            return None;
        }
        Some((i + 1) % self.points.len())
    }

    #[inline]
    fn point_on_segment(&self, i: usize, s: f32) -> V {
        let (a, b) = (self.points[i], self.points[(i + 1) % self.points.len()]);
        let len = self.cumulative[i + 1] - self.cumulative[i];
        if len > 0.0 {
            let t = ((s - self.cumulative[i]) / len).clamp(0.0, 1.0);
            if t >= 1.0 {
                b
            } else {
                a + (b - a) * t
            }
        } else {
            a
        }
    }

    /// Best candidate on the arc-length interval `[lo, hi]` (within `[0, length]`), compared
    /// with `best` = (distance², |param difference from last|, param).
    fn search_interval(
        &self,
        position: V,
        last: f32,
        lo: f32,
        hi: f32,
        best: &mut (f32, f32, f32),
    ) {
        let segments = self.segment_count();
        let first = self.cumulative[..segments].partition_point(|&c| c <= lo).saturating_sub(1);
        for i in first..segments {
            let (c0, c1) = (self.cumulative[i], self.cumulative[i + 1]);
            if c0 > hi {
                break;
            }
            let (s_lo, s_hi) = (lo.max(c0), hi.min(c1));
            if s_lo > s_hi {
                continue;
            }
            let (a, b) = (self.points[i], self.points[(i + 1) % self.points.len()]);
            let len = c1 - c0;
            let (point, param) = if len > 0.0 {
                let (_, t) = closest_point_on_segment(position, a, b);
                let t = t.clamp((s_lo - c0) / len, (s_hi - c0) / len);
                let param = (c0 + t * len).clamp(s_lo, s_hi);
                (if t >= 1.0 { b } else { a + (b - a) * t }, param)
            } else {
                (a, s_lo)
            };
            let d2 = (position - point).length_squared();
            let dp = self.param_difference(last, param).abs();
            let candidate = (d2, dp, param);
            if candidate.0 < best.0
                || (candidate.0 == best.0
                    && (candidate.1 < best.1 || (candidate.1 == best.1 && candidate.2 < best.2)))
            {
                *best = candidate;
            }
        }
    }
}

impl<V: Vector> Path<V> for Polyline<V> {
    #[inline]
    fn length(&self) -> f32 {
        self.cumulative[self.cumulative.len() - 1]
    }

    #[inline]
    fn is_looping(&self) -> bool {
        self.looping
    }

    #[inline]
    fn search_window(&self) -> Option<f32> {
        self.window
    }

    fn get_position(&self, param: f32) -> V {
        let segments = self.segment_count();
        if segments == 0 {
            return self.points[0];
        }
        let s = self.wrap_param(param);
        let i = self.cumulative[..segments].partition_point(|&c| c <= s).saturating_sub(1);
        self.point_on_segment(i, s)
    }

    fn get_param_within(&self, position: V, last_param: f32, window: Option<f32>) -> f32 {
        let len = self.length();
        if len.is_nan() || len <= 0.0 {
            return 0.0;
        }
        // a NaN last parameter means "not yet on the path": search all of it once
        let global = last_param.is_nan();
        let last = if global { 0.0 } else { self.wrap_param(last_param) };
        let mut best = (f32::INFINITY, f32::INFINITY, f32::INFINITY);
        let w = match window {
            Some(w) if !global && w >= 0.0 && (!self.looping || 2.0 * w < len) => w,
            _ => {
                self.search_interval(position, last, 0.0, len, &mut best);
                return self.finish(best);
            }
        };
        let (lo, hi) = (last - w, last + w);
        if !self.looping {
            self.search_interval(position, last, lo.max(0.0), hi.min(len), &mut best);
        } else if lo < 0.0 {
            self.search_interval(position, last, 0.0, hi, &mut best);
            self.search_interval(position, last, lo + len, len, &mut best);
        } else if hi > len {
            self.search_interval(position, last, lo, len, &mut best);
            self.search_interval(position, last, 0.0, hi - len, &mut best);
        } else {
            self.search_interval(position, last, lo, hi, &mut best);
        }
        self.finish(best)
    }
}

impl<V: Vector> Polyline<V> {
    #[inline]
    fn finish(&self, best: (f32, f32, f32)) -> f32 {
        // No candidate only when the distances overflowed (astronomical positions): stay put.
        if best.2.is_finite() {
            self.wrap_param(best.2)
        } else {
            0.0
        }
    }
}

/// Buckland's waypoint follower state: the index of the waypoint being sought.
///
/// Seek [`target`](Self::target); when close enough, [`advance`](Self::advance). On an open path
/// the cursor stops at the last waypoint ([`is_last`](Self::is_last): switch to Arrive there);
/// on a looping path it wraps round for ever.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WaypointCursor {
    current: usize,
}

impl WaypointCursor {
    /// A cursor on waypoint `index` (clamped to the path when used).
    #[must_use]
    #[inline]
    pub const fn at(index: usize) -> Self {
        WaypointCursor { current: index }
    }

    /// The current waypoint index, clamped to the path.
    #[must_use]
    #[inline]
    pub fn index<V: Vector>(&self, path: &Polyline<V>) -> usize {
        self.current.min(path.points().len() - 1)
    }

    /// The waypoint to seek.
    #[must_use]
    #[inline]
    pub fn target<V: Vector>(&self, path: &Polyline<V>) -> V {
        path.points()[self.index(path)]
    }

    /// True on the last waypoint of an open path (or for a single point): the follower should
    /// arrive rather than seek. Never true on a looping path of two or more points.
    #[must_use]
    #[inline]
    pub fn is_last<V: Vector>(&self, path: &Polyline<V>) -> bool {
        let n = path.points().len();
        self.index(path) + 1 >= n && !(path.is_looping() && n > 1)
    }

    /// Moves to the next waypoint (wrapping on a looping path). Returns false, without moving,
    /// when already on the last waypoint of an open path.
    pub fn advance<V: Vector>(&mut self, path: &Polyline<V>) -> bool {
        if self.is_last(path) {
            self.current = self.index(path);
            return false;
        }
        self.current = (self.index(path) + 1) % path.points().len();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::tests::any_finite;
    use proptest::prelude::*;

    const EPS: f32 = 1e-5;

    /// Two 10 m legs 1 m apart joined by a 1 m bend: (0,0)→(10,0)→(10,1)→(0,1).
    fn hairpin() -> Polyline {
        Polyline::open(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(10.0, 1.0),
            Vec2::new(0.0, 1.0),
        ])
        .unwrap()
    }

    #[test]
    fn coherent_get_param_stays_on_its_leg_of_a_hairpin() {
        let coherent = hairpin().with_search_window(Some(2.0)).unwrap();
        let global = hairpin();
        assert_eq!(coherent.length(), 21.0);
        // The follower walks the first leg in 1.5 m steps (more than the 1 m between the legs),
        // pushed 0.6 m toward the other leg, so the other leg is always nearer (0.4 m).
        let mut param = 0.0;
        for k in 1..=6 {
            let x = 1.5 * k as f32;
            let p = Vec2::new(x, 0.6);
            param = coherent.get_param(p, param);
            assert!((param - x).abs() < EPS, "step {k}: coherent param {param}, expected {x}");
            let jumped = global.get_param(p, param);
            assert!((jumped - (21.0 - x)).abs() < EPS, "step {k}: global param {jumped}");
        }
        // the same through the explicit-window call
        assert!(
            (hairpin().get_param_within(Vec2::new(4.5, 0.6), 3.0, Some(2.0)) - 4.5).abs() < EPS
        );
        assert!((hairpin().get_param_within(Vec2::new(4.5, 0.6), 3.0, None) - 16.5).abs() < EPS);
    }

    #[test]
    fn positions_clamp_on_open_paths_and_wrap_on_loops() {
        let h = hairpin();
        assert_eq!(h.get_position(0.0), Vec2::ZERO);
        assert_eq!(h.get_position(10.5), Vec2::new(10.0, 0.5));
        assert_eq!(h.get_position(16.0), Vec2::new(5.0, 1.0));
        assert_eq!(h.get_position(-3.0), Vec2::ZERO);
        assert_eq!(h.get_position(99.0), Vec2::new(0.0, 1.0));
        assert_eq!(h.get_position(f32::NAN), Vec2::ZERO);
        let sq = Polyline::looping(vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(4.0, 0.0),
            Vec2::new(4.0, 4.0),
            Vec2::new(0.0, 4.0),
        ])
        .unwrap()
        .with_search_window(Some(2.0))
        .unwrap();
        assert_eq!(sq.length(), 16.0);
        assert_eq!(sq.segment_count(), 4);
        assert_eq!(sq.get_position(17.0), Vec2::new(1.0, 0.0));
        assert_eq!(sq.get_position(-1.0), Vec2::new(0.0, 1.0));
        assert_eq!(sq.get_position(16.0), Vec2::ZERO);
        assert_eq!(sq.get_position(14.0), Vec2::new(0.0, 2.0)); // on the closing segment
                                                                // a window straddling the seam finds the point just past the start
        let p = sq.get_param(Vec2::new(0.5, -0.1), 15.5);
        assert!((p - 0.5).abs() < EPS, "{p}");
        assert!((sq.param_difference(15.5, p) - 1.0).abs() < EPS);
        assert!((sq.param_difference(0.5, 15.5) + 1.0).abs() < EPS);
        // and the other way round
        let p = sq.get_param(Vec2::new(-0.1, 0.5), 0.5);
        assert!((p - 15.5).abs() < EPS, "{p}");
        assert_eq!(sq.wrap_param(-0.0), 0.0);
        assert_eq!(sq.wrap_param(32.0), 0.0);
        assert_eq!(sq.wrap_param(f32::INFINITY), 0.0);
        assert_eq!(h.param_difference(2.0, 5.0), 3.0);
    }

    #[test]
    fn waypoint_access() {
        let h = hairpin();
        assert_eq!(h.segment_index_at(0.0), Some(0));
        assert_eq!(h.segment_index_at(9.99), Some(0));
        assert_eq!(h.segment_index_at(10.0), Some(1)); // on a waypoint: the segment leaving it
        assert_eq!(h.segment_index_at(21.0), Some(2));
        assert_eq!(h.next_waypoint(5.0), Some(1));
        assert_eq!(h.next_waypoint(10.0), Some(2));
        assert_eq!(h.next_waypoint(20.9), Some(3));
        assert_eq!(h.next_waypoint(21.0), None); // arrived
        assert_eq!(h.waypoint_param(2), Some(11.0));
        assert_eq!(h.waypoint_param(4), None);
        assert_eq!(h.segment(1), Some((Vec2::new(10.0, 0.0), Vec2::new(10.0, 1.0))));
        assert_eq!(h.segment(3), None);
        let lp = Polyline::looping(h.points().to_vec()).unwrap();
        assert_eq!(lp.length(), 22.0); // plus the 1 m closing segment (0,1)→(0,0)
        assert_eq!(lp.next_waypoint(21.5), Some(0)); // the closing segment leads back to the start
        assert_eq!(lp.segment(3), Some((Vec2::new(0.0, 1.0), Vec2::ZERO)));
        // Buckland's cursor
        let mut c = WaypointCursor::default();
        let mut visited = vec![c.index(&h)];
        while c.advance(&h) {
            visited.push(c.index(&h));
        }
        assert_eq!(visited, vec![0, 1, 2, 3]);
        assert!(c.is_last(&h));
        assert_eq!(c.target(&h), Vec2::new(0.0, 1.0));
        let mut l = WaypointCursor::at(3);
        assert!(l.advance(&lp) && l.index(&lp) == 0 && !l.is_last(&lp));
    }

    #[test]
    fn single_point_and_zero_length_segments_are_defined() {
        let one = Polyline::open(vec![Vec2::new(2.0, 3.0)]).unwrap();
        assert_eq!(one.length(), 0.0);
        assert_eq!(one.get_position(5.0), Vec2::new(2.0, 3.0));
        assert_eq!(one.get_param(Vec2::new(9.0, 9.0), 4.0), 0.0);
        assert_eq!(one.segment_count(), 0);
        assert_eq!(one.next_waypoint(0.0), None);
        assert!(WaypointCursor::default().is_last(&one));
        let one_loop = Polyline::looping(vec![Vec2::ONE]).unwrap();
        assert_eq!((one_loop.length(), one_loop.get_position(3.0)), (0.0, Vec2::ONE));
        assert!(!WaypointCursor::default().advance(&one_loop));
        // repeated points take no arc length
        let z =
            Polyline::open(vec![Vec2::ZERO, Vec2::ZERO, Vec2::new(5.0, 0.0), Vec2::new(5.0, 0.0)])
                .unwrap()
                .with_search_window(Some(1.0))
                .unwrap();
        assert_eq!(z.length(), 5.0);
        assert_eq!(z.get_position(2.5), Vec2::new(2.5, 0.0));
        assert_eq!(z.get_position(5.0), Vec2::new(5.0, 0.0));
        assert!((z.get_param_within(Vec2::new(3.0, 1.0), 0.0, None) - 3.0).abs() < EPS);
        assert!((z.get_param(Vec2::new(3.0, 1.0), 0.0) - 1.0).abs() < EPS); // window-limited
                                                                            // all points coincident
        let c = Polyline::looping(vec![Vec2::ONE; 4]).unwrap();
        assert_eq!(
            (c.length(), c.get_param(Vec2::ZERO, 1.0), c.get_position(2.0)),
            (0.0, 0.0, Vec2::ONE)
        );
        // errors
        assert!(matches!(
            Polyline::<Vec2>::open(vec![]),
            Err(ParamError::Count { name: "path points", .. })
        ));
        assert!(matches!(
            Polyline::open(vec![Vec2::ZERO, Vec2::new(f32::NAN, 1.0)]),
            Err(ParamError::Invalid { name: "path point", .. })
        ));
        assert!(matches!(
            Polyline::open(vec![Vec2::splat(-3e38), Vec2::splat(3e38)]),
            Err(ParamError::OutOfRange { name: "path length", .. })
        ));
        assert!(hairpin().with_search_window(Some(-1.0)).is_err());
        assert!(hairpin().with_search_window(Some(f32::INFINITY)).is_err());
    }

    #[test]
    fn three_d_polyline() {
        let p =
            Polyline3::open(vec![Vec3::ZERO, Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 3.0, 4.0)])
                .unwrap();
        assert_eq!(p.length(), 7.0);
        assert_eq!(p.get_position(5.0), Vec3::new(0.0, 3.0, 2.0));
        assert!((p.get_param(Vec3::new(1.0, 3.0, 2.5), 0.0) - 5.5).abs() < EPS);
    }

    fn monotone_path() -> impl Strategy<Value = Vec<Vec2>> {
        prop::collection::vec((0.5f32..5.0, -5.0f32..5.0), 1..12).prop_map(|steps| {
            let mut x = 0.0;
            steps
                .into_iter()
                .map(|(dx, y)| {
                    x += dx;
                    Vec2::new(x, y)
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn param_is_monotonic_along_a_walk(points in monotone_path(), step in 0.05f32..1.0) {
            let path = Polyline::open(points).unwrap().with_search_window(Some(2.0 * step + 0.5)).unwrap();
            let mut last = 0.0;
            let mut s = 0.0;
            while s <= path.length() {
                // a follower walking the path (off the path, near a corner, the nearest point
                // can legitimately move back a little: that is geometry, not incoherence)
                let param = path.get_param(path.get_position(s), last);
                prop_assert!(param >= last - 1e-4, "went back from {} to {} at s = {}", last, param, s);
                prop_assert!((param - s).abs() < 1e-3, "{} vs {}", param, s);
                last = param;
                s += step;
            }
            // and walking exactly on the path gives back the walked distance
            for k in 0..20 {
                let s = path.length() * k as f32 / 19.0;
                let got = path.get_param_within(path.get_position(s), s, Some(0.01));
                prop_assert!((got - s).abs() < 1e-3, "{} vs {}", got, s);
            }
        }

        #[test]
        fn no_nan_on_any_finite_input(
            pts in prop::collection::vec((-3i32..3, -3i32..3).prop_map(|(x, y)| Vec2::new(x as f32, y as f32)), 1..8),
            looping: bool,
            window in proptest::option::of(0.0f32..10.0),
            px in any_finite(), py in any_finite(), last in any_finite(), param in any_finite(),
        ) {
            let path = Polyline::new(pts, looping).unwrap().with_search_window(window).unwrap();
            let p = Vec2::new(px, py);
            let g = path.get_param(p, last);
            prop_assert!(g.is_finite() && g >= 0.0 && g <= path.length(), "{}", g);
            if looping && path.length() > 0.0 {
                prop_assert!(g < path.length());
            }
            prop_assert!(!path.get_position(param).is_nan());
            prop_assert!(path.param_difference(last, param).is_finite());
            let _ = (path.segment_index_at(param), path.next_waypoint(param));
            // the global answer is a closest point: no waypoint is nearer
            let q = Vec2::new(px.clamp(-100.0, 100.0), py.clamp(-100.0, 100.0));
            let best = path.get_position(path.get_param_within(q, 0.0, None));
            let d = (best - q).length();
            for w in path.points() {
                prop_assert!(d <= (*w - q).length() + 1e-4);
            }
        }
    }
}
