// OptimisticBackend folded mutations (seed 002 invokeFolded / flushFolds, FOLDED-MUTATIONS-DESIGN):
// one entry per fold key overwritten in place, mids dealt at flush in send order, the read trap,
// flush-on-enqueue, debounce / maxWait on the injected clock, replay order, inspect().
#include <string>
#include <vector>

#include "optimistic/testing/backend_test_fixture.h"

namespace rindle {
namespace {

using namespace backend_test;  // NOLINT: test fixture names
using ::testing::ElementsAre;
using ::testing::HasSubstr;

FoldOptions Fold(const std::string& key, int64_t debounce = 100,
                 std::optional<int64_t> max_wait = std::nullopt, bool defer = false) {
  FoldOptions o;
  o.key = key;
  o.debounce_ms = debounce;
  o.max_wait_ms = max_wait;
  o.defer_across_writes = defer;
  return o;
}

class FoldTest : public BackendTest {
 protected:
  void SetUp() override {
    Hydrate(1, "issue", "issues", {Issue("a", "A"), Issue("b", "B")}, 1);
  }
  std::string Title(const std::string& id) const {
    for (const auto& r : Head("issue")) {
      if (r[0].as_string() == id) return r[1].as_string();
    }
    return "<none>";
  }
};

TEST_F(FoldTest, SameKeyInvokesCollapseToOneEntryAndTheFlushShipsTheLastArgs) {
  for (const char* t : {"1", "2", "3"}) {
    auto k = backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", t}}, Fold("a"));
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ(*k, OptimisticBackend::FoldKey("setTitle", "a"));
    clock_.Advance(50);  // inside the debounce: the window stays open
  }
  EXPECT_EQ(Title("a"), "3");  // every prediction applies at once
  Inspect in = backend_->inspect();
  ASSERT_EQ(in.pending.size(), 1u);
  EXPECT_FALSE(in.pending[0].mid.has_value());
  EXPECT_EQ(in.pending[0].key, "f:" + OptimisticBackend::FoldKey("setTitle", "a"));
  ASSERT_TRUE(in.pending[0].fold.has_value());
  EXPECT_FALSE(in.pending[0].fold->flushed);
  EXPECT_EQ(in.pending[0].fold->debounce_ms, 100);
  EXPECT_TRUE(source_.pushed.empty());
  EXPECT_EQ(in.next_mid, 1);  // no mid reserved at invoke
  clock_.Advance(100);        // quiet for debounce_ms: the window flushes
  ASSERT_EQ(source_.pushed.size(), 1u);
  EXPECT_EQ(source_.pushed[0].mid, 1);
  EXPECT_EQ(source_.pushed[0].args["title"], "3");
  in = backend_->inspect();
  ASSERT_EQ(in.pending.size(), 1u);
  EXPECT_EQ(in.pending[0].mid, 1);
  EXPECT_EQ(in.pending[0].key, "m:1");
  EXPECT_TRUE(backend_->OpenFolds().empty());
}

TEST_F(FoldTest, MaxWaitFlushesANeverIdleDrag) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", std::to_string(i)}},
                                       Fold("a", 100, 250))
                    .ok());
    clock_.Advance(60);
  }
  // Invokes at t=0,60,...,540: the one at t=300 (≥ 250 after the window opened) flushes at once;
  // the window reopened at t=360 is still open, its debounce due at t=640.
  ASSERT_EQ(source_.pushed.size(), 1u);
  EXPECT_EQ(source_.pushed[0].args["title"], "5");
  EXPECT_EQ(source_.pushed[0].mid, 1);
  clock_.Advance(100);
  ASSERT_EQ(source_.pushed.size(), 2u);
  EXPECT_EQ(source_.pushed[1].args["title"], "9");
  EXPECT_EQ(source_.pushed[1].mid, 2);
}

