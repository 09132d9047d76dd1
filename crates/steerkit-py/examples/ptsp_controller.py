"""A PTSP controller written in Python, raced and scored as `steerkit ptsp` scores it.

    python crates/steerkit-py/examples/ptsp_controller.py [MAP] [OUT_DIR]

The controller turns toward the nearest unvisited waypoint and lets the library choose, of the
six actions, the one that best turns the ship's velocity toward it (`best_action`). It has no
map planning, so walls stop it on the maze: try `open` first, then improve it.
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


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "open"
    out = sys.argv[2] if len(sys.argv) > 2 else f"out/python/ptsp-{name}"
    score = steerkit.race(name, Greedy(), out=out)
    print(
        f"{name}: {score['visited']} of {score['waypoints']} waypoints in {score['steps']} steps "
        f"({score['time']:.2f} s, {score['outcome']}), {score['collisions']} collisions"
    )
    reference = steerkit.race(name, "reference")
    print(f"the reference controller: {reference['steps']} steps ({reference['outcome']})")
    print(f"replay: {score['files'][2]}")


if __name__ == "__main__":
    main()
