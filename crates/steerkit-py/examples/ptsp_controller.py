"""A PTSP controller written in Python, raced and scored as `steerkit ptsp` scores it.

    python crates/steerkit-py/examples/ptsp_controller.py [MAP] [OUT_DIR]

Two controllers. `Greedy` turns toward the nearest unvisited waypoint and lets the library
choose, of the six actions, the one that best turns the ship's velocity toward it
(`best_action`); it has no map planning, so walls stop it on the maze. `Follower` plans: in
`setup` it orders the waypoints nearest first by A* path length (`PtspMap.path`), and each step
it steers for a point a little way along the A* path to its next waypoint, slowing where the
path bends. Start from either and improve it.
"""

import math
import sys

import steerkit


class Greedy:
    """Heads for the nearest unvisited waypoint at top speed."""

    def act(self, obs: steerkit.PtspObservation) -> int:
        x, y = obs.position
        todo = [w for w, seen in zip(obs.waypoints, obs.visited) if seen is None]
        if not todo:
            return steerkit.PTSP_ACTIONS.index("coast")
        wx, wy = min(todo, key=lambda w: math.hypot(w[0] - x, w[1] - y))
        d = math.hypot(wx - x, wy - y) or 1.0
        desired = ((wx - x) / d * obs.top_speed, (wy - y) / d * obs.top_speed)
        return obs.best_action(desired)


def path_length(path) -> float:
    return sum(math.dist(a, b) for a, b in zip(path, path[1:]))


class Follower:
    """Nearest-first tour by path length, then follows the A* path toward a point ahead."""

    LOOKAHEAD = 8  # path points ahead (2 px apart): the point steered for
    CRUISE = 90.0  # px/s on straight stretches
    REPLAN = 8  # steps between fresh A* paths (the ship drifts off the old one)

    def setup(self, m: steerkit.PtspMap) -> None:
        self.map = m
        here, left, self.order = m.start, set(range(len(m.waypoints))), []
        while left:
            w = min(left, key=lambda k: path_length(m.path(here, k)))
            self.order.append(w)
            left.discard(w)
            here = tuple(m.waypoints[w])
        self.path, self.planned = None, -self.REPLAN

    def act(self, obs: steerkit.PtspObservation) -> int:
        todo = [w for w in self.order if obs.visited[w] is None]
        if not todo:
            return steerkit.PTSP_ACTIONS.index("coast")
        if self.path is None or obs.step - self.planned >= self.REPLAN or len(self.path) < 2:
            self.path, self.planned = self.map.path(obs.position, todo[0]), obs.step
        ahead = self.path[min(self.LOOKAHEAD, len(self.path) - 1)]
        x, y = obs.position
        d = math.hypot(ahead[0] - x, ahead[1] - y) or 1.0
        # slow down where the path turns: the bend between the aim and the point beyond it
        beyond = self.path[min(2 * self.LOOKAHEAD, len(self.path) - 1)]
        bend = math.hypot(beyond[0] - ahead[0], beyond[1] - ahead[1]) / (2 * self.LOOKAHEAD)
        speed = self.CRUISE * max(0.35, min(1.0, bend))
        return obs.best_action(((ahead[0] - x) / d * speed, (ahead[1] - y) / d * speed))


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "open"
    out = sys.argv[2] if len(sys.argv) > 2 else f"out/python/ptsp-{name}"
    for controller in (Greedy(), Follower()):
        label = type(controller).__name__
        score = steerkit.race(name, controller, out=f"{out}/{label}")
        print(
            f"{name}, {label}: {score['visited']} of {score['waypoints']} waypoints in "
            f"{score['steps']} steps ({score['time']:.2f} s, {score['outcome']}), "
            f"{score['collisions']} collisions"
        )
    reference = steerkit.race(name, "reference")
    print(f"the reference controller: {reference['steps']} steps ({reference['outcome']})")
    print(f"replay: {score['files'][2]}")


if __name__ == "__main__":
    main()
