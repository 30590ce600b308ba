#include "base/str_util.h"
#include "engine/query_shape.h"

namespace rindle {

int CompareBySort(const std::vector<SortPart>& sort, const RowValues& a, const RowValues& b) {
  for (const SortPart& p : sort) {
    const int c = CompareValues(a[p.column], b[p.column]);
    if (c != 0) return p.desc ? -c : c;
  }
  return 0;
}

nlohmann::json QueryShape::ToJson() const {
  nlohmann::json sort_json = nlohmann::json::array();
  for (const auto& s : sort) sort_json.push_back({s.column, !s.desc});
  nlohmann::json rels = nlohmann::json::array();
  for (const auto& r : relationships) {
    rels.push_back({{"name", r.alias}, {"child", r.child ? r.child->ToJson() : nullptr}});
  }
  return {{"table", table},   {"spec", TableSpecToJson(spec)}, {"sort", sort_json},
          {"singular", singular}, {"hidden", hidden}, {"count", count},
          {"relationships", rels}};
}

}  // namespace rindle
