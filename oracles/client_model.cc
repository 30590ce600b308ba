// client_model.cc — see client_model.h.
#include "oracles/client_model.h"

#include <algorithm>

#include "base/check.h"
#include "base/lifecycle_tables.h"
#include "base/str_util.h"
#include "engine/ast.h"

namespace rindle {

namespace {

// A MutationTx over a PlainMutationTx that records which tables a write changed (the seed-002
// write-set rule: a keyed writer that finds nothing to do — update/delete of an absent row,
// insertIgnore of a present one — writes nothing), and every table the run read, probed or
// wrote (`touched`: what another entry applied around it can interact through).
class RecordingTx : public MutationTx {
 public:
  explicit RecordingTx(PlainMutationTx* tx) : tx_(tx) {}
  const std::set<std::string>& tables() const { return tables_; }
  const std::set<std::string>& touched() const { return touched_; }

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view t, const RowValues& pk) override {
    Touch(t);
    return tx_->Get(t, pk);
  }
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view t, const KeyedRow& pk) override {
    Touch(t);
    return tx_->GetRow(t, pk);
  }
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override {
    for (const std::string& t : AstTables(ast)) Touch(t);
    return tx_->Query(ast);
  }
  absl::Status Add(std::string_view t, const RowValues& row) override {
    return Rec(t, tx_->Add(t, row));
  }
  absl::Status Remove(std::string_view t, const RowValues& row) override {
    return Rec(t, tx_->Remove(t, row));
  }
  absl::Status Edit(std::string_view t, const RowValues& o, const RowValues& n) override {
    return Rec(t, tx_->Edit(t, o, n));
  }
  absl::Status Insert(std::string_view t, const KeyedRow& row) override {
    return Rec(t, tx_->Insert(t, row));
  }
  absl::Status Upsert(std::string_view t, const KeyedRow& row) override {
    return Rec(t, tx_->Upsert(t, row));
  }
  absl::Status Update(std::string_view t, const KeyedRow& row) override {
    const bool present = Present(t, row);
    absl::Status s = tx_->Update(t, row);
    return present ? Rec(t, s) : s;
  }
  absl::Status InsertIgnore(std::string_view t, const KeyedRow& row) override {
    const bool present = Present(t, row);
    absl::Status s = tx_->InsertIgnore(t, row);
    return present ? s : Rec(t, s);
  }
  absl::Status Delete(std::string_view t, const KeyedRow& pk) override {
    const bool present = Present(t, pk);
    absl::Status s = tx_->Delete(t, pk);
    return present ? Rec(t, s) : s;
  }

 private:
  void Touch(std::string_view t) { touched_.insert(std::string(t)); }
  absl::Status Rec(std::string_view t, absl::Status s) {
    Touch(t);
    if (s.ok()) tables_.insert(std::string(t));
    return s;
  }
  // Whether the row `keyed` names is in the staged state (false when the key is malformed: the
  // call itself then fails). Every keyed writer calls it or Rec first: both touch the table.
  bool Present(std::string_view t, const KeyedRow& keyed) {
    Touch(t);
    auto pk = tx_->staged().PkFromKeyed(t, keyed);
    if (!pk.ok()) return false;
    auto row = tx_->staged().Get(t, *pk);
    return row.ok() && row->has_value();
  }

  PlainMutationTx* tx_;
  std::set<std::string> tables_;
  std::set<std::string> touched_;
};

std::string FoldName(const std::string& fold_key) {
  return fold_key.substr(0, fold_key.find('\0'));
}

}  // namespace

ClientModel::ClientModel(std::string client_id, Schema schema, size_t cap)
    : client_id_(std::move(client_id)), schema_(std::move(schema)), gate_(cap), head_(schema_) {
  RINDLE_CHECK(!client_id_.empty());
}

// --- delivery ------------------------------------------------------------------------------

void ClientModel::FreezeAll(const char* why) {
  for (auto& [qid, s] : sources_) {
    if (s.current) s.frozen_by = why;
    s.current = false;
  }
}

void ClientModel::Welcome(int64_t boot_id) {
  if (boot_ != 0 && boot_id != boot_) {
    // A restarted authority: the gate resets.
    gate_.Reset();
    payloads_.clear();
  }
  // A new session: what the old one had in flight is lost, so every source waits for the
  // snapshot of its re-registration, and the frames buffered from the old one are dropped (a
  // buffered lmid batch may lack its cv's lost data batch; gate_model.h DropAll).
  gate_.DropAll();
  Prune();
  FreezeAll("welcome");
  boot_ = boot_id;
}

