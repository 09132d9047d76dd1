"""PTSP: a controller written in Python, scored exactly as `steerkit ptsp` scores it."""

import json
import time

import numpy as np
import pytest

import steerkit


class Naive:
    """The shipped naive controller's logic in Python, in float32 as Rust computes it:
    head for the nearest unvisited waypoint at top speed."""

    def act(self, obs):
        p = np.array(obs.position, dtype=np.float32)
        best, best_d = None, None
        for (x, y), seen in zip(obs.waypoints, obs.visited):
            if seen is not None:
                continue
            d = np.array([x, y], dtype=np.float32) - p
            dist = np.sqrt(d[0] * d[0] + d[1] * d[1])
            if best_d is None or dist < best_d:
                best, best_d = d, dist
        if best is None:
            return "coast"
        r = np.float32(1.0) / best_d
        desired = (best * r) * np.float32(obs.top_speed) if np.isfinite(r) and r > 0 else best * 0
        return obs.best_action((float(desired[0]), float(desired[1])))


def test_maps():
    assert steerkit.PTSP_MAPS == ["open", "rooms", "maze", "spiral", "doors"]
    m = steerkit.PtspMap("maze")
    assert m.walls.shape == (m.height, m.width) and m.walls.dtype == np.bool_
    assert m.waypoints.shape[1] == 2 and m.waypoints.dtype == np.float32
    assert not m.waypoints.flags.writeable
    x, y = m.start
    assert not m.is_wall(int(x), int(y))
    with pytest.raises(steerkit.MapError):
        steerkit.PtspMap("no_such_map")
    with pytest.raises(steerkit.MapError) as e:
        steerkit.PtspMap.from_text("###\n#X#\n###\n")
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["open", "rooms"])
def test_a_python_controller_scores_as_the_same_logic_in_rust(tmp_path, cli, name):
    cli("ptsp", name, "--controller", "naive", "--out", tmp_path / "cli")
    score = steerkit.race(name, Naive(), out=tmp_path / "py")
    rust = steerkit.race(name, "naive")
    for k in ["outcome", "steps", "visited", "waypoints", "collisions", "visit_steps"]:
        assert score[k] == rust[k], k
    assert np.array_equal(score["trajectory"], rust["trajectory"])
    a = (tmp_path / "py" / "trajectory.csv").read_bytes()
    assert a == (tmp_path / "cli" / "trajectory.csv").read_bytes()
    py_json = json.loads((tmp_path / "py" / "score.json").read_text())
    cli_json = json.loads((tmp_path / "cli" / "score.json").read_text())
    assert py_json.pop("controller") == "Naive" and cli_json.pop("controller") == "naive"
    assert py_json == cli_json


