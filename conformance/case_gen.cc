#include "conformance/case_gen.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "conformance/json_file.h"
#include "engine/ast_json.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "base/rng.h"

namespace rindle::conformance {
namespace {

using json = nlohmann::json;
using sim::Rng;

const std::vector<std::string> kUserNames = {
    "Alice", "ali", "Ali Baba", "Bob", "bob_b", "O'Brien", "Élodie", "50%er", "Zoe", "zoë",
    "Mallory", "Trent"};
const std::vector<std::string> kTitles = {
    "Crash on startup", "crash report", "Fix login bug", "AUTH token expiry",
    "Kanban drag & drop", "zzz last", "A first", "Slow search (50%)", "Typo in_docs",
    "Ünïcode title", "Dark mode", "CRASH when offline"};
const std::vector<std::string> kStatuses = {"backlog", "todo", "in-progress", "review", "done"};
const std::vector<std::string> kPriorities = {"low", "medium", "high", "urgent"};
const std::vector<std::string> kBodies = {
    "repro steps attached", "Crash confirmed", "won't fix", "LGTM", "cannot repro",
    "see #12", "needs a REPRO", "👍", "dup of i007"};
const std::vector<std::string> kTagNames = {
    "bug", "perf", "ui", "docs", "regression", "good first issue", "needs-triage", "p0", "Bug"};

std::string Id(char prefix, int64_t n, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%c%0*lld", prefix, width, static_cast<long long>(n));
  return buf;
}

// A time-like number: small integers (ties on purpose), sometimes with a fraction.
Value Time(Rng& rng, int64_t hi) {
  const int64_t whole = rng.Range(0, hi);
  if (rng.Chance(1, 4)) {
    static const double kFractions[] = {0.25, 0.5, 0.75};
    return Value::Number(static_cast<double>(whole) + kFractions[rng.Below(3)]);
  }
  return Value::Int(whole);
}

// Generator state: table → id → row (ordered, so picks are deterministic).
class Gen {
 public:
  Gen(const Schema& schema, Rng rng) : schema_(schema), rng_(rng) {}

  RowValues Make(const std::string& table, const std::map<std::string, Value>& cells) const {
    const TableSpec& spec = schema_.at(table);
    RowValues row(spec.columns.size());
    for (const auto& [col, v] : cells) row[spec.ColumnIndex(col)] = v;
    return row;
  }
  int Col(const std::string& table, const std::string& col) const {
    return schema_.at(table).ColumnIndex(col);
  }

  std::string NewId(const std::string& table) {
    const int64_t n = ++next_[table];
    if (table == "user") return Id('u', n, 2);
    if (table == "issue") return Id('i', n, 3);
    if (table == "comment") return Id('c', n, 3);
    return Id('t', n, 3);
  }

  // A random existing id of `table`, or "" when it is empty.
  std::string PickId(const std::string& table) {
    const auto& rows = state_[table];
    if (rows.empty()) return "";
    auto it = rows.begin();
    std::advance(it, static_cast<long>(rng_.Below(rows.size())));
    return it->first;
  }

  // An issue id for a foreign key: usually an existing issue, sometimes a dangling one.
  std::string IssueRef() {
    std::string id = PickId("issue");
    if (id.empty() || rng_.Chance(1, 12)) return "i999";
    return id;
  }
  std::string UserRef() {
    std::string id = PickId("user");
    if (id.empty() || rng_.Chance(1, 8)) return "unassigned";
    return id;
  }

