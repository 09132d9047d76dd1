// Reference runs of DetourCrowd (recastnavigation) on three levels, for comparing steerkit's
// navigation with it: a Recast navmesh built from the level, then every agent sent to its own
// goal through dtCrowd. Reports arrivals, the time until every agent is home at once, overlaps
// of bodies, CPU per agent-update inside dtCrowd::update, the navmesh build time and the time
// until every agent has a complete path. Built and run by scripts/detour-compare.sh; not part
// of the Rust build.
//
//   compare run LEVEL N     one line per mode (keep: arrived agents keep their target,
//                           remove: agents leave the crowd on arrival)
//   compare level LEVEL     the level as JSON (scripts/detour/levels/LEVEL.json)
//
// Level coordinates (x, y) map to Recast's (x, 0, y): Recast's up axis is y.
#include <DetourCrowd.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>
#include <Recast.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

const float kRadius = 0.4F;
const float kHeight = 2.0F;
const float kMaxSpeed = 1.5F;
const float kArrival = 1.0F;  // home = centre within this distance of the goal
const double kDt = 1.0 / 30.0;
const double kTimeLimit = 300.0;
const float kBoxHeight = 2.0F;
const int kSizes[] = {100, 500, 1000};

struct Pt {
  float x, y;
};
struct Box {
  float x0, y0, x1, y1;
};

struct Level {
  std::string name;
  Box walkable;                 // the ground; everything outside is off the level
  std::vector<Box> obstacles;   // solid from the ground to kBoxHeight
  std::vector<Pt> starts, goals;
  float spacing = 1.5F;         // grid spacing of the starts
};

// Centimetre grid: the positions the driver uses are exactly the ones the level file lists.
float cm(double v) { return static_cast<float>(std::round(v * 100.0) / 100.0); }

// `count` offsets of a near-square grid (row-major from -y), centred on the origin.
std::vector<Pt> block(int count, double s) {
  const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  const int rows = (count + cols - 1) / cols;
  std::vector<Pt> out;
  for (int k = 0; k < count; ++k) {
    const int r = k / cols, c = k % cols;
    out.push_back({static_cast<float>((c - (cols - 1) / 2.0) * s),
                   static_cast<float>((r - (rows - 1) / 2.0) * s)});
  }
  return out;
}

// Largest spacing from 1.5 m down in 0.1 m steps whose near-square grid of `count` spans at
// most `room` metres in both directions.
double fit_spacing(int count, double room) {
  const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  const int rows = (count + cols - 1) / cols;
  double s = 1.5;
  while (s > 0.85 && (std::max(cols, rows) - 1) * s > room + 1e-9) s -= 0.1;
  return std::round(s * 10.0) / 10.0;
}

// Four 60 x 60 m rooms: walls 0.5 m thick along x = 0 and y = 0, one 2 m door in the middle
// of each wall half. Agent i is in room i % 4, goal = start mirrored through the origin.
Level rooms(int n) {
  Level l;
  l.name = "rooms";
  l.walkable = {-60, -60, 60, 60};
  const float t = 0.25F;
  // x = 0 wall in three pieces (doors at y = +-30), y = 0 wall in four (doors at x = +-30,
  // split at the crossing so no two boxes overlap)
  l.obstacles = {{-t, -60, t, -31}, {-t, -29, t, 29},  {-t, 31, t, 60},  {-60, -t, -31, t},
                 {-29, -t, -t, t},  {t, -t, 29, t},    {31, -t, 60, t}};
  const int per_room = (n + 3) / 4;
  // room interior 59.75 m minus 0.6 m on each side
  l.spacing = static_cast<float>(fit_spacing(per_room, 58.55));
  const std::vector<Pt> grid = block(per_room, l.spacing);
  const int sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
  for (int i = 0; i < n; ++i) {
    const int r = i % 4, k = i / 4;
    const Pt p = {cm(sx[r] * (30.0 + grid[k].x)), cm(sy[r] * (30.0 + grid[k].y))};
    l.starts.push_back(p);
    l.goals.push_back({-p.x, -p.y});
  }
  return l;
}

