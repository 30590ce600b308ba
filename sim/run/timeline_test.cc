// timeline_test.cc — the failure report's page content (timeline.h) and what the run's observer
// puts in it (run_observer.h): the lanes, every message kept (no cap: 6,000 and more), labels
// that cannot break out of the page's JSON, the expected-versus-actual table, and — for a real
// run with lossy pushes — message counts that agree with the network's own counters, with the
// digest unchanged by the report.
#include "sim/run/timeline.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/str_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_generator.h"

namespace rindle::sim {
namespace {

// The JSON block of a page.
nlohmann::json PageData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"rindle-data\">";
  const size_t from = html.find(open);
  EXPECT_NE(from, std::string::npos);
  const size_t to = html.find("</script>", from);
  return nlohmann::json::parse(html.substr(from + open.size(), to - from - open.size()));
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Timeline::Message Msg(const std::string& from, const std::string& to, int64_t t,
                      const std::string& kind) {
  Timeline::Message m;
  m.from = from;
  m.to = to;
  m.t0 = t;
  m.t1 = t + 5;
  m.kind = kind;
  m.label = kind + " " + std::to_string(t);
  m.fate = "delivered";
  return m;
}

TEST(TimelineTest, KeepsEveryMessageOfALongRunTheLastOnesIncluded) {
  // Today's cap dropped everything past 4,000 — where a failure usually is.
  Timeline tl({"authority", "authority/c0", "c0"});
  for (int64_t i = 0; i < 6500; ++i) {
    const size_t k = tl.AddMessage(Msg(i % 2 ? "c0" : "authority/c0",
                                       i % 2 ? "authority/c0" : "c0", i, i % 2 ? "push" : "batch"));
    if (i % 100 == 7) tl.Resolve(k, "lost", i + 2, i);
  }
  tl.Failure(6600, 6500, "view==fresh", "boom");
  const std::string html = tl.Html("t");
  const nlohmann::json data = PageData(html);
  ASSERT_EQ(data["msgs"].size(), 6500u);
  EXPECT_EQ(data["msgs"].back()["l"], "push 6499");
  EXPECT_EQ(data["msgs"][6499]["a"], 6499);
  int lost = 0;
  for (const auto& m : data["msgs"]) lost += m["x"] == "lost";
  EXPECT_EQ(lost, 65);
  EXPECT_EQ(data["end_ms"], 6600);
  EXPECT_EQ(html.find("left out"), std::string::npos);
}

TEST(TimelineTest, LanesComeInOrderAndANewLaneIsAppended) {
  Timeline tl({"authority", "authority/c0", "c0", "authority/c1", "c1"});
  tl.Mark("c1", 10, 3, "retain issues", "action");
  tl.AddMessage(Msg("c0", "room:r1/c0", 12, "push"));
  const nlohmann::json data = tl.Data("t");
  EXPECT_EQ(data["lanes"], nlohmann::json({"authority", "authority/c0", "c0", "authority/c1", "c1",
                                           "room:r1/c0"}));
  EXPECT_EQ(data["marks"][0]["n"], 4);
  EXPECT_EQ(data["msgs"][0]["f"], 2);
  EXPECT_EQ(data["msgs"][0]["t"], 5);
}

TEST(TimelineTest, ManyClientsGiveTwoLanesEachNotAFixedWidthPicture) {
  std::vector<std::string> lanes = {"authority"};
  for (int i = 0; i < 16; ++i) {
    lanes.push_back(StrCat("authority/c", i));
    lanes.push_back(StrCat("c", i));
  }
  Timeline tl(lanes);
  for (int i = 0; i < 16; ++i) {
    tl.AddMessage(Msg(StrCat("c", i), StrCat("authority/c", i), i, "push"));
  }
  const std::string html = tl.Html("many");
  EXPECT_EQ(PageData(html)["lanes"].size(), 33u);
  EXPECT_NE(html.find("<canvas id=\"tl\""), std::string::npos);  // drawn to the window's width
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(TimelineTest, NoLabelCanCloseThePagesScriptOrInjectMarkup) {
  Timeline tl({"authority", "c0"});
  tl.Mark("c0", 1, 1, "</script><script>alert(1)</script>", "action");
  tl.AddMessage(Msg("c0", "authority", 2, "push"));
  tl.Failure(3, 2, "p<b>", "x</script> & \xff bad utf8");
  const std::string html = tl.Html("a </title> title");
  const std::string open = "<script type=\"application/json\" id=\"rindle-data\">";
  const size_t from = html.find(open) + open.size();
  const size_t to = html.find("</script>", from);
  const std::string json = html.substr(from, to - from);
  EXPECT_EQ(json.find('<'), std::string::npos);
  const nlohmann::json data = nlohmann::json::parse(json);
  EXPECT_EQ(data["marks"][0]["l"], "</script><script>alert(1)</script>");
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("a &lt;/title&gt; title"), std::string::npos);
}

TEST(TimelineTest, TheFailurePanelShowsExpectedVersusActualFromTheMessage) {
  const std::string message =
      "c0 view q3 (issuesByOwner): differs from the fresh query\n"
      "  issue[id=\"i3\"].title: expected \"a\", got \"b\"\n"
      "  issue[id=\"i4\"]: expected row {\"id\":\"i4\"}, got (missing)";
  const std::vector<ExpectedActual> lines = ExpectedVersusActual(message);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].where, "issue[id=\"i3\"].title");
  EXPECT_EQ(lines[0].expected, "\"a\"");
  EXPECT_EQ(lines[0].actual, "\"b\"");
  EXPECT_EQ(lines[1].actual, "(missing)");
  EXPECT_TRUE(ExpectedVersusActual("not quiescent after 120 steps").empty());

