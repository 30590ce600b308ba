// catalog.cc — see catalog.h.
#include "sim/workload/catalog.h"

#include <fstream>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "engine/ast_json.h"
#include "sim/workload/sim_catalog.h"

#ifndef RINDLE_FIXTURES_DIR
#error "RINDLE_FIXTURES_DIR must be defined (the project's fixtures/ directory)"
#endif

namespace rindle::sim {
namespace {

using json = nlohmann::json;

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  RINDLE_CHECK_MSG(in.good(), path + ": cannot open the query catalog file");
  std::ostringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  RINDLE_CHECK_MSG(!j.is_discarded(), path + ": not valid JSON");
  return j;
}

std::vector<CatalogEntry> LoadCatalog() {
  const std::string dir = std::string(RINDLE_FIXTURES_DIR) + "/app";
  const json manifest = ReadJsonFile(dir + "/app-queries-manifest.json");
  std::vector<CatalogEntry> out;
  for (const auto& [key, entry] : manifest.at("queries").items()) {
    CatalogEntry e;
    e.key = key;
    e.app = entry.value("source", "") == "app" && entry.contains("remote") &&
            entry["remote"].is_object();
    if (e.app) {
      e.remote = RemoteQuery{entry["remote"]["name"].get<std::string>(), entry["remote"]["args"]};
    }
    const std::string file = entry.at("file").get<std::string>();
    e.recorded = ReadJsonFile(dir + "/queries/" + file.substr(file.rfind('/') + 1));
    for (const json& f : entry.value("features", json::array())) {
      e.features.push_back(f.get<std::string>());
    }
    out.push_back(std::move(e));
  }
  for (const SimCatalogShape& shape : SimCatalogShapes()) {
    CatalogEntry e;
    e.key = shape.key;
    e.recorded = json::parse(shape.ast_json, /*cb=*/nullptr, /*allow_exceptions=*/false);
    RINDLE_CHECK_MSG(!e.recorded.is_discarded(), shape.key + ": sim catalog AST is not valid JSON");
    RINDLE_CHECK_MSG(!manifest.at("queries").contains(shape.key),
                     shape.key + ": sim catalog key collides with a manifest entry");
    e.features = shape.features;
    out.push_back(std::move(e));
  }
  return out;
}

using Visit = std::function<void(json& value, const std::string& column)>;

// Depth-first over recorded AST JSON (object keys sorted): each literal of a simple condition
// (with the column on its other side) and each start-row value (with its column).
void WalkLiterals(json& j, const Visit& visit) {
  if (j.is_array()) {
    for (json& e : j) WalkLiterals(e, visit);
    return;
  }
  if (!j.is_object()) return;
  if (j.value("type", "") == "simple" && j.contains("left") && j.contains("right")) {
    auto column_of = [](const json& side) {
      return side.value("type", "") == "column" ? side.value("name", "") : std::string();
    };
    if (j["left"].value("type", "") == "literal") visit(j["left"]["value"], column_of(j["right"]));
    if (j["right"].value("type", "") == "literal") visit(j["right"]["value"], column_of(j["left"]));
  }
  if (j.contains("start") && j["start"].is_object() && j["start"].contains("row")) {
    for (auto& [column, value] : j["start"]["row"].items()) visit(value, column);
  }
  for (auto& [k, v] : j.items()) {
    if (k != "start") WalkLiterals(v, visit);
  }
}

// The JSON kind a substituted literal must keep.
int Kind(const json& v) {
  if (v.is_null()) return 0;
  if (v.is_number()) return 1;
  if (v.is_string()) return 2;
  if (v.is_array()) return 3;
  return 4;
}

const std::vector<std::string>& Statuses() {
  static const std::vector<std::string> k = {"backlog", "todo", "in-progress", "review", "done"};
  return k;
}
const std::vector<std::string>& Priorities() {
  static const std::vector<std::string> k = {"low", "medium", "high", "urgent"};
  return k;
}
const std::vector<std::string>& TagNames() {
  static const std::vector<std::string> k = {"bug", "Bug", "feature", "ui", "perf", "docs", "p0"};
  return k;
}
const std::vector<std::string>& IssueIds() {
  static const std::vector<std::string> k = {"i001", "i002", "i003", "i004", "i005",
                                             "i006", "i007", "i008", "i-c0-1", "i-c1-2"};
  return k;
}

// The value domain a slot on `column` draws from (empty: keep the recorded value).
std::vector<std::string> StringDomain(const std::string& column, const std::string& recorded) {
  const bool pattern = recorded.find('%') != std::string::npos;
  if (column == "status") return Statuses();
  if (column == "priority") return Priorities();
  if (column == "title") {
    if (pattern) return {"%crash%", "Fix%", "%_mode%", "%login%", "%o%", "%search%", "%bug", "A%"};
    return {"login", "Fix login bug", "A first"};
  }
  if (column == "body") return {"%repro%", "%lgtm%", "%crash%", "%+1%", "LGTM"};
  if (column == "name") {
    if (recorded.size() == 1) return {"b", "d", "f", "p", "r", "u"};
    return TagNames();
  }
  if (column == "id") return IssueIds();
  if (column == "ownerId" || column == "authorId") return {"u01", "u02", "u03", "u04", "u05"};
  return {};
}

json DrawLiteral(Rng& rng, const LiteralSlot& slot) {
  if (rng.Chance(1, 2)) return slot.recorded;
  const json& r = slot.recorded;
  if (r.is_number()) return rng.Range(0, 18) * 500;  // createdAt/updatedAt: the seed's range
  if (r.is_string()) {
    const std::vector<std::string> d = StringDomain(slot.column, r.get<std::string>());
    return d.empty() ? r : json(rng.Pick(d));
  }
  if (r.is_array() && !r.empty() && r[0].is_string()) {
    const std::vector<std::string> d = StringDomain(slot.column, r[0].get<std::string>());
    if (d.empty()) return r;
    json out = json::array();
    for (const std::string& v : d) {
      if (rng.Chance(1, 3)) out.push_back(v);
    }
    if (out.empty()) out.push_back(rng.Pick(d));
    return out;
  }
  return r;  // null (IS / IS NOT) stays null
}

json PickOf(Rng& rng, std::initializer_list<const char*> items) {
  return json(*(items.begin() + rng.Below(items.size())));
}
json PickOf(Rng& rng, std::initializer_list<int> items) {
  return json(*(items.begin() + rng.Below(items.size())));
}

// The app entry's remote query with its args redrawn (facet values, limits, ids).
RemoteQuery DrawAppQuery(Rng& rng, const CatalogEntry& e) {
  RemoteQuery q = e.remote;
  if (q.name == "issuesPage") {
    if (rng.Chance(1, 2)) q.args["limit"] = PickOf(rng, {3, 5, 20, 50});
    for (json& facet : q.args["filter"]) {
      if (rng.Chance(1, 2)) continue;
      const std::string axis = facet["axis"].get<std::string>();
      if (axis == "title") facet["value"] = PickOf(rng, {"crash", "login", "dark", "cr", "o"});
      if (axis == "status") facet["value"] = rng.Pick(Statuses());
      if (axis == "priority") facet["value"] = rng.Pick(Priorities());
      if (axis == "owner") facet["value"] = PickOf(rng, {"ali", "bob", "u0", "zoe", "e", "u03"});
      if (axis == "tag") facet["value"] = PickOf(rng, {"bug", "ui", "p", "doc"});
      if (axis == "comment") facet["value"] = PickOf(rng, {"repro", "lgtm", "crash", "+1"});
    }
  } else if (q.name == "myIssues") {
    q.args["limit"] = PickOf(rng, {3, 10, 25});
  } else if (q.name == "recentComments") {
    q.args["limit"] = PickOf(rng, {5, 30});
  } else if (q.name == "issueDetail") {
    q.args = rng.Pick(IssueIds());
  }
  return q;
}

}  // namespace

