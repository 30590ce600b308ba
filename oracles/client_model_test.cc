// client_model_test.cc — the client model: release at progress, union of sources, the lmid
// watermark, expected pending (sent above the lmid, then open fold windows), the expected head,
// touched tables, dead replays and the cuts (frozen by a welcome or a hello).
#include "oracles/client_model.h"

#include "engine/ast_json.h"
#include "gtest/gtest.h"

namespace rindle {
namespace {

using json = nlohmann::json;

Schema TestSchema() {
  auto s = SchemaFromJson(json::parse(R"({"tables": {
    "issue": {"columns": [{"name": "id", "type": "string", "nullable": false},
                          {"name": "title", "type": "string", "nullable": true},
                          {"name": "n", "type": "number", "nullable": true}],
              "primaryKey": ["id"]}}})"),
                          "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

RowValues Issue(const std::string& id, const std::string& title, int64_t n) {
  return {Value::String(id), Value::String(title), Value::Int(n)};
}

NormalizedEvent Snapshot(int64_t cv, std::vector<RowValues> rows,
                         const std::string& table = "issue") {
  NormalizedEvent ev;
  ev.type = NormalizedEvent::Type::kSnapshot;
  ev.cv = cv;
  for (auto& r : rows) ev.ops.push_back(RowOp{RowOp::Kind::kAdd, table, std::move(r), {}});
  return ev;
}

NormalizedEvent Lmid(int64_t cv, const std::string& client, int64_t lmid, bool snapshot) {
  NormalizedEvent ev = Snapshot(cv, {{Value::String(client), Value::Int(lmid)}},
                                kClientMutationsTable);
  if (!snapshot) ev.type = NormalizedEvent::Type::kBatch;
  return ev;
}

// bump: n += 1 on an existing issue (fails when absent).
std::map<std::string, Mutator> Mutators() {
  std::map<std::string, Mutator> m;
  m["bump"] = [](MutationTx& tx, const json& args) -> absl::Status {
    auto row = tx.GetRow("issue", {{"id", args["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no issue");
    json next = **row;
    next["n"] = next["n"].get<int64_t>() + 1;
    return tx.Update("issue", next);
  };
  m["touchMissing"] = [](MutationTx& tx, const json&) -> absl::Status {
    return tx.Update("issue", {{"id", "nope"}, {"n", 1}});
  };
  // setN: n := args.n (an update of a missing issue writes nothing); create: inserts the issue.
  m["setN"] = [](MutationTx& tx, const json& args) -> absl::Status {
    return tx.Update("issue", {{"id", args["id"]}, {"n", args["n"]}});
  };
  m["create"] = [](MutationTx& tx, const json& args) -> absl::Status {
    return tx.Insert("issue", {{"id", args["id"]}, {"title", "t"}, {"n", 0}});
  };
  return m;
}

std::vector<WireTable> LmidHello() {
  return {WireTable{kClientMutationsTable, {"client_id", "last_mutation_id"}, {}}};
}

class ClientModelTest : public ::testing::Test {
 protected:
  ClientModelTest() : model_("c0", TestSchema(), 8) {
    model_.Welcome(1);
    model_.Hello(kLmidQid, LmidHello());
    model_.Hello(1, {});
  }
  void Refresh() { ASSERT_TRUE(model_.Refresh(mutators_).ok()); }
  int64_t HeadN(const std::string& id) {
    return model_.head().at("issue").at({Value::String(id)})[2].as_int();
  }

  ClientModel model_;
  std::map<std::string, Mutator> mutators_ = Mutators();
};

TEST_F(ClientModelTest, DataReleasesOnlyAtProgress) {
  model_.Data(1, Snapshot(3, {Issue("i1", "a", 0)}));
  Refresh();
  EXPECT_TRUE(model_.synced().at("issue").empty());
  model_.Progress(2);
  Refresh();
  EXPECT_TRUE(model_.synced().at("issue").empty());
  model_.Progress(3);
  Refresh();
  EXPECT_EQ(model_.synced().at("issue").size(), 1u);
  ASSERT_TRUE(model_.sources().at(1).cut.has_value());
  EXPECT_EQ(*model_.sources().at(1).cut, (ClientModel::Cut{1, 3}));
}

TEST_F(ClientModelTest, PendingIsSentAboveTheReleasedLmidReplayedOverSynced) {
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  model_.Data(kLmidQid, Lmid(1, "c0", 0, true));
  model_.Progress(1);
  model_.Invoked(1);
  model_.Sent(MutationEnvelope{"c0", 1, "bump", {{"id", "i1"}}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_EQ(model_.Pending()[0]->tables, std::set<std::string>{"issue"});
  EXPECT_EQ(HeadN("i1"), 1);
  // The authority applies mid 1 at cv 2: effect and confirmation release together.
  NormalizedEvent b;
  b.type = NormalizedEvent::Type::kBatch;
  b.cv = 2;
  b.ops.push_back(RowOp{RowOp::Kind::kEdit, "issue", Issue("i1", "a", 1), Issue("i1", "a", 0)});
  model_.Data(1, b);
  model_.Data(kLmidQid, Lmid(2, "c0", 1, false));
  model_.Progress(2);
  Refresh();
  EXPECT_EQ(model_.released_lmid(), 1);
  EXPECT_TRUE(model_.Pending().empty());
  EXPECT_EQ(HeadN("i1"), 1);  // applied once
}

TEST_F(ClientModelTest, AnotherClientsLmidRowConfirmsNothing) {
  model_.Data(kLmidQid, Lmid(1, "c9", 5, true));
  model_.Progress(1);
  Refresh();
  EXPECT_EQ(model_.released_lmid(), 0);
}

TEST_F(ClientModelTest, OpenFoldWindowsReplayAfterSentAndCloseOnTheirFlush) {
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  model_.Progress(1);
  model_.FoldInvoked(std::string("bump\0k", 6), {{"id", "i1"}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_FALSE(model_.Pending()[0]->mid.has_value());
  EXPECT_EQ(HeadN("i1"), 1);
  // Its flush (no recorded normal invoke) closes the window: still one pending entry.
  model_.Sent(MutationEnvelope{"c0", 1, "bump", {{"id", "i1"}}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_EQ(model_.Pending()[0]->mid, 1);
  EXPECT_EQ(HeadN("i1"), 1);
}

TEST_F(ClientModelTest, AWriteOvertakingAnInteractingFoldOpensTheReorderWindowUntilACycle) {
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  model_.Progress(1);
  model_.FoldInvoked(std::string("bump\0k", 6), {{"id", "i1"}});
  Refresh();
  EXPECT_FALSE(model_.InReorderWindow());
  // A normal write on the same table: applied after the window, replayed before it (its mid).
  model_.Invoked(1);
  model_.Sent(MutationEnvelope{"c0", 1, "bump", {{"id", "i1"}}});
  Refresh();
  EXPECT_TRUE(model_.InReorderWindow());
  // A release that changes nothing runs no cycle: still open.
  NormalizedEvent empty;
  empty.type = NormalizedEvent::Type::kBatch;
  empty.cv = 2;
  model_.Data(1, empty);
  model_.Progress(2);
  Refresh();
  EXPECT_TRUE(model_.InReorderWindow());
  const int64_t cycles = model_.cycles();
  // Server data that changes synced: the cycle re-applies everything in replay order.
  NormalizedEvent b = empty;
  b.cv = 3;
  b.ops.push_back(RowOp{RowOp::Kind::kEdit, "issue", Issue("i1", "b", 0), Issue("i1", "a", 0)});
  model_.Data(1, b);
  model_.Progress(3);
  Refresh();
  EXPECT_EQ(model_.cycles(), cycles + 1);
  EXPECT_FALSE(model_.InReorderWindow());
  // Re-invoking the (older-created) window after the cycle keeps replay order: still closed.
  model_.FoldInvoked(std::string("bump\0k", 6), {{"id", "i1"}});
  Refresh();
  EXPECT_FALSE(model_.InReorderWindow());
}

TEST_F(ClientModelTest, AFailingReplayIsDeadAndAWriteThatFindsNothingTouchesNoTable) {
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  model_.Progress(1);
  model_.Invoked(1);
  model_.Sent(MutationEnvelope{"c0", 1, "touchMissing", json::object()});
  model_.Invoked(2);
  model_.Sent(MutationEnvelope{"c0", 2, "bump", {{"id", "i1"}}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 2u);
  EXPECT_TRUE(model_.Pending()[0]->tables.empty());
  // Upstream the issue vanishes: bump's replay fails and the entry is dropped for good.
  model_.Data(1, Snapshot(2, {}));
  model_.Progress(2);
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_EQ(model_.Pending()[0]->name, "touchMissing");
}

TEST_F(ClientModelTest, UnionKeepsTheLatestDeliveredCellAndProjectedCellsAbsent) {
  model_.Hello(2, {WireTable{"issue", {"id", "n"}, {}}});
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  NormalizedEvent p = Snapshot(2, {{Value::String("i1"), Value::Int(7)}});
  model_.Data(2, p);
  model_.Progress(2);
  Refresh();
  const RowValues& row = model_.synced().at("issue").at({Value::String("i1")});
  EXPECT_EQ(row[1], Value::String("a"));
  EXPECT_EQ(row[2], Value::Int(7));
  model_.DropSource(1);
  Refresh();
  EXPECT_TRUE(model_.synced().at("issue").at({Value::String("i1")})[1].is_null());
}

TEST_F(ClientModelTest, AWelcomeFreezesEverySourceUntilItsSnapshot) {
  model_.Data(1, Snapshot(1, {Issue("i1", "a", 0)}));
  model_.Progress(1);
  EXPECT_TRUE(model_.sources().at(1).current);
  model_.Welcome(1);  // a new session of the same boot
  EXPECT_FALSE(model_.sources().at(1).current);
  EXPECT_EQ(model_.sources().at(1).frozen_by, "welcome");
  model_.Progress(5);
  EXPECT_EQ(*model_.sources().at(1).cut, (ClientModel::Cut{1, 1}));
  model_.Welcome(2);  // a restart: the gate resets, cuts are of the new boot from the snapshot
  model_.Hello(1, {});
  model_.Data(1, Snapshot(0, {Issue("i1", "a", 0)}));
  model_.Progress(0);
  EXPECT_EQ(*model_.sources().at(1).cut, (ClientModel::Cut{2, 0}));
  EXPECT_LT((ClientModel::Cut{1, 9}), (ClientModel::Cut{2, 0}));
}

// Seed 238 (pending-axis): an open fold over a missing row wrote nothing; a later normal invoke
// inserted that row. The client does not re-invoke the fold at that invoke (it replays only at a
// reconcile), so the fold's touched tables stay empty — a canonical-order re-run made just to
// build head must not add "issue" to them. A reconcile's replay does count.
TEST_F(ClientModelTest, TouchedTablesGrowOnlyByTheClientsOwnRuns) {
  model_.Data(1, Snapshot(1, {}));
  model_.Data(kLmidQid, Lmid(1, "c0", 0, true));
  model_.Progress(1);
  model_.FoldInvoked(std::string("setN\0k", 6), {{"id", "i9"}, {"n", 5}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_TRUE(model_.Pending()[0]->tables.empty());
  model_.Invoked(1);
  model_.Sent(MutationEnvelope{"c0", 1, "create", {{"id", "i9"}}});
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 2u);
  EXPECT_EQ(model_.Pending()[0]->tables, std::set<std::string>{"issue"});  // create's own run
  EXPECT_TRUE(model_.Pending()[1]->tables.empty());  // the open fold: not re-invoked
  EXPECT_EQ(HeadN("i9"), 5);
  // The authority burns mid 1 (i9 already existed upstream, outside this client's queries).
  model_.Data(kLmidQid, Lmid(2, "c0", 1, false));
  model_.Progress(2);
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_TRUE(model_.Pending()[0]->tables.empty());  // its reconcile replay found no i9
  // i9 arrives: the next reconcile's replay writes it, and that counts.
  model_.Data(1, Snapshot(3, {Issue("i9", "x", 0)}));
  model_.Progress(3);
  Refresh();
  ASSERT_EQ(model_.Pending().size(), 1u);
  EXPECT_EQ(model_.Pending()[0]->tables, std::set<std::string>{"issue"});
}

}  // namespace
}  // namespace rindle
