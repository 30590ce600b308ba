// room_test.cc — the room authority (room.h) against a REAL OptimisticBackend: room-confirmed
// mutations retire on the room's lmid stream and reach the daemon by a flush that co-commits
// the lifecycle rows; a failing twin is `rejected` (surfaced once through on_rejected); a deopt
// storm flips the entry to the daemon, which applies it once keeping its seq; a room restart
// moves only the room channel; a crash loses the confirmed-unflushed writes (recorded).
#include "sim/authority/room.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/lifecycle_tables.h"
#include "base/source_key.h"
#include "gtest/gtest.h"
#include "optimistic/backend.h"
#include "sim/authority/daemon.h"
#include "sim/workload/mutators.h"
#include "sim/workload/query_resolution.h"
#include "sim/workload/room_policy.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// A synchronous link to one authority: upstream calls reach it at once, downstream frames are
// queued and handed to the backend by Pump() (never re-entrantly from inside a backend call).
class DirectLink : public OptimisticSource {
 public:
  explicit DirectLink(std::string client) : client_(std::move(client)) {}
  void Attach(AuthorityEndpoint* a) { authority_ = a; }
  void RegisterQuery(int64_t qid, const RemoteQuery& q) override {
    registry_[qid] = q;
    if (up_) authority_->Register(client_, qid, q);
  }
  void UnregisterQuery(int64_t qid) override {
    registry_.erase(qid);
    if (up_) authority_->Unregister(client_, qid);
  }
  void PushMutation(const MutationEnvelope& e) override {
    pushes.push_back(e);
    if (up_) authority_->HandlePush(e);
  }
  void OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> h) override {
    on_data_ = std::move(h);
  }
  void OnProgress(std::function<void(const ProgressFrame&)> h) override { on_progress_ = h; }
  void OnRestart(std::function<void()> h) override { on_restart_ = std::move(h); }
  void OnResync(std::function<void()> h) override { on_resync_ = std::move(h); }
  void OnMutationOutcome(std::function<void(const MutationOutcomeFrame&)> h) override {
    on_outcome_ = std::move(h);
  }
  void Connect() {
    up_ = true;
    authority_->Connect(client_);
    for (const auto& [qid, q] : registry_) authority_->Register(client_, qid, q);
  }
  void Drop() {
    up_ = false;
    inbox_.clear();
  }
  void Queue(ServerFrame f) {
    if (up_) inbox_.push_back(std::move(f));
  }
  // Delivers the oldest queued frame, if any.
  void PumpOne() {
    if (inbox_.empty()) return;
    ServerFrame f = std::move(inbox_.front());
    inbox_.pop_front();
    Deliver(f);
  }
  void Pump() {
    while (!inbox_.empty()) {
      ServerFrame f = std::move(inbox_.front());
      inbox_.pop_front();
      Deliver(f);
    }
  }
  std::vector<MutationEnvelope> pushes;

 private:
  void Deliver(const ServerFrame& f) {
    switch (f.kind) {
      case ServerFrame::Kind::kWelcome:
        if (boot_ != 0 && f.boot_id != boot_ && on_restart_) on_restart_();
        boot_ = f.boot_id;
        if (on_resync_) on_resync_();
        return;
      case ServerFrame::Kind::kData:
        if (on_data_) on_data_(f.qid, f.event);
        return;
      case ServerFrame::Kind::kProgress:
        if (on_progress_) on_progress_(ProgressFrame{f.cv_min});
        return;
      case ServerFrame::Kind::kOutcome:
        if (on_outcome_) on_outcome_(f.outcome);
        return;
    }
  }
  std::string client_;
  AuthorityEndpoint* authority_ = nullptr;
  bool up_ = false;
  int64_t boot_ = 0;
  std::map<int64_t, RemoteQuery> registry_;
  std::deque<ServerFrame> inbox_;
  std::function<void(int64_t, const NormalizedEvent&)> on_data_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_, on_resync_;
  std::function<void(const MutationOutcomeFrame&)> on_outcome_;
};

const std::string kDoc = "issue:i001";

