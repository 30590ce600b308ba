// room.cc — see room.h.
#include "sim/authority/room.h"

#include <algorithm>
#include <iterator>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "optimistic/tracking_tx.h"
#include "sim/workload/query_resolution.h"
#include "sim/workload/room_policy.h"

namespace rindle::sim {

namespace {

constexpr char kCommentTable[] = "comment";
constexpr char kIssueTable[] = "issue";

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

int ColumnIndex(const Schema& schema, const std::string& table, const std::string& column) {
  const TableSpec& spec = schema.at(table);
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    if (spec.columns[i].name == column) return static_cast<int>(i);
  }
  RINDLE_CHECK_MSG(false, StrCat("no column ", table, ".", column));
  return -1;
}

}  // namespace

nlohmann::json RoomFlushArgs(const RoomFlush& flush) {
  nlohmann::json writes = nlohmann::json::array();
  for (const WriteRecord& w : flush.writes) {
    writes.push_back({{"table", w.table},
                      {"pk", RowToJson(w.pk)},
                      {"row", w.row ? RowToJson(*w.row) : nlohmann::json(nullptr)}});
  }
  return {{"doc", flush.doc}, {"writes", std::move(writes)}};
}

Mutator RoomFlushTwin() {
  return [](MutationTx& tx, const nlohmann::json& args) -> absl::Status {
    if (!args.is_object() || !args.contains("writes") || !args["writes"].is_array()) {
      return absl::InvalidArgumentError("room flush: args.writes is not an array");
    }
    for (const nlohmann::json& w : args["writes"]) {
      if (!w.is_object() || !w.contains("table") || !w["table"].is_string()) {
        return absl::InvalidArgumentError("room flush: a write without a table");
      }
      const std::string table = w["table"].get<std::string>();
      auto pk = RowFromJson(w.value("pk", nlohmann::json()), "room flush pk");
      if (!pk.ok()) return pk.status();
      auto cur = tx.Get(table, *pk);
      if (!cur.ok()) return cur.status();
      const nlohmann::json& image = w.value("row", nlohmann::json());
      if (image.is_null()) {
        if (cur->has_value()) RETURN_IF_ERROR(tx.Remove(table, **cur));
        continue;
      }
      auto row = RowFromJson(image, "room flush row");
      if (!row.ok()) return row.status();
      if (cur->has_value()) {
        RETURN_IF_ERROR(tx.Edit(table, **cur, *row));
      } else {
        RETURN_IF_ERROR(tx.Add(table, *row));
      }
    }
    return absl::OkStatus();
  };
}

std::string_view RoomFateName(RoomFate fate) {
  switch (fate) {
    case RoomFate::kConfirmed: return "confirmed";
    case RoomFate::kRejected: return "rejected";
    case RoomFate::kDeopt: return "deopt";
  }
  return "?";
}