  RowValues NewUser() {
    return Make("user", {{"id", Value::String(NewId("user"))},
                         {"name", Value::String(rng_.Pick(kUserNames))}});
  }
  RowValues NewIssue() {
    Value created = Time(rng_, 60);
    return Make("issue", {{"id", Value::String(NewId("issue"))},
                          {"title", Value::String(rng_.Pick(kTitles))},
                          {"status", Value::String(rng_.Pick(kStatuses))},
                          {"priority", Value::String(rng_.Pick(kPriorities))},
                          {"ownerId", Value::String(UserRef())},
                          {"createdAt", created},
                          {"updatedAt", Time(rng_, 60)}});
  }
  RowValues NewComment() {
    return Make("comment", {{"id", Value::String(NewId("comment"))},
                            {"issueId", Value::String(IssueRef())},
                            {"authorId", Value::String(UserRef())},
                            {"body", Value::String(rng_.Pick(kBodies))},
                            {"createdAt", Time(rng_, 80)}});
  }
  RowValues NewTag() {
    return Make("tag", {{"id", Value::String(NewId("tag"))},
                        {"issueId", Value::String(IssueRef())},
                        {"name", Value::String(rng_.Pick(kTagNames))}});
  }

  void Put(const std::string& table, const RowValues& row) {
    state_[table][row[0].as_string()] = row;
  }
  void Drop(const std::string& table, const std::string& id) { state_[table].erase(id); }
  const RowValues& Get(const std::string& table, const std::string& id) {
    return state_[table].at(id);
  }

  RowOp Add(const std::string& table, RowValues row) {
    Put(table, row);
    return RowOp{RowOp::Kind::kAdd, table, std::move(row), {}};
  }
  RowOp Remove(const std::string& table, const std::string& id) {
    RowValues row = Get(table, id);
    Drop(table, id);
    return RowOp{RowOp::Kind::kRemove, table, std::move(row), {}};
  }
  RowOp Edit(const std::string& table, const std::string& id, RowValues row) {
    RowValues old = Get(table, id);
    Drop(table, id);
    Put(table, row);
    return RowOp{RowOp::Kind::kEdit, table, std::move(row), std::move(old)};
  }

  // A random edit of an existing row of `table` (the caller checked it is non-empty).
  RowOp EditSome(const std::string& table) {
    const std::string id = PickId(table);
    RowValues row = Get(table, id);
    auto set = [&](const char* col, Value v) { row[Col(table, col)] = std::move(v); };
    if (rng_.Chance(1, 40)) {  // primary-key edit
      set("id", Value::String(NewId(table)));
      return Edit(table, id, row);
    }
    if (table == "user") {
      set("name", Value::String(rng_.Pick(kUserNames)));
    } else if (table == "issue") {
      switch (rng_.Below(6)) {
        case 0: set("status", Value::String(rng_.Pick(kStatuses))); break;
        case 1: set("priority", Value::String(rng_.Pick(kPriorities))); break;
        case 2: set("title", Value::String(rng_.Pick(kTitles))); break;
        case 3: set("ownerId", Value::String(UserRef())); break;
        case 4: set("createdAt", Time(rng_, 60)); break;
        default:
          set("status", Value::String(rng_.Pick(kStatuses)));
          set("updatedAt", Time(rng_, 60));
          break;
      }
    } else if (table == "comment") {
      switch (rng_.Below(4)) {
        case 0: set("issueId", Value::String(IssueRef())); break;
        case 1: set("createdAt", Time(rng_, 80)); break;
        case 2: set("authorId", Value::String(UserRef())); break;
        default: set("body", Value::String(rng_.Pick(kBodies))); break;
      }
    } else {
      if (rng_.Chance(1, 2)) {
        set("issueId", Value::String(IssueRef()));
      } else {
        set("name", Value::String(rng_.Pick(kTagNames)));
      }
    }
    return Edit(table, id, row);
  }

  // Removes an issue, with its comments and tags first when `cascade`.
  void RemoveIssue(bool cascade, std::vector<RowOp>* ops) {
    const std::string id = PickId("issue");
    if (cascade) {
      for (const char* child : {"comment", "tag"}) {
        std::vector<std::string> ids;
        for (const auto& [cid, row] : state_[child]) {
          if (row[Col(child, "issueId")] == Value::String(id)) ids.push_back(cid);
        }
        for (const std::string& cid : ids) ops->push_back(Remove(child, cid));
      }
    }
    ops->push_back(Remove("issue", id));
  }

