// network_test.cc — the network's paths keyed by (client, authority source key): the keyed
// daemon path is exactly the client-only one (same draws, same event order), and two endpoints
// of one client are separate paths (own epoch, partition and latency/loss stream); every draw
// is keyed by its message (path, send ms, ordinal), so one message fewer — or another client's
// traffic — leaves the other messages' latency, loss and duplication as they were.
#include "sim/world/network.h"

#include <map>
#include <string>
#include <vector>

#include "base/source_key.h"
#include "base/str_util.h"
#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

NetworkConfig Lossy() {
  NetworkConfig c;
  c.latency_ms_min = 1;
  c.latency_ms_max = 50;
  c.push_loss_per_mille = 200;
  c.push_dup_per_mille = 200;
  c.ack_loss_per_mille = 200;
  return c;
}

struct Net {
  EventQueue queue;
  std::map<std::string, int64_t> counters;
  Network net{&queue, Rng(42).Fork("network"), Lossy(), &counters};
  std::vector<std::string> log;

  void Drain() {
    while (queue.RunNext()) {
    }
  }
  std::function<void()> Note(const std::string& what) {
    return [this, what] { log.push_back(StrCat(what, "@", queue.now_ms())); };
  }
};

// The same script twice: once through the client-only methods, once keyed by kDaemonSource.
void Script(Net& n, bool keyed) {
  const std::string d(kDaemonSource);
  for (const std::string c : {"c0", "c1"}) keyed ? n.net.Connect(c, d) : n.net.Connect(c);
  for (int i = 0; i < 40; ++i) {
    const std::string c = i % 2 == 0 ? "c0" : "c1";
    const std::string tag = StrCat(c, "/", i);
    auto deliver = [&n, tag] {
      n.log.push_back(StrCat("push:", tag, "@", n.queue.now_ms()));
      return true;
    };
    if (keyed) {
      n.net.SendToServer(c, d, n.Note("up:" + tag));
      n.net.SendToClient(c, d, n.Note("down:" + tag));
      n.net.Push(c, d, deliver, n.Note("ack:" + tag));
    } else {
      n.net.SendToServer(c, n.Note("up:" + tag));
      n.net.SendToClient(c, n.Note("down:" + tag));
      n.net.Push(c, deliver, n.Note("ack:" + tag));
    }
    if (i == 10) keyed ? n.net.Partition("c1", d, 30) : n.net.Partition("c1", 30);
    if (i == 20) keyed ? n.net.Break("c0", d) : n.net.Break("c0");
    if (i == 25) keyed ? n.net.Connect("c0", d) : n.net.Connect("c0");
    if (i % 5 == 4) n.queue.RunNext();
  }
  n.Drain();
  n.log.push_back(StrCat("epochs:", n.net.epoch("c0", d), ",", n.net.epoch("c1")));
}

TEST(NetworkPaths, KeyedDaemonPathEqualsClientOnly) {
  Net old_api;
  Net keyed;
  Script(old_api, /*keyed=*/false);
  Script(keyed, /*keyed=*/true);
  EXPECT_GT(old_api.log.size(), 40u);
  EXPECT_EQ(old_api.log, keyed.log);
  EXPECT_EQ(old_api.counters, keyed.counters);
  EXPECT_GT(old_api.counters["fault.push_lost"], 0);
}

TEST(NetworkPaths, TwoEndpointsOfOneClientAreSeparatePaths) {
  Net n;
  const std::string room = RoomSourceKey("doc:X");
  n.net.Connect("c0");
  n.net.Connect("c0", room);
  n.net.Partition("c0", 100);
  EXPECT_TRUE(n.net.partitioned("c0"));
  EXPECT_FALSE(n.net.up("c0"));
  EXPECT_FALSE(n.net.partitioned("c0", room));
  EXPECT_TRUE(n.net.up("c0", room));
  EXPECT_EQ(n.net.epoch("c0", room), 1);
  n.net.SendToServer("c0", room, n.Note("room-up"));
  n.net.SendToServer("c0", n.Note("daemon-up"));  // the daemon link is down: dropped
  n.Drain();
  ASSERT_EQ(n.log.size(), 1u);
  EXPECT_EQ(n.log[0].substr(0, 8), "room-up@");
}

TEST(NetworkPaths, RoomTrafficDoesNotShiftTheDaemonDraws) {
  Net alone;
  Net beside;
  const std::string room = RoomSourceKey("doc:X");
  alone.net.Connect("c0");
  beside.net.Connect("c0");
  beside.net.Connect("c0", room);
  for (int i = 0; i < 20; ++i) {
    alone.net.SendToClient("c0", alone.Note(StrCat("d", i)));
    beside.net.SendToClient("c0", room, [] {});
    beside.net.SendToClient("c0", beside.Note(StrCat("d", i)));
  }
  alone.Drain();
  beside.Drain();
  EXPECT_EQ(alone.log, beside.log);
}

TEST(NetworkPathsDeathTest, MalformedSourceKeyIsAProgrammerError) {
  Net n;
  EXPECT_DEATH(n.net.Connect("c0", "dameon"), "malformed source key");
  EXPECT_DEATH(n.net.Connect("c0", "room:"), "malformed source key");
}

// Issue 15 "shrinks that reach the minimum": c1's traffic, and one extra c0 push (sent after
// c0's own push in the same ms), do not re-roll c0's latencies, losses, duplicates or ack losses.
TEST(NetworkPaths, OneMessageFewerLeavesTheOthersDrawsAlone) {
  auto script = [](Net& n, bool with_c1, bool extra_c0_push) {
    n.net.Connect("c0");
    n.net.Connect("c1");
    for (int i = 0; i < 30; ++i) {
      const std::string tag = StrCat(i);
      n.queue.ScheduleAt(7 * i, [&n, tag, i, with_c1, extra_c0_push] {
        n.net.Push(
            "c0",
            [&n, tag] {
              n.log.push_back(StrCat("push:", tag, "@", n.queue.now_ms()));
              return true;
            },
            n.Note("ack:" + tag));
        if (with_c1) {
          n.net.SendToClient("c1", [] {});
          n.net.Push("c1", [] { return true; }, [] {});
        }
        if (i == 3 && extra_c0_push) n.net.Push("c0", [] { return true; }, [] {});
      });
      n.queue.ScheduleAt(7 * i + 3, [&n, tag] { n.net.SendToServer("c0", n.Note("up:" + tag)); });
    }
    n.Drain();
  };
  Net base;
  Net busy;
  Net more;
  script(base, /*with_c1=*/false, /*extra_c0_push=*/false);
  script(busy, /*with_c1=*/true, /*extra_c0_push=*/false);
  script(more, /*with_c1=*/true, /*extra_c0_push=*/true);
  EXPECT_GT(base.log.size(), 30u);
  EXPECT_GT(base.counters["fault.push_lost"], 0);
  EXPECT_EQ(base.log, busy.log);
  EXPECT_EQ(base.log, more.log);
}

}  // namespace
}  // namespace rindle::sim