// 100 x 100 m with 40 pillars 2 m wide. Agents start in columns at the left and right edges
// and go to the mirror point x -> -x. Columns x = -48.5, -47, -45.5 fill the strip
// [-49, -45]; when 65 rows (y within +-48) are not enough, further columns are added at
// x = -42, -40.5, ... (past the first pillar column, whose faces are at -44.75 and -42.75,
// so every start stays 0.75 m clear of every pillar).
Level pillars(int n) {
  Level l;
  l.name = "pillars";
  l.walkable = {-50, -50, 50, 50};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 5; ++j) {
      const float cx = -43.75F + 12.5F * i, cy = -40.0F + 20.0F * j;
      l.obstacles.push_back({cx - 1, cy - 1, cx + 1, cy + 1});
    }
  }
  const double columns[] = {-48.5, -47, -45.5, -42, -40.5, -39, -37.5, -36, -34.5, -33};
  const int per_side = (n + 1) / 2;
  const int max_rows = 65;
  const int cols = std::max(3, (per_side + max_rows - 1) / max_rows);
  if (cols > 10) {
    std::fprintf(stderr, "pillars: %d agents do not fit\n", n);
    std::exit(2);
  }
  const int rows = (per_side + cols - 1) / cols;
  for (int i = 0; i < n; ++i) {
    const int k = i / 2, r = k / cols, c = k % cols;
    const float x = cm(columns[c]), y = cm((r - (rows - 1) / 2.0) * 1.5);
    const Pt p = {i % 2 == 0 ? x : -x, y};
    l.starts.push_back(p);
    l.goals.push_back({-p.x, p.y});
  }
  return l;
}

// Two 30 x 30 m halls joined by a 40 x 6 m corridor; the ground is [-50, 50] x [-15, 15] and
// two boxes fill it beside the corridor. Half the agents in each hall, goal x -> -x.
Level corridor(int n) {
  Level l;
  l.name = "corridor";
  l.walkable = {-50, -15, 50, 15};
  l.obstacles = {{-20, 3, 20, 15}, {-20, -15, 20, -3}};
  const int per_hall = (n + 1) / 2;
  l.spacing = static_cast<float>(fit_spacing(per_hall, 28.8));  // 30 m minus 0.6 m a side
  const std::vector<Pt> grid = block(per_hall, l.spacing);
  for (int i = 0; i < n; ++i) {
    const Pt g = grid[i / 2];
    const Pt p = {cm(i % 2 == 0 ? -35.0 + g.x : 35.0 - g.x), cm(g.y)};
    l.starts.push_back(p);
    l.goals.push_back({-p.x, p.y});
  }
  return l;
}

Level make_level(const std::string &name, int n) {
  if (name == "rooms") return rooms(n);
  if (name == "pillars") return pillars(n);
  if (name == "corridor") return corridor(n);
  std::fprintf(stderr, "unknown level %s (rooms, pillars, corridor)\n", name.c_str());
  std::exit(2);
}

void print_level(const std::string &name) {
  const Level l = make_level(name, kSizes[0]);
  std::printf("{\n  \"name\": \"%s\",\n  \"units\": \"m\",\n", l.name.c_str());
  std::printf("  \"walkable\": [%g, %g, %g, %g],\n", l.walkable.x0, l.walkable.y0, l.walkable.x1,
              l.walkable.y1);
  std::printf("  \"obstacles\": [\n");
  for (std::size_t i = 0; i < l.obstacles.size(); ++i) {
    const Box &b = l.obstacles[i];
    std::printf("    [%g, %g, %g, %g]%s\n", b.x0, b.y0, b.x1, b.y1,
                i + 1 < l.obstacles.size() ? "," : "");
  }
  std::printf("  ],\n");
  std::printf("  \"agent_radius\": %g,\n  \"max_speed\": %g,\n  \"arrival_distance\": %g,\n",
              kRadius, kMaxSpeed, kArrival);
  std::printf("  \"dt\": %.10f,\n  \"time_limit\": %g,\n  \"cases\": [\n", kDt, kTimeLimit);
  const int ncases = sizeof(kSizes) / sizeof(kSizes[0]);
  for (int c = 0; c < ncases; ++c) {
    const Level lc = make_level(name, kSizes[c]);
    std::printf("    {\n      \"n\": %d,\n      \"spacing\": %g,\n", kSizes[c], lc.spacing);
    for (int which = 0; which < 2; ++which) {
      const std::vector<Pt> &v = which == 0 ? lc.starts : lc.goals;
      std::printf("      \"%s\": [", which == 0 ? "starts" : "goals");
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::printf("%s[%.2f, %.2f]%s", i % 8 == 0 ? "\n        " : " ", v[i].x, v[i].y,
                    i + 1 < v.size() ? "," : "");
      }
      std::printf("\n      ]%s\n", which == 0 ? "," : "");
    }
    std::printf("    }%s\n", c + 1 < ncases ? "," : "");
  }
  std::printf("  ]\n}\n");
}

