// Room tables (seed 002 302 §2/§5/§6): RegisterRoomTables / RoomTablesFor / UnregisterRoomTables,
// the `@` rule, the released-delta rename and the drop of unowned tables, staging of room-declared
// mutators (reads, writes, one-shot queries), write-set engine names vs wire envelopes, re-staging
// through the entry's current domain, the cross-authority warning once per name, and RemapAstTables.
#include <string>
#include <vector>

#include "engine/schema.h"
#include "optimistic/room_tables.h"
#include "optimistic/testing/room_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names (and the shared matchers)

using RoomTablesTest = RoomTest;

TEST_F(RoomTablesTest, RegisterIsIdempotentSkipsUnknownAndLocalAndRefusesTheDaemon) {
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue", "nope", "draft"}).ok());
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue", "counter"}).ok());
  EXPECT_THAT(backend_->RoomTablesFor(kRoom),
              ElementsAre(std::pair<const std::string, std::string>{"counter", Twin("counter")},
                          std::pair<const std::string, std::string>{"issue", Twin("issue")}));
  EXPECT_EQ(Twin("issue"), "issue@room:doc:1");
  EXPECT_NE(backend_->engine().GetTableSpec(Twin("issue")), nullptr);
  EXPECT_FALSE(backend_->engine().IsLocal(Twin("issue")));
  EXPECT_EQ(backend_->engine().GetTableSpec(Twin("draft")), nullptr);  // local: skipped
  const absl::Status daemon = backend_->RegisterRoomTables("daemon", {"issue"});
  EXPECT_EQ(daemon.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(daemon.message(), HasSubstr("the daemon is not a room"));
  EXPECT_THAT(backend_->RoomTablesFor("room:doc:none"), IsEmpty());
  ASSERT_TRUE(backend_->UnregisterRoomTables(kRoom).ok());
  EXPECT_THAT(backend_->RoomTablesFor(kRoom), IsEmpty());
  EXPECT_EQ(backend_->engine().GetTableSpec(Twin("issue")), nullptr);
  EXPECT_TRUE(backend_->UnregisterRoomTables(kRoom).ok());  // unknown: a no-op
}

TEST(RoomTableNames, AtIsIllegalInSchemaTableNames) {
  auto bad = SchemaFromJson(
      json::parse(R"({"tables": {"a@b": {"columns": [{"name": "id", "type": "string"}],
                                          "primaryKey": ["id"]}}})"),
      "schema");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'@' is reserved"));
  OptimisticOptions o;
  o.client_id = kClient;
  o.schema = TestSchema();
  o.schema["x@room:doc:1"] = o.schema["issue"];
  FakeSource daemon;
  OptimisticBackend b(std::move(o), &daemon);
  EXPECT_THAT(b.health().message(), HasSubstr("'@' is reserved for room tables"));
}

TEST_F(RoomTablesTest, RoomDeltasRenameIntoTwinsAndUnownedTablesAreDropped) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  Hydrate(room_, kRoom, 1, "issue", "issues", {Issue("a", "A")}, 1);
  EXPECT_EQ(Head(Twin("issue")).size(), 1u);
  // The property "no room-channel delta reaches a table the room does not own", checked on the
  // harness's own record: the room sent `issue` a and `counter` k; the plain tables stay empty.
  room_.Batch(1, 2, {AddOp("issue", Issue("b", "B")), AddOp("counter", Counter("k", 1))});
  room_.Progress(2);
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_THAT(Head("issue"), IsEmpty());
  EXPECT_THAT(Head("counter"), IsEmpty());
  EXPECT_EQ(Head(Twin("issue")).size(), 2u);
  EXPECT_EQ(backend_->room_deltas_dropped(), 1);
  // The daemon's context rows are untouched by the room plane.
  Hydrate(daemon_, "daemon", 2, "counter", "counters", {Counter("k", 7)}, 1);
  EXPECT_EQ(Head("counter").size(), 1u);
  // The GC of a released room sub maps through the twins too.
  backend_->UnregisterQuery(1);
  EXPECT_THAT(Head(Twin("issue")), IsEmpty());
  EXPECT_EQ(Head("counter").size(), 1u);
}

TEST_F(RoomTablesTest, ARoomWithNoTwinsAppliesVerbatim) {
  ConnectRoom();
  Hydrate(room_, kRoom, 1, "issue", "issues", {Issue("a", "A")}, 1);
  EXPECT_EQ(Head("issue").size(), 1u);  // the pre-302 path is untouched
}

