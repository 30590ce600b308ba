// room_sessions_test.cc — the generator's room pass (room_sessions.h) over generated seeds: each
// room_connect opens the issue's detail with a fresh handle; thread moves name a comment of
// another issue's thread and come with a reply 0..2 ms later; room_flush_link_down sits 1 ms
// before a room-declared invoke of its client on its doc; the recorded draw counts every fault
// placed; and the pass is a pure function of the seed.
#include "sim/scenario/room_sessions.h"

#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "sim/scenario/scenario_generator.h"
#include "sim/scenario/scenario_kinds.h"
#include "sim/scenario/placed_faults_testing.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {
namespace {

TEST(RoomSessionsTest, SessionsOpenTheIssueMovesComeWithARepliesAndFaultsAreAimed) {
  int moves = 0, link_downs = 0, connects = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed);
    ASSERT_TRUE(s.ok()) << s.status();
    std::map<std::string, std::string> seed_issue_of;  // seed comment → its issue
    for (const RowValues& r : s->seed_rows.at("comment")) {
      seed_issue_of[r[0].as_string()] = r[1].as_string();
    }
    std::map<int, std::set<int64_t>> handles;  // per client, every retain handle
    for (const ScenarioAction& a : s->actions) {
      if (a.kind == ScenarioAction::Kind::kRetain) {
        EXPECT_TRUE(handles[a.client].insert(a.handle).second)
            << "seed " << seed << ": handle " << a.handle << " retained twice";
      }
    }
    for (size_t i = 0; i < s->actions.size(); ++i) {
      const ScenarioAction& a = s->actions[i];
      if (a.kind == ScenarioAction::Kind::kRoomConnect) {
        ++connects;
        bool opened = false;
        for (const ScenarioAction& b : s->actions) {
          opened = opened || (b.kind == ScenarioAction::Kind::kRetain && b.client == a.client &&
                              b.t_ms == a.t_ms && b.query.name == "issueDetail" &&
                              IssueDoc(b.query.args.get<std::string>()) == a.doc);
        }
        EXPECT_TRUE(opened) << "seed " << seed << ": room_connect " << a.doc << " without its issue";
      }
      if (a.kind != ScenarioAction::Kind::kMutate || a.name != "moveComment" ||
          !seed_issue_of.contains(a.args["id"].get<std::string>())) {
        continue;
      }
      // A thread move (the workload's own moveComments pick any comment and issue): its reply.
      bool replied = false;
      for (const ScenarioAction& b : s->actions) {
        replied = replied || (b.client == a.client && b.name == "addComment" &&
                              b.args["issueId"] == a.args["issueId"] && b.t_ms >= a.t_ms &&
                              b.t_ms <= a.t_ms + 2 &&
                              b.args["body"].get<std::string>() == "re: moved here");
      }
      if (replied) {
        ++moves;
        EXPECT_NE(seed_issue_of.at(a.args["id"].get<std::string>()),
                  a.args["issueId"].get<std::string>())
            << "seed " << seed << ": a thread move of a comment already in the thread";
      }
    }
    for (const ScenarioFault& f : s->faults) {
      if (f.kind != ScenarioFault::Kind::kRoomFlushLinkDown) continue;
      ++link_downs;
      bool aimed = false;
      for (const ScenarioAction& b : s->actions) {
        const std::optional<std::string> doc = RoomDocFor(b.name, b.args);
        aimed = aimed || (b.kind == ScenarioAction::Kind::kMutate && b.client == f.client &&
                          doc == f.doc && b.t_ms == f.t_ms + 1);
      }
      EXPECT_TRUE(aimed) << "seed " << seed << ": room_flush_link_down at " << f.t_ms;
    }
    ExpectFaultsPlacedAsDrawn(*s, seed);
    absl::StatusOr<Scenario> again = GenerateScenario(seed);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->actions.size(), s->actions.size());
    EXPECT_EQ(again->faults.size(), s->faults.size());
  }
  EXPECT_GT(connects, 20);
  EXPECT_GT(moves, 20);
  EXPECT_GT(link_downs, 10);
}

// flush_lag opens 1 ms before a room-declared invoke on its doc, and room_crash comes the
// latency ceiling + 5 ms after one (room_sessions.cc PlaceRoomFaults) — unless the doc has no
// later invoke, which is rare.
TEST(RoomSessionsTest, FlushLagsAndCrashesAreAimedAtConfirmedWrites) {
  int lags = 0, lags_aimed = 0, crashes = 0, crashes_aimed = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    absl::StatusOr<Scenario> s = GenerateScenario(seed);
    ASSERT_TRUE(s.ok()) << s.status();
    const int64_t after = s->config.network.latency_ms_max + 5;
    for (const ScenarioFault& f : s->faults) {
      const bool lag = f.kind == ScenarioFault::Kind::kFlushLag;
      const bool crash = f.kind == ScenarioFault::Kind::kRoomCrash;
      if (!lag && !crash) continue;
      bool aimed = false;
      for (const ScenarioAction& b : s->actions) {
        if (b.kind != ScenarioAction::Kind::kMutate || RoomDocFor(b.name, b.args) != f.doc) continue;
        aimed = aimed || (lag ? b.t_ms == f.t_ms + 1 : b.t_ms + after == f.t_ms);
      }
      (lag ? lags : crashes) += 1;
      (lag ? lags_aimed : crashes_aimed) += aimed ? 1 : 0;
    }
  }
  EXPECT_GT(lags, 20);
  EXPECT_GT(crashes, 20);
  EXPECT_GT(lags_aimed * 10, lags * 7) << lags_aimed << " of " << lags;
  EXPECT_GT(crashes_aimed * 10, crashes * 7) << crashes_aimed << " of " << crashes;
}

}  // namespace
}  // namespace rindle::sim
