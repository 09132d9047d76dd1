"""PTSP: a controller written in Python, scored exactly as `steerkit ptsp` scores it."""

import json

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
    assert steerkit.PTSP_MAPS == ["open", "rooms", "maze"]
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
