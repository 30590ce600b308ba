#include "oracles/diff.h"

#include <algorithm>
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

}  // namespace

std::string JsonDiff(const json& expected, const json& actual, int max_lines) {
  if (expected == actual) return "";  // fast path; nlohmann compares numbers by value
  std::vector<std::string> lines;
  Walk(expected, actual, "$", max_lines < 1 ? 1 : max_lines, lines);
  return absl::StrJoin(lines, "\n");
}

}  // namespace rindle