  std::vector<RowOp> Txn() {
    std::vector<RowOp> ops;
    const int64_t n = rng_.Range(1, 3);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t roll = rng_.Below(100);
      if (roll < 22) {
        if (!state_["issue"].empty()) ops.push_back(EditSome("issue"));
      } else if (roll < 30) {
        ops.push_back(Add("issue", NewIssue()));
      } else if (roll < 35) {
        if (state_["issue"].size() > 1) RemoveIssue(rng_.Chance(1, 2), &ops);
      } else if (roll < 47) {
        if (!state_["comment"].empty()) ops.push_back(EditSome("comment"));
      } else if (roll < 56) {
        ops.push_back(Add("comment", NewComment()));
      } else if (roll < 63) {
        if (!state_["comment"].empty()) ops.push_back(Remove("comment", PickId("comment")));
      } else if (roll < 72) {
        if (!state_["tag"].empty()) ops.push_back(EditSome("tag"));
      } else if (roll < 80) {
        ops.push_back(Add("tag", NewTag()));
      } else if (roll < 86) {
        if (!state_["tag"].empty()) ops.push_back(Remove("tag", PickId("tag")));
      } else if (roll < 93) {
        if (!state_["user"].empty()) ops.push_back(EditSome("user"));
      } else if (roll < 97) {
        ops.push_back(Add("user", NewUser()));
      } else {
        if (state_["user"].size() > 1) ops.push_back(Remove("user", PickId("user")));
      }
    }
    if (ops.empty()) ops.push_back(Add("comment", NewComment()));
    return ops;
  }

  Rng& rng() { return rng_; }

