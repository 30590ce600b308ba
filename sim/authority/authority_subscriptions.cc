#include "sim/authority/authority_subscriptions.h"

#include <algorithm>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/str_util.h"
#include "sim/authority/footprint_query.h"
#include "sim/workload/query_resolution.h"

namespace rindle::sim {

namespace {

using ColumnNames = std::map<std::string, std::set<std::string>>;

// What a projected subscription must ship: the columns it references by name, and the tables
// whose rows it SHOWS without a `select` (every column of those is part of the result).
struct Referenced {
  ColumnNames names;
  std::set<std::string> whole_tables;
};

void WalkAst(const Ast& ast, bool shown, Referenced& out);

void WalkCondition(const Condition& c, const std::string& table, Referenced& out) {
  switch (c.type) {
    case Condition::Type::kSimple:
      if (c.left.kind == ValuePosition::Kind::kColumn) out.names[table].insert(c.left.column);
      if (c.right.kind == ValuePosition::Kind::kColumn) out.names[table].insert(c.right.column);
      return;
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (const Condition& sub : c.conditions) WalkCondition(sub, table, out);
      return;
    case Condition::Type::kCorrelatedSubquery: {
      for (const auto& f : c.related.correlation.parent_field) out.names[table].insert(f);
      const Ast& sub = *c.related.subquery;
      for (const auto& f : c.related.correlation.child_field) out.names[sub.table].insert(f);
      // An EXISTS witness is evaluated, never shown: its referenced columns suffice.
      WalkAst(sub, /*shown=*/false, out);
      return;
    }
  }
}

// `shown`: the level's rows appear in the view (the root, a visible non-aggregate related).
void WalkAst(const Ast& ast, bool shown, Referenced& out) {
  std::set<std::string>& cols = out.names[ast.table];
  for (const OrderPart& o : ast.order_by) cols.insert(o.column);
  if (ast.start) {
    for (const auto& [col, v] : ast.start->row) cols.insert(col);
  }
  if (ast.select) {
    for (const auto& col : *ast.select) cols.insert(col);
  } else if (shown && !ast.aggregate) {
    // No `select` means the view shows the whole row: every column is part of the result, and
    // another view of the client evaluates this shared row too (seed 49: a cursor query read a
    // createdAt this query had not shipped, and kept a row the authority excludes).
    out.whole_tables.insert(ast.table);
  }
  if (ast.where) WalkCondition(*ast.where, ast.table, out);
  for (const CorrelatedSubquery& r : ast.related) {
    for (const auto& f : r.correlation.parent_field) out.names[ast.table].insert(f);
    for (const auto& f : r.correlation.child_field) out.names[r.subquery->table].insert(f);
    // A witness level (footprint_query.h) carries EXISTS children: evaluated, never shown.
    const bool witness = r.subquery->alias && r.subquery->alias->starts_with(kWitnessAliasPrefix);
    WalkAst(*r.subquery, shown && !r.hidden && !witness, out);
  }
}

ServerFrame DataFrame(int64_t qid, int64_t epoch, NormalizedEvent::Type type) {
  ServerFrame f;
  f.kind = ServerFrame::Kind::kData;
  f.qid = qid;
  f.epoch = epoch;
  f.event.type = type;
  return f;
}

}  // namespace

std::map<std::string, std::vector<int>> ProjectedColumns(const Ast& ast, const Schema& schema) {
  Referenced ref;
  WalkAst(ast, /*shown=*/true, ref);
  std::map<std::string, std::vector<int>> out;
  for (const auto& [table, cols] : ref.names) {
    auto spec = schema.find(table);
    if (spec == schema.end()) continue;  // the lmid table: never projected
    std::set<int> idx(spec->second.primary_key.begin(), spec->second.primary_key.end());
    if (ref.whole_tables.contains(table)) {
      for (int i = 0; i < static_cast<int>(spec->second.columns.size()); ++i) idx.insert(i);
    }
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
  // Each registration's choice is keyed by (client, query key, ordinal of that client's
  // registrations of that query), not drawn in registration order: a shrink candidate without
  // one retain keeps the projection of every other registration (network.h, same idea).
  const Rng registrations = rng.Fork("registrations");
  auto ordinals = std::make_shared<std::map<std::pair<std::string, std::string>, int64_t>>();
  return [registrations, ordinals, project_num, wide](const std::string& client, int64_t qid,
                                                      const RemoteQuery& query,
                                                      int64_t) -> ProjectionChoice {
    // The lmid query and system (lifecycle) retains ship full rows: not app tables.
    if (qid == kLmidQid || query.name == kLifecycleQueryName) return ProjectionChoice::kFull;
    const int64_t n = (*ordinals)[{client, query.Key()}]++;
    Rng draw = registrations.Fork(StrCat(client, "/", query.Key(), "/", n));
    if (draw.Chance(project_num, 3)) return ProjectionChoice::kProjected;
    if (wide && draw.Chance(1, 5)) return ProjectionChoice::kWide;
    return ProjectionChoice::kFull;
  };
}

AuthoritySubscriptions::AuthoritySubscriptions(Db* store, const Schema* schema,
                                               std::map<std::string, std::string> user_of,
                                               Sender send,
                                               std::map<std::string, int64_t>* counters)
    : store_(store),
      schema_(schema),
      user_of_(std::move(user_of)),
      send_(std::move(send)),
      counters_(counters) {
  RINDLE_CHECK(store_ != nullptr);
  RINDLE_CHECK(schema_ != nullptr);
  RINDLE_CHECK(send_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
}

// ---- sessions ----

void AuthoritySubscriptions::OpenSession(const std::string& client) {
  RINDLE_CHECK_MSG(!sessions_.contains(client), "a second session for " + client);
  sessions_[client];
}

void AuthoritySubscriptions::CloseSession(const std::string& client) {
  auto it = sessions_.find(client);
  if (it == sessions_.end()) return;
  for (const auto& [qid, sub] : it->second.subs) {
    store_->DestroyQuery(sub.engine_qid);
    engine_to_sub_.erase(sub.engine_qid);
  }
  sessions_.erase(it);
}

void AuthoritySubscriptions::CloseAll() {
  for (const std::string& c : SessionClients()) CloseSession(c);
  RINDLE_CHECK(engine_to_sub_.empty());
}

void AuthoritySubscriptions::Rebind(Db* store) {
  RINDLE_CHECK(store != nullptr);
  RINDLE_CHECK(sessions_.empty());
  RINDLE_CHECK(engine_to_sub_.empty());
  store_ = store;
}

std::vector<std::string> AuthoritySubscriptions::SessionClients() const {
  std::vector<std::string> out;
  for (const auto& [c, s] : sessions_) out.push_back(c);
  return out;
}

// ---- registration ----

void AuthoritySubscriptions::Drop(Session& session, int64_t qid) {
  auto it = session.subs.find(qid);
  if (it == session.subs.end()) return;
  store_->DestroyQuery(it->second.engine_qid);
  engine_to_sub_.erase(it->second.engine_qid);
  session.subs.erase(it);
}

absl::StatusOr<Ast> AuthoritySubscriptions::Resolve(const std::string& client,
                                                    const RemoteQuery& query) const {
  auto user = user_of_.find(client);
  auto ast = ResolveRemoteQuery(query, client, user == user_of_.end() ? "" : user->second);
  if (!ast.ok()) {
    return absl::InternalError(StrCat("authority: cannot resolve query ", query.name, " for ",
                                      client, ": ", ast.status().message()));
  }
  return FootprintQuery(*ast);
}

std::map<std::string, std::vector<int>> AuthoritySubscriptions::ShippedColumns(
    const Session& session, const Ast& ast) const {
  std::map<std::string, std::vector<int>> out = ProjectedColumns(ast, *schema_);
  for (auto& [table, cols] : out) {
    auto r = session.reads.find(table);
    if (r == session.reads.end()) continue;
    std::set<int> all(cols.begin(), cols.end());
    all.insert(r->second.begin(), r->second.end());
    cols.assign(all.begin(), all.end());
  }
  return out;
}

void AuthoritySubscriptions::WidenProjected(const std::string& client, Session& session,
                                            int64_t except, int64_t cv) {
  for (auto& [qid, sub] : session.subs) {
    if (qid == except || sub.choice != ProjectionChoice::kProjected) continue;
    auto wider = ShippedColumns(session, sub.ast);
    if (wider == sub.columns) continue;
    sub.epoch = ++epochs_[{client, qid}];
    sub.columns = std::move(wider);
    sub.footprint = Footprint(sub);
    Count("authority.widened_hello");
    SendHello(client, qid, sub);
    SendSnapshot(client, qid, sub, cv);
  }
}

void AuthoritySubscriptions::ChooseProjection(const std::string& client, int64_t qid,
                                              const RemoteQuery& query, const Session& session,
                                              Subscription& sub) {
  sub.epoch = ++epochs_[{client, qid}];
  if (projection_policy_) sub.choice = projection_policy_(client, qid, query, sub.epoch);
  if (sub.choice == ProjectionChoice::kProjected) {
    sub.columns = ShippedColumns(session, sub.ast);
    if (sub.columns.empty()) sub.choice = ProjectionChoice::kFull;  // e.g. the lmid table
  }
  if (qid != kLmidQid && skew_next_hello_.erase(client) > 0) {
    // Every column, the non-pk ones reversed: neither a projection nor an expansion.
    sub.choice = ProjectionChoice::kSkewed;
    sub.columns = SkewedColumns(sub.ast);
  }
}

std::map<std::string, std::vector<int>> AuthoritySubscriptions::SkewedColumns(
    const Ast& ast) const {
  std::map<std::string, std::vector<int>> out;
  for (const std::string& t : AstTables(ast)) {
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
    out[t] = std::move(order);
  }
  return out;
}

absl::Status AuthoritySubscriptions::Register(const std::string& client, int64_t qid,
                                              const RemoteQuery& query, int64_t cv) {
  RINDLE_CHECK_GE(qid, 0);
  RINDLE_CHECK_GE(cv, 0);
  auto sit = sessions_.find(client);
  if (sit == sessions_.end()) return absl::OkStatus();  // a registration that raced a disconnect
  Session& session = sit->second;
  Drop(session, qid);
  auto ast = Resolve(client, query);
  if (!ast.ok()) return ast.status();
  Subscription sub;
  sub.engine_qid = next_engine_qid_++;
  sub.ast = *std::move(ast);
  // Every view of the client evaluates every synced row: what this one reads, all must ship.
  for (const auto& [table, cols] : ProjectedColumns(sub.ast, *schema_)) {
    session.reads[table].insert(cols.begin(), cols.end());
  }
  ChooseProjection(client, qid, query, session, sub);
  auto snap = store_->RegisterQuery(sub.engine_qid, sub.ast);
  if (!snap.ok()) {
    return absl::InternalError(
        StrCat("authority: cannot register query ", query.name, ": ", snap.status().message()));
  }
  sub.footprint = Footprint(sub);
  engine_to_sub_[sub.engine_qid] = {client, qid};
  SendHello(client, qid, sub);
  SendSnapshot(client, qid, sub, cv);
  session.subs.emplace(qid, std::move(sub));
  WidenProjected(client, session, qid, cv);
  if (!starve_progress_) SendProgressTo(client, cv);
  return absl::OkStatus();
}

void AuthoritySubscriptions::SendHello(const std::string& client, int64_t qid,
                                       const Subscription& sub) {
  // hello: the tables the query reads, with their column names.
  ServerFrame hello = DataFrame(qid, sub.epoch, NormalizedEvent::Type::kHello);
  const bool listed =
      sub.choice == ProjectionChoice::kProjected || sub.choice == ProjectionChoice::kSkewed;
  for (const std::string& t : AstTables(sub.ast)) {
    WireTable wt;
    wt.name = t;
    const auto& columns = store_->GetTableSpec(t)->columns;
    auto projected = sub.columns.find(t);
    if (listed && projected != sub.columns.end()) {
      for (int c : projected->second) wt.columns.push_back(columns[static_cast<size_t>(c)].name);
    } else {
      for (const auto& c : columns) wt.columns.push_back(c.name);
      if (sub.choice == ProjectionChoice::kWide && schema_->contains(t)) {
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
}

void AuthoritySubscriptions::SendSnapshot(const std::string& client, int64_t qid,
                                          const Subscription& sub, int64_t cv) {
  ServerFrame snapshot = DataFrame(qid, sub.epoch, NormalizedEvent::Type::kSnapshot);
  snapshot.event.cv = cv;
  for (const auto& [key, row] : sub.footprint) {
    snapshot.event.ops.push_back({RowOp::Kind::kAdd, key.first, row, {}});
  }
  send_(client, std::move(snapshot));
}

void AuthoritySubscriptions::Unregister(const std::string& client, int64_t qid) {
  RINDLE_CHECK_GE(qid, 0);
  auto sit = sessions_.find(client);
  if (sit == sessions_.end()) return;
  Drop(sit->second, qid);
}

// ---- footprints and frames ----

RowValues AuthoritySubscriptions::Wire(const Subscription& sub, const std::string& table,
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
      if (!schema_->contains(table)) return row;
      RowValues out = row;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(row.size() / 2),
                 Value::String(StrCat("srv-", sub.epoch)));
      return out;
    }
  }
  return row;
}

std::map<AuthoritySubscriptions::FootprintKey, RowValues> AuthoritySubscriptions::Footprint(
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

std::vector<RowOp> AuthoritySubscriptions::FootprintDiff(
    const std::map<FootprintKey, RowValues>& old_rows,
    const std::map<FootprintKey, RowValues>& new_rows) {
  std::vector<RowOp> ops;
  auto it_old = old_rows.begin();
  auto it_new = new_rows.begin();
  while (it_old != old_rows.end() || it_new != new_rows.end()) {
    if (it_new == new_rows.end() || (it_old != old_rows.end() && it_old->first < it_new->first)) {
      ops.push_back({RowOp::Kind::kRemove, it_old->first.first, it_old->second, {}});
      ++it_old;
    } else if (it_old == old_rows.end() || it_new->first < it_old->first) {
      ops.push_back({RowOp::Kind::kAdd, it_new->first.first, it_new->second, {}});
      ++it_new;
    } else {
      if (CompareRowValues(it_old->second, it_new->second) != 0) {
        ops.push_back({RowOp::Kind::kEdit, it_new->first.first, it_new->second, it_old->second});
      }
      ++it_old;
      ++it_new;
    }
  }
  return ops;
}

void AuthoritySubscriptions::Publish(const std::vector<QueryBatch>& batches, int64_t cv) {
  RINDLE_CHECK_GE(cv, 0);
  for (const QueryBatch& b : batches) {
    auto owner = engine_to_sub_.find(b.query_id);
    if (owner == engine_to_sub_.end()) continue;
    const auto& [client, qid] = owner->second;
    Subscription& sub = sessions_.at(client).subs.at(qid);
    std::map<FootprintKey, RowValues> next = Footprint(sub);
    ServerFrame f = DataFrame(qid, sub.epoch, NormalizedEvent::Type::kBatch);
    f.event.cv = cv;
    f.event.ops = FootprintDiff(sub.footprint, next);
    sub.footprint = std::move(next);
    if (!f.event.ops.empty()) send_(client, std::move(f));
  }
}

int64_t AuthoritySubscriptions::Promised(const std::string& client) const {
  auto it = sessions_.find(client);
  return it == sessions_.end() ? -1 : it->second.promised;
}

void AuthoritySubscriptions::SendProgressTo(const std::string& client, int64_t cv) {
  if (auto it = sessions_.find(client); it != sessions_.end()) {
    it->second.promised = std::max(it->second.promised, cv);
  }
  ServerFrame p;
  p.kind = ServerFrame::Kind::kProgress;
  p.cv_min = cv;
  send_(client, std::move(p));
}

void AuthoritySubscriptions::SendProgress(int64_t cv) {
  if (starve_progress_) return;
  for (const auto& [client, session] : sessions_) SendProgressTo(client, cv);
}

void AuthoritySubscriptions::StarveProgress(bool starve, int64_t cv) {
  const bool was = starve_progress_;
  starve_progress_ = starve;
  if (was && !starve) SendProgress(cv);
}

// ---- read-only views ----

std::vector<std::pair<std::string, int64_t>> AuthoritySubscriptions::Subscriptions() const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [client, session] : sessions_) {
    for (const auto& [qid, sub] : session.subs) out.emplace_back(client, qid);
  }
  return out;
}

absl::StatusOr<std::vector<TreeNode>> AuthoritySubscriptions::SubscriptionResult(
    const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end() || !s->second.subs.contains(qid)) {
    return absl::NotFoundError("no such subscription");
  }
  return store_->QueryResult(s->second.subs.at(qid).engine_qid);
}

const Ast* AuthoritySubscriptions::SubscriptionAst(const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return nullptr;
  auto it = s->second.subs.find(qid);
  return it == s->second.subs.end() ? nullptr : &it->second.ast;
}

CoverageMap AuthoritySubscriptions::Coverage(const std::string& client) const {
  CoverageMap out;
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return out;
  for (const auto& [qid, sub] : s->second.subs) {
    if (qid == kLmidQid) continue;
    for (const auto& [key, wire] : sub.footprint) {
      auto spec = schema_->find(key.first);
      if (spec == schema_->end()) continue;
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

const std::map<std::string, std::vector<int>>* AuthoritySubscriptions::SubscriptionColumns(
    const std::string& client, int64_t qid) const {
  auto s = sessions_.find(client);
  if (s == sessions_.end()) return nullptr;
  auto it = s->second.subs.find(qid);
  return it == s->second.subs.end() ? nullptr : &it->second.columns;
}

}  // namespace rindle::sim
