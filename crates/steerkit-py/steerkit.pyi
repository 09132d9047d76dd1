"""steerkit: steering behaviours and crowds for game AI, from Python.

- ``Scenario`` loads a scenario file or a built-in (``gallery()``), checks it and runs it
  through ``steerkit run``'s own runner (``Run``: metrics, trajectories, the same files).
- ``Simulation`` steps a scenario's one simulation, its state as read-only NumPy arrays.
- ``PtspMap`` and ``race`` race a PTSP controller written in Python, scored as
  ``steerkit ptsp`` scores it.

Units: metres, seconds and radians for scenarios; pixels for PTSP maps.
"""

import os
from typing import Any, Optional, Protocol, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

PTSP_ACTIONS: list[str]
"""The six PTSP actions, by index: coast, left, right, thrust, thrust+left, thrust+right."""

PTSP_MAPS: list[str]
"""The shipped PTSP maps: open, rooms, maze."""

class ScenarioError(ValueError):
    """A scenario that cannot be loaded, checked or built (the one-line message of ``steerkit validate``)."""

class MapError(ValueError):
    """A PTSP map that cannot be read or raced on (the one-line message of ``steerkit ptsp``)."""

class SimulationError(RuntimeError):
    """A step the engine refused, or a run that could not be recorded."""

def gallery() -> list[str]:
    """The names of the built-in scenarios, ``showcase`` first (as ``steerkit list``)."""

_Source = Union[str, "os.PathLike[str]"]

class Scenario:
    """A checked scenario: a file (``.toml``, ``.json``) or a built-in name, as ``steerkit run`` takes it."""

    def __init__(self, source: Union[_Source, "Scenario"]) -> None:
        """Loads a file or a built-in; raises ``ScenarioError`` with the one-line message."""
    @staticmethod
    def from_text(text: str, format: str = "toml", origin: str = "<text>") -> "Scenario":
        """A scenario from text in ``format`` (``"toml"`` or ``"json"``); ``origin`` names it in errors."""
    @property
    def name(self) -> str:
        """The scenario's name."""
    @property
    def output_name(self) -> str:
        """The name of its output folder (``[a-z0-9_-]``)."""
    @property
    def description(self) -> str:
        """The description, trimmed."""
    @property
    def dimensions(self) -> int:
        """2 or 3."""
    @property
    def agent_count(self) -> int:
        """Agents the file places."""
    @property
    def steps(self) -> int:
        """Steps of a run."""
    @property
    def dt(self) -> float:
        """The time step (s)."""
    @property
    def seed(self) -> int:
        """The world's seed."""
    def with_seed(self, seed: int) -> "Scenario":
        """A copy with another seed (agents in spawn regions placed again)."""
    def with_steps(self, steps: int) -> "Scenario":
        """A copy that runs ``steps`` steps."""
    def validate(self) -> dict[str, int]:
        """Builds the world and returns its counts (agents, groups, obstacles, walls, paths); raises ``ScenarioError``."""
    def run(
        self,
        *,
        steps: Optional[int] = None,
        seed: Optional[int] = None,
        threads: Optional[int] = None,
        trajectory_every: Optional[int] = None,
    ) -> "Run":
        """Runs it to the end with ``steerkit run``'s runner (the GIL released); results are identical for any ``threads``."""

