"""Runs the built-in flock, measures its polarisation over time and saves a figure.

    python crates/steerkit-py/examples/flock.py [OUT_DIR]

Polarisation is |mean of the agents' unit velocities|: 0 for headings in every direction, 1 for
a flock moving as one. The figure (trajectories and polarisation over time) needs matplotlib;
without it the example prints the numbers only.
"""

import pathlib
import sys

import numpy as np

import steerkit


def polarisation(velocities: np.ndarray) -> float:
    """|mean unit velocity| of one step's `(N, D)` velocities (agents at rest left out)."""
    speed = np.linalg.norm(velocities, axis=1)
    moving = speed > 1e-6
    if not moving.any():
        return 0.0
    return float(np.linalg.norm((velocities[moving] / speed[moving, None]).mean(axis=0)))


def main() -> None:
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/python")
    sim = steerkit.Simulation("flocking")
    times, polar, tracks = [], [], []
    for _ in range(sim.steps // 5):
        sim.step(5)
        times.append(sim.time)
        polar.append(polarisation(sim.velocities))
        tracks.append(sim.positions)
    tracks = np.stack(tracks)  # (K, N, 2)
    print(f"{len(sim)} agents, {sim.step_count} steps: polarisation {polar[0]:.2f} -> {polar[-1]:.2f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure")
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for a in range(tracks.shape[1]):
        left.plot(tracks[:, a, 0], tracks[:, a, 1], lw=0.6)
    left.set(title="trajectories", xlabel="x (m)", ylabel="y (m)", aspect="equal")
    right.plot(times, polar)
    right.set(title="polarisation", xlabel="time (s)", ylim=(0, 1.05))
    out.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out / "flock.png", dpi=120)
    print(f"wrote {out / 'flock.png'}")


if __name__ == "__main__":
    main()