class RoomTest : public ::testing::Test {
 protected:
  RoomTest() : daemon_link_("c0"), room_link_("c0") {
    auto schema = LoadAppSchema();
    RINDLE_CHECK(schema.ok());
    schema_ = *schema;
    const std::map<std::string, std::string> users = {{"c0", "u01"}};
    auto server = ServerMutators();
    daemon_ = std::make_unique<DaemonAuthority>(
        schema_, server, users,
        [this](const std::string&, ServerFrame f) { daemon_link_.Queue(std::move(f)); },
        &counters_);
    room_ = std::make_unique<RoomAuthority>(
        kDoc, schema_, RoomTwins(), users,
        [this](const std::string&, ServerFrame f) { room_link_.Queue(std::move(f)); },
        &counters_, Rng(7));
    // i002's thread holds x2 (outside the room's doc); i001's holds x1.
    const std::map<std::string, std::vector<RowValues>> seed = {
        {"issue", {{Value::String("i001"), Value::String("t"), Value::String("todo"),
                    Value::String("low"), Value::String("u01"), Value::Int(0), Value::Int(0)},
                   {Value::String("i002"), Value::String("u"), Value::String("todo"),
                    Value::String("low"), Value::String("u01"), Value::Int(0), Value::Int(0)}}},
        {"comment", {{Value::String("x1"), Value::String("i001"), Value::String("u01"),
                      Value::String("here"), Value::Int(1)},
                     {Value::String("x2"), Value::String("i002"), Value::String("u01"),
                      Value::String("there"), Value::Int(2)}}},
        {"user", {{Value::String("u01"), Value::String("Ann")}}}};
    EXPECT_TRUE(daemon_->Seed(seed).ok());
    EXPECT_TRUE(room_->Seed(seed).ok());
    daemon_link_.Attach(daemon_.get());
    room_link_.Attach(room_.get());

    OptimisticOptions o;
    o.client_id = "c0";
    o.schema = schema_;
    o.mutators = ClientMutators();
    o.domain_policy = [](const std::string& name, const json& args) -> std::optional<std::string> {
      const std::optional<std::string> doc = RoomDocFor(name, args);
      if (doc) return RoomSourceKey(*doc);
      return std::nullopt;
    };
    o.on_rejected = [this](const MutationEnvelope& e, const std::string& reason) {
      rejected_.emplace_back(e.mid, reason);
    };
    backend_ = std::make_unique<OptimisticBackend>(std::move(o), &daemon_link_);
    daemon_link_.Connect();
    EXPECT_TRUE(backend_->ConnectSource(RoomSourceKey(kDoc), &room_link_).ok());
    room_link_.Connect();
    auto ast = ResolveRemoteQuery({"issueDetail", json("i001")}, "c0", "u01");
    RINDLE_CHECK(ast.ok());
    EXPECT_TRUE(backend_->RegisterQuery(1, *ast, RemoteQuery{"issueDetail", json("i001")}).ok());
    Pump();
  }

  void Pump() {
    for (int i = 0; i < 4; ++i) {
      daemon_link_.Pump();
      room_link_.Pump();
    }
    ASSERT_TRUE(backend_->health().ok()) << backend_->health();
    ASSERT_TRUE(daemon_->health().ok()) << daemon_->health();
    ASSERT_TRUE(room_->health().ok()) << room_->health();
  }
  void Flush() {
    ASSERT_TRUE(daemon_->ApplyRoomFlush(room_->TakeFlush()));
    Pump();
  }
  json Comment(const std::string& id, const std::string& body) const {
    return {{"id", id}, {"issueId", "i001"}, {"authorId", "u01"}, {"body", body},
            {"createdAt", 5}};
  }
  bool DaemonHas(const std::string& table, RowValues pk) const {
    auto tx = const_cast<Db&>(daemon_->store()).Write();
    auto r = tx->Get(table, pk);
    tx->Rollback();
    return r.ok() && r->has_value();
  }
  // Whether the client's view of issueDetail i001 shows the comment `id`.
  bool ViewShows(const std::string& id) const {
    return backend_->View(1)->RawJson().dump().find("\"" + id + "\"") != std::string::npos;
  }

  Schema schema_;
  std::map<std::string, int64_t> counters_;
  DirectLink daemon_link_;
  DirectLink room_link_;
  std::unique_ptr<DaemonAuthority> daemon_;
  std::unique_ptr<RoomAuthority> room_;
  std::unique_ptr<OptimisticBackend> backend_;
  std::vector<std::pair<int64_t, std::string>> rejected_;
};

