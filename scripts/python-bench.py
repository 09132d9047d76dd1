"""Stepping the 100 000-boid flock from Python against the same loop in Rust, side by side.

    python scripts/python-bench.py [--agents N] [--steps S] [--rounds R] [--threads T]

The flock is the gallery's `flocking` scenario scaled up: N boids spread over a wrap-around
world with about ten neighbours within the scenario's 5 m neighbour radius (the 100k flock of
`steerkit bench` has about ten within its 1 m). Each
round times S steps of `Simulation.step()` called once per step from Python, and S steps of the
same simulation stepped by `bench_steps` in Rust with no Python in the loop, alternating which
goes first; it prints the medians, their ratio and the time to read the positions after a step
(median of 200 reads). Last, the cost of one `step()` call itself: the 32 walkers of `crossing`
stepped 5 000 times both ways, whose difference per step no load on the machine hides. And the
cost of racing a PTSP controller written in Python: a controller whose `act` only returns
"coast" raced on the maze (1 000 steps to its time-out), the whole race timed, per step and per
full maze game (the reference needs 1 059 steps): a bound on the overhead. Needs
the package installed (`pip install ./crates/steerkit-py`).
"""

import argparse
import math
import pathlib
import statistics
import time

import steerkit

ROOT = pathlib.Path(__file__).resolve().parents[1]


def flock(agents: int) -> steerkit.Scenario:
    """The gallery's flocking scenario with `agents` boids, the metrics plan left out."""
    text = (ROOT / "scenarios" / "flocking.toml").read_text().split("[metrics]")[0]
    # about ten neighbours within the 5 m neighbour radius
    half = math.sqrt(agents * math.pi * 25.0 / 10.0) / 2.0
    text = text.replace("count = 60", f"count = {agents}")
    text = text.replace("[-20.0, -20.0]", f"[{-half:.1f}, {-half:.1f}]").replace("[20.0, 20.0]", f"[{half:.1f}, {half:.1f}]")
    text = text.replace("radius = 8.0", f"radius = {half * 0.99:.1f}")
    return steerkit.Scenario.from_text(text, origin=f"flocking x{agents}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    sc = flock(a.agents)
    rust, python = [], []
    for r in range(a.rounds):
        order = ["rust", "python"] if r % 2 == 0 else ["python", "rust"]
        for which in order:
            if which == "rust":
                rust.append(steerkit.bench_steps(sc, a.steps, threads=a.threads))
            else:
                sim = steerkit.Simulation(sc, threads=a.threads)
                start = time.perf_counter()
                for _ in range(a.steps):
                    sim.step()
                python.append(time.perf_counter() - start)
    reads = []
    for _ in range(200):
        start = time.perf_counter()
        sim.positions
        reads.append(time.perf_counter() - start)
    r, p = statistics.median(rust), statistics.median(python)
    print(f"{a.agents} agents, {a.steps} steps x {a.rounds} rounds, {a.threads} thread(s)")
    print(f"rust   {r / a.steps * 1e3:8.2f} ms/step  (rounds: {', '.join(f'{x / a.steps * 1e3:.2f}' for x in rust)})")
    print(f"python {p / a.steps * 1e3:8.2f} ms/step  (rounds: {', '.join(f'{x / a.steps * 1e3:.2f}' for x in python)})")
    print(f"python / rust: {p / r:.3f}")
    print(f"positions read ({a.agents} x 2 float32): median {statistics.median(reads) * 1e3:.3f} ms, min {min(reads) * 1e3:.3f} ms")
    small, n = steerkit.Scenario("crossing").with_steps(10_000), 5_000
    rust, python = [], []
    for _ in range(a.rounds):
        rust.append(steerkit.bench_steps(small, n, threads=a.threads))
        sim = steerkit.Simulation(small, threads=a.threads)
        start = time.perf_counter()
        for _ in range(n):
            sim.step()
        python.append(time.perf_counter() - start)
    r, p = statistics.median(rust) / n * 1e6, statistics.median(python) / n * 1e6
    print(f"one step() call: crossing (32 agents) rust {r:.1f} us/step, python {p:.1f} us/step: {p - r:.1f} us per call")
    class Coast:
        def act(self, obs):
            return "coast"

    per_step = []
    for _ in range(a.rounds):
        start = time.perf_counter()
        steps = steerkit.race("maze", Coast())["steps"]
        per_step.append((time.perf_counter() - start) / steps)
    t = statistics.median(per_step)
    print(
        f"PTSP: a race with a Python act() that does nothing takes {t * 1e6:.1f} us per step, "
        f"engine and scoring included: {t * 1059 * 1e3:.1f} ms for a full maze game (1 059 steps), "
        f"a bound on what Python adds beyond the controller's own time"
    )

if __name__ == "__main__":
    main()
