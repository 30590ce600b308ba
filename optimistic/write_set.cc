#include "optimistic/write_set.h"

#include <utility>

namespace rindle {

nlohmann::json WriteRecord::ToJson() const {
  nlohmann::json j = {{"table", table}, {"pk", RowToJson(pk)}};
  j["row"] = row ? RowToJson(*row) : nlohmann::json(nullptr);
  if (old_row) j["oldRow"] = RowToJson(*old_row);
  return j;
}

nlohmann::json ReadRecord::ToJson() const {
  return {{"table", table},
          {"pk", RowToJson(pk)},
          {"outcome", outcome == ReadOutcome::kPresent ? "present" : "absent"}};
}

nlohmann::json ReadLog::ToJson() const {
  nlohmann::json r = nlohmann::json::array();
  for (const auto& x : reads) r.push_back(x.ToJson());
  nlohmann::json q = nlohmann::json::array();
  for (const auto& a : queries) q.push_back(a.table);
  return {{"reads", std::move(r)}, {"queries", std::move(q)}};
}

std::string PkKey(const RowValues& pk) { return RowToJson(pk).dump(); }

const WriteRecord* PriorWrite(const WriteSet& ws, const std::string& table, const RowValues& pk) {
  auto t = ws.find(table);
  if (t == ws.end()) return nullptr;
  auto r = t->second.find(PkKey(pk));
  return r == t->second.end() ? nullptr : &r->second;
}

namespace {
void Put(WriteSet& ws, const std::string& table, const RowValues& pk,
         std::optional<RowValues> row, std::optional<RowValues> old_row) {
  ws[table][PkKey(pk)] = WriteRecord{table, pk, std::move(row), std::move(old_row)};
}
}  // namespace

void RecordAdd(WriteSet& ws, const std::string& table, const RowValues& pk, const RowValues& row) {
  Put(ws, table, pk, row, std::nullopt);
}

void RecordRemove(WriteSet& ws, const std::string& table, const RowValues& pk,
                  const std::optional<RowValues>& visible, const RowValues& asserted) {
  const WriteRecord* p = PriorWrite(ws, table, pk);
  std::optional<RowValues> pre;
  if (p != nullptr && p->old_row) {
    pre = p->old_row;  // remove-after-edit / remove-after-remove: the original pre-image
  } else if (visible) {
    pre = visible;  // first touch, or remove-after-add (the transient row)
  } else {
    pre = asserted;
  }
  Put(ws, table, pk, std::nullopt, std::move(pre));
}

void RecordEdit(WriteSet& ws, const std::string& table, const RowValues& pk,
                const RowValues& new_row, const std::optional<RowValues>& visible,
                const RowValues& asserted_old) {
  const WriteRecord* p = PriorWrite(ws, table, pk);
  std::optional<RowValues> pre;
  if (p == nullptr) {
    pre = visible ? visible : std::optional<RowValues>(asserted_old);
  } else if (p->row && p->old_row) {
    pre = p->old_row;  // edit-after-edit: the first pre-image
  }  // else edit-after-add / edit-after-remove: a (re-)insert, no pre-image
  Put(ws, table, pk, new_row, std::move(pre));
}

void MergeWriteSet(WriteSet& dest, const WriteSet& src) {
  for (const auto& [table, by_pk] : src) {
    auto& d = dest[table];
    for (const auto& [key, rec] : by_pk) d[key] = rec;
  }
}

std::set<std::string> Touched(const WriteSet& ws) {
  std::set<std::string> out;
  for (const auto& [table, by_pk] : ws) {
    if (!by_pk.empty()) out.insert(table);
  }
  return out;
}

std::vector<WriteRecord> Flatten(const WriteSet& ws) {
  std::vector<WriteRecord> out;
  for (const auto& [table, by_pk] : ws) {
    for (const auto& [key, rec] : by_pk) out.push_back(rec);
  }
  return out;
}

}  // namespace rindle