TEST_F(RoomTest, ConfirmedOnTheRoomThenFlushedToTheDaemon) {
  auto mid = backend_->Invoke("addComment", Comment("k1", "hello"));
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_EQ(*mid, 1);
  ASSERT_EQ(room_link_.pushes.size(), 1u);
  EXPECT_TRUE(daemon_link_.pushes.empty());
  Pump();
  // The room confirmed it on its own lmid stream: retired, though the daemon does not have it.
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_EQ(room_->lmid("c0"), 1);
  EXPECT_EQ(daemon_->lmid("c0"), 0);
  ASSERT_EQ(room_->records().size(), 1u);
  EXPECT_EQ(room_->records()[0].fate, RoomFate::kConfirmed);
  EXPECT_FALSE(DaemonHas("comment", {Value::String("k1")}));
  EXPECT_TRUE(room_->HasUnflushed());
  const int64_t cv = daemon_->cv();
  Flush();
  EXPECT_EQ(daemon_->cv(), cv + 1);  // one daemon transaction
  EXPECT_TRUE(DaemonHas("comment", {Value::String("k1")}));
  EXPECT_TRUE(DaemonHas(std::string(kRoomClientMutationsTable),
                        {Value::String(kDoc), Value::String("c0")}));
  EXPECT_TRUE(DaemonHas(std::string(kRoomWatermarkTable), {Value::String(kDoc)}));
  EXPECT_EQ(room_->records()[0].flush_seq, 1);
  EXPECT_TRUE(ViewShows("k1"));
  EXPECT_EQ(daemon_->log().back().name, kRoomFlushMutator);
}

// A rollback that forgets the second of two flushes restores the FIRST's lifecycle rows (an
// older backup holds an older watermark row, not none): the fence a client must not let fall.
TEST_F(RoomTest, RollbackRestoresTheLastKeptFlushsLifecycleRows) {
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k1", "one")).ok());
  Pump();
  Flush();
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k2", "two")).ok());
  Pump();
  Flush();
  auto watermark = [&]() -> int64_t {
    auto tx = const_cast<Db&>(daemon_->store()).Write();
    auto r = tx->Get(std::string(kRoomWatermarkTable), {Value::String(kDoc)});
    tx->Rollback();
    return r.ok() && r->has_value() ? (**r)[1].as_int() : -1;
  };
  EXPECT_EQ(watermark(), 2);
  EXPECT_EQ(daemon_->RollBack(1), 1);
  EXPECT_EQ(watermark(), 1);
  EXPECT_TRUE(DaemonHas("comment", {Value::String("k1")}));
  EXPECT_FALSE(DaemonHas("comment", {Value::String("k2")}));
  EXPECT_TRUE(DaemonHas(std::string(kRoomClientMutationsTable),
                        {Value::String(kDoc), Value::String("c0")}));
  EXPECT_EQ(daemon_->RollBack(1), 1);  // the first flush forgotten too: no lifecycle rows left
  EXPECT_EQ(watermark(), -1);
  ASSERT_TRUE(daemon_->health().ok()) << daemon_->health();
}

TEST_F(RoomTest, FailingTwinIsRejectedOnceAndTheOutcomeRowCoCommits) {
  // The server twin rejects a blank body (the client prediction does not): a final failure.
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k2", "   ")).ok());
  Pump();
  ASSERT_EQ(rejected_.size(), 1u);
  EXPECT_EQ(rejected_[0].first, 1);
  EXPECT_NE(rejected_[0].second.find("body"), std::string::npos) << rejected_[0].second;
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_FALSE(ViewShows("k2"));  // the prediction snapped back
  EXPECT_EQ(room_->records()[0].fate, RoomFate::kRejected);
  Flush();
  EXPECT_TRUE(DaemonHas(std::string(kRoomMutationOutcomesTable),
                        {Value::String(kDoc), Value::String("c0"), Value::Int(1)}));
  EXPECT_FALSE(DaemonHas("comment", {Value::String("k2")}));
  EXPECT_EQ(rejected_.size(), 1u);
}