// ---- navmesh --------------------------------------------------------------------------------

struct Mesh {
  dtNavMesh *nav = nullptr;
  int polys = 0;
  double build_ms = 0.0, build_wall_ms = 0.0;  // process CPU and steady clock
};

void add_quad(std::vector<float> &v, std::vector<int> &t, std::vector<unsigned char> &a,
              float x0, float z0, float x1, float z1, float y, unsigned char area, bool up) {
  const int b = static_cast<int>(v.size() / 3);
  const float q[4][3] = {{x0, y, z0}, {x0, y, z1}, {x1, y, z1}, {x1, y, z0}};
  for (const auto &p : q) v.insert(v.end(), p, p + 3);
  // this winding gives an upward normal, which is what makes the ground walkable
  const int tri[6] = {0, 1, 2, 0, 2, 3};
  for (int i = 0; i < 6; ++i) t.push_back(b + (up ? tri[i] : tri[5 - i]));
  a.push_back(area);
  a.push_back(area);
}

void add_box(std::vector<float> &v, std::vector<int> &t, std::vector<unsigned char> &a,
             const Box &box) {
  const int b = static_cast<int>(v.size() / 3);
  for (int k = 0; k < 8; ++k) {
    v.push_back(k & 1 ? box.x1 : box.x0);
    v.push_back(k & 2 ? kBoxHeight : 0.0F);
    v.push_back(k & 4 ? box.y1 : box.y0);
  }
  // the six faces as corner-index quads (bit 0 = x, bit 1 = height, bit 2 = y)
  const int faces[6][4] = {{0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2},
                           {1, 3, 7, 5}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto &f : faces) {
    const int tri[6] = {f[0], f[1], f[2], f[0], f[2], f[3]};
    for (int i : tri) t.push_back(b + i);
    a.push_back(RC_NULL_AREA);  // an obstacle is never floor, its top included
    a.push_back(RC_NULL_AREA);
  }
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Recast's solo-mesh pipeline with RecastDemo's defaults except the sizes given in the
// comparison's settings (cell 0.1 m, agent radius 0.4 m); watershed partitioning.
Mesh build_mesh(const Level &l) {
  std::vector<float> verts;
  std::vector<int> tris;
  std::vector<unsigned char> areas;
  add_quad(verts, tris, areas, l.walkable.x0, l.walkable.y0, l.walkable.x1, l.walkable.y1, 0.0F,
           RC_WALKABLE_AREA, true);
  for (const Box &b : l.obstacles) add_box(verts, tris, areas, b);
  const int nverts = static_cast<int>(verts.size() / 3);
  const int ntris = static_cast<int>(tris.size() / 3);

  const float cs = 0.1F, ch = 0.1F, climb = 0.3F, slope = 45.0F;
  const float region_min = 8, region_merge = 20, edge_max_len = 12, edge_max_error = 1.3F;
  const float detail_dist = 6, detail_error = 1;
  rcConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  cfg.cs = cs;
  cfg.ch = ch;
  cfg.walkableSlopeAngle = slope;
  cfg.walkableHeight = static_cast<int>(std::ceil(kHeight / ch));
  cfg.walkableClimb = static_cast<int>(std::floor(climb / ch));
  cfg.walkableRadius = static_cast<int>(std::ceil(kRadius / cs));
  cfg.maxEdgeLen = static_cast<int>(edge_max_len / cs);
  cfg.maxSimplificationError = edge_max_error;
  cfg.minRegionArea = static_cast<int>(region_min * region_min);
  cfg.mergeRegionArea = static_cast<int>(region_merge * region_merge);
  cfg.maxVertsPerPoly = 6;
  cfg.detailSampleDist = cs * detail_dist;
  cfg.detailSampleMaxError = ch * detail_error;
  rcCalcBounds(verts.data(), nverts, cfg.bmin, cfg.bmax);
  rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);

  rcContext ctx(false);
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  rcHeightfield *hf = rcAllocHeightfield();
  rcCompactHeightfield *chf = rcAllocCompactHeightfield();
  rcContourSet *cset = rcAllocContourSet();
  rcPolyMesh *pmesh = rcAllocPolyMesh();
  rcPolyMeshDetail *dmesh = rcAllocPolyMeshDetail();
  bool ok = rcCreateHeightfield(&ctx, *hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs,
                                cfg.ch);
  ok = ok && rcRasterizeTriangles(&ctx, verts.data(), nverts, tris.data(), areas.data(), ntris,
                                  *hf, cfg.walkableClimb);
  if (ok) {
    rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *hf);
    rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *hf);
    rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *hf);
  }
  ok = ok && rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *hf, *chf);
  if (ok) {
    // Recast rasterizes surfaces, not solids: inside a box the ground lies under the box's
    // top with about its height of headroom. Clear the footprints so that never counts as
    // floor, before erosion so the radius is kept from them too.
    for (const Box &b : l.obstacles) {
      const float bmin[3] = {b.x0, -1.0F, b.y0}, bmax[3] = {b.x1, kBoxHeight + 1.0F, b.y1};
      rcMarkBoxArea(&ctx, bmin, bmax, RC_NULL_AREA, *chf);
    }
  }
  ok = ok && rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf);
  ok = ok && rcBuildDistanceField(&ctx, *chf);
  ok = ok && rcBuildRegions(&ctx, *chf, 0, cfg.minRegionArea, cfg.mergeRegionArea);
  ok = ok && rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset);
  ok = ok && rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh);
  ok = ok && rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist,
                                   cfg.detailSampleMaxError, *dmesh);
  if (!ok) {
    std::fprintf(stderr, "%s: Recast build failed\n", l.name.c_str());
    std::exit(1);
  }
  for (int i = 0; i < pmesh->npolys; ++i) pmesh->flags[i] = 1;  // any non-zero flag: walkable
  dtNavMeshCreateParams p;
  std::memset(&p, 0, sizeof(p));
  p.verts = pmesh->verts;
  p.vertCount = pmesh->nverts;
  p.polys = pmesh->polys;
  p.polyAreas = pmesh->areas;
  p.polyFlags = pmesh->flags;
  p.polyCount = pmesh->npolys;
  p.nvp = pmesh->nvp;
  p.detailMeshes = dmesh->meshes;
  p.detailVerts = dmesh->verts;
  p.detailVertsCount = dmesh->nverts;
  p.detailTris = dmesh->tris;
  p.detailTriCount = dmesh->ntris;
  p.walkableHeight = kHeight;
  p.walkableRadius = kRadius;
  p.walkableClimb = climb;
  rcVcopy(p.bmin, pmesh->bmin);
  rcVcopy(p.bmax, pmesh->bmax);
  p.cs = cfg.cs;
  p.ch = cfg.ch;
  p.buildBvTree = true;
  unsigned char *data = nullptr;
  int size = 0;
  Mesh m;
  m.nav = dtAllocNavMesh();
  if (!dtCreateNavMeshData(&p, &data, &size) ||
      dtStatusFailed(m.nav->init(data, size, DT_TILE_FREE_DATA))) {
    std::fprintf(stderr, "%s: Detour navmesh creation failed\n", l.name.c_str());
    std::exit(1);
  }
  m.build_ms = (cpu_seconds() - c0) * 1e3;
  m.build_wall_ms = ms_since(t0);
  m.polys = pmesh->npolys;
  rcFreeHeightField(hf);
  rcFreeCompactHeightfield(chf);
  rcFreeContourSet(cset);
  rcFreePolyMesh(pmesh);
  rcFreePolyMeshDetail(dmesh);
  return m;
}

