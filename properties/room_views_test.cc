// room_views_test.cc — the room view plane's action-time checks (room_views.h).
#include "properties/room_views.h"

#include "gtest/gtest.h"

namespace rindle::props {
namespace {

PlainTables Users(std::vector<std::pair<std::string, std::string>> rows) {
  PlainTables t;
  PlainTable& u = t["user"];
  for (auto& [id, name] : rows) u.emplace(RowValues{Value::String(id)}, RowValues{Value::String(id), Value::String(name)});
  return t;
}

TEST(RoomContextUntouchedTest, AllowsRemovalsRefusesAddsAndEdits) {
  const PlainTables before = Users({{"u1", "Ann"}, {"u2", "Bob"}});
  EXPECT_FALSE(CheckRoomContextUntouched("c0", "room:issue:i1", before, before));
  EXPECT_FALSE(CheckRoomContextUntouched("c0", "room:issue:i1", before, Users({{"u1", "Ann"}})));
  auto added = CheckRoomContextUntouched("c0", "room:issue:i1", before,
                                         Users({{"u1", "Ann"}, {"u2", "Bob"}, {"u3", "Cy"}}));
  ASSERT_TRUE(added);
  EXPECT_EQ(added->property, "room-context-leak");
  EXPECT_NE(added->message.find("added"), std::string::npos);
  auto edited = CheckRoomContextUntouched("c0", "room:issue:i1", before,
                                          Users({{"u1", "Old Ann"}, {"u2", "Bob"}}));
  ASSERT_TRUE(edited);
  EXPECT_NE(edited->message.find("changed"), std::string::npos);
}

TEST(GhostFenceTest, BelowTheFenceTheGhostAndItsSwappedViewsHold) {
  const std::string key = "room:issue:i1";
  EXPECT_FALSE(CheckGhostFence("c0", key, 1, 2, {}, true, {{5, key}, {6, key}}));
  auto early = CheckGhostFence("c0", key, 1, 2, {}, true, {{5, key}, {6, std::nullopt}});
  ASSERT_TRUE(early);
  EXPECT_EQ(early->property, "room-ghost-fence");
  EXPECT_NE(early->message.find("view 6 swapped back"), std::string::npos) << early->message;
  auto gone = CheckGhostFence("c0", key, 0, 2, {}, false, {});
  ASSERT_TRUE(gone);
  EXPECT_NE(gone->message.find("is gone"), std::string::npos) << gone->message;
  // The fence met: the client may drop the ghost and swap back.
  EXPECT_FALSE(CheckGhostFence("c0", key, 2, 2, {}, false, {{5, std::nullopt}}));
}

// The fence met but a sent room mid unresolved: a stuck ghost holds (no timeout retire).
TEST(GhostFenceTest, AStuckGhostHoldsWhileASentRoomMidIsUnresolved) {
  const std::string key = "room:issue:i1";
  EXPECT_FALSE(CheckGhostFence("c0", key, 2, 2, {3}, true, {{5, key}}));
  auto dropped = CheckGhostFence("c0", key, 2, 2, {3, 4}, false, {});
  ASSERT_TRUE(dropped);
  EXPECT_NE(dropped->message.find("is gone although sent room mids 3,4 are unresolved"),
            std::string::npos)
      << dropped->message;
  auto back = CheckGhostFence("c0", key, 5, 2, {3}, true, {{5, std::nullopt}});
  ASSERT_TRUE(back);
  EXPECT_NE(back->message.find("view 5 swapped back"), std::string::npos) << back->message;
}

TEST(StuckEventTest, OncePerGhostNamingExactlyTheUnresolvedMids) {
  EXPECT_FALSE(CheckStuckEvent("c0", "room:issue:i1", 0, {2, 3}, {2, 3}));
  auto twice = CheckStuckEvent("c0", "room:issue:i1", 1, {2, 3}, {2, 3});
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->property, "room-stuck");
  EXPECT_TRUE(CheckStuckEvent("c0", "room:issue:i1", 0, {2}, {2, 3}));      // one missing
  EXPECT_TRUE(CheckStuckEvent("c0", "room:issue:i1", 0, {1, 2, 3}, {2, 3}));  // a resolved one
  EXPECT_TRUE(CheckStuckEvent("c0", "room:issue:i1", 0, {2, 2}, {2}));        // named twice
}

}  // namespace
}  // namespace rindle::props