const std::vector<CatalogEntry>& Catalog() {
  static const std::vector<CatalogEntry>* const kCatalog =
      new std::vector<CatalogEntry>(LoadCatalog());
  return *kCatalog;
}

const CatalogEntry* FindCatalogEntry(std::string_view key) {
  for (const CatalogEntry& e : Catalog()) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::vector<LiteralSlot> LiteralSlots(const json& recorded_ast) {
  std::vector<LiteralSlot> slots;
  json copy = recorded_ast;
  WalkLiterals(copy, [&](json& v, const std::string& column) { slots.push_back({column, v}); });
  return slots;
}

bool IsCatalogQueryName(std::string_view name) {
  const CatalogEntry* e = FindCatalogEntry(name);
  return e != nullptr && !e->app;
}

absl::StatusOr<Ast> BuildCatalogQuery(const RemoteQuery& q) {
  const CatalogEntry* e = FindCatalogEntry(q.name);
  if (e == nullptr || e->app) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", q.name, "\" is not an app-style catalog query"));
  }
  json ast = e->recorded;
  const bool keep = q.args.is_null() || (q.args.is_object() && q.args.empty());
  if (!keep) {
    if (!q.args.is_object() || q.args.size() != 1 || !q.args.contains("literals") ||
        !q.args["literals"].is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "catalog query \"", q.name, "\": args must be null or {\"literals\": [...]}, got ",
          q.args.dump()));
    }
    const json& literals = q.args["literals"];
    const size_t slots = LiteralSlots(e->recorded).size();
    if (literals.size() != slots) {
      return absl::InvalidArgumentError(absl::StrCat("catalog query \"", q.name, "\": has ", slots,
                                                     " literal slots, args give ",
                                                     literals.size()));
    }
    size_t i = 0;
    std::string error;
    WalkLiterals(ast, [&](json& v, const std::string& column) {
      const json& with = literals[i];
      if (error.empty() && Kind(with) != Kind(v)) {
        error = absl::StrCat("catalog query \"", q.name, "\": literals[", i, "] (", column,
                             ") must be of the kind of ", v.dump(), ", got ", with.dump());
      }
      v = with;
      ++i;
    });
    if (!error.empty()) return absl::InvalidArgumentError(error);
  }
  return ParseAst(ast, q.name);
}