// ---- crowd ----------------------------------------------------------------------------------

struct Result {
  int arrived = 0;            // agents ever within kArrival of their goal
  int home_at_end = 0;        // of those, within kArrival when the run ended (keep mode)
  double home_time = -1.0;    // all within kArrival at once, -1 if never
  double mean_arrival = 0.0;  // over arrived agents, first time within kArrival
  float deepest = 0.0F;       // deepest overlap of two present bodies at any step (m)
  int overlapped = 0;         // agents ever overlapped by more than 10 % of the radius
  double path_time = -1.0;    // every agent has had a complete path by then, -1 if never
  double cpu_ns = 0.0, wall_ns = 0.0;  // per agent-update inside dtCrowd::update
  int steps = 0;
};

// Deepest pairwise overlap among the given positions via a uniform grid of cells one
// diameter wide; flags agents overlapped by more than 10 % of the radius.
float overlaps(const std::vector<Pt> &pos, const std::vector<int> &ids, const Box &bounds,
               std::vector<char> &flagged) {
  const float cell = 2.0F * kRadius;
  const int gw = static_cast<int>((bounds.x1 - bounds.x0) / cell) + 3;
  const int gh = static_cast<int>((bounds.y1 - bounds.y0) / cell) + 3;
  auto cx = [&](float x) { return std::min(gw - 1, std::max(0, 1 + static_cast<int>((x - bounds.x0) / cell))); };
  auto cy = [&](float y) { return std::min(gh - 1, std::max(0, 1 + static_cast<int>((y - bounds.y0) / cell))); };
  static std::vector<int> start, order;
  start.assign(static_cast<std::size_t>(gw) * gh + 1, 0);
  order.resize(pos.size());
  for (const Pt &p : pos) ++start[cy(p.y) * gw + cx(p.x) + 1];
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < pos.size(); ++i) order[fill[cy(pos[i].y) * gw + cx(pos[i].x)]++] = static_cast<int>(i);
  float worst = 0.0F;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    const int x = cx(pos[i].x), y = cy(pos[i].y);
    for (int yy = std::max(0, y - 1); yy <= std::min(gh - 1, y + 1); ++yy) {
      for (int xx = std::max(0, x - 1); xx <= std::min(gw - 1, x + 1); ++xx) {
        const int c = yy * gw + xx;
        for (int k = start[c]; k < start[c + 1]; ++k) {
          const int j = order[k];
          if (j <= static_cast<int>(i)) continue;
          const float dx = pos[i].x - pos[j].x, dy = pos[i].y - pos[j].y;
          const float depth = 2.0F * kRadius - std::sqrt(dx * dx + dy * dy);
          if (depth > worst) worst = depth;
          if (depth > 0.1F * kRadius) flagged[ids[i]] = flagged[ids[j]] = 1;
        }
      }
    }
  }
  return worst;
}

