#include "oracles/tree_diff.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_join.h"
#include "base/str_util.h"
#include "oracles/diff.h"

namespace rindle {
namespace {

using json = nlohmann::json;

std::string Abbrev(const std::string& s) {
  return s.size() > 120 ? s.substr(0, 117) + "..." : s;
}

class Walker {
 public:
  Walker(const Schema& schema, int max_lines) : schema_(schema), max_(max_lines) {}

  void Level(const std::string& prefix, const std::vector<TreeNode>& e,
             const std::vector<TreeNode>& a, const Ast& ast) {
    const TableSpec* spec = Spec(ast.table);
    std::vector<std::string> ek = Keys(e, ast, spec), ak = Keys(a, ast, spec);
    std::map<std::string, size_t> apos, epos;
    for (size_t i = 0; i < ak.size(); ++i) apos.emplace(ak[i], i);
    for (size_t i = 0; i < ek.size(); ++i) epos.emplace(ek[i], i);
    const size_t before = out_.size();
    for (size_t i = 0; i < ek.size() && !Full(); ++i) {
      const std::string where = StrCat(prefix, ast.table, "[", ek[i], "]");
      auto it = apos.find(ek[i]);
      if (it == apos.end()) {
        out_.push_back(StrCat(where, ": expected row ", RowText(e[i], ast, spec), ", got (missing)"));
      } else {
        Node(where, e[i], a[it->second], ast, spec);
      }
    }
    for (size_t i = 0; i < ak.size() && !Full(); ++i) {
      if (epos.contains(ak[i])) continue;
      out_.push_back(StrCat(prefix, ast.table, "[", ak[i], "]: expected (missing), got row ",
                            RowText(a[i], ast, spec)));
    }
    if (out_.size() == before && ek != ak && !Full()) {
      out_.push_back(StrCat(prefix, ast.table, ": same rows in another order: expected ",
                            KeyList(ek), ", got ", KeyList(ak)));
    }
  }

  bool Full() const { return static_cast<int>(out_.size()) >= max_; }
  const std::vector<std::string>& lines() const { return out_; }

 private:
  const TableSpec* Spec(const std::string& table) const {
    auto it = schema_.find(table);
    return it == schema_.end() ? nullptr : &it->second;
  }

  static bool FullWidth(const TreeNode& n, const TableSpec* spec) {
    return n.row && spec != nullptr && n.row->size() == spec->columns.size();
  }

  // The column names of a row of `width` cells at this level.
  static std::string ColumnName(size_t i, size_t width, const Ast& ast, const TableSpec* spec) {
    if (spec != nullptr && width == spec->columns.size()) return spec->columns[i].name;
    if (ast.select && ast.select->size() == width) return (*ast.select)[i];
    return StrCat("#", i);
  }

  // Each row's label: its pk `id="i3"` (full width) or its value; repeats get "#2", "#3".
  static std::vector<std::string> Keys(const std::vector<TreeNode>& nodes, const Ast& ast,
                                       const TableSpec* spec) {
    std::vector<std::string> keys;
    std::map<std::string, int> seen;
    for (const TreeNode& n : nodes) {
      std::string k;
      if (FullWidth(n, spec)) {
        std::vector<std::string> parts;
        for (int i : spec->primary_key) {
          const size_t c = static_cast<size_t>(i);
          parts.push_back(StrCat(spec->columns[c].name, "=", (*n.row)[c].ToJson().dump()));
        }
        k = absl::StrJoin(parts, ",");
      } else {
        k = n.row ? Abbrev(RowToJson(*n.row).dump()) : "null";
      }
      const int times = ++seen[k];
      keys.push_back(times == 1 ? k : StrCat(k, "#", times));
    }
    (void)ast;
    return keys;
  }

  static std::string KeyList(const std::vector<std::string>& keys) {
    std::vector<std::string> shown(keys.begin(), keys.begin() + std::min<size_t>(keys.size(), 8));
    return StrCat("[", absl::StrJoin(shown, " "), keys.size() > 8 ? " ..." : "", "]");
  }

  static std::string RowText(const TreeNode& n, const Ast& ast, const TableSpec* spec) {
    if (!n.row) return "null";
    json named = json::object();
    for (size_t i = 0; i < n.row->size(); ++i) {
      named[ColumnName(i, n.row->size(), ast, spec)] = (*n.row)[i].ToJson();
    }
    return Abbrev(named.dump());
  }

  void Node(const std::string& where, const TreeNode& e, const TreeNode& a, const Ast& ast,
            const TableSpec* spec) {
    if (e.row && a.row) {
      const size_t width = std::max(e.row->size(), a.row->size());
      for (size_t i = 0; i < width && !Full(); ++i) {
        const json ev = i < e.row->size() ? (*e.row)[i].ToJson() : json("(missing)");
        const json av = i < a.row->size() ? (*a.row)[i].ToJson() : json("(missing)");
        if (ev != av) {
          out_.push_back(StrCat(where, ".", ColumnName(i, width, ast, spec), ": expected ",
                                Abbrev(ev.dump()), ", got ", Abbrev(av.dump())));
        }
      }
    }
    const size_t n = std::max(e.relationships.size(), a.relationships.size());
    for (size_t i = 0; i < n && !Full(); ++i) {
      if (i >= e.relationships.size() || i >= a.relationships.size() ||
          e.relationships[i].first != a.relationships[i].first) {
        out_.push_back(StrCat(where, ": relationships differ: expected ",
                              Aliases(e), ", got ", Aliases(a)));
        return;
      }
      const std::string& alias = e.relationships[i].first;
      const Ast* sub = SubqueryOf(ast, alias, i);
      const std::string prefix = StrCat(where, ".", alias, " → ");
      if (sub == nullptr) {
        std::string d = JsonDiff(TreeToJson(e.relationships[i].second),
                                 TreeToJson(a.relationships[i].second), 1);
        if (!d.empty()) out_.push_back(StrCat(prefix, d));
        continue;
      }
      Level(prefix, e.relationships[i].second, a.relationships[i].second, *sub);
    }
  }

  static std::string Aliases(const TreeNode& n) {
    std::vector<std::string> names;
    for (const auto& [alias, kids] : n.relationships) names.push_back(alias);
    return StrCat("[", absl::StrJoin(names, " "), "]");
  }

  // The related subquery shown as `alias` (the i-th shown relationship when aliases repeat).
  static const Ast* SubqueryOf(const Ast& ast, const std::string& alias, size_t index) {
    std::vector<const Ast*> shown;
    for (const CorrelatedSubquery& r : ast.related) {
      if (!r.hidden && r.subquery) shown.push_back(r.subquery.get());
    }
    if (index < shown.size() && shown[index]->alias.value_or(shown[index]->table) == alias) {
      return shown[index];
    }
    for (const Ast* s : shown) {
      if (s->alias.value_or(s->table) == alias) return s;
    }
    return nullptr;
  }

  const Schema& schema_;
  int max_;
  std::vector<std::string> out_;
};

}  // namespace

std::string TreeDiff(const std::vector<TreeNode>& expected, const std::vector<TreeNode>& actual,
                     const Ast& ast, const Schema& schema, int max_lines) {
  if (TreesEqual(expected, actual)) return "";
  Walker w(schema, max_lines < 1 ? 1 : max_lines);
  w.Level("", expected, actual, ast);
  if (w.lines().empty()) return JsonDiff(TreeToJson(expected), TreeToJson(actual), max_lines);
  return absl::StrJoin(w.lines(), "\n");
}

}  // namespace rindle
