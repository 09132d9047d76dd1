// Reference runs of the RVO2 library (van den Berg et al.) for comparing steerkit's ORCA with it:
// the Circle and Blocks examples' set-ups, reporting the time until every agent is home, the
// deepest overlap of two bodies over the run, and agent-updates per second of doStep alone.
// Built and run by scripts/rvo2-compare.sh; not part of the Rust build.
#include <RVO.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

namespace {

struct Result {
  double home_time = -1.0;  // s of simulated time when every agent was home, -1 if never
  float deepest = 0.0F;     // deepest overlap of two bodies (m)
  double updates_per_s = 0.0;
  double cpu_ns_per_update = 0.0;  // process CPU time, steadier than wall time on a busy machine
  std::size_t steps = 0;
};

float deepest_overlap(const RVO::RVOSimulator &sim) {
  float worst = 0.0F;
  const std::size_t n = sim.getNumAgents();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const float gap = RVO::abs(sim.getAgentPosition(i) - sim.getAgentPosition(j)) -
                        sim.getAgentRadius(i) - sim.getAgentRadius(j);
      worst = std::max(worst, -gap);
    }
  }
  return worst;
}

// Runs until every agent is within `home` of its goal or `max_steps`, with preferred velocity
// toward the goal at `speed` (slowing inside 1 m as the examples do when speed is 1).
Result run(RVO::RVOSimulator &sim, const std::vector<RVO::Vector2> &goals, float speed,
           float home, std::size_t max_steps, bool overlaps) {
  Result r;
  double busy = 0.0;
  double cpu = 0.0;
  for (r.steps = 0; r.steps < max_steps; ++r.steps) {
    bool all_home = true;
    for (std::size_t i = 0; i < sim.getNumAgents(); ++i) {
      const RVO::Vector2 to_goal = goals[i] - sim.getAgentPosition(i);
      if (RVO::absSq(to_goal) > home * home) all_home = false;
    }
    if (all_home) {
      r.home_time = sim.getGlobalTime();
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    for (std::size_t i = 0; i < sim.getNumAgents(); ++i) {
      RVO::Vector2 v = goals[i] - sim.getAgentPosition(i);
      const float d = RVO::abs(v);
      if (d > 1.0F) v = v * (speed / d); else v = v * speed;
      sim.setAgentPrefVelocity(i, v);
    }
    sim.doStep();
    busy += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    if (overlaps) r.deepest = std::max(r.deepest, deepest_overlap(sim));
  }
  r.updates_per_s = static_cast<double>(r.steps) * sim.getNumAgents() / busy;
  r.cpu_ns_per_update = cpu * 1e9 / (static_cast<double>(r.steps) * sim.getNumAgents());
  return r;
}

void circle(std::size_t n, float speed, std::size_t max_steps, bool overlaps) {
  RVO::RVOSimulator sim;
  sim.setTimeStep(0.25F);
  sim.setAgentDefaults(15.0F, 10U, 10.0F, 10.0F, 1.5F, 2.0F);
  std::vector<RVO::Vector2> goals;
  const float radius = 200.0F * static_cast<float>(n) / 250.0F;
  for (std::size_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(i) * 2.0F * 3.14159265358979F / static_cast<float>(n);
    const RVO::Vector2 p(radius * std::cos(a), radius * std::sin(a));
    sim.addAgent(p);
    goals.push_back(-p);
  }
  const Result r = run(sim, goals, speed, 1.5F, max_steps, overlaps);
  std::printf(
      "circle n=%zu speed=%.1f steps=%zu home_time=%.2f deepest_overlap=%.4f updates_per_s=%.0f "
      "cpu_ns_per_update=%.1f\n",
      n, speed, r.steps, r.home_time, r.deepest, r.updates_per_s, r.cpu_ns_per_update);
}

// `own`: each agent to its own mirrored spot (-x, -y), home within 1.5 m (one radius less
// than the body's 2 m); otherwise RVO2's example: each squad to the far corner, home within 20 m.
void blocks(float speed, std::size_t max_steps, bool own) {
  RVO::RVOSimulator sim;
  sim.setTimeStep(0.25F);
  sim.setAgentDefaults(15.0F, 10U, 5.0F, 5.0F, 2.0F, 2.0F);
  std::vector<RVO::Vector2> goals;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      const float x = 55.0F + 10.0F * i, y = 55.0F + 10.0F * j;
      sim.addAgent(RVO::Vector2(x, y));
      goals.push_back(own ? RVO::Vector2(-x, -y) : RVO::Vector2(-75.0F, -75.0F));
      sim.addAgent(RVO::Vector2(-x, y));
      goals.push_back(own ? RVO::Vector2(x, -y) : RVO::Vector2(75.0F, -75.0F));
      sim.addAgent(RVO::Vector2(x, -y));
      goals.push_back(own ? RVO::Vector2(-x, y) : RVO::Vector2(-75.0F, 75.0F));
      sim.addAgent(RVO::Vector2(-x, -y));
      goals.push_back(own ? RVO::Vector2(x, y) : RVO::Vector2(75.0F, 75.0F));
    }
  }
  const float blocks[4][4][2] = {
      {{-10, 40}, {-40, 40}, {-40, 10}, {-10, 10}},
      {{10, 40}, {10, 10}, {40, 10}, {40, 40}},
      {{10, -40}, {40, -40}, {40, -10}, {10, -10}},
      {{-10, -40}, {-10, -10}, {-40, -10}, {-40, -40}},
  };
  for (const auto &b : blocks) {
    std::vector<RVO::Vector2> v;
    for (const auto &p : b) v.push_back(RVO::Vector2(p[0], p[1]));
    sim.addObstacle(v);
  }
  sim.processObstacles();
  const Result r = run(sim, goals, speed, own ? 1.5F : 20.0F, max_steps, true);
  std::printf("blocks%s speed=%.1f steps=%zu home_time=%.2f deepest_overlap=%.4f\n",
              own ? "-own" : "", speed, r.steps, r.home_time, r.deepest);
}