class Run:
    """A finished run: metrics, trajectories as arrays, and the four files of ``steerkit run``."""

    @property
    def metrics(self) -> dict[str, Any]:
        """What ``metrics.json`` holds (a new copy each time)."""
    @property
    def metrics_json(self) -> str:
        """``metrics.json`` as text, exactly as written."""
    @property
    def steps(self) -> npt.NDArray[np.uint32]:
        """The kept steps, ``(K,)``."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """Positions at the kept steps, ``(K, N, D)`` (m), agents in file order; NaN for an agent gone."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """Velocities at the kept steps, ``(K, N, D)`` (m/s)."""
    @property
    def orientations(self) -> npt.NDArray[np.float32]:
        """Headings ``(K, N)`` (rad) in 2D; unit quaternions ``(K, N, 4)`` ``(x, y, z, w)`` in 3D."""
    @property
    def group_ids(self) -> npt.NDArray[np.uint32]:
        """The group index of each agent, ``(N,)``."""
    @property
    def group_names(self) -> list[str]:
        """The group names, by group index."""
    def trajectories_csv(self) -> str:
        """``trajectories.csv`` as text, exactly as written."""
    def write(self, folder: _Source) -> list[str]:
        """Writes metrics.json, trajectories.csv, replay.html and snapshot.svg into ``folder``; returns their paths."""

_Event = tuple[int, str, Optional[int], Optional[int]]
"""``(step, kind, agent, other)``: ``other`` is the second agent of an ``agent_collision``."""

class Simulation:
    """A scenario's simulation stepped from Python; per-agent arrays in agent (file) order.

    Each array read gathers the crowd's state (kept in a storage order it re-sorts for
    locality) into one new read-only array: one copy, no view.
    """

    def __init__(
        self,
        scenario: Union[Scenario, _Source],
        *,
        threads: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None:
        """Builds the scenario ready to step (no metrics, no replay); results are identical for any ``threads``."""
    def step(self, n: int = 1) -> list[_Event]:
        """Steps ``n`` times (``dt`` each, the GIL released); returns the events of those steps.

        Kinds: ``arrived``, ``path_finished``, ``stuck``, ``quarantined``, ``agent_collision``,
        ``obstacle_collision``, ``wall_crossing``.
        """
    @property
    def step_count(self) -> int:
        """Steps taken."""
    @property
    def time(self) -> float:
        """Simulated time (s)."""
    @property
    def dt(self) -> float:
        """The time step (s)."""
    @property
    def steps(self) -> int:
        """The scenario's steps (stepping further is allowed)."""
    @property
    def dimensions(self) -> int:
        """2 or 3."""
    @property
    def threads(self) -> int:
        """Threads of the pool that runs each step."""
    def __len__(self) -> int:
        """Agents numbered at the start."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """Positions ``(N, D)`` (m); NaN for an agent no longer in the crowd."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """Velocities ``(N, D)`` (m/s)."""
    @property
    def headings(self) -> npt.NDArray[np.float32]:
        """Headings ``(N,)`` (rad) in 2D; unit quaternions ``(N, 4)`` ``(x, y, z, w)`` in 3D."""
    @property
    def group_ids(self) -> npt.NDArray[np.uint32]:
        """The group index of each agent, ``(N,)``."""
    @property
    def group_names(self) -> list[str]:
        """The group names, by group index."""
    def goal(self, agent: int) -> Optional[list[float]]:
        """Agent ``agent``'s goal (m), or None."""
    def set_goal(self, agent: int, goal: Optional[Sequence[float]]) -> None:
        """Sets agent ``agent``'s goal (D finite numbers, m) or clears it (None)."""

def bench_steps(scenario: Scenario, steps: int, *, threads: Optional[int] = None) -> float:
    """Seconds to step ``scenario`` ``steps`` times in Rust alone (built first, not timed): the reference for ``Simulation.step``."""

class PtspMap:
    """A PTSP map: walls, the start and the waypoints (px, ``y`` up from the bottom row)."""

    def __init__(self, source: _Source) -> None:
        """A shipped map (``PTSP_MAPS``) or a map file; raises ``MapError``."""
    @staticmethod
    def from_text(text: str, name: str = "<text>") -> "PtspMap":
        """A map from the text of a map file."""
    @property
    def name(self) -> str:
        """The map's name."""
    @property
    def width(self) -> int:
        """Width (px)."""
    @property
    def height(self) -> int:
        """Height (px)."""
    @property
    def start(self) -> tuple[float, float]:
        """The ship's start (px)."""
    @property
    def waypoints(self) -> npt.NDArray[np.float32]:
        """The waypoints' centres, ``(W, 2)`` (px)."""
    @property
    def walls(self) -> npt.NDArray[np.bool_]:
        """The walls, ``(height, width)``, ``walls[y, x]`` with row 0 at the bottom."""
    def is_wall(self, x: int, y: int) -> bool:
        """True when pixel ``(x, y)`` is a wall (outside counts as wall)."""
    def ray(
        self, origin: tuple[float, float], direction: tuple[float, float], max: float = 256.0
    ) -> float:
        """Distance (px) along ``direction`` to the first wall pixel, or ``max`` (0 to 8192)."""
    def clearance(self, point: tuple[float, float], max: float = 16.0) -> float:
        """Distance (px) to the nearest wall pixel, or ``max`` (0 to 64); below 3 the ship
        touches a wall."""
    def path(
        self, origin: tuple[float, float], waypoint: int
    ) -> Optional[npt.NDArray[np.float32]]:
        """The reference's A* path ``(N, 2)`` (px) from ``origin`` to waypoint ``waypoint``
        (0-based), or None when there is no way; raises ``MapError`` for a map with a waypoint
        the ship cannot reach."""

