#include "sim/daemon.h"

#include "engine/check.h"
#include "engine/str_util.h"
#include "optimistic/tracking_tx.h"
#include "optimistic/write_set.h"
#include "sim/footprint_query.h"
#include "sim/query_resolution.h"

namespace rindle::sim {

namespace {

using ColumnNames = std::map<std::string, std::set<std::string>>;

void WalkAst(const Ast& ast, ColumnNames& out);

void WalkCondition(const Condition& c, const std::string& table, ColumnNames& out) {
  switch (c.type) {
    case Condition::Type::kSimple:
      if (c.left.kind == ValuePosition::Kind::kColumn) out[table].insert(c.left.column);
      if (c.right.kind == ValuePosition::Kind::kColumn) out[table].insert(c.right.column);
      return;
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (const Condition& sub : c.conditions) WalkCondition(sub, table, out);
      return;
    case Condition::Type::kCorrelatedSubquery: {
      for (const auto& f : c.related.correlation.parent_field) out[table].insert(f);
      const Ast& sub = *c.related.subquery;
      for (const auto& f : c.related.correlation.child_field) out[sub.table].insert(f);
      WalkAst(sub, out);
      return;
    }
  }
}

void WalkAst(const Ast& ast, ColumnNames& out) {
  std::set<std::string>& cols = out[ast.table];
  for (const OrderPart& o : ast.order_by) cols.insert(o.column);
  if (ast.start) {
    for (const auto& [col, v] : ast.start->row) cols.insert(col);
  }
  if (ast.select) {
    for (const auto& col : *ast.select) cols.insert(col);
  }
  if (ast.where) WalkCondition(*ast.where, ast.table, out);
  for (const CorrelatedSubquery& r : ast.related) {
    for (const auto& f : r.correlation.parent_field) out[ast.table].insert(f);
    for (const auto& f : r.correlation.child_field) out[r.subquery->table].insert(f);
    WalkAst(*r.subquery, out);
  }
}

}  // namespace

std::map<std::string, std::vector<int>> ProjectedColumns(const Ast& ast, const Schema& schema) {
  ColumnNames names;
  WalkAst(ast, names);
  std::map<std::string, std::vector<int>> out;
  for (const auto& [table, cols] : names) {
    auto spec = schema.find(table);
    if (spec == schema.end()) continue;  // the lmid table: never projected
    std::set<int> idx(spec->second.primary_key.begin(), spec->second.primary_key.end());
    for (const std::string& c : cols) {
      const int i = spec->second.ColumnIndex(c);
      if (i >= 0) idx.insert(i);
    }
    out[table] = std::vector<int>(idx.begin(), idx.end());
  }
  return out;
}

ProjectionPolicy SimProjectionPolicy(Rng rng) {
  // Per-run draw: off in a third of runs; else a per-registration projection rate and a wide rate.
  const int64_t mode = rng.Range(0, 2);
  if (mode == 0) return nullptr;
  const uint32_t project_num = static_cast<uint32_t>(rng.Range(1, 3));  // of 3
  const bool wide = rng.Chance(1, 2);
  auto state = std::make_shared<Rng>(rng.Fork("registrations"));
  return [state, project_num, wide](const std::string&, int64_t qid, const RemoteQuery&,
                                    int64_t) -> ProjectionChoice {
    if (qid == kLmidQid) return ProjectionChoice::kFull;
    if (state->Chance(project_num, 3)) return ProjectionChoice::kProjected;
    if (wide && state->Chance(1, 5)) return ProjectionChoice::kWide;
    return ProjectionChoice::kFull;
  };
}

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

RowValues DaemonAuthority::Wire(const Subscription& sub, const std::string& table,
                                const RowValues& row) const {
  switch (sub.choice) {
    case ProjectionChoice::kFull:
      return row;
    case ProjectionChoice::kProjected:
    case ProjectionChoice::kSkewed: {  // the listed columns, in the listed order
      auto it = sub.columns.find(table);
      if (it == sub.columns.end()) return row;
      RowValues out;
      out.reserve(it->second.size());
      for (int c : it->second) out.push_back(row[static_cast<size_t>(c)]);
      return out;
    }
    case ProjectionChoice::kWide: {
      if (!schema_.contains(table)) return row;
      RowValues out = row;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(row.size() / 2),
                 Value::String(StrCat("srv-", sub.epoch)));
      return out;
    }
  }
  return row;
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
          out[{ast.table, spec->PkOf(*n.row)}] = Wire(sub, ast.table, *n.row);
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
  sub.epoch = ++epochs_[{client, qid}];
  if (projection_policy_) sub.choice = projection_policy_(client, qid, query, sub.epoch);
  if (sub.choice == ProjectionChoice::kProjected) {
    sub.columns = ProjectedColumns(sub.ast, schema_);
    if (sub.columns.empty()) sub.choice = ProjectionChoice::kFull;  // e.g. the lmid table
  }
  if (qid != kLmidQid && skew_next_hello_.erase(client) > 0) {
    // Every column, the non-pk ones reversed: neither a projection nor an expansion.
    sub.choice = ProjectionChoice::kSkewed;
    sub.columns.clear();
    for (const std::string& t : AstTables(sub.ast)) {
      const TableSpec* spec = store_->GetTableSpec(t);
      if (spec == nullptr) continue;
      std::vector<int> order;
      std::vector<int> rest;
      for (int i = 0; i < static_cast<int>(spec->columns.size()); ++i) {
        const bool pk = std::find(spec->primary_key.begin(), spec->primary_key.end(), i) !=
                        spec->primary_key.end();
        (pk ? order : rest).push_back(i);
      }
      order.insert(order.end(), rest.rbegin(), rest.rend());
      sub.columns[t] = std::move(order);
    }
  }
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
  hello.epoch = sub.epoch;
  hello.event.type = NormalizedEvent::Type::kHello;
  for (const std::string& t : AstTables(sub.ast)) {
    WireTable wt;
    wt.name = t;
    const auto& columns = store_->GetTableSpec(t)->columns;
    auto projected = sub.columns.find(t);
    if ((sub.choice == ProjectionChoice::kProjected || sub.choice == ProjectionChoice::kSkewed) &&
        projected != sub.columns.end()) {
      for (int c : projected->second) wt.columns.push_back(columns[static_cast<size_t>(c)].name);
    } else {
      for (const auto& c : columns) wt.columns.push_back(c.name);
      if (sub.choice == ProjectionChoice::kWide && schema_.contains(t)) {
        wt.columns.insert(wt.columns.begin() + static_cast<std::ptrdiff_t>(columns.size() / 2),
                          kServerOnlyColumn);
      }
    }
    hello.event.tables.push_back(std::move(wt));
  }
  switch (sub.choice) {
    case ProjectionChoice::kFull: break;
    case ProjectionChoice::kProjected: Count("authority.projected_hello"); break;
    case ProjectionChoice::kWide: Count("authority.wide_hello"); break;
    case ProjectionChoice::kSkewed: Count("authority.skewed_hello"); break;
  }
  send_(client, std::move(hello));
  ServerFrame snapshot;
  snapshot.kind = ServerFrame::Kind::kData;
  snapshot.qid = qid;
  snapshot.epoch = sub.epoch;
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
    f.epoch = sub.epoch;
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

std::map<std::pair<std::string, RowValues>, std::vector<bool>> DaemonAuthority::Coverage(
    const std::string& client) const {
  std::map<std::pair<std::string, RowValues>, std::vector<bool>> out;
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return out;
  for (const auto& [qid, sub] : s->second.subs) {
    if (qid == kLmidQid) continue;
    for (const auto& [key, wire] : sub.footprint) {
      auto spec = schema_.find(key.first);
      if (spec == schema_.end()) continue;
      const size_t width = spec->second.columns.size();
      std::vector<bool>& covers = out[key];
      if (covers.empty()) covers.assign(width, false);
      auto cols = sub.columns.find(key.first);
      if (sub.choice == ProjectionChoice::kProjected && cols != sub.columns.end()) {
        for (int c : cols->second) covers[static_cast<size_t>(c)] = true;
      } else {
        covers.assign(width, true);
      }
    }
  }
  return out;
}

const std::map<std::string, std::vector<int>>* DaemonAuthority::SubscriptionColumns(
    const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return nullptr;
  auto it = s->second.subs.find(qid);
  return it == s->second.subs.end() ? nullptr : &it->second.columns;
}

nlohmann::json FrameToTrace(const ServerFrame& f) {
  switch (f.kind) {
    case ServerFrame::Kind::kWelcome: return {{"frame", "welcome"}, {"boot", f.boot_id}};
    case ServerFrame::Kind::kProgress: return {{"frame", "progress"}, {"cvMin", f.cv_min}};
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