TEST_F(FoldTest, AFoldedMutatorThatReadsIsRefusedAndConsumesNothing) {
  auto k = backend_->InvokeFolded("retitleExisting", {{"id", "a"}, {"title", "X"}}, Fold("a"));
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("cannot fold \"retitleExisting\""));
  EXPECT_EQ(Title("a"), "A");
  EXPECT_TRUE(backend_->inspect().pending.empty());
  EXPECT_TRUE(backend_->OpenFolds().empty());
  // A keyed writer's internal probe (Update reads the current row) stays legal.
  EXPECT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "X"}}, Fold("a")).ok());
  // The same read-dependent mutator invoked normally is fine.
  EXPECT_TRUE(backend_->Invoke("retitleExisting", {{"id", "b"}, {"title", "Y"}}).ok());
}

TEST_F(FoldTest, AnOverlappingNormalWriteFlushesTheFoldFirst) {
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "F"}}, Fold("a")).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "c"}, {"title", "C"}}).ok());
  // The fold took mid 1 before the write's mid 2: wire order == local-apply order.
  ASSERT_EQ(source_.pushed.size(), 2u);
  EXPECT_EQ(source_.pushed[0].name, "setTitle");
  EXPECT_EQ(source_.pushed[0].mid, 1);
  EXPECT_EQ(source_.pushed[1].name, "createIssue");
  EXPECT_EQ(source_.pushed[1].mid, 2);
  EXPECT_TRUE(backend_->OpenFolds().empty());
  // A write on another table leaves an open fold alone; deferAcrossWrites opts out.
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "G"}},
                                     Fold("a", 100, std::nullopt, /*defer=*/true))
                  .ok());
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "d"}, {"title", "D"}}).ok());
  EXPECT_EQ(backend_->OpenFolds().size(), 1u);
  EXPECT_EQ(source_.pushed.size(), 4u);
}

// Seed 44 (corpus/fold_probe_missing_row.json): a folded update of a MISSING row writes nothing,
// but its pre-existence probe branched on that row (seed 002 H-ii §3.2 #3: a genuine value
// dependence). A normal write inserting the row can observe the fold, so flush-on-enqueue must
// ship the fold first (wire order == local-apply order, seed 002 §4.2) — else the next replay
// re-applies the fold AFTER the insert and head snaps (here: title "C" → "F").
TEST_F(FoldTest, AFoldWhoseProbeMissedTheRowFlushesBeforeAWriteThatInsertsIt) {
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "c"}, {"title", "F"}}, Fold("c")).ok());
  EXPECT_EQ(Title("c"), "<none>");  // the prediction wrote nothing
  ASSERT_TRUE(backend_->Invoke("createIssue", {{"id", "c"}, {"title", "C"}}).ok());
  ASSERT_EQ(source_.pushed.size(), 2u);
  EXPECT_EQ(source_.pushed[0].name, "setTitle");
  EXPECT_EQ(source_.pushed[0].mid, 1);
  EXPECT_EQ(source_.pushed[1].name, "createIssue");
  EXPECT_EQ(source_.pushed[1].mid, 2);
  EXPECT_TRUE(backend_->OpenFolds().empty());
  EXPECT_FALSE(backend_->head_reordered());
  // A reconcile replays in mid order: the fold's update no-ops again, the insert stands.
  source_.Batch(1, 2, {AddOp("issue", Issue("z", "Z"))});
  source_.Progress(2);
  EXPECT_EQ(Title("c"), "C");
}