Result run(const Level &l, dtNavMesh *nav, bool remove_on_arrival) {
  const int n = static_cast<int>(l.starts.size());
  dtCrowd *crowd = dtAllocCrowd();
  if (!crowd->init(n, kRadius, nav)) {
    std::fprintf(stderr, "dtCrowd::init failed\n");
    std::exit(1);
  }
  // RecastDemo's "High" quality avoidance (its setting 3), used here as type 0
  dtObstacleAvoidanceParams oa = *crowd->getObstacleAvoidanceParams(0);
  oa.velBias = 0.5F;
  oa.adaptiveDivs = 7;
  oa.adaptiveRings = 3;
  oa.adaptiveDepth = 3;
  crowd->setObstacleAvoidanceParams(0, &oa);

  dtCrowdAgentParams ap;
  std::memset(&ap, 0, sizeof(ap));
  ap.radius = kRadius;
  ap.height = kHeight;
  ap.maxAcceleration = 8.0F;
  ap.maxSpeed = kMaxSpeed;
  ap.collisionQueryRange = 12.0F * kRadius;
  ap.pathOptimizationRange = 30.0F * kRadius;
  ap.separationWeight = 2.0F;
  ap.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION |
                   DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO;
  ap.obstacleAvoidanceType = 0;

  const dtNavMeshQuery *q = crowd->getNavMeshQuery();
  const dtQueryFilter *filter = crowd->getFilter(0);
  const float *ext = crowd->getQueryHalfExtents();
  std::vector<int> slot(n);
  for (int i = 0; i < n; ++i) {
    const float s[3] = {l.starts[i].x, 0.0F, l.starts[i].y};
    const float g[3] = {l.goals[i].x, 0.0F, l.goals[i].y};
    dtPolyRef ref = 0;
    float on_mesh[3];
    if (dtStatusFailed(q->findNearestPoly(g, ext, filter, &ref, on_mesh)) || ref == 0) {
      std::fprintf(stderr, "%s: goal %d (%g, %g) is off the navmesh\n", l.name.c_str(), i, g[0], g[2]);
      std::exit(1);
    }
    slot[i] = crowd->addAgent(s, &ap);
    if (slot[i] < 0 || !crowd->requestMoveTarget(slot[i], ref, on_mesh)) {
      std::fprintf(stderr, "%s: agent %d at (%g, %g) could not be placed\n", l.name.c_str(), i, s[0], s[2]);
      std::exit(1);
    }
  }

  Result r;
  std::vector<double> arrival(n, -1.0), pathed(n, -1.0);
  std::vector<char> present(n, 1), flagged(n, 0);
  std::vector<Pt> pos;
  std::vector<int> ids;
  double cpu = 0.0, wall = 0.0, updates = 0.0;
  int remaining = n;
  const int max_steps = static_cast<int>(std::lround(kTimeLimit / kDt));
  while (r.steps < max_steps && remaining > 0) {
    ++r.steps;
    updates += remaining;
    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    crowd->update(static_cast<float>(kDt), nullptr);
    cpu += cpu_seconds() - c0;
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const double t = r.steps * kDt;

    pos.clear();
    ids.clear();
    int home = 0;
    for (int i = 0; i < n; ++i) {
      if (!present[i]) continue;
      const dtCrowdAgent *ag = crowd->getAgent(slot[i]);
      const Pt p = {ag->npos[0], ag->npos[2]};
      pos.push_back(p);
      ids.push_back(i);
      if (pathed[i] < 0 && ag->targetState == DT_CROWDAGENT_TARGET_VALID && !ag->partial &&
          ag->corridor.getLastPoly() == ag->targetRef) {
        pathed[i] = t;
      }
      const float dx = p.x - l.goals[i].x, dy = p.y - l.goals[i].y;
      if (dx * dx + dy * dy <= kArrival * kArrival) {
        ++home;
        if (arrival[i] < 0) arrival[i] = t;
      }
    }
    r.deepest = std::max(r.deepest, overlaps(pos, ids, l.walkable, flagged));
    if (remove_on_arrival) {
      for (int i = 0; i < n; ++i) {
        if (present[i] && arrival[i] >= 0) {
          crowd->removeAgent(slot[i]);
          present[i] = 0;
          --remaining;
        }
      }
      if (remaining == 0) r.home_time = t;
    } else {
      r.home_at_end = home;
      if (home == n) {
        r.home_time = t;
        break;
      }
    }
  }
  double sum = 0.0, last_path = 0.0;
  bool all_pathed = true;
  for (int i = 0; i < n; ++i) {
    if (arrival[i] >= 0) {
      ++r.arrived;
      sum += arrival[i];
    }
    if (flagged[i]) ++r.overlapped;
    // an agent taken out on arrival before its complete path came back needed none
    if (pathed[i] >= 0) last_path = std::max(last_path, pathed[i]);
    else if (!(remove_on_arrival && arrival[i] >= 0)) all_pathed = false;
  }
  r.mean_arrival = r.arrived ? sum / r.arrived : -1.0;
  r.path_time = all_pathed ? last_path : -1.0;
  r.cpu_ns = cpu * 1e9 / updates;
  r.wall_ns = wall * 1e9 / updates;
  dtFreeCrowd(crowd);
  return r;
}

