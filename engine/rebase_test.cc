#include "engine/rebase.h"

#include <gtest/gtest.h>

#include "engine/db.h"
#include "base/source_key.h"

namespace rindle {
namespace {

TableSpec ItemSpec() {
  TableSpec s;
  s.columns = {{"id", ColumnType::kString, false}, {"n", ColumnType::kNumber, false}};
  s.primary_key = {0};
  return s;
}

RowValues Item(const std::string& id, int64_t n) { return {Value::String(id), Value::Int(n)}; }

ServerDeltaOp AddOp(const std::string& id, int64_t n) {
  return {"item", ServerDeltaOp::Type::kAdd, Item(id, n), {}};
}

class RebaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.RegisterTable("item", ItemSpec(), /*local=*/false).ok());
    ASSERT_TRUE(db.ServerBatchBegin({AddOp("a", 1)}).ok());
    ASSERT_TRUE(db.ServerBatchEnd().ok());
    // One pending optimistic write: head has "b", sync does not.
    auto tx = db.Write();
    ASSERT_TRUE(tx->Add("item", Item("b", 2)).ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  Db db;
};

TEST_F(RebaseTest, ServerBatchBeginRefusesANonDaemonSourceKeyNamingItAndChangesNothing) {
  const std::string room = RoomSourceKey("doc:X");
  absl::Status s = db.ServerBatchBegin(room, {AddOp("c", 3)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(std::string(s.message()).find("unknown source key \"room:doc:X\""), std::string::npos)
      << s;
  EXPECT_NE(std::string(s.message()).find("attached to no table by addRoomSource"),
            std::string::npos)
      << s;
  EXPECT_FALSE(db.in_server_batch());
  // The optimistic layer was not rewound and the delta was not folded.
  EXPECT_EQ(*db.TableRows("item"), (std::vector<RowValues>{Item("a", 1), Item("b", 2)}));
  EXPECT_EQ(*db.SyncRows("item"), (std::vector<RowValues>{Item("a", 1)}));
  // The daemon key still opens a cycle afterwards.
  EXPECT_TRUE(db.ServerBatchBegin(kDaemonSource, {}).ok());
  EXPECT_TRUE(db.ServerBatchEnd().ok());
}

TEST_F(RebaseTest, AFailingDeltaOpIsNamedAndChangesNothing) {
  const std::vector<ServerDeltaOp> deltas = {AddOp("c", 3), AddOp("a", 9)};
  absl::Status s = db.ServerBatchBegin(deltas);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(std::string(s.message()).find("delta[1] (item): add of existing pk"),
            std::string::npos)
      << s;
  EXPECT_FALSE(db.in_server_batch());
  EXPECT_EQ(*db.TableRows("item"), (std::vector<RowValues>{Item("a", 1), Item("b", 2)}));
  EXPECT_EQ(*db.SyncRows("item"), (std::vector<RowValues>{Item("a", 1)}));
}

// The seam on its own: Begin rewinds the optimistic row, folds the delta into sync, buffers the
// net change per pk, and End closes the cycle.
TEST(RebaseSeamTest, BeginRewindsFoldsAndBuffersTheNetChange) {
  TableMap tables;
  tables.emplace("item", std::make_unique<Table>("item", ItemSpec(), /*local=*/false));
  Table& t = *tables.at("item");
  t.Put({Value::String("opt")}, MakeRow(Item("opt", 1)), /*optimistic=*/true);
  NetChangeSet accum;
  Merge merge(&tables, &accum);
  Rebase rebase(&tables, &accum, &merge);
  ASSERT_TRUE(rebase.Begin(kDaemonSource, {AddOp("srv", 2)}).ok());
  EXPECT_TRUE(rebase.open());
  EXPECT_EQ(rebase.source(), kDaemonSource);
  EXPECT_TRUE(t.sync_overlay().empty());
  EXPECT_EQ(t.HeadRows(), (std::vector<RowValues>{Item("srv", 2)}));
  ASSERT_EQ(accum.at("item").size(), 2u);
  const NetChange& rewound = accum.at("item").at({Value::String("opt")});
  EXPECT_TRUE(rewound.before != nullptr && rewound.after == nullptr);
  const NetChange& added = accum.at("item").at({Value::String("srv")});
  EXPECT_TRUE(added.before == nullptr && added.after != nullptr);
  rebase.End();
  EXPECT_FALSE(rebase.open());
  EXPECT_TRUE(rebase.source().empty());
}

}  // namespace
}  // namespace rindle