void ClientModel::Hello(int64_t qid, const std::vector<WireTable>& tables) {
  gate_.Drop(qid);
  Prune();
  Source& s = sources_[qid];
  std::map<std::string, std::vector<std::string>> columns;
  for (const WireTable& t : tables) columns[t.name] = t.columns;
  if (columns != s.columns && !s.rows.empty() && qid != kLmidQid) s.coverage_changed = true;
  s.columns = std::move(columns);
  if (s.current) s.frozen_by = "hello";
  s.current = false;  // a new epoch: frozen until its snapshot releases
}

void ClientModel::Data(int64_t qid, const NormalizedEvent& ev) {
  const int64_t tag = next_tag_++;
  payloads_.emplace(tag, std::make_pair(qid, ev));
  const GateModel::Arrival a =
      gate_.Push({qid, ev.cv, ev.type == NormalizedEvent::Type::kSnapshot, tag});
  if (a == GateModel::Arrival::kStale) payloads_.erase(tag);
  if (a == GateModel::Arrival::kOverflow) {
    // The client re-registers every query: each source keeps its rows, frozen.
    payloads_.clear();
    FreezeAll("overflow");
  }
}

void ClientModel::Progress(int64_t cv_min) {
  const int64_t lmid_before = lmid_;
  bool released = false;
  for (const GateModel::Frame& f : gate_.Release(cv_min)) {
    auto p = payloads_.find(f.epoch);
    RINDLE_CHECK(p != payloads_.end());
    Apply(p->second.first, p->second.second);
    payloads_.erase(p);
    ++releases_;
    dirty_ = true;
    released = true;
  }
  for (auto& [qid, s] : sources_) {
    if (s.current) s.cut = Cut{boot_, gate_.applied_cv()};
  }
  if (!released) return;
  bool retired = false;  // the release confirmed a live pending entry (seed 002 §7.1)
  for (auto it = sent_.upper_bound(lmid_before); it != sent_.upper_bound(lmid_); ++it) {
    retired = retired || !it->second.dead;
  }
  NoteCycle(retired);
}

void ClientModel::NoteCycle(bool pending_shrank) {
  PlainTables before = std::move(synced_);
  RebuildSynced();
  if (!pending_shrank && PlainTablesEqual(before, synced_)) return;
  // The client's reconcile cycle re-derives head as sync ⊕ replay in replay order: from here the
  // order entries were applied in is the replay order (§4.2 window closed). A later flush can
  // still move a window ahead of an older one in replay order: the stamps keep the cycle's order.
  ++cycles_;
  reconciled_ = true;  // the next Refresh's replays are the cycle's: they count (tables, dead)
  for (auto& [mid, e] : sent_) e.first_applied = e.last_applied = ++applied_;
  for (auto& [mid, at] : invoked_) at = ++applied_;  // invoked, not yet fed to Sent: larger mids
  for (Entry& w : windows_) w.first_applied = w.last_applied = ++applied_;
}

std::optional<std::pair<const ClientModel::Entry*, const ClientModel::Entry*>>
ClientModel::OutOfOrderPair() const {
  const std::vector<const Entry*> order = Pending();
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = i + 1; j < order.size(); ++j) {
      // Head holds every application since the cycle: one of i after one of j is out of order.
      if (order[i]->last_applied <= order[j]->first_applied) continue;
      for (const std::string& t : order[i]->touched) {
        if (order[j]->touched.contains(t)) return std::make_pair(order[i], order[j]);
      }
    }
  }
  return std::nullopt;
}

bool ClientModel::InCoverageChange() const {
  for (const auto& [qid, s] : sources_) {
    if (s.coverage_changed) return true;
  }
  return false;
}

void ClientModel::DropSource(int64_t qid) {
  gate_.Forget(qid);
  Prune();
  if (sources_.erase(qid) == 0) return;
  dirty_ = true;
  NoteCycle(false);  // the client GCs the sub's rows through a cycle (seed 002 CRIT#2)
}

void ClientModel::Leave(int64_t qid) {
  gate_.Forget(qid);
  Prune();
  auto it = sources_.find(qid);
  if (it == sources_.end()) return;
  if (it->second.current) it->second.frozen_by = "retarget";
  it->second.current = false;
}

void ClientModel::Prune() {
  std::set<int64_t> live;
  for (const GateModel::Frame& f : gate_.buffer()) live.insert(f.epoch);
  std::erase_if(payloads_, [&](const auto& e) { return !live.contains(e.first); });
}

