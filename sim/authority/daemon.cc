#include "sim/authority/daemon.h"

#include <algorithm>
#include <iterator>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "optimistic/tracking_tx.h"
#include "optimistic/write_set.h"
#include "sim/workload/query_resolution.h"

namespace rindle::sim {

namespace {

// The `_rindle_client_mutations` row [client, lmid]: confirmation is data, in the same commit.
absl::Status WriteLedgerRow(WriteTxn& tx, const std::string& client, int64_t lmid) {
  RowValues pk = {Value::String(client)};
  RowValues row = {Value::String(client), Value::Int(lmid)};
  auto cur = tx.Get(kClientMutationsTable, pk);
  if (!cur.ok()) return cur.status();
  if (cur->has_value()) return tx.Edit(kClientMutationsTable, **cur, row);
  return tx.Add(kClientMutationsTable, row);
}

std::set<std::string> KeysOf(const std::map<std::string, std::string>& m) {
  std::set<std::string> out;
  for (const auto& [k, v] : m) out.insert(k);
  return out;
}

}  // namespace

DaemonAuthority::DaemonAuthority(Schema schema, std::map<std::string, Mutator> twins,
                                 std::map<std::string, std::string> user_of, Sender sender,
                                 std::map<std::string, int64_t>* counters)
    : schema_(std::move(schema)),
      twins_(std::move(twins)),
      clients_(KeysOf(user_of)),
      send_(sender),
      counters_(counters),
      store_(std::make_unique<Db>()),
      subs_(store_.get(), &schema_, std::move(user_of), std::move(sender), counters) {
  RINDLE_CHECK(send_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
  RegisterTables(store_.get());
}

void DaemonAuthority::RegisterTables(Db* store) {
  RINDLE_CHECK(!schema_.empty());
  // The authority's store is its own truth: no sync baseline to rebase, so its tables are
  // registered untracked.
  for (const auto& [name, spec] : schema_) {
    auto s = store->RegisterTable(name, spec, true);
    if (!s.ok()) Fail(s);
  }
  auto s = store->RegisterTable(kClientMutationsTable, ClientMutationsSpec(), true);
  if (!s.ok()) Fail(s);
  for (const LifecycleTableSpec& t : LifecycleTables()) {
    if (auto ls = store->RegisterTable(std::string(t.name), LifecycleTableSchema(t), true); !ls.ok()) Fail(ls);
  }
}

void DaemonAuthority::Fail(absl::Status s) {
  if (health_.ok()) health_ = std::move(s);
}

void DaemonAuthority::CheckKnown(const std::string& client) const {
  RINDLE_CHECK_MSG(clients_.contains(client), "unknown client \"" + client + "\"");
}

absl::Status DaemonAuthority::Seed(const std::map<std::string, std::vector<RowValues>>& rows) {
  RINDLE_CHECK(subs_.SessionClients().empty());  // before any client connects
  RINDLE_CHECK_EQ(cv_, 0);
  seed_rows_ = rows;
  auto tx = store_->Write();
  for (const auto& [table, list] : rows) {
    for (const auto& r : list) {
      if (auto s = tx->Add(table, r); !s.ok()) return s;
    }
  }
  return tx->Commit().status();
}

int64_t DaemonAuthority::lmid(const std::string& client) const {
  auto it = ledgers_.find(client);
  return it == ledgers_.end() ? 0 : it->second.lmid;
}

void DaemonAuthority::Connect(const std::string& client) {
  CheckKnown(client);
  Disconnect(client);
  subs_.OpenSession(client);
  ServerFrame w;
  w.kind = ServerFrame::Kind::kWelcome;
  w.boot_id = boot_id_;
  send_(client, std::move(w));
}

void DaemonAuthority::Disconnect(const std::string& client) {
  dirty_ = true;
  subs_.CloseSession(client);
}

void DaemonAuthority::Register(const std::string& client, int64_t qid, const RemoteQuery& query) {
  CheckKnown(client);
  dirty_ = true;
  // The cv promise (seed 002 §5.1): progress {cvMin: c} on this connection said every frame
  // with cv ≤ c was sent, so a snapshot registered after it must carry a cv above c — else the
  // client's gate may release it as if ordered before frames it already released. The registration
  // takes a cv of its own (an empty commit tick: no row changes, no log entry).
  if (subs_.Promised(client) >= cv_) {
    ++cv_;
    Count("authority.snapshot_cv_bump");
  }
  if (auto s = subs_.Register(client, qid, query, cv_); !s.ok()) Fail(std::move(s));
}

void DaemonAuthority::Unregister(const std::string& client, int64_t qid) {
  CheckKnown(client);
  dirty_ = true;
  subs_.Unregister(client, qid);
}

void DaemonAuthority::SkewNextHello(const std::string& client) {
  CheckKnown(client);
  subs_.SkewNextHello(client);
}

bool DaemonAuthority::HandlePush(const MutationEnvelope& e) {
  CheckKnown(e.client_id);
  RINDLE_CHECK_GE(e.mid, 1);
  Ledger& ledger = ledgers_[e.client_id];
  if (e.mid <= ledger.lmid) {
    Count("authority.duplicate_push");
    return true;
  }
  if (e.mid > ledger.lmid + 1) {
    Count("authority.held_push");
    ledger.held[e.mid] = e;
    return false;
  }
  Process(e);
  // Drain envelopes that were waiting for this gap.
  for (;;) {
    Ledger& l = ledgers_[e.client_id];
    auto it = l.held.find(l.lmid + 1);
    if (it == l.held.end()) break;
    MutationEnvelope next = it->second;
    l.held.erase(it);
    Process(next);
  }
  auto& held = ledgers_[e.client_id].held;
  for (auto it = held.begin(); it != held.end();) {
    it = it->first <= ledgers_[e.client_id].lmid ? held.erase(it) : std::next(it);
  }
  return true;
}

absl::StatusOr<std::vector<QueryBatch>> DaemonAuthority::RunTwin(const MutationEnvelope& e,
                                                                 WriteSet* writes) {
  auto tx = store_->Write();
  absl::Status status;
  auto twin = twins_.find(e.name);
  if (twin == twins_.end()) {
    status = absl::NotFoundError(StrCat("unknown mutator \"", e.name, "\""));
  } else {
    TrackingTx mtx(tx.get(), &schema_, &no_local_tables_, writes, nullptr);
    status = twin->second(mtx, e.args);
    if (status.ok() && !mtx.failure().ok()) status = mtx.failure();
  }
  if (status.ok()) status = WriteLedgerRow(*tx, e.client_id, e.mid);
  if (status.ok()) {
    auto committed = tx->Commit();
    if (committed.ok()) return committed;
    status = committed.status();
  }
  tx->Rollback();
  writes->clear();
  return status;
}

absl::StatusOr<std::vector<QueryBatch>> DaemonAuthority::BurnMid(const MutationEnvelope& e) {
  auto tx = store_->Write();
  absl::Status s = WriteLedgerRow(*tx, e.client_id, e.mid);
  return s.ok() ? tx->Commit() : absl::StatusOr<std::vector<QueryBatch>>(s);
}

void DaemonAuthority::Process(const MutationEnvelope& e) {
  dirty_ = true;
  Ledger& ledger = ledgers_[e.client_id];
  RINDLE_CHECK_EQ(e.mid, ledger.lmid + 1);
  ProcessedEnvelope rec{e.client_id, e.mid, e.name, e.args, false, "", 0, {}};
  auto committed = RunTwin(e, &rec.writes);
  if (committed.ok()) {
    rec.applied = true;
    Count("authority.applied_mid");
  } else {
    rec.reason = std::string(committed.status().message());
    // Processed as a no-op: the mid is burnt, the lmid still advances (same commit shape).
    Count("authority.burnt_mid");
    committed = BurnMid(e);
    if (!committed.ok()) {
      Fail(absl::InternalError(StrCat("authority: ledger commit failed: ",
                                      committed.status().message())));
      return;
    }
  }
  ledger.lmid = e.mid;
  ++cv_;
  rec.cv = cv_;
  rec.boot = boot_id_;
  log_.push_back(std::move(rec));
  subs_.Publish(*committed, cv_);
  subs_.SendProgress(cv_);
}

namespace {

// Upserts `row` by its pk columns `pk` (indexes into the row).
absl::Status UpsertRow(WriteTxn& tx, std::string_view table, const std::vector<int>& pk,
                       RowValues row) {
  RowValues key;
  for (int i : pk) key.push_back(row[static_cast<size_t>(i)]);
  auto cur = tx.Get(table, key);
  if (!cur.ok()) return cur.status();
  if (cur->has_value()) return **cur == row ? absl::OkStatus() : tx.Edit(table, **cur, row);
  return tx.Add(table, std::move(row));
}

Value OptionalString(const std::string& s) { return s.empty() ? Value::Null() : Value::String(s); }

}  // namespace

absl::Status DaemonAuthority::WriteFlushRows(WriteTxn& tx, const RoomFlush& flush) {
  const Value doc = Value::String(flush.doc);
  for (const auto& [client, lmid] : flush.ledger) {
    RETURN_IF_ERROR(UpsertRow(tx, kRoomClientMutationsTable, {0, 1},
                              {doc, Value::String(client), Value::Int(lmid)}));
  }
  for (const RoomOutcomeRow& o : flush.outcomes) {
    RETURN_IF_ERROR(UpsertRow(tx, kRoomMutationOutcomesTable, {0, 1, 2},
                              {doc, Value::String(o.client_id), Value::Int(o.mid),
                               Value::String(o.kind), OptionalString(o.reason),
                               OptionalString(o.name), Value::String(o.args.dump())}));
  }
  return UpsertRow(tx, kRoomWatermarkTable, {0}, {doc, Value::Int(flush.flush_seq)});
}

bool DaemonAuthority::ApplyRoomFlush(const RoomFlush& flush) {
  dirty_ = true;
  const std::string room = RoomSourceKey(flush.doc);
  // Logged under the room's key with the next per-key number (gapless over the log even after a
  // rollback forgot a flush); the args carry the room's own flush_seq.
  int64_t mid = 1;
  for (const ProcessedEnvelope& p : log_) mid += p.client_id == room ? 1 : 0;
  nlohmann::json args = RoomFlushArgs(flush);
  args["flush_seq"] = flush.flush_seq;
  ProcessedEnvelope rec{room, mid, kRoomFlushMutator, std::move(args), true, "", 0, {}};
  auto tx = store_->Write();
  absl::Status status;
  {
    TrackingTx mtx(tx.get(), &schema_, &no_local_tables_, &rec.writes, nullptr);
    status = RoomFlushTwin()(mtx, rec.args);
    if (status.ok() && !mtx.failure().ok()) status = mtx.failure();
  }
  if (status.ok()) status = WriteFlushRows(*tx, flush);
  absl::StatusOr<std::vector<QueryBatch>> committed =
      status.ok() ? tx->Commit() : absl::StatusOr<std::vector<QueryBatch>>(status);
  if (!committed.ok()) {
    tx->Rollback();
    Fail(absl::InternalError(StrCat("authority: room flush ", flush.doc, " #", flush.flush_seq,
                                    " failed: ", committed.status().message())));
    return false;
  }
  Count("authority.room_flush");
  ++cv_;
  rec.cv = cv_;
  rec.boot = boot_id_;
  // Only the lifecycle part: the writes replay from the log entry's args.
  RoomFlush lifecycle{flush.doc, flush.flush_seq, {}, flush.ledger, flush.outcomes, {}};
  flush_rows_[{room, mid}] = std::move(lifecycle);
  log_.push_back(std::move(rec));
  subs_.Publish(*committed, cv_);
  subs_.SendProgress(cv_);
  return true;
}

void DaemonAuthority::Restart() {
  if (!subs_.SessionClients().empty()) dirty_ = true;  // as a Disconnect of each session
  subs_.CloseAll();
  for (auto& [c, l] : ledgers_) l.held.clear();
  ++boot_id_;
  cv_ = 0;
}

int64_t DaemonAuthority::RollBack(int64_t forget) {
  RINDLE_CHECK_GE(forget, int64_t{1});
  Restart();
  ++rollbacks_;
  const size_t n = std::min(log_.size(), static_cast<size_t>(forget));
  if (n == 0) return 0;
  const size_t keep = log_.size() - n;
  for (size_t i = keep; i < log_.size(); ++i) {
    log_[i].forgotten_at = boot_id_;
    flush_rows_.erase({log_[i].client_id, log_[i].mid});  // its logged mid is dealt again
  }
  forgotten_.insert(forgotten_.end(), std::make_move_iterator(log_.begin() + keep),
                    std::make_move_iterator(log_.end()));
  log_.resize(keep);
  // The backup: the seed rows, then every kept envelope's commit exactly as it was processed.
  store_ = std::make_unique<Db>();
  subs_.Rebind(store_.get());
  RegisterTables(store_.get());
  dirty_ = true;
  ledgers_.clear();
  auto tx = store_->Write();
  for (const auto& [table, list] : seed_rows_) {
    for (const auto& r : list) {
      if (auto s = tx->Add(table, r); !s.ok()) Fail(s);
    }
  }
  if (auto s = tx->Commit(); !s.ok()) Fail(s.status());
  for (const ProcessedEnvelope& rec : log_) {
    const MutationEnvelope e{rec.client_id, rec.mid, rec.name, rec.args};
    WriteSet writes;
    if (rec.name == kRoomFlushMutator) {  // a room flush: its rows and lifecycle rows again, so
      auto ftx = store_->Write();         // the backup's watermark is the last KEPT flush's
      {
        TrackingTx mtx(ftx.get(), &schema_, &no_local_tables_, &writes, nullptr);
        if (auto s = RoomFlushTwin()(mtx, rec.args); !s.ok()) Fail(s);
      }
      auto flush = flush_rows_.find({rec.client_id, rec.mid});
      RINDLE_CHECK(flush != flush_rows_.end());
      if (auto s = WriteFlushRows(*ftx, flush->second); !s.ok()) Fail(s);
      if (auto c = ftx->Commit(); !c.ok()) Fail(c.status());
      continue;
    }
    auto committed = rec.applied ? RunTwin(e, &writes) : BurnMid(e);
    if (!committed.ok()) {
      Fail(absl::InternalError(StrCat("authority: rollback replay of ", rec.client_id, " mid ",
                                      rec.mid, " failed: ", committed.status().message())));
    }
    ledgers_[rec.client_id].lmid = rec.mid;
  }
  return static_cast<int64_t>(n);
}

nlohmann::json FrameToTrace(const ServerFrame& f) {
  switch (f.kind) {
    case ServerFrame::Kind::kWelcome: return {{"frame", "welcome"}, {"boot", f.boot_id}};
    case ServerFrame::Kind::kProgress: return {{"frame", "progress"}, {"cvMin", f.cv_min}};
    case ServerFrame::Kind::kOutcome:
      return {{"frame", "outcome"}, {"mid", f.outcome.mid},
              {"kind", f.outcome.kind == MutationOutcomeFrame::Kind::kDeopt ? "deopt" : "rejected"}};
    case ServerFrame::Kind::kData: {
      const char* type = f.event.type == NormalizedEvent::Type::kHello      ? "hello"
                         : f.event.type == NormalizedEvent::Type::kSnapshot ? "snapshot"
                                                                            : "batch";
      return {{"frame", type}, {"qid", f.qid},   {"cv", f.event.cv},
              {"ops", f.event.ops.size()}, {"epoch", f.epoch}};
    }
  }
  return nullptr;
}

}  // namespace rindle::sim
