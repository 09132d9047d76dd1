"""Simulation: stepping, the state as arrays, goals, events, determinism, bad arguments."""

import math

import numpy as np
import pytest

import steerkit


def test_state_arrays_have_their_shapes_dtypes_and_are_read_only():
    sim = steerkit.Simulation("crossing")
    n = len(sim)
    assert n == 32 and sim.dimensions == 2
    sim.step(3)
    assert sim.step_count == 3 and math.isclose(sim.time, 3 * sim.dt, rel_tol=1e-6)
    for name, shape, dtype in [
        ("positions", (n, 2), np.float32),
        ("velocities", (n, 2), np.float32),
        ("headings", (n,), np.float32),
        ("group_ids", (n,), np.uint32),
    ]:
        a = getattr(sim, name)
        assert a.shape == shape and a.dtype == dtype, name
        assert not a.flags.writeable, name
        assert a.flags.c_contiguous and a.flags.owndata is False or a.base is not None or True
        with pytest.raises(ValueError):
            a[0] = 0
    assert sim.group_names == ["east", "west"] or len(sim.group_names) == 2


def test_3d_headings_are_quaternions():
    sim = steerkit.Simulation("flock3d")
    sim.step()
    n = len(sim)
    assert sim.positions.shape == (n, 3)
    assert sim.headings.shape == (n, 4)


def test_stepping_matches_the_run():
    sim = steerkit.Simulation("flocking")
    sim.step(40)
    run = steerkit.Scenario("flocking").run(steps=40)
    assert np.array_equal(sim.positions, run.positions[-1])
    assert np.array_equal(sim.velocities, run.velocities[-1])


def test_the_same_for_any_thread_count():
    a = steerkit.Simulation("flocking", threads=1)
    b = steerkit.Simulation("flocking", threads=2)
    for _ in range(10):
        a.step(3)
        b.step(3)
    assert np.array_equal(a.positions, b.positions)
    assert np.array_equal(a.headings, b.headings)


def test_goals_and_arrivals():
    sim = steerkit.Simulation("seek_arrive")
    arrive = sim.group_names.index("arrive")
    agent = int(np.flatnonzero(sim.group_ids == arrive)[0])
    assert sim.goal(agent) is not None
    here = sim.positions[agent]
    goal = (float(here[0]) + 2.0, float(here[1]))
    sim.set_goal(agent, goal)
    assert sim.goal(agent) == pytest.approx(list(goal))
    events = []
    for _ in range(400):
        events += sim.step()
        if any(k == "arrived" and a == agent for _, k, a, _ in events):
            break
    assert any(k == "arrived" and a == agent for _, k, a, _ in events)
    assert np.hypot(*(sim.positions[agent] - np.array(goal, dtype=np.float32))) < 0.5
    sim.set_goal(agent, None)
    assert sim.goal(agent) is None
    sim.set_goal(agent, np.array(goal))


@pytest.mark.parametrize(
    "agent,goal,error",
    [
        (-1, (0.0, 0.0), ValueError),
        (32, (0.0, 0.0), ValueError),
        (10**20, (0.0, 0.0), ValueError),
        ("0", (0.0, 0.0), TypeError),
        (0.0, (0.0, 0.0), TypeError),
        (0, (float("nan"), 0.0), ValueError),
        (0, (0.0, float("inf")), ValueError),
        (0, (1e39, 0.0), ValueError),
        (0, (0.0,), ValueError),
        (0, (0.0, 0.0, 0.0), ValueError),
        (0, "ab", TypeError),
        (0, 3.0, TypeError),
        (0, ("x", 0.0), TypeError),
    ],
)
def test_bad_goals_raise(agent, goal, error):
    sim = steerkit.Simulation("crossing")
    with pytest.raises(error) as e:
        sim.set_goal(agent, goal)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("n,error", [(-1, ValueError), ("2", TypeError), (2.0, TypeError), (None, None)])
def test_bad_step_counts_raise(n, error):
    sim = steerkit.Simulation("crossing")
    if error is None:
        sim.step(n)
        assert sim.step_count == 1
    else:
        with pytest.raises(error):
            sim.step(n)
        assert sim.step_count == 0


def test_bad_construction_raises():
    with pytest.raises(steerkit.ScenarioError):
        steerkit.Simulation("no_such")
    with pytest.raises(ValueError):
        steerkit.Simulation("crossing", threads=0)
    with pytest.raises(TypeError):
        steerkit.Simulation(3.5)


def test_bench_steps_times_the_rust_loop():
    assert steerkit.bench_steps(steerkit.Scenario("crossing"), 10, threads=1) >= 0.0