RemoteQuery DrawCatalogQuery(Rng& rng, std::string_view key) {
  const CatalogEntry* e = FindCatalogEntry(key);
  RINDLE_CHECK_MSG(e != nullptr, absl::StrCat("unknown catalog entry ", std::string(key)));
  if (e->app) return DrawAppQuery(rng, *e);
  json literals = json::array();
  for (const LiteralSlot& slot : LiteralSlots(e->recorded)) {
    literals.push_back(DrawLiteral(rng, slot));
  }
  return RemoteQuery{e->key, json{{"literals", std::move(literals)}}};
}

std::string QueryShape(const RemoteQuery& q) {
  if (IsCatalogQueryName(q.name)) return q.name;
  if (q.name != "issuesPage") {
    for (const char* n : {"myIssues", "issueDetail", "recentComments", "tagOptions", "users"}) {
      if (q.name == n) return n;
    }
    return "other";
  }
  std::vector<std::string> axes;
  if (q.args.is_object() && q.args.contains("filter") && q.args["filter"].is_array()) {
    for (const json& f : q.args["filter"]) {
      axes.push_back(f.is_object() && f.contains("axis") && f["axis"].is_string()
                         ? f["axis"].get<std::string>()
                         : std::string("?"));
    }
  }
  if (axes.empty()) return "issuesPage";
  if (axes.size() == 1) {
    return axes[0] == "status" ? "board-column" : absl::StrCat("issuesPage-search-", axes[0]);
  }
  if (axes.size() == 2 && axes[0] == "status" && axes[1] == "priority") {
    return "issuesPage-search-status-priority";
  }
  return axes.size() >= 3 ? "issuesPage-search-all-axes" : "issuesPage-search-multi";
}

}  // namespace rindle::sim