RoomAuthority::RoomAuthority(std::string doc, Schema schema, std::map<std::string, Mutator> twins,
                             std::map<std::string, std::string> user_of, Sender sender,
                             std::map<std::string, int64_t>* counters, Rng rng)
    : doc_(std::move(doc)),
      key_(RoomSourceKey(doc_)),
      schema_(std::move(schema)),
      twins_(std::move(twins)),
      clients_(KeysOf(user_of)),
      send_(sender),
      counters_(counters),
      rng_(rng),
      store_(std::make_unique<Db>()),
      subs_(store_.get(), &schema_, std::move(user_of), std::move(sender), counters) {
  RINDLE_CHECK_MSG(doc_.starts_with(kIssueDocPrefix) && doc_.size() > 6,
                   "a room doc is \"issue:<id>\", got \"" + doc_ + "\"");
  RINDLE_CHECK(send_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
  issue_id_ = doc_.substr(std::string_view(kIssueDocPrefix).size());
  RegisterTables(store_.get());
}

void RoomAuthority::RegisterTables(Db* store) {
  for (const auto& [name, spec] : schema_) {
    if (auto s = store->RegisterTable(name, spec, true); !s.ok()) Fail(s);
  }
  if (auto s = store->RegisterTable(kClientMutationsTable, ClientMutationsSpec(), true); !s.ok()) {
    Fail(s);
  }
}

void RoomAuthority::Fail(absl::Status s) {
  if (health_.ok()) health_ = std::move(s);
}

void RoomAuthority::CheckKnown(const std::string& client) const {
  RINDLE_CHECK_MSG(clients_.contains(client), "unknown client \"" + client + "\"");
}

// The room loads its doc: the issue row and that issue's comments (the thread it owns), and the
// context tables' rows.
absl::Status RoomAuthority::Seed(const std::map<std::string, std::vector<RowValues>>& rows) {
  RINDLE_CHECK_EQ(cv_, 0);
  seed_rows_.clear();
  const int comment_issue = ColumnIndex(schema_, kCommentTable, "issueId");
  const Value issue = Value::String(issue_id_);
  if (auto it = rows.find(kIssueTable); it != rows.end()) {
    for (const RowValues& r : it->second) {
      if (r[0] == issue) seed_rows_[kIssueTable].push_back(r);
    }
  }
  if (auto it = rows.find(kCommentTable); it != rows.end()) {
    for (const RowValues& r : it->second) {
      if (r[static_cast<size_t>(comment_issue)] == issue) seed_rows_[kCommentTable].push_back(r);
    }
  }
  // The context it relays but does not own (room_policy.h RoomContextTables): a snapshot as of
  // the seed, never updated — a client must keep reading the daemon's rows of these tables.
  for (const std::string& table : RoomContextTables()) {
    if (auto it = rows.find(table); it != rows.end()) seed_rows_[table] = it->second;
  }
  auto tx = store_->Write();
  for (const auto& [table, list] : seed_rows_) {
    for (const auto& r : list) {
      if (auto s = tx->Add(table, r); !s.ok()) return s;
    }
  }
  return tx->Commit().status();
}

int64_t RoomAuthority::lmid(const std::string& client) const {
  auto it = ledgers_.find(client);
  return it == ledgers_.end() ? 0 : it->second.lmid;
}

void RoomAuthority::Connect(const std::string& client) {
  CheckKnown(client);
  Disconnect(client);
  subs_.OpenSession(client);
  ServerFrame w;
  w.kind = ServerFrame::Kind::kWelcome;
  w.boot_id = boot_id_;
  send_(client, std::move(w));
}

void RoomAuthority::Disconnect(const std::string& client) {
  dirty_ = true;
  subs_.CloseSession(client);
}

void RoomAuthority::Register(const std::string& client, int64_t qid, const RemoteQuery& query) {
  CheckKnown(client);
  dirty_ = true;
  // The cv promise, as the daemon keeps it (daemon.cc Register).
  if (subs_.Promised(client) >= cv_) ++cv_;
  if (auto s = subs_.Register(client, qid, query, cv_); !s.ok()) Fail(std::move(s));
}

void RoomAuthority::Unregister(const std::string& client, int64_t qid) {
  CheckKnown(client);
  dirty_ = true;
  subs_.Unregister(client, qid);
}

bool RoomAuthority::HandlePush(const MutationEnvelope& e) {
  CheckKnown(e.client_id);
  RINDLE_CHECK_GE(e.mid, 1);
  Ledger& ledger = ledgers_[e.client_id];
  if (e.mid <= ledger.lmid) {
    Count("room.duplicate_push");
    // A re-send of a mid the room burnt: answer its verdict again (see room.h).
    auto rec = record_of_.find({e.client_id, e.mid});
    if (rec != record_of_.end() && log_[rec->second].fate != RoomFate::kConfirmed &&
        subs_.HasSession(e.client_id)) {
      Count("room.outcome_reanswered");
      SendOutcome(log_[rec->second]);
    }
    return true;
  }
  if (e.mid > ledger.lmid + 1) {
    Count("room.held_push");
    ledger.held[e.mid] = e;
    return false;
  }
  Process(e);
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

bool RoomAuthority::Drawn(const MutationEnvelope& e, std::string_view what) const {
  Rng r = rng_.Fork(StrCat(what, "/", e.client_id, "/", e.mid));
  return r.Chance(storm_per_mille_, 1000);
}

std::optional<std::string> RoomAuthority::DeoptBefore(const MutationEnvelope& e,
                                                      std::string* reason_key) const {
  if (!twins_.contains(e.name)) {
    *reason_key = "not_declared";
    return StrCat("room ", doc_, ": ", e.name, " is not room-declared");
  }
  if (e.args.is_object() && e.args.contains("issueId") && e.args["issueId"].is_string() &&
      e.args["issueId"].get<std::string>() != issue_id_) {
    *reason_key = "other_issue";
    return StrCat("room ", doc_, ": issue ", e.args["issueId"].get<std::string>(),
                  " is outside the doc");
  }
  if (storm_ == Storm::kDeopt && Drawn(e, "deopt")) {
    *reason_key = "storm";
    return StrCat("room ", doc_, ": deopt storm");
  }
  return std::nullopt;
}

std::optional<std::string> RoomAuthority::OutsideDoc(const WriteSet& writes, const ReadLog& reads,
                                                     std::string* reason_key) const {
  const size_t comment_issue = static_cast<size_t>(ColumnIndex(schema_, kCommentTable, "issueId"));
  const Value issue = Value::String(issue_id_);
  for (const auto& [table, recs] : writes) {
    if (table != kCommentTable) {
      *reason_key = "writes_outside";
      return StrCat("room ", doc_, ": writes table ", table);
    }
    for (const auto& [pk, rec] : recs) {
      const RowValues* row = rec.row ? &*rec.row : rec.old_row ? &*rec.old_row : nullptr;
      if (row != nullptr && (*row)[comment_issue] != issue) {
        *reason_key = "writes_outside";
        return StrCat("room ", doc_, ": writes a comment outside the doc");
      }
    }
  }
  // A keyed read of a doc row that found nothing and wrote nothing there: the row lives outside
  // the doc (or nowhere) — the daemon, which holds every row, decides (a confirmed no-op here
  // would lose the write).
  for (const ReadRecord& r : reads.reads) {
    if (r.outcome != ReadOutcome::kAbsent || (r.table != kCommentTable && r.table != kIssueTable)) {
      continue;
    }
    auto t = writes.find(r.table);
    if (t != writes.end() && t->second.contains(PkKey(r.pk))) continue;  // an add: the doc's own
    *reason_key = "not_held";
    return StrCat("room ", doc_, ": ", r.table, " ", PkKey(r.pk), " is not in the doc");
  }
  for (const auto& [table, recs] : writes) {
    for (const auto& [pk, rec] : recs) {
      if (!rec.old_row) continue;  // an add
      *reason_key = "edits_existing";
      return StrCat("room ", doc_, ": ", rec.row ? "edits" : "removes", " ", table, " ", pk,
                    ", which the room did not add");
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<QueryBatch>> RoomAuthority::RunTwin(const MutationEnvelope& e,
                                                               WriteSet* writes,
                                                               std::string* deopt,
                                                               std::string* reason_key) {
  auto tx = store_->Write();
  ReadLog reads;
  TrackingTx mtx(tx.get(), &schema_, &no_local_tables_, writes, &reads);
  absl::Status status = twins_.at(e.name)(mtx, e.args);
  if (status.ok() && !mtx.failure().ok()) status = mtx.failure();
  if (status.ok()) {
    if (auto why = OutsideDoc(*writes, reads, reason_key)) {
      *deopt = *why;
      status = absl::FailedPreconditionError(*why);
    }
  }
  if (status.ok() && storm_ == Storm::kReject && Drawn(e, "reject")) {
    status = absl::FailedPreconditionError(StrCat("room ", doc_, ": reject storm"));
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

absl::StatusOr<std::vector<QueryBatch>> RoomAuthority::BurnMid(const MutationEnvelope& e) {
  auto tx = store_->Write();
  absl::Status s = WriteLedgerRow(*tx, e.client_id, e.mid);
  return s.ok() ? tx->Commit() : absl::StatusOr<std::vector<QueryBatch>>(s);
}

void RoomAuthority::Process(const MutationEnvelope& e) {
  dirty_ = true;
  Ledger& ledger = ledgers_[e.client_id];
  RINDLE_CHECK_EQ(e.mid, ledger.lmid + 1);
  RoomRecord rec{e.client_id, e.mid, e.name, e.args, RoomFate::kConfirmed, "", 0, 0, {}, 0, false};
  absl::StatusOr<std::vector<QueryBatch>> committed = absl::UnknownError("");
  std::string reason_key;
  if (auto why = DeoptBefore(e, &reason_key)) {
    rec.fate = RoomFate::kDeopt;
    rec.reason = *why;
  } else {
    std::string deopt;
    committed = RunTwin(e, &rec.writes, &deopt, &reason_key);
    if (!committed.ok()) {
      rec.fate = deopt.empty() ? RoomFate::kRejected : RoomFate::kDeopt;
      rec.reason = deopt.empty() ? std::string(committed.status().message()) : deopt;
    }
  }
  if (rec.fate != RoomFate::kConfirmed) {
    committed = BurnMid(e);  // the mid is burnt: the room lmid still advances
    if (!committed.ok()) {
      Fail(absl::InternalError(StrCat("room ", doc_, ": ledger commit failed: ",
                                      committed.status().message())));
      return;
    }
  }
  Count(StrCat("room.", RoomFateName(rec.fate)));
  if (rec.fate == RoomFate::kDeopt) Count(StrCat("room.deopt_reason.", reason_key));
  ledger.lmid = e.mid;
  ++cv_;
  rec.cv = cv_;
  rec.boot = boot_id_;
  record_of_[{rec.client_id, rec.mid}] = log_.size();
  log_.push_back(std::move(rec));
  // Out of band, ahead of the lmid batch that burns the mid on this ordered link.
  if (log_.back().fate != RoomFate::kConfirmed) SendOutcome(log_.back());
  subs_.Publish(*committed, cv_);
  subs_.SendProgress(cv_);
}

void RoomAuthority::SendOutcome(const RoomRecord& rec) {
  if (!subs_.HasSession(rec.client_id)) {
    Count("room.outcome_no_session");  // the flush's outcome row still carries it
    return;
  }
  ServerFrame f;
  f.kind = ServerFrame::Kind::kOutcome;
  f.outcome.mid = rec.mid;
  f.outcome.kind = rec.fate == RoomFate::kDeopt ? MutationOutcomeFrame::Kind::kDeopt
                                                : MutationOutcomeFrame::Kind::kRejected;
  if (rec.fate == RoomFate::kRejected) f.outcome.reason = rec.reason;
  f.outcome.name = rec.name;
  f.outcome.args = rec.args;
  Count(StrCat("room.outcome_sent.", RoomFateName(rec.fate)));
  send_(rec.client_id, std::move(f));
}

RoomFlush RoomAuthority::TakeFlush() {
  RoomFlush flush;
  flush.doc = doc_;
  flush.flush_seq = ++flush_seq_;
  std::map<std::pair<std::string, std::string>, WriteRecord> writes;
  for (size_t i = next_unflushed_; i < log_.size(); ++i) {
    RoomRecord& rec = log_[i];
    rec.flush_seq = flush.flush_seq;
    flush.records.push_back(i);
    if (rec.fate == RoomFate::kConfirmed) {
      if (rec.lost) continue;  // a crash lost its writes: nothing of it reaches the daemon
      for (const auto& [table, recs] : rec.writes) {
        for (const auto& [pk, w] : recs) writes[{table, pk}] = w;
      }
      continue;
    }
    flush.outcomes.push_back({rec.client_id, rec.mid,
                              std::string(rec.fate == RoomFate::kDeopt ? kOutcomeDeopt
                                                                        : kOutcomeRejected),
                              rec.reason, rec.name, rec.args});
  }
  next_unflushed_ = log_.size();
  for (auto& [key, w] : writes) {
    flushed_[key] = w;
    flush.writes.push_back(w);
  }
  for (const auto& [client, l] : ledgers_) flush.ledger[client] = l.lmid;
  Count("room.flush");
  return flush;
}

namespace {

struct RowLess {
  bool operator()(const RowValues& a, const RowValues& b) const {
    return CompareRowValues(a, b) < 0;
  }
};

// `table`'s rows of the doc in `db`, by pk.
std::map<RowValues, RowValues, RowLess> DocRows(const Db& db, const Schema& schema,
                                               const std::string& table, size_t column,
                                               const Value& issue) {
  std::map<RowValues, RowValues, RowLess> out;
  auto rows = db.TableRows(table);
  if (!rows.ok()) return out;
  const TableSpec& spec = schema.at(table);
  for (auto& r : *rows) {
    if (r[column] == issue) out.emplace(spec.PkOf(r), std::move(r));
  }
  return out;
}

}  // namespace

bool RoomAuthority::MirrorDaemon(const Db& daemon) {
  std::set<std::pair<std::string, std::string>> own;  // rows the unflushed confirmed mids wrote
  for (size_t i = next_unflushed_; i < log_.size(); ++i) {
    if (log_[i].fate != RoomFate::kConfirmed || log_[i].lost) continue;
    for (const auto& [table, recs] : log_[i].writes) {
      for (const auto& [pk, w] : recs) own.insert({table, RowToJson(w.pk).dump()});
    }
  }
  const Value issue = Value::String(issue_id_);
  const std::pair<const char*, size_t> tables[] = {
      {kIssueTable, 0},
      {kCommentTable, static_cast<size_t>(ColumnIndex(schema_, kCommentTable, "issueId"))}};
  auto tx = store_->Write();
  bool changed = false;
  absl::Status s;
  for (const auto& [table, column] : tables) {
    const auto want = DocRows(daemon, schema_, table, column, issue);
    const auto have = DocRows(*store_, schema_, table, column, issue);
    auto mine = [&](const RowValues& pk) {
      return own.contains({std::string(table), RowToJson(pk).dump()});
    };
    for (const auto& [pk, row] : want) {
      auto h = have.find(pk);
      if (h != have.end() && h->second == row) continue;
      if (!own.empty() && mine(pk)) continue;
      auto cur = tx->Get(table, pk);
      if (!cur.ok()) { s = cur.status(); break; }
      s = cur->has_value() ? tx->Edit(table, **cur, row) : tx->Add(table, row);
      if (!s.ok()) break;
      changed = true;
    }
    for (const auto& [pk, row] : have) {
      if (!s.ok() || want.contains(pk) || (!own.empty() && mine(pk))) continue;
      s = tx->Remove(table, row);
      changed = true;
    }
    if (!s.ok()) break;
  }
  if (!s.ok() || !changed) {
    tx->Rollback();
    if (!s.ok()) Fail(absl::InternalError(StrCat("room ", doc_, ": mirror: ", s.message())));
    return false;
  }
  auto committed = tx->Commit();
  if (!committed.ok()) {
    Fail(absl::InternalError(StrCat("room ", doc_, ": mirror: ", committed.status().message())));
    return false;
  }
  dirty_ = true;
  ++cv_;
  Count("room.mirror_commit");
  subs_.Publish(*committed, cv_);
  subs_.SendProgress(cv_);
  return true;
}

void RoomAuthority::Restart() {
  if (!subs_.SessionClients().empty()) dirty_ = true;
  subs_.CloseAll();
  for (auto& [c, l] : ledgers_) l.held.clear();
  ++boot_id_;
  cv_ = 0;
}

int64_t RoomAuthority::CrashBeforeFlush() {
  Restart();
  int64_t lost = 0;
  for (size_t i = next_unflushed_; i < log_.size(); ++i) {
    RoomRecord& rec = log_[i];
    if (rec.fate == RoomFate::kConfirmed && !rec.writes.empty()) {
      rec.lost = true;
      ++lost;
    }
  }
  RebuildFlushedStore();
  return lost;
}

void RoomAuthority::RebuildFlushedStore() {
  store_ = std::make_unique<Db>();
  subs_.Rebind(store_.get());
  RegisterTables(store_.get());
  dirty_ = true;
  auto tx = store_->Write();
  auto check = [this](const absl::Status& s) {
    if (!s.ok()) Fail(absl::InternalError(StrCat("room ", doc_, ": rebuild: ", s.message())));
  };
  for (const auto& [table, list] : seed_rows_) {
    for (const auto& r : list) check(tx->Add(table, r));
  }
  for (const auto& [key, w] : flushed_) {
    auto cur = tx->Get(w.table, w.pk);
    check(cur.status());
    if (!cur.ok()) continue;
    if (w.row && cur->has_value()) check(tx->Edit(w.table, **cur, *w.row));
    if (w.row && !cur->has_value()) check(tx->Add(w.table, *w.row));
    if (!w.row && cur->has_value()) check(tx->Remove(w.table, **cur));
  }
  for (const auto& [client, l] : ledgers_) check(WriteLedgerRow(*tx, client, l.lmid));
  check(tx->Commit().status());
}

}  // namespace rindle::sim
