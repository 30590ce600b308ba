// room_isolation_test.cc — the room plane's per-frame checks in properties/families.h:
// channel-isolation and room-watermark.
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "properties/families.h"

namespace rindle::props {
namespace {

using Marks = std::map<std::string, std::pair<int64_t, size_t>>;

TEST(ChannelIsolationTest, OnlyTheDeliveringChannelMoves) {
  const Marks before = {{"daemon", {4, 0}}, {"room:issue:i1", {2, 1}}};
  EXPECT_FALSE(CheckChannelIsolation("c0", "daemon", before,
                                     {{"daemon", {6, 0}}, {"room:issue:i1", {2, 1}}}));
  auto moved = CheckChannelIsolation("c0", "daemon", before,
                                     {{"daemon", {6, 0}}, {"room:issue:i1", {0, 0}}});
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->property, "channel-isolation");
  EXPECT_NE(moved->message.find("room:issue:i1"), std::string::npos) << moved->message;
}

TEST(RoomWatermarkTest, EqualsTheHighestReleased) {
  const std::map<std::string, int64_t> released = {{"issue:i1", 3}, {"issue:i2", 1}};
  EXPECT_FALSE(CheckRoomWatermarks("c0", released, {{"issue:i1", 3}, {"issue:i2", 1}}));
  auto ahead = CheckRoomWatermarks("c0", released, {{"issue:i1", 4}, {"issue:i2", 1}});
  ASSERT_TRUE(ahead);
  EXPECT_EQ(ahead->property, "room-watermark");
  EXPECT_NE(ahead->message.find("highest flush_seq released to it is 3"), std::string::npos)
      << ahead->message;
  auto unreleased = CheckRoomWatermarks("c0", released, {{"issue:i1", 3}, {"issue:i2", 1}, {"issue:i9", 1}});
  ASSERT_TRUE(unreleased);
  // Behind: an older row overwrote the fence (042-room-watermark-overwrites), or a doc's fence
  // is missing altogether.
  auto behind = CheckRoomWatermarks("c0", released, {{"issue:i1", 2}, {"issue:i2", 1}});
  ASSERT_TRUE(behind);
  EXPECT_NE(behind->message.find("fell back"), std::string::npos) << behind->message;
  auto missing = CheckRoomWatermarks("c0", released, {{"issue:i1", 3}});
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->message.find("roomWatermarks[issue:i2] is 0"), std::string::npos)
      << missing->message;
}

}  // namespace
}  // namespace rindle::props
