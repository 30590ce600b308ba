// event_queue_test.cc — virtual clock and event ordering: time order, insertion-order
// tie-break, no scheduling into the past.
#include "sim/world/event_queue.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rindle::sim {
namespace {

TEST(EventQueueTest, StartsEmptyAtTimeZero) {
  EventQueue q;
  EXPECT_EQ(q.now_ms(), 0);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.next_time().has_value());
  EXPECT_FALSE(q.RunNext());
  EXPECT_EQ(q.now_ms(), 0);
}

TEST(EventQueueTest, RunsEventsInTimeOrderAndAdvancesTheClock) {
  EventQueue q;
  std::vector<std::string> log;
  q.Schedule(30, [&] { log.push_back("c@" + std::to_string(q.now_ms())); });
  q.Schedule(10, [&] { log.push_back("a@" + std::to_string(q.now_ms())); });
  q.Schedule(20, [&] { log.push_back("b@" + std::to_string(q.now_ms())); });
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.next_time(), 10);
  while (q.RunNext()) {
  }
  EXPECT_EQ(log, (std::vector<std::string>{"a@10", "b@20", "c@30"}));
  EXPECT_EQ(q.now_ms(), 30);
  EXPECT_EQ(q.executed(), 3);
}

TEST(EventQueueTest, BreaksTiesByInsertionOrder) {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 10; ++i) q.ScheduleAt(5, [&order, i] { order.push_back(i); });
  while (q.RunNext()) {
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(EventQueueTest, EventScheduledForNowRunsAfterEventsAlreadyDue) {
  EventQueue q;
  std::vector<std::string> order;
  q.Schedule(5, [&] {
    order.push_back("first");
    q.Schedule(0, [&] { order.push_back("spawned"); });
  });
  q.Schedule(5, [&] { order.push_back("second"); });
  while (q.RunNext()) {
  }
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second", "spawned"}));
  EXPECT_EQ(q.now_ms(), 5);
}

TEST(EventQueueTest, NeverSchedulesIntoThePast) {
  EventQueue q;
  q.Schedule(100, [] {});
  ASSERT_TRUE(q.RunNext());
  ASSERT_EQ(q.now_ms(), 100);
  int64_t ran_at = -1;
  q.ScheduleAt(40, [&] { ran_at = q.now_ms(); });
  EXPECT_EQ(q.next_time(), 100);
  ASSERT_TRUE(q.RunNext());
  EXPECT_EQ(ran_at, 100);
  q.Schedule(-25, [&] { ran_at = q.now_ms() + 1; });
  EXPECT_EQ(q.next_time(), 100);
  ASSERT_TRUE(q.RunNext());
  EXPECT_EQ(ran_at, 101);
}

TEST(EventQueueTest, HugeDelayIsClampedInsteadOfOverflowing) {
  EventQueue q;
  q.Schedule(10, [] {});
  ASSERT_TRUE(q.RunNext());
  q.Schedule(std::numeric_limits<int64_t>::max(), [] {});
  EXPECT_EQ(q.next_time(), std::numeric_limits<int64_t>::max());
}

TEST(EventQueueTest, SameScheduleGivesSameExecutionOrder) {
  auto run = [] {
    EventQueue q;
    std::vector<int> order;
    for (int i = 0; i < 50; ++i) {
      q.Schedule((i * 7) % 5, [&order, &q, i] {
        order.push_back(i);
        if (i % 3 == 0) q.Schedule(i % 4, [&order, i] { order.push_back(1000 + i); });
      });
    }
    while (q.RunNext()) {
    }
    return order;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace rindle::sim