TEST_F(RoomTest, DeoptStormFlipsToTheDaemonKeepingTheSeq) {
  room_->SetStorm(RoomAuthority::Storm::kDeopt, 1000);
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k3", "x")).ok());
  const std::optional<int64_t> seq = backend_->pending().at(0).seq;
  room_link_.Pump();  // the outcome first: the entry flips before the room lmid burns it
  ASSERT_EQ(backend_->pending().size(), 1u);
  EXPECT_EQ(backend_->pending()[0].domain, std::string(kDaemonSource));
  EXPECT_EQ(backend_->pending()[0].seq, seq);
  ASSERT_EQ(daemon_link_.pushes.size(), 1u);
  EXPECT_EQ(daemon_link_.pushes[0].mid, 1);  // a fresh daemon mid
  Pump();
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_EQ(daemon_->lmid("c0"), 1);
  EXPECT_TRUE(DaemonHas("comment", {Value::String("k3")}));  // applied by the daemon twin
  EXPECT_EQ(room_->records()[0].fate, RoomFate::kDeopt);
  EXPECT_TRUE(rejected_.empty());
  EXPECT_TRUE(ViewShows("k3"));
}

// room.h kDeopt "not_held": a comment moved INTO the thread lives in another doc — the room does
// not hold it, so it deopts (a confirmed no-op would lose the move); the client flips the entry
// in place keeping its seq ahead of the reply invoked after it, and the daemon applies the move.
TEST_F(RoomTest, AMoveIntoTheThreadIsDeoptedAndTheDaemonAppliesItKeepingItsPlace) {
  ASSERT_TRUE(backend_->Invoke("moveComment", json{{"id", "x2"}, {"issueId", "i001"}}).ok());
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("r1", "re")).ok());
  ASSERT_EQ(room_link_.pushes.size(), 2u);  // both routed into the room (room-declared)
  const std::optional<int64_t> move_seq = backend_->pending().at(0).seq;
  const std::optional<int64_t> reply_seq = backend_->pending().at(1).seq;
  ASSERT_LT(move_seq, reply_seq);
  room_link_.Pump();
  EXPECT_EQ(room_->records()[0].fate, RoomFate::kDeopt);
  EXPECT_NE(room_->records()[0].reason.find("not in the doc"), std::string::npos)
      << room_->records()[0].reason;
  EXPECT_EQ(counters_["room.deopt_reason.not_held"], 1);
  EXPECT_EQ(room_->records()[1].fate, RoomFate::kConfirmed);
  Pump();
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_EQ(daemon_->lmid("c0"), 1);  // the flip's fresh daemon mid
  auto tx = const_cast<Db&>(daemon_->store()).Write();
  auto row = tx->Get("comment", {Value::String("x2")});
  tx->Rollback();
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((**row)[1], Value::String("i001"));  // moved by the daemon twin
}

// The flip keeps the seq while a later entry is still pending (checked before any release).
TEST_F(RoomTest, TheDeoptFlipKeepsItsSeqAheadOfALaterPendingEntry) {
  ASSERT_TRUE(backend_->Invoke("moveComment", json{{"id", "x2"}, {"issueId", "i001"}}).ok());
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("r2", "re")).ok());
  const std::optional<int64_t> move_seq = backend_->pending().at(0).seq;
  // Only the outcome frame (queued first, out of band): the reply is still pending behind it.
  room_link_.PumpOne();
  ASSERT_EQ(backend_->pending().size(), 2u);
  EXPECT_EQ(backend_->pending()[0].domain, std::string(kDaemonSource));
  EXPECT_EQ(backend_->pending()[0].seq, move_seq);
  EXPECT_LT(backend_->pending()[0].seq, backend_->pending()[1].seq);  // still replays first
  EXPECT_EQ(backend_->pending()[1].domain, RoomSourceKey(kDoc));
  room_->HandlePush(room_link_.pushes[0]);  // a re-send: answered again, the processed set absorbs
  EXPECT_EQ(counters_["room.outcome_reanswered"], 1);
  Pump();
  EXPECT_EQ(daemon_link_.pushes.size(), 1u);  // flipped once
  EXPECT_TRUE(backend_->pending().empty());
}

