#include "sim/daemon.h"

#include "engine/check.h"
#include "engine/str_util.h"
#include "optimistic/tracking_tx.h"
#include "optimistic/write_set.h"
#include "sim/footprint_query.h"
#include "sim/query_resolution.h"

namespace rindle::sim {

DaemonAuthority::DaemonAuthority(Schema schema, std::map<std::string, Mutator> twins,
                                 std::map<std::string, std::string> user_of, Sender sender,
                                 std::map<std::string, int64_t>* counters)
    : schema_(std::move(schema)),
      twins_(std::move(twins)),
      user_of_(std::move(user_of)),
      send_(std::move(sender)),
      counters_(counters),
      store_(std::make_unique<Db>()) {
  // The authority's store is its own truth: no sync baseline to rebase, so its tables are
  // registered untracked.
  for (const auto& [name, spec] : schema_) {
    auto s = store_->RegisterTable(name, spec, true);
    if (!s.ok()) Fail(s);
  }
  auto s = store_->RegisterTable(kClientMutationsTable, ClientMutationsSpec(), true);
  if (!s.ok()) Fail(s);
}

void DaemonAuthority::Fail(absl::Status s) {
  if (health_.ok()) health_ = std::move(s);
}

absl::Status DaemonAuthority::Seed(const std::map<std::string, std::vector<RowValues>>& rows) {
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
  Disconnect(client);
  sessions_[client];
  ServerFrame w;
  w.kind = ServerFrame::Kind::kWelcome;
  w.boot_id = boot_id_;
  send_(client, std::move(w));
}

void DaemonAuthority::Disconnect(const std::string& client) {
  dirty_ = true;
  auto it = sessions_.find(client);
  if (it == sessions_.end()) return;
  for (const auto& [qid, sub] : it->second.subs) {
    store_->DestroyQuery(sub.engine_qid);
    engine_to_sub_.erase(sub.engine_qid);
  }
  sessions_.erase(it);
}

std::map<DaemonAuthority::FootprintKey, RowValues> DaemonAuthority::Footprint(
    const Subscription& sub) const {
  std::map<FootprintKey, RowValues> out;
  auto result = store_->QueryResult(sub.engine_qid);
  if (!result.ok()) return out;
  std::function<void(const std::vector<TreeNode>&, const Ast&)> walk =
      [&](const std::vector<TreeNode>& nodes, const Ast& ast) {
        const TableSpec* spec = store_->GetTableSpec(ast.table);
        RINDLE_CHECK(spec != nullptr);
        for (const TreeNode& n : nodes) {
          out[{ast.table, spec->PkOf(*n.row)}] = *n.row;
          RINDLE_CHECK_EQ(n.relationships.size(), ast.related.size());
          for (size_t i = 0; i < n.relationships.size(); ++i) {
            walk(n.relationships[i].second, *ast.related[i].subquery);
          }
        }
      };
  walk(*result, sub.ast);
  return out;
}

void DaemonAuthority::Register(const std::string& client, int64_t qid, const RemoteQuery& query) {
  dirty_ = true;
  auto sit = sessions_.find(client);
  if (sit == sessions_.end()) return;  // a registration that raced a disconnect
  Session& session = sit->second;
  if (auto old = session.subs.find(qid); old != session.subs.end()) {
    store_->DestroyQuery(old->second.engine_qid);
    engine_to_sub_.erase(old->second.engine_qid);
    session.subs.erase(old);
  }
  auto user = user_of_.find(client);
  auto ast = ResolveRemoteQuery(query, client, user == user_of_.end() ? "" : user->second);
  if (!ast.ok()) {
    Fail(absl::InternalError(StrCat("authority: cannot resolve query ", query.name, " for ",
                                    client, ": ", ast.status().message())));
    return;
  }
  Subscription sub;
  sub.engine_qid = next_engine_qid_++;
  sub.ast = FootprintQuery(*ast);
  auto snap = store_->RegisterQuery(sub.engine_qid, sub.ast);
  if (!snap.ok()) {
    Fail(absl::InternalError(StrCat("authority: cannot register query ", query.name, ": ",
                                    snap.status().message())));
    return;
  }
  sub.footprint = Footprint(sub);
  engine_to_sub_[sub.engine_qid] = {client, qid};
  // hello: the tables the query reads, with their column names.
  ServerFrame hello;
  hello.kind = ServerFrame::Kind::kData;
  hello.qid = qid;
  hello.event.type = NormalizedEvent::Type::kHello;
  for (const std::string& t : AstTables(sub.ast)) {
    WireTable wt;
    wt.name = t;
    for (const auto& c : store_->GetTableSpec(t)->columns) wt.columns.push_back(c.name);
    hello.event.tables.push_back(std::move(wt));
  }
  send_(client, std::move(hello));
  ServerFrame snapshot;
  snapshot.kind = ServerFrame::Kind::kData;
  snapshot.qid = qid;
  snapshot.event.type = NormalizedEvent::Type::kSnapshot;
  snapshot.event.cv = cv_;
  for (const auto& [key, row] : sub.footprint) {
    snapshot.event.ops.push_back({RowOp::Kind::kAdd, key.first, row, {}});
  }
  send_(client, std::move(snapshot));
  session.subs.emplace(qid, std::move(sub));
  if (!starve_progress_) {
    ServerFrame p;
    p.kind = ServerFrame::Kind::kProgress;
    p.cv_min = cv_;
    send_(client, std::move(p));
  }
}

void DaemonAuthority::Unregister(const std::string& client, int64_t qid) {
  dirty_ = true;
  auto sit = sessions_.find(client);
  if (sit == sessions_.end()) return;
  auto it = sit->second.subs.find(qid);
  if (it == sit->second.subs.end()) return;
  store_->DestroyQuery(it->second.engine_qid);
  engine_to_sub_.erase(it->second.engine_qid);
  sit->second.subs.erase(it);
}

bool DaemonAuthority::HandlePush(const MutationEnvelope& e) {
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

void DaemonAuthority::Process(const MutationEnvelope& e) {
  dirty_ = true;
  Ledger& ledger = ledgers_[e.client_id];
  RINDLE_CHECK_EQ(e.mid, ledger.lmid + 1);
  const int64_t new_lmid = e.mid;
  auto write_ledger_row = [&](WriteTxn& tx) -> absl::Status {
    RowValues pk = {Value::String(e.client_id)};
    RowValues row = {Value::String(e.client_id), Value::Int(new_lmid)};
    auto cur = tx.Get(kClientMutationsTable, pk);
    if (!cur.ok()) return cur.status();
    if (cur->has_value()) return tx.Edit(kClientMutationsTable, **cur, row);
    return tx.Add(kClientMutationsTable, row);
  };
  ProcessedEnvelope rec{e.client_id, e.mid, e.name, e.args, false, "", 0};
  std::vector<QueryBatch> batches;
  {
    auto tx = store_->Write();
    absl::Status status;
    auto twin = twins_.find(e.name);
    if (twin == twins_.end()) {
      status = absl::NotFoundError(StrCat("unknown mutator \"", e.name, "\""));
    } else {
      WriteSet writes;
      TrackingTx mtx(tx.get(), &schema_, &no_local_tables_, &writes, nullptr);
      status = twin->second(mtx, e.args);
      if (status.ok() && !mtx.failure().ok()) status = mtx.failure();
    }
    if (status.ok()) status = write_ledger_row(*tx);
    if (status.ok()) {
      auto committed = tx->Commit();
      if (committed.ok()) {
        rec.applied = true;
        batches = std::move(*committed);
      } else {
        status = committed.status();
      }
    }
    if (!rec.applied) {
      tx->Rollback();
      rec.reason = std::string(status.message());
    }
  }
  if (!rec.applied) {
    // Processed as a no-op: the mid is burnt, the lmid still advances (same commit shape).
    Count("authority.burnt_mid");
    auto tx = store_->Write();
    absl::Status s = write_ledger_row(*tx);
    auto committed = s.ok() ? tx->Commit() : absl::StatusOr<std::vector<QueryBatch>>(s);
    if (!committed.ok()) {
      Fail(absl::InternalError(StrCat("authority: ledger commit failed: ",
                                      committed.status().message())));
      return;
    }
    batches = std::move(*committed);
  } else {
    Count("authority.applied_mid");
  }
  ledger.lmid = new_lmid;
  ++cv_;
  rec.cv = cv_;
  log_.push_back(std::move(rec));
  Publish(batches);
  SendProgress();
}

void DaemonAuthority::Publish(const std::vector<QueryBatch>& batches) {
  for (const QueryBatch& b : batches) {
    auto owner = engine_to_sub_.find(b.query_id);
    if (owner == engine_to_sub_.end()) continue;
    const auto& [client, qid] = owner->second;
    Subscription& sub = sessions_.at(client).subs.at(qid);
    std::map<FootprintKey, RowValues> next = Footprint(sub);
    ServerFrame f;
    f.kind = ServerFrame::Kind::kData;
    f.qid = qid;
    f.event.type = NormalizedEvent::Type::kBatch;
    f.event.cv = cv_;
    auto it_old = sub.footprint.begin();
    auto it_new = next.begin();
    while (it_old != sub.footprint.end() || it_new != next.end()) {
      if (it_new == next.end() || (it_old != sub.footprint.end() && it_old->first < it_new->first)) {
        f.event.ops.push_back({RowOp::Kind::kRemove, it_old->first.first, it_old->second, {}});
        ++it_old;
      } else if (it_old == sub.footprint.end() || it_new->first < it_old->first) {
        f.event.ops.push_back({RowOp::Kind::kAdd, it_new->first.first, it_new->second, {}});
        ++it_new;
      } else {
        if (CompareRowValues(it_old->second, it_new->second) != 0) {
          f.event.ops.push_back(
              {RowOp::Kind::kEdit, it_new->first.first, it_new->second, it_old->second});
        }
        ++it_old;
        ++it_new;
      }
    }
    sub.footprint = std::move(next);
    if (!f.event.ops.empty()) send_(client, std::move(f));
  }
}

void DaemonAuthority::SendProgress() {
  if (starve_progress_) return;
  for (const auto& [client, session] : sessions_) {
    ServerFrame p;
    p.kind = ServerFrame::Kind::kProgress;
    p.cv_min = cv_;
    send_(client, std::move(p));
  }
}

void DaemonAuthority::StarveProgress(bool starve) {
  const bool was = starve_progress_;
  starve_progress_ = starve;
  if (was && !starve) SendProgress();
}

void DaemonAuthority::Restart() {
  std::vector<std::string> clients;
  for (const auto& [c, s] : sessions_) clients.push_back(c);
  for (const auto& c : clients) Disconnect(c);
  for (auto& [c, l] : ledgers_) l.held.clear();
  ++boot_id_;
  cv_ = 0;
}

std::vector<std::pair<std::string, int64_t>> DaemonAuthority::Subscriptions() const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [client, session] : sessions_) {
    for (const auto& [qid, sub] : session.subs) out.emplace_back(client, qid);
  }
  return out;
}

absl::StatusOr<std::vector<TreeNode>> DaemonAuthority::SubscriptionResult(
    const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end() || !s->second.subs.contains(qid)) {
    return absl::NotFoundError("no such subscription");
  }
  return store_->QueryResult(s->second.subs.at(qid).engine_qid);
}

const Ast* DaemonAuthority::SubscriptionAst(const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return nullptr;
  auto it = s->second.subs.find(qid);
  return it == s->second.subs.end() ? nullptr : &it->second.ast;
}

nlohmann::json FrameToTrace(const ServerFrame& f) {
  switch (f.kind) {
    case ServerFrame::Kind::kWelcome: return {{"frame", "welcome"}, {"boot", f.boot_id}};
    case ServerFrame::Kind::kProgress: return {{"frame", "progress"}, {"cvMin", f.cv_min}};
    case ServerFrame::Kind::kData: {
      const char* type = f.event.type == NormalizedEvent::Type::kHello      ? "hello"
                         : f.event.type == NormalizedEvent::Type::kSnapshot ? "snapshot"
                                                                            : "batch";
      return {{"frame", type}, {"qid", f.qid}, {"cv", f.event.cv}, {"ops", f.event.ops.size()}};
    }
  }
  return nullptr;
}

}  // namespace rindle::sim