def test_shipped_controllers_write_the_commands_files(tmp_path, cli):
    cli("ptsp", "open", "--out", tmp_path / "cli")
    score = steerkit.race(steerkit.PtspMap("open"), "reference", out=tmp_path / "py")
    assert score["outcome"] == "finished"
    assert len(score["files"]) == 4
    for f in ["score.json", "trajectory.csv", "replay.html", "snapshot.svg"]:
        assert (tmp_path / "py" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes(), f
    assert score["trajectory"].shape == (score["steps"] + 1, 5)
    assert score["actions"].shape == (score["steps"],)


def test_actions_by_index_or_name():
    class Spin:
        def act(self, obs):
            return 1 if obs.step % 2 else "thrust+left"

    score = steerkit.race("open", Spin())
    assert score["outcome"] in ("timed_out", "step_limit", "finished")
    assert set(score["actions"].tolist()) <= {1, 4}


class Returns:
    def __init__(self, value):
        self.value = value

    def act(self, obs):
        return self.value


@pytest.mark.parametrize("value", [6, -1, "fly", None, 2.5, True, float("nan")])
def test_bad_actions_raise(value):
    with pytest.raises((ValueError, TypeError)) as e:
        steerkit.race("open", Returns(value))
    assert "act returned" in str(e.value) and "\n" not in str(e.value)


def test_an_exception_in_act_reaches_the_caller():
    class Broken:
        def __init__(self):
            self.calls = 0

        def act(self, obs):
            self.calls += 1
            raise KeyError("lost")

    b = Broken()
    with pytest.raises(KeyError):
        steerkit.race("open", b)
    assert b.calls == 1


def test_bad_controllers_and_maps_raise():
    with pytest.raises(TypeError):
        steerkit.race("open", object())
    with pytest.raises(ValueError):
        steerkit.race("open", "genius")
    with pytest.raises(TypeError):
        steerkit.race(3, "naive")
    with pytest.raises(ValueError):
        steerkit.race("open", Naive(), name="")
    with pytest.raises(steerkit.MapError):
        steerkit.race("missing/map.txt", "naive")


def test_ray_and_clearance_agree_with_the_walls_array():
    m = steerkit.PtspMap("rooms")
    walls = m.walls
    ys, xs = np.nonzero(walls)
    rng = np.random.default_rng(5)
    for _ in range(40):
        p = rng.uniform([0, 0], [m.width, m.height])
        # brute force: distance to the nearest wall square [x, x+1) x [y, y+1)
        dx = np.maximum(np.maximum(xs - p[0], p[0] - (xs + 1)), 0)
        dy = np.maximum(np.maximum(ys - p[1], p[1] - (ys + 1)), 0)
        near = float(np.min(np.hypot(dx, dy)))
        assert m.clearance(tuple(p), 64.0) == pytest.approx(min(near, 64.0), abs=1e-3)
        # the ray, marched in 0.01 px steps
        a = rng.uniform(0, 2 * np.pi)
        u = np.array([np.cos(a), np.sin(a)])
        got = m.ray(tuple(p), tuple(u), 200.0)
        t = 0.0
        while t < 200.0:
            q = p + u * t
            if m.is_wall(int(np.floor(q[0])), int(np.floor(q[1]))):
                break
            t += 0.01
        assert got == pytest.approx(min(t, 200.0), abs=0.02)
    with pytest.raises(ValueError):
        m.ray((1.0, 1.0), (1.0, 0.0), float("nan"))
    with pytest.raises(ValueError):
        m.clearance((1.0, 1.0), 65.0)
    with pytest.raises(ValueError):
        m.clearance((float("inf"), 1.0))


def test_path_is_the_reference_path_clear_of_walls():
    m = steerkit.PtspMap("maze")
    for w in range(len(m.waypoints)):
        path = m.path(m.start, w)
        assert path.dtype == np.float32 and path.shape[1] == 2 and not path.flags.writeable
        assert tuple(path[0]) == pytest.approx(m.start)
        # ends within the visit radius (5 px) of the waypoint
        assert np.linalg.norm(path[-1] - m.waypoints[w]) <= 5.0
        # grid steps of at most one diagonal 2 px cell, every point clear of walls by the radius
        steps = np.linalg.norm(np.diff(path[1:], axis=0), axis=1)
        assert np.all(steps <= 2.0 * np.sqrt(2.0) + 1e-4)
        assert all(m.clearance(tuple(p)) >= 3.0 for p in path[1:])
    with pytest.raises(ValueError):
        m.path(m.start, len(m.waypoints))
    with pytest.raises(steerkit.MapError):
        steerkit.PtspMap.from_text("#####\n#S#W#\n#####\n").path((1.5, 1.5), 0)


class Planned:
    """Plans in setup (once), then follows each waypoint's A* path."""

    def __init__(self):
        self.setups = 0
        self.paths = {}

    def setup(self, m):
        self.setups += 1
        self.map = m
        self.paths = {w: m.path(m.start, w) for w in range(len(m.waypoints))}

    def act(self, obs):
        assert self.setups == 1
        return 0


def test_setup_is_called_once_before_the_first_step():
    c = Planned()
    score = steerkit.race("open", c)
    assert c.setups == 1 and len(c.paths) == len(c.map.waypoints)
    assert score["steps"] > 0


class Slow:
    """Sleeps 60 ms in steps 1 to 3, then coasts."""

    def act(self, obs):
        if obs.step < 3:
            time.sleep(0.06)
        return "coast"


def test_time_rules_flag_late_steps():
    plain = steerkit.race("open", Slow())
    assert "over_budget" not in plain
    timed = steerkit.race("open", Slow(), time_rules=True)
    assert timed["over_budget"][:3] == [1, 2, 3]
    assert timed["slowest_step_seconds"] >= 0.06
    with pytest.raises(ValueError):
        steerkit.race("open", Slow(), strict=True)


def test_the_example_follower_finishes_every_shipped_map():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent.parent / "examples" / "ptsp_controller.py"
    spec = importlib.util.spec_from_file_location("ptsp_controller", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    for name in steerkit.PTSP_MAPS:
        score = steerkit.race(name, example.Follower())
        assert score["outcome"] == "finished", (name, score["visited"], score["waypoints"])


def test_the_environment_steps_the_same_race(tmp_path):
    env = steerkit.PtspEnv("open")
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and obs.shape == (env.observation_size,)
    assert not obs.flags.writeable
    assert env.action_count == 6 and env.observation_size == 5 + len(env.map.waypoints)
    assert tuple(obs[:2]) == pytest.approx(env.map.start) and info["step"] == 0
    controller, total, steps = Naive(), 0.0, 0
    terminated = truncated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(controller.act(env.observe()))
        total += reward
        steps += 1
    rust = steerkit.race("open", "naive", out=tmp_path / "cli")
    assert terminated and not truncated and info["outcome"] == "finished"
    assert steps == rust["steps"] and info["visited"] == rust["visit_steps"]
    assert np.array_equal(obs[:5], rust["trajectory"][-1])
    assert np.all(obs[5:] == 1.0)
    assert total == pytest.approx(rust["waypoints"] - 0.01 * steps)
    files = env.write(tmp_path / "env", name="naive")
    assert (tmp_path / "env" / "trajectory.csv").read_bytes() == (
        tmp_path / "cli" / "trajectory.csv"
    ).read_bytes()
    assert len(files) == 4
    with pytest.raises(ValueError):
        env.step(0)
    obs, info = env.reset()
    assert info["step"] == 0 and np.all(obs[5:] == 0.0)
    with pytest.raises(ValueError):
        env.step(6)
    with pytest.raises(ValueError):
        env.step("warp")


def test_the_environment_truncates_at_the_time_out():
    env = steerkit.PtspEnv("maze", timeout=50)
    env.reset()
    for k in range(50):
        _, reward, terminated, truncated, info = env.step("coast")
        assert reward == pytest.approx(-0.01) and not terminated
    assert truncated and info["outcome"] == "timed_out"
    with pytest.raises(ValueError):
        steerkit.PtspEnv("maze", max_steps=0)
    with pytest.raises(steerkit.MapError):
        steerkit.PtspEnv("no_such_map")