TEST_F(RoomTablesTest, RoomDeclaredMutationsStageOntoTwinsWithWireEnvelopes) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  // A room mutator's raw writes and its one-shot query run on the twin (raw: add r, edit r, then
  // a query over `issue` must see exactly the one staged row — it would see none on the plain
  // table).
  ASSERT_TRUE(backend_->Invoke("raw", RoomArgs(json::object())).ok()) << backend_->health();
  EXPECT_EQ(Head(Twin("issue")).size(), 1u);
  auto mid = backend_->Invoke("createIssue", RoomArgs({{"id", "a"}, {"title", "A"}}));
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_THAT(Head("issue"), IsEmpty());
  EXPECT_EQ(Head(Twin("issue")).size(), 2u);
  ASSERT_EQ(backend_->pending().size(), 2u);
  EXPECT_EQ(backend_->pending()[1].writes.count(Twin("issue")), 1u);  // engine name
  EXPECT_EQ(backend_->pending()[1].writes.count("issue"), 0u);
  ASSERT_EQ(room_.pushed.size(), 2u);
  EXPECT_EQ(room_.pushed[1].name, "createIssue");  // the envelope keeps the wire call
  EXPECT_EQ(room_.pushed[1].args["id"], "a");
  // Re-invocation re-stages through the entry's domain: a daemon cycle keeps them on the twin.
  Cycle();
  ASSERT_TRUE(backend_->health().ok()) << backend_->health();
  EXPECT_EQ(backend_->pending().size(), 2u);
  EXPECT_EQ(Head(Twin("issue")).size(), 2u);
  EXPECT_THAT(Head("issue"), IsEmpty());
}

TEST_F(RoomTablesTest, ADeoptFlippedEntryReStagesOntoTheDaemon) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  auto mid = backend_->Invoke("createIssue", RoomArgs({{"id", "a"}, {"title", "A"}}));
  ASSERT_TRUE(mid.ok());
  backend_->OnOutcome(kRoom, Deopt(*mid));
  ASSERT_EQ(backend_->pending().size(), 1u);
  EXPECT_EQ(backend_->pending()[0].domain, "daemon");
  Cycle();  // the next cycle re-stages through the current domain
  EXPECT_EQ(Head("issue").size(), 1u);
  EXPECT_THAT(Head(Twin("issue")), IsEmpty());
}

TEST_F(RoomTablesTest, WritingAnUnownedTableWarnsOncePerMutatorName) {
  ConnectRoom();
  ASSERT_TRUE(backend_->RegisterRoomTables(kRoom, {"issue"}).ok());
  std::vector<std::string> warned;
  backend_->SetCrossAuthorityObserver(
      [&](const std::string& name, const std::string& domain, const std::vector<std::string>& t) {
        warned.push_back(name + " " + domain + " " + t.at(0));
      });
  ASSERT_TRUE(backend_->Invoke("inc", RoomArgs({{"id", "k"}})).ok());
  ASSERT_TRUE(backend_->Invoke("inc", RoomArgs({{"id", "k"}})).ok());
  EXPECT_THAT(warned, ElementsAre("inc room:doc:1 counter"));
  EXPECT_EQ(Head("counter").size(), 1u);  // landed on the plain table (soft, §5.1)
  ASSERT_TRUE(backend_->Invoke("createIssue", RoomArgs({{"id", "a"}, {"title", "A"}})).ok());
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());  // daemon-declared: never warns
  EXPECT_EQ(backend_->room_counters().cross_authority_warnings, 1);
}

TEST(RemapAstTables, RenamesRootRelatedAndExistsButNotColumnKeys) {
  Ast child;
  child.table = "counter";
  child.alias = "c";
  Ast exists_sub;
  exists_sub.table = "issue";
  Condition exists;
  exists.type = Condition::Type::kCorrelatedSubquery;
  exists.related = CorrelatedSubquery{Correlation{{"id"}, {"id"}},
                                      std::make_shared<const Ast>(exists_sub)};
  Condition any;
  any.type = Condition::Type::kOr;
  any.conditions = {exists};
  Ast root;
  root.table = "issue";
  root.where = any;
  root.related = {CorrelatedSubquery{Correlation{{"id"}, {"id"}},
                                     std::make_shared<const Ast>(child)}};
  root.start = Start{{{"issue", Value::String("a")}}, false};  // a column literally named issue
  const RoomTableMap map = {{"issue", "issue@r"}, {"counter", "counter@r"}};
  const Ast out = RemapAstTables(root, map);
  EXPECT_EQ(out.table, "issue@r");
  EXPECT_EQ(out.related.at(0).subquery->table, "counter@r");
  EXPECT_EQ(out.where->conditions.at(0).related.subquery->table, "issue@r");
  EXPECT_EQ(out.start->row.at(0).first, "issue");  // column keys untouched
  EXPECT_EQ(root.table, "issue");                  // the input is not mutated
  EXPECT_EQ(root.related.at(0).subquery->table, "counter");
  EXPECT_THAT(AstTables(RemapAstTables(root, {{"issue", "issue@r"}})),
              ElementsAre("counter", "issue@r"));  // unmapped tables keep their name
}

}  // namespace
}  // namespace rindle