// A scene ready to run: the simulator, each agent's goal and the radius that counts as home.
struct Scene {
  std::unique_ptr<RVO::RVOSimulator> sim{new RVO::RVOSimulator};
  std::vector<RVO::Vector2> goals;
  float home = 1.5F;
};

Scene circle_scene(std::size_t n) {
  Scene s;
  s.sim->setTimeStep(0.25F);
  s.sim->setAgentDefaults(15.0F, 10U, 10.0F, 10.0F, 1.5F, 2.0F);
  const float radius = 200.0F * static_cast<float>(n) / 250.0F;
  for (std::size_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(i) * 2.0F * 3.14159265358979F / static_cast<float>(n);
    const RVO::Vector2 p(radius * std::cos(a), radius * std::sin(a));
    s.sim->addAgent(p);
    s.goals.push_back(-p);
  }
  return s;
}

Scene blocks_own_scene() {
  Scene s;
  s.sim->setTimeStep(0.25F);
  s.sim->setAgentDefaults(15.0F, 10U, 5.0F, 5.0F, 2.0F, 2.0F);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      const float x = 55.0F + 10.0F * i, y = 55.0F + 10.0F * j;
      const float spots[4][2] = {{x, y}, {-x, y}, {x, -y}, {-x, -y}};
      for (const auto &p : spots) {
        s.sim->addAgent(RVO::Vector2(p[0], p[1]));
        s.goals.push_back(RVO::Vector2(-p[0], -p[1]));
      }
    }
  }
  const float blocks[4][4][2] = {
      {{-10, 40}, {-40, 40}, {-40, 10}, {-10, 10}},
      {{10, 40}, {10, 10}, {40, 10}, {40, 40}},
      {{10, -40}, {40, -40}, {40, -10}, {10, -10}},
      {{-10, -40}, {-10, -10}, {-40, -10}, {-40, -40}},
  };
  for (const auto &b : blocks) {
    std::vector<RVO::Vector2> v;
    for (const auto &p : b) v.push_back(RVO::Vector2(p[0], p[1]));
    s.sim->addObstacle(v);
  }
  s.sim->processObstacles();
  return s;
}

// Crowding after a step, the same measure as `steerkit bench --scenario`: the mean over agents of
// the number of other agents within 15 m (the neighbour distance of both scenes). A step is
// dense when it is at least 10, more than the 10 neighbours ORCA takes in (on the Circle, from
// where the shrinking ring closes up body to body).
constexpr float kDense = 10.0F;

float crowding(const RVO::RVOSimulator &sim) {
  const float r = 15.0F;
  const std::size_t n = sim.getNumAgents();
  std::unordered_map<long long, std::vector<std::size_t>> cells;
  auto key = [](long long cx, long long cy) { return (cx << 32) ^ (cy & 0xffffffffLL); };
  for (std::size_t i = 0; i < n; ++i) {
    const RVO::Vector2 p = sim.getAgentPosition(i);
    cells[key(static_cast<long long>(std::floor(p.x() / r)),
              static_cast<long long>(std::floor(p.y() / r)))].push_back(i);
  }
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const RVO::Vector2 p = sim.getAgentPosition(i);
    const long long cx = static_cast<long long>(std::floor(p.x() / r));
    const long long cy = static_cast<long long>(std::floor(p.y() / r));
    int count = 0;
    for (long long dx = -1; dx <= 1; ++dx) {
      for (long long dy = -1; dy <= 1; ++dy) {
        const auto it = cells.find(key(cx + dx, cy + dy));
        if (it == cells.end()) continue;
        for (const std::size_t j : it->second) {
          if (j != i && RVO::absSq(sim.getAgentPosition(j) - p) <= r * r) ++count;
        }
      }
    }
    total += count;
  }
  return static_cast<float>(total / static_cast<double>(n));
}

void set_preferred(RVO::RVOSimulator &sim, const std::vector<RVO::Vector2> &goals, float speed) {
  for (std::size_t i = 0; i < sim.getNumAgents(); ++i) {
    RVO::Vector2 v = goals[i] - sim.getAgentPosition(i);
    const float d = RVO::abs(v);
    if (d > 1.0F) v = v * (speed / d); else v = v * speed;
    sim.setAgentPrefVelocity(i, v);
  }
}