std::map<int, Value> ClientModel::Cells(const Source& s, const std::string& table,
                                        const RowValues& row, RowValues* pk) const {
  std::map<int, Value> out;
  auto spec = schema_.find(table);
  RINDLE_CHECK_MSG(spec != schema_.end(), "client model: a frame of unknown table " + table);
  const TableSpec& ts = spec->second;
  auto cols = s.columns.find(table);
  RowValues full(ts.columns.size(), Value::Null());
  for (size_t i = 0; i < ts.columns.size(); ++i) {
    size_t wire = i;
    if (cols != s.columns.end()) {
      auto it = std::find(cols->second.begin(), cols->second.end(), ts.columns[i].name);
      if (it == cols->second.end()) continue;  // not covered by this qid
      wire = static_cast<size_t>(it - cols->second.begin());
    }
    if (wire >= row.size()) continue;
    full[i] = row[wire];
    out.emplace(static_cast<int>(i), row[wire]);
  }
  *pk = ts.PkOf(full);
  return out;
}

void ClientModel::Put(Source& s, const std::string& table, const RowValues& row) {
  RowValues pk;
  std::map<int, Value> cells = Cells(s, table, row, &pk);
  auto& stored = s.rows[{table, pk}];
  stored.clear();
  const int64_t seq = ++seq_;
  for (auto& [i, v] : cells) stored.emplace(i, std::make_pair(std::move(v), seq));
}

void ClientModel::Erase(Source& s, const std::string& table, const RowValues& row) {
  RowValues pk;
  Cells(s, table, row, &pk);
  s.rows.erase({table, pk});
}

void ClientModel::ApplyLmid(const Source& s, const std::vector<RowOp>& ops) {
  auto cols = s.columns.find(kClientMutationsTable);
  int client_col = 0, lmid_col = 1;  // the reserved table's default layout
  if (cols != s.columns.end()) {
    for (size_t i = 0; i < cols->second.size(); ++i) {
      const std::string& c = cols->second[i];
      if (c == "client_id" || c == "clientID") client_col = static_cast<int>(i);
      if (c == "last_mutation_id" || c == "lastMutationID") lmid_col = static_cast<int>(i);
    }
  }
  for (const RowOp& op : ops) {
    if (op.op == RowOp::Kind::kRemove) continue;
    const RowValues& r = op.row;
    if (static_cast<size_t>(std::max(client_col, lmid_col)) >= r.size()) continue;
    const Value& c = r[static_cast<size_t>(client_col)];
    const Value& l = r[static_cast<size_t>(lmid_col)];
    if (!c.is_string() || c.as_string() != client_id_ || !l.is_number()) continue;
    const int64_t v =
        l.kind() == Value::Kind::kInt ? l.as_int() : static_cast<int64_t>(l.as_double());
    lmid_ = std::max(lmid_, v);
  }
}

void ClientModel::Apply(int64_t qid, const NormalizedEvent& ev) {
  Source& s = sources_[qid];
  const bool snapshot = ev.type == NormalizedEvent::Type::kSnapshot;
  if (snapshot) {
    s.current = true;
    s.frozen_by.clear();
    s.coverage_changed = false;
    s.rows.clear();
  }
  if (qid == kLmidQid) return ApplyLmid(s, ev.ops);
  for (const RowOp& op : ev.ops) {
    // A system sub's lifecycle rows (base/lifecycle_tables.h) fold into the ledger plane, never
    // into a view: the single-domain model has nothing to show of them.
    if (IsLifecycleTable(op.table)) continue;
    switch (op.op) {
      case RowOp::Kind::kAdd:
        Put(s, op.table, op.row);
        break;
      case RowOp::Kind::kRemove:
        Erase(s, op.table, op.row);
        break;
      case RowOp::Kind::kEdit:
        Erase(s, op.table, op.old_row);
        Put(s, op.table, op.row);
        break;
    }
  }
}

void ClientModel::RebuildSynced() {
  synced_.clear();
  for (const auto& [name, spec] : schema_) synced_[name];
  // (table, pk) → per column the latest (seq, value) among holders that cover it.
  std::map<std::pair<std::string, RowValues>, std::map<int, std::pair<int64_t, Value>>> merged;
  for (const auto& [qid, s] : sources_) {
    if (qid == kLmidQid) continue;
    for (const auto& [key, cells] : s.rows) {
      auto& m = merged[key];
      for (const auto& [i, vs] : cells) {
        auto it = m.find(i);
        if (it == m.end() || it->second.first < vs.second) m[i] = {vs.second, vs.first};
      }
    }
  }
  for (auto& [key, cells] : merged) {
    const TableSpec& spec = schema_.at(key.first);
    RowValues row(spec.columns.size(), Value::Null());
    for (auto& [i, sv] : cells) row[static_cast<size_t>(i)] = std::move(sv.second);
    synced_[key.first].emplace(key.second, std::move(row));
  }
}