// room.h kDeopt "edits_existing": a comment already in the thread is a row the room did not add —
// the daemon holds its current copy — so a move of it is deopted too.
TEST_F(RoomTest, AnEditOfARowTheRoomDidNotAddIsDeopted) {
  ASSERT_TRUE(backend_->Invoke("moveComment", json{{"id", "x1"}, {"issueId", "i001"}}).ok());
  Pump();
  ASSERT_EQ(room_->records().size(), 1u);
  EXPECT_EQ(room_->records()[0].fate, RoomFate::kDeopt);
  EXPECT_EQ(counters_["room.deopt_reason.edits_existing"], 1);
  EXPECT_TRUE(backend_->pending().empty());
  EXPECT_EQ(daemon_->lmid("c0"), 1);
}

TEST_F(RoomTest, RoomRestartMovesOnlyTheRoomChannel) {
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k4", "a")).ok());
  Pump();
  const int64_t daemon_cv = daemon_->cv();
  room_->Restart();
  EXPECT_EQ(room_->boot_id(), 2);
  EXPECT_EQ(room_->cv(), 0);
  room_link_.Drop();
  room_link_.Connect();
  Pump();
  EXPECT_EQ(room_->lmid("c0"), 1);  // the ledger is durable
  EXPECT_EQ(daemon_->cv(), daemon_cv);
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k5", "b")).ok());
  Pump();
  EXPECT_EQ(room_->lmid("c0"), 2);
  EXPECT_TRUE(backend_->pending().empty());
}

TEST_F(RoomTest, CrashBeforeFlushLosesTheUnflushedWritesAndRecordsThem) {
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k6", "a")).ok());
  Pump();
  Flush();
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k7", "b")).ok());
  Pump();
  EXPECT_EQ(room_->CrashBeforeFlush(), 1);
  EXPECT_FALSE(room_->records()[0].lost);
  EXPECT_TRUE(room_->records()[1].lost);
  EXPECT_EQ(room_->lmid("c0"), 2);
  room_link_.Drop();
  room_link_.Connect();
  Pump();
  Flush();
  EXPECT_TRUE(DaemonHas("comment", {Value::String("k6")}));
  EXPECT_FALSE(DaemonHas("comment", {Value::String("k7")}));
}

TEST(RoomLifecycleQuery, ResolvesToTheDocsRowsOfTheSubscriber) {
  auto ast = ResolveRemoteQuery(
      {std::string(kLifecycleQueryName),
       json{{"table", kRoomClientMutationsTable}, {"doc", kDoc}, {"client_id", "c0"}}},
      "c0", "u01");
  ASSERT_TRUE(ast.ok()) << ast.status();
  EXPECT_EQ(ast->table, kRoomClientMutationsTable);
  EXPECT_FALSE(ResolveRemoteQuery({std::string(kLifecycleQueryName), json{{"table", "issue"}}},
                                  "c0", "u01")
                   .ok());
}

// room.h MirrorDaemon (issue 13): the daemon's writes to the doc reach the room; the room's own
// unflushed confirmed rows stay; nothing to do commits nothing.
TEST_F(RoomTest, MirrorsTheDaemonsDocRowsKeepingItsUnflushedWrites) {
  ASSERT_TRUE(backend_->Invoke("addComment", Comment("k1", "hello")).ok());
  Pump();  // confirmed on the room, not flushed: the daemon has no k1
  {
    auto tx = const_cast<Db&>(daemon_->store()).Write();
    ASSERT_TRUE(tx->Add("comment", {Value::String("k2"), Value::String("i001"),
                                    Value::String("u01"), Value::String("daemon"), Value::Int(9)})
                    .ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  auto room_has = [this](const std::string& id) {
    auto tx = const_cast<Db&>(room_->store()).Write();
    auto r = tx->Get("comment", {Value::String(id)});
    tx->Rollback();
    return r.ok() && r->has_value();
  };
  const int64_t cv = room_->cv();
  EXPECT_TRUE(room_->MirrorDaemon(daemon_->store()));
  EXPECT_EQ(room_->cv(), cv + 1);
  EXPECT_TRUE(room_has("k1"));  // the room's own unflushed write is not the daemon's to drop
  EXPECT_TRUE(room_has("k2"));
  EXPECT_FALSE(room_->MirrorDaemon(daemon_->store()));  // equal now: no commit
  EXPECT_EQ(room_->cv(), cv + 1);
  Flush();
  EXPECT_FALSE(room_->MirrorDaemon(daemon_->store()));  // the flush carried k1 to the daemon
  Pump();
}

}  // namespace
}  // namespace rindle::sim