std::string secs(double t) {
  if (t < 0) return "never";
  char b[32];
  std::snprintf(b, sizeof(b), "%.2f", t);
  return b;
}

void run_level(const std::string &name, int n) {
  const Level l = make_level(name, n);
  // the build is short and noisy: take the best of three
  Mesh m = build_mesh(l);
  for (int k = 0; k < 2; ++k) {
    Mesh again = build_mesh(l);
    again.build_ms = std::min(again.build_ms, m.build_ms);
    again.build_wall_ms = std::min(again.build_wall_ms, m.build_wall_ms);
    dtFreeNavMesh(m.nav);
    m = again;
  }
  for (int mode = 0; mode < 2; ++mode) {
    const Result r = run(l, m.nav, mode == 1);
    std::printf(
        "detour level=%s n=%d mode=%s spacing=%.1f arrived=%d home_at_end=%d home_time=%s "
        "mean_arrival=%.2f deepest_overlap=%.3f deepest_overlap_pct=%.1f "
        "overlapped_pct=%.1f cpu_ns_per_update=%.0f wall_ns_per_update=%.0f navmesh_ms=%.1f "
        "navmesh_wall_ms=%.1f polys=%d path_time=%s steps=%d\n",
        l.name.c_str(), n, mode == 1 ? "remove" : "keep", l.spacing, r.arrived, r.home_at_end,
        secs(r.home_time).c_str(), r.mean_arrival, r.deepest, 100.0 * r.deepest / kRadius,
        100.0 * r.overlapped / n, r.cpu_ns, r.wall_ns, m.build_ms, m.build_wall_ms, m.polys,
        secs(r.path_time).c_str(), r.steps);
    std::fflush(stdout);
  }
  dtFreeNavMesh(m.nav);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "run") == 0) {
    run_level(argv[2], std::atoi(argv[3]));
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "level") == 0) {
    print_level(argv[2]);
    return 0;
  }
  std::fprintf(stderr, "usage: compare run LEVEL N | compare level LEVEL\n");
  return 2;
}