  Timeline tl({"authority", "c0"});
  tl.Failure(40, 17, "view==fresh", message);
  const std::string html = tl.Html("t");
  EXPECT_NE(html.find("<table id=\"diff\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"where\">issue[id=&quot;i3&quot;].title</td>"
                      "<td class=\"exp\">&quot;a&quot;</td><td class=\"act\">&quot;b&quot;</td>"),
            std::string::npos)
      << html.substr(0, 3000);
  EXPECT_NE(html.find("id=\"failstep\" data-step=\"17\""), std::string::npos);
  EXPECT_EQ(PageData(html)["failure"]["diff"].size(), 2u);
}

// A generated run with lossy pushes and acks: the page's messages agree with the network's
// counters (both see the same sends), and writing the page changes no digest.
TEST(TimelineObserverTest, ARunsPageCountsLossesDuplicatesAndAcksLikeTheNetwork) {
  absl::StatusOr<Scenario> s = GenerateScenario(6, {true});
  ASSERT_TRUE(s.ok()) << s.status();
  s->config.network.push_loss_per_mille = 150;
  s->config.network.push_dup_per_mille = 150;
  s->config.network.ack_loss_per_mille = 150;
  RunOptions plain;
  const RunResult without = RunScenario(*s, plain);
  RunOptions with;
  with.timeline_path = ::testing::TempDir() + "/timeline_observer_test.html";
  const RunResult r = RunScenario(*s, with);
  EXPECT_EQ(r.digest, without.digest);
  const nlohmann::json data = PageData(Slurp(with.timeline_path));
  int pushes = 0, push_lost = 0, push_dup = 0, acks = 0, ack_lost = 0;
  for (const auto& m : data["msgs"]) {
    if (m["k"] == "push") {
      ++pushes;
      push_lost += m["x"] == "lost";
      push_dup += m["d"].get<bool>();
    }
    if (m["k"] == "ack") {
      ++acks;
      ack_lost += m["x"] == "lost";
    }
  }
  auto counter = [&](const std::string& name) {
    auto it = r.counters.find(name);
    return it == r.counters.end() ? 0 : static_cast<int>(it->second);
  };
  EXPECT_GT(pushes, 0);
  EXPECT_EQ(push_lost, counter("fault.push_lost"));
  EXPECT_EQ(push_dup, counter("fault.push_duplicated"));
  EXPECT_EQ(ack_lost, counter("fault.ack_lost"));
  EXPECT_GT(push_lost + push_dup + ack_lost, 0);
  EXPECT_GT(acks, 0);
  // Every client has its lane and its authority channel's lane.
  for (int i = 0; i < s->config.clients; ++i) {
    const nlohmann::json& lanes = data["lanes"];
    EXPECT_NE(std::find(lanes.begin(), lanes.end(), StrCat("c", i)), lanes.end());
    EXPECT_NE(std::find(lanes.begin(), lanes.end(), StrCat("authority/c", i)), lanes.end());
  }
}

}  // namespace
}  // namespace rindle::sim
