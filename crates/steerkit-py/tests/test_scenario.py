"""Scenarios: loading, checking, running; the files equal `steerkit run`'s byte for byte."""

import json

import numpy as np
import pytest

import steerkit

# what differs between two runs of the same scenario: the clock and the pool
VARYING = {"wall_seconds", "updates_per_s", "threads"}


def test_gallery_lists_the_built_ins():
    names = steerkit.gallery()
    assert names[0] == "showcase"
    assert "flocking" in names and "flock3d" in names


@pytest.mark.parametrize(
    "name,steps",
    [("crossing", 120), ("flocking", 80), ("flock3d", 40), ("turret_drag", 60)],
)
def test_run_writes_the_same_files_as_the_command(tmp_path, cli, name, steps):
    cli("run", name, "--steps", steps, "--out", tmp_path / "cli")
    run = steerkit.Scenario(name).run(steps=steps)
    written = run.write(tmp_path / "py")
    assert [p.name for p in map(__import__("pathlib").Path, written)] == [
        "metrics.json",
        "trajectories.csv",
        "replay.html",
        "snapshot.svg",
    ]
    for f in ["trajectories.csv", "replay.html", "snapshot.svg"]:
        assert (tmp_path / "py" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes(), f
    a = json.loads((tmp_path / "py" / "metrics.json").read_text())
    b = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    assert {k: v for k, v in a.items() if k not in VARYING} == {
        k: v for k, v in b.items() if k not in VARYING
    }
    assert run.metrics_json == (tmp_path / "py" / "metrics.json").read_text()
    assert run.trajectories_csv() == (tmp_path / "cli" / "trajectories.csv").read_text()


def test_a_file_runs_like_its_built_in(tmp_path):
    src = steerkit.Scenario("seek_arrive")
    path = tmp_path / "mine.toml"
    path.write_text(open(steerkit_scenarios() / "seek_arrive.toml").read())
    from_file = steerkit.Scenario(path).run(steps=50)
    built_in = src.run(steps=50)
    assert np.array_equal(from_file.positions, built_in.positions)


def steerkit_scenarios():
    import pathlib

    return pathlib.Path(__file__).resolve().parents[3] / "scenarios"


def test_metrics_and_trajectories():
    sc = steerkit.Scenario("crossing")
    run = sc.run(steps=100, trajectory_every=10)
    m = run.metrics
    assert m["format"] == "steerkit-metrics" and m["steps"] == 100
    assert m["agents"] == sc.agent_count == 32
    n = sc.agent_count
    assert run.steps.tolist() == list(range(0, 101, 10))
    assert run.positions.shape == (11, n, 2) and run.positions.dtype == np.float32
    assert run.velocities.shape == (11, n, 2) and run.velocities.dtype == np.float32
    assert run.orientations.shape == (11, n) and run.orientations.dtype == np.float32
    assert run.group_ids.shape == (n,) and run.group_ids.dtype == np.uint32
    assert run.group_names == [g["name"] for g in m["groups"]]
    for a in [run.steps, run.positions, run.velocities, run.orientations, run.group_ids]:
        assert not a.flags.writeable
    with pytest.raises(ValueError):
        run.positions[0, 0, 0] = 1.0
    m["steps"] = -1  # a copy: the run's own metrics are untouched
    assert run.metrics["steps"] == 100


def test_3d_orientations_are_quaternions():
    run = steerkit.Scenario("flock3d").run(steps=5)
    k, n = len(run.steps), steerkit.Scenario("flock3d").agent_count
    assert run.positions.shape == (k, n, 3)
    assert run.orientations.shape == (k, n, 4)
    assert np.allclose(np.linalg.norm(run.orientations, axis=2), 1.0, atol=1e-4)


def test_results_are_the_same_for_any_thread_count():
    a = steerkit.Scenario("flocking").run(steps=60, threads=1)
    b = steerkit.Scenario("flocking").run(steps=60, threads=2)
    assert np.array_equal(a.positions, b.positions)
    assert a.trajectories_csv() == b.trajectories_csv()


def test_validate_counts():
    counts = steerkit.Scenario("crossing").validate()
    assert counts["agents"] == 32 and counts["groups"] == 2


def test_errors_are_one_line_scenario_errors(tmp_path):
    with pytest.raises(steerkit.ScenarioError) as e:
        steerkit.Scenario("no_such_scenario")
    assert "no scenario file or built-in scenario named `no_such_scenario`" in str(e.value)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ndt = -1.0\n')
    with pytest.raises(steerkit.ScenarioError) as e:
        steerkit.Scenario(bad)
    assert isinstance(e.value, ValueError)
    assert "\n" not in str(e.value) and "bad.toml" in str(e.value)
    with pytest.raises(steerkit.ScenarioError) as e:
        steerkit.Scenario.from_text("this is not toml", origin="typed.toml")
    assert "\n" not in str(e.value) and "typed.toml" in str(e.value)
    with pytest.raises(steerkit.ScenarioError):
        steerkit.Scenario(tmp_path / "missing.toml")


def test_the_message_is_the_commands(tmp_path, cli):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ndt = -1.0\n')
    import subprocess, os, pathlib

    binary = os.environ.get("STEERKIT_BIN", str(pathlib.Path(__file__).resolve().parents[3] / "target/release/steerkit"))
    done = subprocess.run([binary, "validate", str(bad)], capture_output=True, text=True)
    assert done.returncode == 1
    with pytest.raises(steerkit.ScenarioError) as e:
        steerkit.Scenario(bad)
    assert done.stderr.strip() == f"error: {e.value}"


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"steps": -1}, ValueError),
        ({"steps": 1.5}, TypeError),
        ({"steps": "10"}, TypeError),
        ({"steps": True}, TypeError),
        ({"threads": 0}, ValueError),
        ({"threads": 5000}, ValueError),
        ({"seed": -3}, ValueError),
        ({"trajectory_every": 0}, ValueError),
        ({"steps": 10**30}, ValueError),
    ],
)
def test_bad_run_arguments_raise(kwargs, error):
    with pytest.raises(error) as e:
        steerkit.Scenario("crossing").run(**kwargs)
    assert list(kwargs)[0] in str(e.value)


def test_bad_sources_raise():
    with pytest.raises(TypeError):
        steerkit.Scenario(12)
    with pytest.raises(TypeError):
        steerkit.Scenario(None)
    with pytest.raises(ValueError):
        steerkit.Scenario.from_text("", format="yaml")
    with pytest.raises(steerkit.ScenarioError):
        steerkit.Scenario("crossing").with_steps(10**12)
