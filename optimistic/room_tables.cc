#include "optimistic/room_tables.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"

namespace rindle {

std::string RoomEngineTable(std::string_view table, std::string_view source_key) {
  return std::string(table) + "@" + std::string(source_key);
}

namespace {

Ast RemapAst(const Ast& ast, const RoomTableMap& map);

CorrelatedSubquery RemapSub(const CorrelatedSubquery& s, const RoomTableMap& map) {
  CorrelatedSubquery out = s;
  if (s.subquery) out.subquery = std::make_shared<const Ast>(RemapAst(*s.subquery, map));
  return out;
}

Condition RemapCondition(const Condition& c, const RoomTableMap& map) {
  Condition out = c;
  switch (c.type) {
    case Condition::Type::kAnd:
    case Condition::Type::kOr:
      for (auto& sub : out.conditions) sub = RemapCondition(sub, map);
      break;
    case Condition::Type::kCorrelatedSubquery:
      out.related = RemapSub(c.related, map);
      break;
    case Condition::Type::kSimple:  // column refs and literals name no table
      break;
  }
  return out;
}

Ast RemapAst(const Ast& ast, const RoomTableMap& map) {
  Ast out = ast;  // start.row (column-keyed) is copied verbatim
  if (auto it = map.find(ast.table); it != map.end()) out.table = it->second;
  if (out.where) out.where = RemapCondition(*ast.where, map);
  for (auto& rel : out.related) rel = RemapSub(rel, map);
  return out;
}

}  // namespace

Ast RemapAstTables(const Ast& ast, const RoomTableMap& map) { return RemapAst(ast, map); }

RoomTables::RoomTables(Db* db, const Schema* schema, const std::set<std::string>* local_tables)
    : db_(db), schema_(schema), local_tables_(local_tables) {
  RINDLE_CHECK(db_ != nullptr && schema_ != nullptr && local_tables_ != nullptr);
}

absl::Status RoomTables::Register(const std::string& source_key,
                                  const std::vector<std::string>& tables) {
  if (IsDaemonSource(source_key)) {
    return absl::InvalidArgumentError(
        "optimistic backend: the daemon is not a room — no namespaced tables");
  }
  RoomTableMap& map = rooms_[source_key];
  for (const auto& table : tables) {
    if (map.count(table) > 0) continue;  // idempotent per (key, table)
    if (schema_->count(table) == 0 || local_tables_->count(table) > 0) continue;
    const TableSpec* spec = db_->GetTableSpec(table);  // the synced engine spec (nullable cells)
    RINDLE_CHECK(spec != nullptr);
    const std::string engine_table = RoomEngineTable(table, source_key);
    RETURN_IF_ERROR(db_->RegisterTable(engine_table, *spec, /*local=*/false));
    map.emplace(table, engine_table);
  }
  return absl::OkStatus();
}

absl::Status RoomTables::Unregister(const std::string& source_key) {
  auto it = rooms_.find(source_key);
  if (it == rooms_.end()) return absl::OkStatus();
  for (const auto& [wire, engine_table] : it->second) {
    RETURN_IF_ERROR(db_->UnregisterTable(engine_table));
  }
  rooms_.erase(it);
  return absl::OkStatus();
}

const RoomTableMap& RoomTables::TablesFor(const std::string& source_key) const {
  static const RoomTableMap* const kEmpty = new RoomTableMap();
  auto it = rooms_.find(source_key);
  return it == rooms_.end() ? *kEmpty : it->second;
}

std::vector<ServerDeltaOp> RoomTables::MapDelta(const std::string& source_key,
                                                std::vector<ServerDeltaOp> delta) {
  auto it = rooms_.find(source_key);
  if (it == rooms_.end()) return delta;  // no record: verbatim (the daemon path untouched)
  std::vector<ServerDeltaOp> out;
  out.reserve(delta.size());
  for (auto& op : delta) {
    auto m = it->second.find(op.table);
    if (m == it->second.end()) {
      ++dropped_unowned_;  // context / unknown: the daemon is its sole authority (302 §6)
      continue;
    }
    op.table = m->second;
    out.push_back(std::move(op));
  }
  return out;
}

const RoomTableMap* RoomTables::StagingMap(const std::string& domain) const {
  if (IsDaemonSource(domain)) return nullptr;
  auto it = rooms_.find(domain);
  return it == rooms_.end() ? nullptr : &it->second;
}

bool RoomTables::NoteCrossAuthority(const std::string& name, const std::string& domain,
                                    const std::set<std::string>& written,
                                    std::vector<std::string>* outside) {
  if (IsDaemonSource(domain) || warned_.count(name) > 0) return false;
  std::set<std::string> twins;
  for (const auto& [wire, engine_table] : TablesFor(domain)) twins.insert(engine_table);
  std::vector<std::string> out;
  for (const auto& t : written) {
    if (twins.count(t) == 0) out.push_back(t);
  }
  if (out.empty()) return false;
  warned_.insert(name);
  if (outside != nullptr) *outside = std::move(out);
  return true;
}

}  // namespace rindle
