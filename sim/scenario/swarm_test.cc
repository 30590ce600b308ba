// swarm_test.cc — swarm testing (sim/scenario/swarm.h): the draw varies per seed, the generated scenario
// records it and obeys it (disabled mutators and fault kinds never appear), and --swarm off is
// the default mix.
#include "sim/scenario/swarm.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {
namespace {

TEST(SwarmTest, GeneratedScenariosObeyTheirDraw) {
  std::set<std::string> draws;
  int disabled_somewhere = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed);
    ASSERT_TRUE(s.ok()) << s.status();
    const nlohmann::json& swarm = s->swarm;
    ASSERT_EQ(swarm["swarm"], true);
    draws.insert(swarm.dump());
    std::map<int, std::string> in_room;  // client → the room doc it is connected to
    for (const auto& a : s->actions) {
      if (a.kind == ScenarioAction::Kind::kRoomConnect) in_room[a.client] = a.doc;
      if (a.kind == ScenarioAction::Kind::kRoomDisconnect) in_room.erase(a.client);
      if (a.kind == ScenarioAction::Kind::kMutate) {
        // Fallbacks (no target known) may pick createIssue / addComment / addTag; the room
        // sessions' own workload (room_sessions.h: comments and thread moves into the room the
        // client is in) is drawn by room_connect_per_mille, not the mutator mix.
        const bool fallback =
            a.name == "createIssue" || a.name == "addComment" || a.name == "addTag";
        const std::optional<std::string> doc = RoomDocFor(a.name, a.args);
        const bool room_session = doc && in_room.contains(a.client) && in_room[a.client] == *doc;
        EXPECT_TRUE(swarm["mutators"][a.name].get<int>() > 0 || fallback || room_session)
            << "seed " << seed << " used disabled mutator " << a.name;
      }
      if (a.kind == ScenarioAction::Kind::kRelease && a.handle > 0) {
        EXPECT_GT(swarm["release_per_mille"].get<int>(), 0) << "seed " << seed;
      }
    }
    std::map<std::string, int> fired;
    for (const auto& f : s->faults) ++fired[std::string(FaultKindName(f.kind))];
    for (const auto& [kind, count] : swarm["faults"].items()) {
      EXPECT_EQ(fired[kind], count.get<int>()) << "seed " << seed << " " << kind;
      disabled_somewhere += count.get<int>() == 0 ? 1 : 0;
    }
    if (!swarm["network_faults"]["push_dup"].get<bool>()) {
      EXPECT_EQ(s->config.network.push_dup_per_mille, 0u);
    }
  }
  EXPECT_GT(draws.size(), 30u);  // the draw varies per seed
  EXPECT_GT(disabled_somewhere, 0);
}

TEST(SwarmTest, SwarmOffIsTheDefaultMix) {
  const WorkloadMix def = DefaultWorkloadMix();
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed, {.swarm = false});
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->swarm["swarm"], false);
    for (const auto& [name, weight] : def.weights) {
      EXPECT_EQ(s->swarm["mutators"][name].get<uint32_t>(), weight) << name;
    }
    EXPECT_EQ(s->swarm["retain_per_mille"], 80);
    EXPECT_EQ(s->swarm["release_per_mille"], 60);
  }
}

TEST(SwarmTest, DrawIsAPureFunctionOfTheRng) {
  Rng a(7);
  Rng b(7);
  EXPECT_EQ(DrawSwarm(a, true).ToJson(), DrawSwarm(b, true).ToJson());
}

}  // namespace
}  // namespace rindle::sim
