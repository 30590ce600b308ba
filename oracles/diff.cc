#include "oracles/diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "base/str_util.h"
#include "absl/strings/str_join.h"

namespace rindle {
namespace {

using json = nlohmann::json;

std::string Abbrev(const json& j) {
  std::string s = j.dump();
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

bool IsNumber(const json& j) { return j.is_number(); }

bool SameScalar(const json& a, const json& b) {
  if (IsNumber(a) && IsNumber(b)) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    return a == b;  // nlohmann compares signed vs unsigned by value
  }
  return a == b;
}

void Walk(const json& e, const json& a, const std::string& path, int max_lines,
          std::vector<std::string>& out) {
  if (static_cast<int>(out.size()) >= max_lines) return;
  if (e.is_object() && a.is_object()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : e.items()) keys.push_back(k);
    for (const auto& [k, v] : a.items()) {
      if (!e.contains(k)) keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
    for (const std::string& k : keys) {
      const std::string p = StrCat(path, ".", k);
      if (!e.contains(k)) {
        out.push_back(StrCat(p, ": expected (missing), got ", Abbrev(a[k])));
      } else if (!a.contains(k)) {
        out.push_back(StrCat(p, ": expected ", Abbrev(e[k]), ", got (missing)"));
      } else {
        Walk(e[k], a[k], p, max_lines, out);
      }
      if (static_cast<int>(out.size()) >= max_lines) return;
    }
    return;
  }
  if (e.is_array() && a.is_array()) {
    if (e.size() != a.size()) {
      out.push_back(StrCat(path, ": expected ", e.size(), " elements, got ", a.size()));
    }
    const size_t n = std::max(e.size(), a.size());
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<int>(out.size()) >= max_lines) return;
      const std::string p = StrCat(path, "[", i, "]");
      if (i >= e.size()) {
        out.push_back(StrCat(p, ": expected (missing), got ", Abbrev(a[i])));
      } else if (i >= a.size()) {
        out.push_back(StrCat(p, ": expected ", Abbrev(e[i]), ", got (missing)"));
      } else {
        Walk(e[i], a[i], p, max_lines, out);
      }
    }
    return;
  }
  if (e.type() != a.type() && !(IsNumber(e) && IsNumber(a))) {
    out.push_back(StrCat(path, ": expected ", Abbrev(e), ", got ", Abbrev(a)));
    return;
  }
  if (!SameScalar(e, a)) {
    out.push_back(StrCat(path, ": expected ", Abbrev(e), ", got ", Abbrev(a)));
  }
}

// "id=3" or "id=3,owner=\"x\"": the row's primary key with column names.
std::string PkLabel(const TableSpec& spec, const json& row) {
  std::vector<std::string> parts;
  for (int i : spec.primary_key) {
    const size_t k = static_cast<size_t>(i);
    parts.push_back(StrCat(spec.columns[k].name, "=", k < row.size() ? row[k].dump() : "?"));
  }
  return absl::StrJoin(parts, ",");
}

// {"id":3,"title":"a"}: a row with its column names, abbreviated.
std::string RowLabel(const TableSpec& spec, const json& row) {
  json named = json::object();
  for (size_t i = 0; i < row.size(); ++i) {
    named[i < spec.columns.size() ? spec.columns[i].name : StrCat("#", i)] = row[i];
  }
  return Abbrev(named);
}

bool RowsAreColumnArrays(const TableSpec& spec, const json& rows) {
  if (!rows.is_array()) return false;
  for (const json& r : rows) {
    if (!r.is_array() || r.size() != spec.columns.size()) return false;
  }
  return true;
}

// One table's rows matched by primary key.
void TableWalk(const std::string& table, const TableSpec& spec, const json& e, const json& a,
               int max_lines, std::vector<std::string>& out) {
  std::map<std::string, std::pair<const json*, const json*>> by_pk;
  for (const json& r : e) by_pk[PkLabel(spec, r)].first = &r;
  for (const json& r : a) by_pk[PkLabel(spec, r)].second = &r;
  for (const auto& [pk, rows] : by_pk) {
    if (static_cast<int>(out.size()) >= max_lines) return;
    const std::string where = StrCat(table, "[", pk, "]");
    const auto [er, ar] = rows;
    if (ar == nullptr) {
      out.push_back(StrCat(where, ": expected row ", RowLabel(spec, *er), ", got (missing)"));
    } else if (er == nullptr) {
      out.push_back(StrCat(where, ": expected (missing), got row ", RowLabel(spec, *ar)));
    } else {
      for (size_t i = 0; i < er->size(); ++i) {
        if (static_cast<int>(out.size()) >= max_lines) return;
        if (!SameScalar((*er)[i], (*ar)[i])) {
          out.push_back(StrCat(where, ".", spec.columns[i].name, ": expected ",
                               Abbrev((*er)[i]), ", got ", Abbrev((*ar)[i])));
        }
      }
    }
  }
}

}  // namespace

std::string TablesDiff(const json& expected, const json& actual, const Schema& schema,
                       int max_lines) {
  if (expected == actual) return "";
  if (!expected.is_object() || !actual.is_object()) return JsonDiff(expected, actual, max_lines);
  max_lines = max_lines < 1 ? 1 : max_lines;
  std::set<std::string> tables;
  for (const auto& [t, rows] : expected.items()) tables.insert(t);
  for (const auto& [t, rows] : actual.items()) tables.insert(t);
  std::vector<std::string> lines;
  for (const std::string& t : tables) {
    if (static_cast<int>(lines.size()) >= max_lines) break;
    const std::string path = StrCat("$.", t);
    if (!expected.contains(t)) {
      lines.push_back(StrCat(path, ": expected (missing), got ", Abbrev(actual[t])));
      continue;
    }
    if (!actual.contains(t)) {
      lines.push_back(StrCat(path, ": expected ", Abbrev(expected[t]), ", got (missing)"));
      continue;
    }
    auto spec = schema.find(t);
    if (spec != schema.end() && RowsAreColumnArrays(spec->second, expected[t]) &&
        RowsAreColumnArrays(spec->second, actual[t])) {
      TableWalk(t, spec->second, expected[t], actual[t], max_lines, lines);
    } else {
      Walk(expected[t], actual[t], path, max_lines, lines);
    }
  }
  return absl::StrJoin(lines, "\n");
}

std::string JsonDiff(const json& expected, const json& actual, int max_lines) {
  if (expected == actual) return "";  // fast path; nlohmann compares numbers by value
  std::vector<std::string> lines;
  Walk(expected, actual, "$", max_lines < 1 ? 1 : max_lines, lines);
  return absl::StrJoin(lines, "\n");
}

}  // namespace rindle