// --- the client's writes ---------------------------------------------------------------------

void ClientModel::Invoked(int64_t mid) { invoked_[mid] = ++applied_; }

void ClientModel::FoldInvoked(const std::string& fold_key, const nlohmann::json& args) {
  dirty_ = true;
  for (Entry& w : windows_) {
    if (w.fold_key == fold_key) {
      // The window's prediction is re-run with the new args: its write set starts over (seed
      // 002 §4.2 collapse), then grows with the replays.
      w.args = args;
      w.tables.clear();
      w.fresh = true;
      w.last_applied = ++applied_;  // head keeps the earlier applications too
      return;
    }
  }
  windows_.push_back(Entry{std::nullopt, fold_key, FoldName(fold_key), args, {}, false, {}, 0, 0});
  windows_.back().first_applied = windows_.back().last_applied = ++applied_;
}

void ClientModel::Sent(const MutationEnvelope& e) {
  if (e.mid <= last_sent_) return;
  last_sent_ = e.mid;
  dirty_ = true;
  Entry entry{e.mid, "", e.name, e.args, {}, false, {}, 0, 0};
  if (auto inv = invoked_.find(e.mid); inv != invoked_.end()) {
    entry.first_applied = entry.last_applied = inv->second;
  } else {
    // A fold flush: it closes the oldest open window of that mutator with these args.
    for (auto it = windows_.begin(); it != windows_.end(); ++it) {
      if (it->name == e.name && it->args == e.args) {
        entry.fold_key = it->fold_key;
        entry.tables = it->tables;
        entry.touched = it->touched;
        // A flush ships it; head keeps it where it was applied.
        entry.first_applied = it->first_applied;
        entry.last_applied = it->last_applied;
        entry.dead = it->dead;
        entry.fresh = it->fresh;  // the flush ships the window's prediction; no re-run
        windows_.erase(it);
        break;
      }
    }
  }
  invoked_.erase(e.mid);
  sent_.emplace(e.mid, std::move(entry));
}

std::vector<const ClientModel::Entry*> ClientModel::Pending() const {
  std::vector<const Entry*> out;
  for (auto it = sent_.upper_bound(lmid_); it != sent_.end(); ++it) {
    if (!it->second.dead) out.push_back(&it->second);
  }
  for (const Entry& w : windows_) {
    if (!w.dead) out.push_back(&w);
  }
  return out;
}

absl::Status ClientModel::Refresh(const std::map<std::string, Mutator>& mutators) {
  // Confirmed entries are gone for good (the watermark never moves back).
  sent_.erase(sent_.begin(), sent_.upper_bound(lmid_));
  if (!dirty_) return absl::OkStatus();
  dirty_ = false;
  const bool reconcile = reconciled_;
  reconciled_ = false;
  RebuildSynced();
  head_ = PlainStore(schema_);
  for (const auto& [table, rows] : synced_) {
    for (const auto& [pk, row] : rows) {
      if (absl::Status s = head_.AddStored(table, row); !s.ok()) {
        return absl::InvalidArgumentError(
            StrCat("client model ", client_id_, ": synced row rejected: ", s.message()));
      }
    }
  }
  std::vector<Entry*> order;
  for (auto& [mid, e] : sent_) {
    if (!e.dead) order.push_back(&e);
  }
  for (Entry& w : windows_) {
    if (!w.dead) order.push_back(&w);
  }
  for (Entry* e : order) {
    auto m = mutators.find(e->name);
    if (m == mutators.end()) {
      return absl::InvalidArgumentError(
          StrCat("client model ", client_id_, ": mutator \"", e->name, "\" is not registered"));
    }
    PlainMutationTx tx(&head_);
    RecordingTx rec(&tx);
    const bool counts = reconcile || e->fresh;  // a run the client itself makes (see the header)
    e->fresh = false;
    const bool ok = m->second(rec, e->args).ok();
    // What it read or probed before a throw is an interaction too (the reorder window).
    e->touched.insert(rec.touched().begin(), rec.touched().end());
    if (!ok) {
      // Seed 002: a replay that fails on the new base is dropped — a cycle's replay. A first run
      // never kills: the client's own invoke of it succeeded (a throw deals no mid, and only a
      // successful InvokeFolded is recorded); it fails here only when head holds it applied out
      // of replay order (§4.2 window, seed 91: escalateIssue invoked over an open fold's status).
      if (reconcile) e->dead = true;
      continue;
    }
    tx.Commit();
    if (counts) e->tables.insert(rec.tables().begin(), rec.tables().end());
  }
  return absl::OkStatus();
}

}  // namespace rindle