bool all_home(const Scene &s) {
  for (std::size_t i = 0; i < s.sim->getNumAgents(); ++i) {
    if (RVO::absSq(s.goals[i] - s.sim->getAgentPosition(i)) > s.home * s.home) return false;
  }
  return true;
}

// A whole run in two passes over the same deterministic run. The first steps until every agent
// is home (or `max_steps`), measuring crowding after each step, and finds the dense phase: from
// the first dense step to the last. The second reruns exactly those steps, timed only at the
// phase boundaries, so nothing but preferred velocities and doStep is inside the CPU time, as
// often as it takes to fill 2 s of CPU time; the mean is reported.
void whole(const char *name, const std::function<Scene()> &make, float speed,
           std::size_t max_steps) {
  std::size_t steps = 0, from = 0, to = 0;
  bool home = false, dense = false;
  float peak = 0.0F;
  {
    Scene s = make();
    for (; steps < max_steps; ++steps) {
      if (all_home(s)) {
        home = true;
        break;
      }
      set_preferred(*s.sim, s.goals, speed);
      s.sim->doStep();
      const float c = crowding(*s.sim);
      peak = std::max(peak, c);
      if (c >= kDense) {
        if (!dense) from = steps;
        dense = true;
        to = steps + 1;
      }
    }
  }
  if (!dense) from = to = steps;
  // rerun until 2 s of CPU time as steerkit does (its process clock counts in 10 ms ticks)
  double cpu[3] = {0, 0, 0};
  std::size_t n = 0;
  int runs = 0;
  while (runs == 0 || cpu[0] + cpu[1] + cpu[2] < 2.0) {
    Scene s = make();
    n = s.sim->getNumAgents();
    const std::size_t marks[3] = {from, to, steps};
    std::size_t k = 0;
    std::clock_t c0 = std::clock();
    for (int phase = 0; phase < 3; ++phase) {
      for (; k < marks[phase]; ++k) {
        set_preferred(*s.sim, s.goals, speed);
        s.sim->doStep();
      }
      const std::clock_t c1 = std::clock();
      cpu[phase] += static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
      c0 = c1;
    }
    ++runs;
  }
  for (double &c : cpu) c /= runs;
  auto per = [n](double seconds, std::size_t k) {
    return k == 0 ? 0.0 : seconds * 1e9 / (static_cast<double>(k) * static_cast<double>(n));
  };
  std::printf(
      "whole RVO2 %s n=%zu steps=%zu all_home=%s peak_crowding=%.2f dense=%zu..%zu "
      "cpu_ns_sparse=%.1f cpu_ns_dense=%.1f cpu_ns_all=%.1f\n",
      name, n, steps, home ? "yes" : "no", peak, from, to,
      per(cpu[0] + cpu[2], steps - (to - from)), per(cpu[1], to - from),
      per(cpu[0] + cpu[1] + cpu[2], steps));
}

}  // namespace

int main(int argc, char **argv) {
  // whole circle N SPEED MAX_STEPS | whole blocks-own SPEED MAX_STEPS
  if (argc >= 3 && std::strcmp(argv[1], "whole") == 0) {
    const bool circle_scene_wanted = std::strcmp(argv[2], "circle") == 0;
    const int at = circle_scene_wanted ? 4 : 3;
    const float speed = argc > at ? std::strtof(argv[at], nullptr) : 2.0F;
    const std::size_t max_steps = argc > at + 1 ? std::strtoul(argv[at + 1], nullptr, 10) : 20000;
    if (circle_scene_wanted && argc >= 4) {
      const std::size_t n = std::strtoul(argv[3], nullptr, 10);
      const std::string name = "circle-" + std::to_string(n);
      whole(name.c_str(), [n] { return circle_scene(n); }, speed, max_steps);
      return 0;
    }
    if (std::strcmp(argv[2], "blocks-own") == 0) {
      whole("blocks-own", blocks_own_scene, speed, max_steps);
      return 0;
    }
  }
  if (argc >= 2 && (std::strcmp(argv[1], "blocks") == 0 || std::strcmp(argv[1], "blocks-own") == 0)) {
    blocks(argc >= 3 ? std::strtof(argv[2], nullptr) : 1.0F, 20000, argv[1][6] == '-');
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "circle") == 0) {
    const std::size_t n = std::strtoul(argv[2], nullptr, 10);
    const float speed = argc >= 4 ? std::strtof(argv[3], nullptr) : 1.0F;
    const std::size_t steps = argc >= 5 ? std::strtoul(argv[4], nullptr, 10) : 20000;
    circle(n, speed, steps, n <= 1000);
    return 0;
  }
  std::fprintf(stderr, "usage: compare blocks|blocks-own [SPEED] | compare circle N [SPEED] [MAX_STEPS] | "
               "compare whole circle N [SPEED] [MAX_STEPS] | compare whole blocks-own [SPEED] [MAX_STEPS]\n");
  return 2;
}
