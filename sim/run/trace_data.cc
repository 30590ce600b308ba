// trace_data.cc — see trace_data.h.
#include "sim/run/trace_data.h"

#include "sim/run/trace_hash.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

const char* OpName(RowOp::Kind k) {
  switch (k) {
    case RowOp::Kind::kAdd: return "add";
    case RowOp::Kind::kRemove: return "remove";
    case RowOp::Kind::kEdit: return "edit";
  }
  return "?";
}

std::vector<std::string> ColumnNames(const TableSpec& spec) {
  std::vector<std::string> names;
  for (const ColumnSpec& c : spec.columns) names.push_back(c.name);
  return names;
}

// The pk cells of a readable row object, by the schema's pk column names.
json PkOf(const Schema& schema, const std::string& table, const json& row) {
  auto it = schema.find(table);
  if (it == schema.end() || !row.is_object()) return nullptr;
  json pk = json::object();
  for (const int i : it->second.primary_key) {
    const std::string& name = it->second.columns[static_cast<size_t>(i)].name;
    if (row.contains(name)) pk[name] = row[name];
  }
  return pk;
}

json ReadableWrites(const Schema& schema, const WriteSet& writes) {
  json rows = json::array();
  for (const auto& [table, by_pk] : writes) {
    auto spec = schema.find(table);
    const std::vector<std::string> columns =
        spec == schema.end() ? std::vector<std::string>{} : ColumnNames(spec->second);
    for (const auto& [key, rec] : by_pk) {
      json r = {{"table", table}, {"op", !rec.row ? "remove" : rec.old_row ? "edit" : "add"}};
      r["row"] = ReadableRow(columns, rec.row ? *rec.row : rec.old_row.value_or(RowValues{}));
      r["pk"] = PkOf(schema, table, r["row"]);
      if (r["pk"].is_null() || r["pk"].empty()) r["pk"] = json::parse(key, nullptr, false);
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace

json ReadableRow(const std::vector<std::string>& columns, const RowValues& row) {
  if (columns.size() != row.size()) {
    json cells = json::array();
    for (const Value& v : row) cells.push_back(v.ToJson());
    return cells;
  }
  json r = json::object();
  for (size_t i = 0; i < row.size(); ++i) r[columns[i]] = row[i].ToJson();
  return r;
}

void DataTracer::SeedRows(const std::map<std::string, std::vector<RowValues>>& rows) {
  for (const auto& [table, list] : rows) {
    trace_->Add({{"ev", "seed"},
                 {"table", table},
                 {"rows", list.size()},
                 {"hash", HashTableRows(table, list)},
                 {"t", 0}});
  }
}

void DataTracer::Fault(const ScenarioFault& fault, int64_t now_ms) {
  json j = FaultToJson(fault);
  j["ev"] = "fault";
  j["t"] = now_ms;
  trace_->Add(j);
}

void DataTracer::Frame(const std::string& client, const ServerFrame& frame, int64_t now_ms) {
  if (frame.kind != ServerFrame::Kind::kData) return;
  const NormalizedEvent& ev = frame.event;
  if (ev.type == NormalizedEvent::Type::kHello) {
    hello_[{client, frame.qid}] = ev.tables;
    return;
  }
  if (ev.ops.empty()) return;
  json line = {{"ev", "rows"},
               {"c", client},
               {"qid", frame.qid},
               {"frame", ev.type == NormalizedEvent::Type::kSnapshot ? "snapshot" : "batch"},
               {"cv", ev.cv},
               {"ops", ev.ops.size()},
               {"hash", HashRowOps(ev.ops)},
               {"t", now_ms}};
  if (!trace_->writes_file()) {
    trace_->Add(line);
    return;
  }
  trace_->Add(line, {{"ops", ReadableOps(client, frame.qid, ev.ops)}});
}

json DataTracer::ReadableOps(const std::string& client, int64_t qid,
                             const std::vector<RowOp>& ops) const {
  std::map<std::string, std::vector<std::string>> columns;
  if (auto it = hello_.find({client, qid}); it != hello_.end()) {
    for (const WireTable& t : it->second) columns[t.name] = t.columns;
  }
  json out = json::array();
  for (const RowOp& op : ops) {
    const std::vector<std::string>& cols = columns[op.table];
    json o = {{"op", OpName(op.op)}, {"table", op.table}, {"row", ReadableRow(cols, op.row)}};
    o["pk"] = PkOf(*schema_, op.table, o["row"]);
    if (op.op == RowOp::Kind::kEdit) o["old"] = ReadableRow(cols, op.old_row);
    out.push_back(std::move(o));
  }
  return out;
}

void DataTracer::AfterStep(int64_t step, int64_t now_ms, const AuthorityEndpoint& authority,
                           const props::World& world,
                           const std::map<std::string, int64_t>& counters) {
  const std::vector<ProcessedEnvelope>& log = authority.log();
  if (log_seen_ > log.size()) log_seen_ = 0;  // a log that shrank (restored): trace it anew
  for (; log_seen_ < log.size(); ++log_seen_) Applied(log[log_seen_], now_ms);
  FaultCounters(now_ms, counters);
  if (step % kCheckpointEvery == 0) Checkpoint("step", step, now_ms, authority, world);
}

void DataTracer::Applied(const ProcessedEnvelope& e, int64_t now_ms) {
  size_t n = 0;
  for (const auto& [table, by_pk] : e.writes) n += by_pk.size();
  json line = {{"ev", "apply"},   {"c", e.client_id}, {"mid", e.mid},
               {"name", e.name},  {"applied", e.applied}, {"cv", e.cv},
               {"writes", n},     {"hash", HashWriteSet(e.writes)}, {"t", now_ms}};
  if (!e.applied) line["reason"] = e.reason;
  if (!trace_->writes_file()) {
    trace_->Add(line);
    return;
  }
  trace_->Add(line, {{"args", e.args}, {"rows", ReadableWrites(*schema_, e.writes)}});
}

void DataTracer::FaultCounters(int64_t now_ms, const std::map<std::string, int64_t>& counters) {
  json moved = json::object();
  for (auto it = counters.lower_bound("fault."); it != counters.end(); ++it) {
    if (it->first.compare(0, 6, "fault.") != 0) break;
    int64_t& seen = faults_seen_[it->first];
    if (it->second != seen) moved[it->first] = it->second - seen;
    seen = it->second;
  }
  if (!moved.empty()) trace_->Add({{"ev", "fault_counters"}, {"moved", moved}, {"t", now_ms}});
}

void DataTracer::Checkpoint(const char* at, int64_t step, int64_t now_ms,
                            const AuthorityEndpoint& authority, const props::World& world) {
  json views = json::object();
  json local_views = json::object();
  for (const props::ClientState& c : world.clients) {
    json& mine = views[c.id] = json::object();
    for (const auto& [qid, v] : *c.views) {
      const ResultView* rv = c.backend->View(qid);
      mine[std::to_string(qid)] = rv == nullptr ? "missing" : HashTree(rv->Tree());
    }
    json& local = local_views[c.id] = json::object();
    for (const auto& [qid, v] : *c.local_views) {
      const ResultView* rv = c.backend->View(qid);
      local[std::to_string(qid)] = rv == nullptr ? "missing" : HashTree(rv->Tree());
    }
  }
  RowHasher store;
  const Db& db = authority.store();
  for (const std::string& table : db.TableNames()) {
    store.Str(table);
    if (auto rows = db.TableRows(table); rows.ok()) {
      store.Int(static_cast<int64_t>(rows->size()));
      for (const RowValues& r : *rows) store.Row(r);
    }
  }
  trace_->Add({{"ev", "checkpoint"},
               {"at", at},
               {"step", step},
               {"views", views},
               {"local_views", local_views},
               {"store", store.Hex()},
               {"t", now_ms}});
}

}  // namespace rindle::sim