 private:
  const Schema& schema_;
  Rng rng_;
  std::map<std::string, std::map<std::string, RowValues>> state_;
  std::map<std::string, int64_t> next_;
};

// Shrinks every `limit` (not of a `one` level) to 1..6, recursively through related and EXISTS.
void ShrinkLimits(json& ast, Rng& rng);

void ShrinkCondition(json& cond, Rng& rng) {
  if (!cond.is_object()) return;
  if (cond.contains("conditions")) {
    for (json& c : cond["conditions"]) ShrinkCondition(c, rng);
  }
  if (cond.contains("related") && cond["related"].contains("subquery")) {
    ShrinkLimits(cond["related"]["subquery"], rng);
  }
}

void ShrinkLimits(json& ast, Rng& rng) {
  if (!ast.is_object()) return;
  const bool one = ast.contains("one") && ast["one"] == true;
  if (ast.contains("limit") && !one) ast["limit"] = rng.Range(1, 6);
  if (ast.contains("where")) ShrinkCondition(ast["where"], rng);
  if (ast.contains("related")) {
    for (json& r : ast["related"]) {
      if (r.contains("subquery")) ShrinkLimits(r["subquery"], rng);
    }
  }
}

absl::Status CheckAppSchema(const Schema& schema) {
  const std::map<std::string, std::vector<std::string>> kNeed = {
      {"user", {"id", "name"}},
      {"issue", {"id", "title", "status", "priority", "ownerId", "createdAt", "updatedAt"}},
      {"comment", {"id", "issueId", "authorId", "body", "createdAt"}},
      {"tag", {"id", "issueId", "name"}}};
  for (const auto& [table, cols] : kNeed) {
    auto it = schema.find(table);
    if (it == schema.end()) {
      return absl::InvalidArgumentError(StrCat("case generator: the schema has no table \"",
                                               table, "\" (it needs the app schema)"));
    }
    for (const std::string& col : cols) {
      if (it->second.ColumnIndex(col) < 0) {
        return absl::InvalidArgumentError(StrCat("case generator: table \"", table,
                                                 "\" has no column \"", col, "\""));
      }
    }
    if (it->second.ColumnIndex("id") != 0 || it->second.primary_key != std::vector<int>{0}) {
      return absl::InvalidArgumentError(StrCat("case generator: table \"", table,
                                               "\" must have `id` as column 0 and primary key"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CaseGenInputs> LoadCaseGenInputs(const std::string& app_dir) {
  namespace fs = std::filesystem;
  CaseGenInputs in;
  const std::string schema_path = (fs::path(app_dir) / "app-schema.json").string();
  ASSIGN_OR_RETURN(json schema, ReadJsonFile(schema_path));
  if (!schema.is_object() || !schema.contains("tables")) {
    return absl::InvalidArgumentError(StrCat(schema_path, ": expected {\"tables\": {...}}"));
  }
  in.schema_json = json{{"tables", schema["tables"]}};
  ASSIGN_OR_RETURN(in.schema, SchemaFromJson(in.schema_json, schema_path));
  RETURN_IF_ERROR(CheckAppSchema(in.schema));
  const fs::path qdir = fs::path(app_dir) / "queries";
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(qdir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  if (ec) return absl::NotFoundError(StrCat(qdir.string(), ": cannot list (", ec.message(), ")"));
  std::sort(files.begin(), files.end());
  if (files.empty()) return absl::InvalidArgumentError(StrCat(qdir.string(), ": no *.json queries"));
  for (const fs::path& f : files) {
    ASSIGN_OR_RETURN(json ast, ReadJsonFile(f.string()));
    absl::StatusOr<Ast> parsed = ParseAst(ast);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(StrCat(f.string(), ": ", parsed.status().message()));
    }
    in.queries.emplace_back(f.stem().string(), std::move(ast));
  }
  return in;
}

absl::StatusOr<PeerCase> GenerateCase(const CaseGenInputs& in, uint64_t seed) {
  RETURN_IF_ERROR(CheckAppSchema(in.schema));
  if (in.queries.empty()) return absl::InvalidArgumentError("case generator: no queries");
  Rng root(seed);
  Rng qrng = root.Fork("query");
  PeerCase c;
  c.name = StrCat("gen-", seed);
  c.schema = in.schema;
  c.schema_json = in.schema_json;
  const auto& [qname, qast] = qrng.Pick(in.queries);
  c.ast_json = qast;
  const bool shrink = qrng.Chance(1, 2);
  if (shrink) ShrinkLimits(c.ast_json, qrng);
  ASSIGN_OR_RETURN(c.ast, ParseAst(c.ast_json));

  Gen gen(in.schema, root.Fork("rows"));
  std::map<std::string, std::vector<RowValues>> rows;
  const int64_t users = gen.rng().Range(6, 14), issues = gen.rng().Range(12, 40),
                comments = gen.rng().Range(10, 60), tags = gen.rng().Range(10, 60);
  for (int64_t i = 0; i < users; ++i) {
    rows["user"].push_back(gen.NewUser());
    gen.Put("user", rows["user"].back());
  }
  for (int64_t i = 0; i < issues; ++i) {
    rows["issue"].push_back(gen.NewIssue());
    gen.Put("issue", rows["issue"].back());
  }
  for (int64_t i = 0; i < comments; ++i) {
    rows["comment"].push_back(gen.NewComment());
    gen.Put("comment", rows["comment"].back());
  }
  for (int64_t i = 0; i < tags; ++i) {
    rows["tag"].push_back(gen.NewTag());
    gen.Put("tag", rows["tag"].back());
  }
  for (auto& [table, list] : rows) c.rows.emplace_back(table, std::move(list));

  Gen& tg = gen;  // the txns continue from the generated state, on their own stream
  tg.rng() = root.Fork("txns");
  const int64_t txns = tg.rng().Range(6, 14);
  bool pk_edits = false;
  for (int64_t t = 0; t < txns; ++t) {
    std::vector<RowOp> ops = tg.Txn();
    for (const RowOp& op : ops) {
      if (op.kind == RowOp::Kind::kEdit && op.old_row[0] != op.row[0]) pk_edits = true;
    }
    c.txns.push_back(std::move(ops));
  }
  c.extra = {{"generator", {{"tool", "rindle-sim gen-cases"}, {"seed", seed}}},
             {"query", {{"name", qname}, {"source", "app"}, {"limitsShrunk", shrink}}},
             {"pkEdits", pk_edits}};
  return c;
}

}  // namespace rindle::conformance