TEST_F(FoldTest, FlushFoldsShipsEveryWindowInCreationOrderGapless) {
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "b"}, {"title", "1"}}, Fold("b")).ok());
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "2"}}, Fold("a")).ok());
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "b"}, {"title", "3"}}, Fold("b")).ok());
  EXPECT_EQ(backend_->OpenFolds(),
            (std::vector<std::string>{OptimisticBackend::FoldKey("setTitle", "b"),
                                      OptimisticBackend::FoldKey("setTitle", "a")}));
  backend_->FlushFolds();
  ASSERT_EQ(source_.pushed.size(), 2u);
  EXPECT_EQ(source_.pushed[0].args, json({{"id", "b"}, {"title", "3"}}));
  EXPECT_EQ(source_.pushed[1].args, json({{"id", "a"}, {"title", "2"}}));
  EXPECT_EQ(source_.pushed[0].mid, 1);
  EXPECT_EQ(source_.pushed[1].mid, 2);
  clock_.Advance(1000);  // the cancelled timers fire nothing
  EXPECT_EQ(source_.pushed.size(), 2u);
  backend_->FlushFold("no such key");  // a no-op
}

TEST_F(FoldTest, UnflushedFoldsReplayAfterEveryDealtSeqInCreationOrder) {
  std::vector<std::string> order;
  backend_->SetReplayObserver([&](const PendingMutation& p, bool) {
    order.push_back(p.mid ? "m" + std::to_string(*p.mid) : "fold:" + p.args["title"].get<std::string>());
  });
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "fa"}}, Fold("a")).ok());
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "b"}, {"title", "fb"}}, Fold("b")).ok());
  ASSERT_TRUE(backend_->Invoke("inc", {{"id", "k"}}).ok());  // no overlap: folds stay open
  // A server batch (another client's write) forces a reconcile: seq-bearing entries first, then
  // the unflushed folds in creation order.
  source_.Batch(1, 2, {AddOp("issue", Issue("z", "Z"))});
  source_.Progress(2);
  EXPECT_THAT(order, ElementsAre("m1", "fold:fa", "fold:fb"));
  EXPECT_EQ(Title("a"), "fa");
  EXPECT_EQ(Title("z"), "Z");
}

TEST_F(FoldTest, AFlushedFoldConfirmsLikeAnyMutationAndTheUnflushedOneSurvivesTheConfirm) {
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "1"}}, Fold("a")).ok());
  backend_->FlushFolds();
  ASSERT_TRUE(backend_->InvokeFolded("setTitle", {{"id", "b"}, {"title", "2"}}, Fold("b")).ok());
  // The authority applies mid 1 and confirms it at cv 2.
  source_.Batch(1, 2, {EditOp("issue", Issue("a", "A"), Issue("a", "1"))});
  source_.Lmid(2, kClient, 1);
  source_.Progress(2);
  Inspect in = backend_->inspect();
  EXPECT_EQ(in.confirmed_lmid, 1);
  ASSERT_EQ(in.pending.size(), 1u);  // the unflushed fold is never confirmable
  EXPECT_FALSE(in.pending[0].mid.has_value());
  EXPECT_EQ(Title("a"), "1");
  EXPECT_EQ(Title("b"), "2");
  EXPECT_EQ(Sync("issue")[0], Issue("a", "1"));
}

TEST_F(FoldTest, ErrorsLeaveNoTrace) {
  EXPECT_EQ(backend_->InvokeFolded("nope", json::object(), Fold("x")).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(backend_->InvokeFolded("boom", json::object(), Fold("x")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(backend_->InvokeFolded("setTitle", {{"id", "a"}, {"title", "T"}}, Fold("a", -1))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(backend_->inspect().pending.empty());
  EXPECT_EQ(Title("a"), "A");
}

TEST(FoldClockless, InvokeFoldedWithoutAClockIsAnError) {
  FakeSource source;
  OptimisticOptions o;
  o.client_id = kClient;
  o.schema = TestSchema();
  o.local_tables = {"draft"};
  o.mutators = TestMutators();
  OptimisticBackend b(std::move(o), &source);
  auto k = b.InvokeFolded("setTitle", {{"id", "a"}, {"title", "T"}}, Fold("a"));
  EXPECT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(k.status().message()), HasSubstr("FoldClock"));
}

}  // namespace
}  // namespace rindle