class PtspObservation:
    """What a controller sees each step (px, s, rad)."""

    @property
    def step(self) -> int:
        """Steps taken so far."""
    @property
    def visited(self) -> list[Optional[int]]:
        """For each waypoint, the step it was visited at, or None."""
    @property
    def position(self) -> tuple[float, float]:
        """The ship's position (px)."""
    @property
    def velocity(self) -> tuple[float, float]:
        """The ship's velocity (px/s)."""
    @property
    def heading(self) -> float:
        """The ship's heading (rad, from +x toward +y)."""
    @property
    def top_speed(self) -> float:
        """Top speed under full thrust (px/s)."""
    @property
    def waypoints(self) -> list[tuple[float, float]]:
        """The waypoints' centres (px)."""
    def best_action(self, desired: Sequence[float]) -> int:
        """The action (index into ``PTSP_ACTIONS``) quickest to turn into velocity ``desired`` (px/s)."""

class PtspEnv:
    """A PTSP race stepped one action at a time, shaped like a ``gymnasium`` environment.

    Observation: float32 ``[x, y, vx, vy, heading, visited_1 ... visited_W]`` (px, px/s, rad;
    1.0 for a visited waypoint). Action: an index into ``PTSP_ACTIONS`` or its name. Reward: +1
    for each waypoint visited in the step, -0.01 a step. ``terminated`` when every waypoint is
    visited, ``truncated`` at the step limit or the time-out.
    """

    def __init__(
        self,
        map: Union[PtspMap, _Source],
        *,
        max_steps: Optional[int] = None,
        timeout: Optional[int] = None,
    ) -> None:
        """Checked as ``steerkit ptsp`` checks a map (``MapError``); limits default to 10 000
        steps and a 1 000-step time-out."""
    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Starts again; ``(observation, info)``. The race has no randomness: ``seed`` is
        accepted and changes nothing."""
    def step(
        self, action: Union[int, str]
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """One 40 ms step: ``(observation, reward, terminated, truncated, info)``; info holds
        step, visited, collided and outcome. ``ValueError`` once the race has ended."""
    def observe(self) -> PtspObservation:
        """What a controller written for ``race`` sees now."""
    def best_action(self, desired: tuple[float, float]) -> int:
        """The action that best turns the velocity toward ``desired`` (px/s) now."""
    @property
    def action_count(self) -> int:
        """6."""
    @property
    def observation_size(self) -> int:
        """5 + the number of waypoints."""
    @property
    def map(self) -> PtspMap:
        """The map."""
    def write(self, out: _Source, name: str = "env") -> list[str]:
        """Writes the race so far as ``steerkit ptsp`` does; returns the paths."""

class _Controller(Protocol):
    """A PTSP controller: any object with ``act``."""

    def act(self, observation: PtspObservation) -> Union[int, str]:
        """The action for this step: an index into ``PTSP_ACTIONS`` or its name."""

def race(
    map: Union[PtspMap, _Source],
    controller: Union[_Controller, str],
    *,
    out: Optional[_Source] = None,
    name: Optional[str] = None,
    time_rules: bool = False,
    strict: bool = False,
) -> dict[str, Any]:
    """Races ``controller`` as ``steerkit ptsp`` does and returns the score.

    Keys: outcome, steps, time (s), visited, waypoints, collisions, visit_steps, trajectory
    (``(T+1, 5)``: x, y, vx, vy, heading), actions (``(T,)`` uint8), files. With ``out``, writes
    score.json, trajectory.csv, replay.html and snapshot.svg there. ``controller`` may name a
    shipped one: ``reference``, ``nearest-first``, ``naive``; ``name`` labels the outputs
    (default: the class name). A controller's optional ``setup(map)`` is called once before the
    first step. ``time_rules``: the competition's budgets (40 ms a step, 1 s for setup), adding
    the keys setup_seconds, slowest_step_seconds and over_budget (the late steps, 1-based);
    ``strict`` (only with ``time_rules``) coasts instead of a late action.
    """
