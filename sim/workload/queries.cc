// workload_queries.cc — see workload_queries.h.
#include "sim/workload/queries.h"

#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_join.h"
#include "engine/ast_json.h"
#include "sim/workload/catalog.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

absl::Status BadArgs(absl::string_view query, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("named query \"", query, "\": ", what));
}

ValuePosition Column(std::string name) {
  ValuePosition v;
  v.kind = ValuePosition::Kind::kColumn;
  v.column = std::move(name);
  return v;
}

ValuePosition Literal(std::string s) {
  ValuePosition v;
  v.kind = ValuePosition::Kind::kLiteral;
  v.literal = Value::String(std::move(s));
  return v;
}

Condition Simple(SimpleOp op, std::string column, std::string literal) {
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = op;
  c.left = Column(std::move(column));
  c.right = Literal(std::move(literal));
  return c;
}

Condition Contains(std::string column, const std::string& term) {
  return Simple(SimpleOp::kILike, std::move(column), absl::StrCat("%", term, "%"));
}

Condition Group(Condition::Type type, std::vector<Condition> conditions) {
  Condition c;
  c.type = type;
  c.conditions = std::move(conditions);
  return c;
}

CorrelatedSubquery Rel(std::string parent_field, std::string child_field, Ast sub) {
  CorrelatedSubquery r;
  r.correlation.parent_field = {std::move(parent_field)};
  r.correlation.child_field = {std::move(child_field)};
  r.subquery = std::make_shared<const Ast>(std::move(sub));
  return r;
}

Condition Exists(std::string parent_field, std::string child_field, Ast sub) {
  Condition c;
  c.type = Condition::Type::kCorrelatedSubquery;
  c.not_exists = false;
  c.related = Rel(std::move(parent_field), std::move(child_field), std::move(sub));
  return c;
}

Ast Table(std::string table) {
  Ast a;
  a.table = std::move(table);
  return a;
}

// user {id, name} under `alias` (owner / author).
Ast UserBadge(std::string alias) {
  Ast a = Table("user");
  a.alias = std::move(alias);
  a.select = std::vector<std::string>{"id", "name"};
  return a;
}

Ast TagsByName() {
  Ast a = Table("tag");
  a.alias = "tags";
  a.order_by = {{"name", false}};
  a.select = std::vector<std::string>{"id", "name"};
  return a;
}

// IssueCardFragment: the issue list card (issuesPage, myIssues, board column).
Ast IssueCard(int64_t limit, std::optional<Condition> where) {
  Ast a = Table("issue");
  a.where = std::move(where);
  Ast count = Table("comment");
  count.alias = "commentCount";
  count.aggregate = "count";
  a.related.push_back(Rel("id", "issueId", std::move(count)));
  a.related.push_back(Rel("ownerId", "id", UserBadge("owner")));
  a.related.push_back(Rel("id", "issueId", TagsByName()));
  a.order_by = {{"createdAt", true}, {"id", false}};
  a.limit = limit;
  a.select = std::vector<std::string>{"id", "ownerId", "priority", "status", "title", "updatedAt"};
  return a;
}

// Checks `args` is an object whose keys are all in `allowed`.
absl::Status CheckKeys(absl::string_view query, const json& args,
                       const std::set<std::string>& allowed) {
  if (!args.is_object()) {
    return BadArgs(query, absl::StrCat("args must be an object {", absl::StrJoin(allowed, ", "),
                                       "}, got ", args.dump()));
  }
  for (const auto& [k, v] : args.items()) {
    if (!allowed.count(k)) {
      return BadArgs(query, absl::StrCat("unknown arg \"", k, "\" (valid: ",
                                         absl::StrJoin(allowed, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> LimitArg(absl::string_view query, const json& args) {
  if (!args.contains("limit")) return BadArgs(query, "missing arg \"limit\"");
  const json& l = args["limit"];
  if (!l.is_number_integer() || l.get<int64_t>() < 0) {
    return BadArgs(query, absl::StrCat("arg \"limit\" must be an integer >= 0, got ", l.dump()));
  }
  return l.get<int64_t>();
}

absl::StatusOr<Condition> FacetCondition(const json& entry, size_t index) {
  const std::string where = absl::StrCat("filter[", index, "]");
  if (!entry.is_object() || !entry.contains("axis") || !entry["axis"].is_string() ||
      !entry.contains("value") || !entry["value"].is_string() || entry.size() != 2) {
    return BadArgs("issuesPage", absl::StrCat(where, " must be {axis: string, value: string}, got ",
                                              entry.dump()));
  }
  const std::string axis = entry["axis"].get<std::string>();
  const std::string value = entry["value"].get<std::string>();
  if (axis == "title") return Contains("title", value);
  if (axis == "status") return Simple(SimpleOp::kEq, "status", value);
  if (axis == "priority") return Simple(SimpleOp::kEq, "priority", value);
  if (axis == "owner") {
    Ast user = Table("user");
    user.alias = "user";
    user.where = Group(Condition::Type::kOr, {Contains("id", value), Contains("name", value)});
    return Exists("ownerId", "id", std::move(user));
  }
  if (axis == "tag") {
    Ast tag = Table("tag");
    tag.alias = "tag";
    tag.where = Contains("name", value);
    return Exists("id", "issueId", std::move(tag));
  }
  if (axis == "comment") {
    Ast comment = Table("comment");
    comment.alias = "comment";
    comment.where = Contains("body", value);
    return Exists("id", "issueId", std::move(comment));
  }
  return BadArgs("issuesPage",
                 absl::StrCat(where, ".axis \"", axis,
                              "\" is unknown (valid: title, status, priority, owner, tag, comment)"));
}

absl::StatusOr<Ast> IssuesPage(const json& args) {
  if (absl::Status s = CheckKeys("issuesPage", args, {"filter", "limit"}); !s.ok()) return s;
  absl::StatusOr<int64_t> limit = LimitArg("issuesPage", args);
  if (!limit.ok()) return limit.status();
  std::vector<Condition> facets;
  if (args.contains("filter")) {
    const json& filter = args["filter"];
    if (!filter.is_array()) {
      return BadArgs("issuesPage", absl::StrCat("arg \"filter\" must be an array of {axis, value}, got ",
                                                filter.dump()));
    }
    for (size_t i = 0; i < filter.size(); ++i) {
      absl::StatusOr<Condition> c = FacetCondition(filter[i], i);
      if (!c.ok()) return c.status();
      facets.push_back(std::move(*c));
    }
  }
  std::optional<Condition> where;
  if (facets.size() == 1) {
    where = std::move(facets[0]);
  } else if (facets.size() > 1) {
    where = Group(Condition::Type::kAnd, std::move(facets));
  }
  return IssueCard(*limit, std::move(where));
}

absl::StatusOr<Ast> MyIssues(const json& args, const QueryContext& ctx) {
  if (absl::Status s = CheckKeys("myIssues", args, {"limit"}); !s.ok()) return s;
  absl::StatusOr<int64_t> limit = LimitArg("myIssues", args);
  if (!limit.ok()) return limit.status();
  if (ctx.user_id.empty()) return BadArgs("myIssues", "needs a signed-in user (ctx.user_id is empty)");
  return IssueCard(*limit, Simple(SimpleOp::kEq, "ownerId", ctx.user_id));
}

absl::StatusOr<Ast> IssueDetail(const json& args) {
  std::string id;
  if (args.is_string()) {
    id = args.get<std::string>();
  } else if (args.is_object() && args.size() == 1 && args.contains("id") && args["id"].is_string()) {
    id = args["id"].get<std::string>();
  } else {
    return BadArgs("issueDetail", absl::StrCat("args must be the issue id string, got ", args.dump()));
  }
  if (id.empty()) return BadArgs("issueDetail", "the issue id is empty");
  Ast a = Table("issue");
  a.where = Simple(SimpleOp::kEq, "id", id);
  Ast comments = Table("comment");
  comments.alias = "comments";
  comments.related.push_back(Rel("authorId", "id", UserBadge("author")));
  comments.order_by = {{"createdAt", false}};
  comments.select = std::vector<std::string>{"authorId", "body", "createdAt", "id"};
  a.related.push_back(Rel("id", "issueId", std::move(comments)));
  a.related.push_back(Rel("ownerId", "id", UserBadge("owner")));
  a.related.push_back(Rel("id", "issueId", TagsByName()));
  a.one = true;
  a.select = std::vector<std::string>{"id", "ownerId", "priority", "status", "title"};
  return a;
}

// The harness's context cover for a room-upgraded detail view (not an app query): the issue's
// tags, whole rows — the one context table besides `user` issueDetail joins.
absl::StatusOr<Ast> IssueTags(const json& args) {
  if (!args.is_string() || args.get<std::string>().empty()) {
    return BadArgs("issueTags", absl::StrCat("args must be the issue id string, got ", args.dump()));
  }
  Ast a = Table("tag");
  a.where = Simple(SimpleOp::kEq, "issueId", args.get<std::string>());
  a.order_by = {{"name", false}};
  return a;
}

absl::StatusOr<Ast> RecentComments(const json& args) {
  if (absl::Status s = CheckKeys("recentComments", args, {"limit"}); !s.ok()) return s;
  absl::StatusOr<int64_t> limit = LimitArg("recentComments", args);
  if (!limit.ok()) return limit.status();
  Ast a = Table("comment");
  a.related.push_back(Rel("authorId", "id", UserBadge("author")));
  Ast issue = Table("issue");
  issue.alias = "issue";
  issue.select = std::vector<std::string>{"id", "title", "status"};
  a.related.push_back(Rel("issueId", "id", std::move(issue)));
  a.order_by = {{"createdAt", true}, {"id", false}};
  a.limit = *limit;
  a.select = std::vector<std::string>{"authorId", "body", "createdAt", "id"};
  return a;
}

absl::Status NoArgs(absl::string_view query, const json& args) {
  if (args.is_null() || (args.is_object() && args.empty())) return absl::OkStatus();
  return BadArgs(query, absl::StrCat("takes no args (null), got ", args.dump()));
}

}  // namespace

std::vector<std::string> NamedQueryNames() {
  return {"issueDetail", "issueTags", "issuesPage", "myIssues", "recentComments", "tagOptions",
          "users"};
}

absl::StatusOr<Ast> BuildNamedQuery(const RemoteQuery& q, const QueryContext& ctx) {
  if (q.name == "issuesPage") return IssuesPage(q.args);
  if (q.name == "myIssues") return MyIssues(q.args, ctx);
  if (q.name == "issueDetail") return IssueDetail(q.args);
  if (q.name == "recentComments") return RecentComments(q.args);
  if (q.name == "tagOptions") {
    if (absl::Status s = NoArgs("tagOptions", q.args); !s.ok()) return s;
    Ast a = Table("tag");
    a.order_by = {{"name", false}};
    a.select = std::vector<std::string>{"name"};
    return a;
  }
  if (q.name == "users") {
    if (absl::Status s = NoArgs("users", q.args); !s.ok()) return s;
    Ast a = Table("user");
    a.order_by = {{"name", false}};
    return a;
  }
  if (q.name == "issueTags") return IssueTags(q.args);
  if (IsCatalogQueryName(q.name)) return BuildCatalogQuery(q);
  return absl::InvalidArgumentError(absl::StrCat("unknown named query \"", q.name, "\" (known: ",
                                                 absl::StrJoin(NamedQueryNames(), ", "), ")"));
}

std::vector<RemoteQuery> WorkloadQueries() {
  auto page = [](int64_t limit, json filter) {
    return RemoteQuery{"issuesPage", json{{"limit", limit}, {"filter", std::move(filter)}}};
  };
  auto facet = [](const char* axis, const char* value) {
    return json{{"axis", axis}, {"value", value}};
  };
  return {
      page(50, json::array()),
      page(20, json::array({facet("status", "review")})),
      page(20, json::array({facet("status", "todo")})),
      page(20, json::array({facet("status", "in-progress")})),
      page(50, json::array({facet("priority", "urgent")})),
      page(50, json::array({facet("title", "crash")})),
      page(50, json::array({facet("status", "review"), facet("priority", "urgent")})),
      page(5, json::array()),
      page(3, json::array({facet("priority", "high")})),
      RemoteQuery{"myIssues", json{{"limit", 25}}},
      RemoteQuery{"issueDetail", json("i001")},
      RemoteQuery{"issueDetail", json("i002")},
      RemoteQuery{"recentComments", json{{"limit", 30}}},
      RemoteQuery{"recentComments", json{{"limit", 5}}},
      RemoteQuery{"tagOptions", json(nullptr)},
      RemoteQuery{"users", json(nullptr)},
      page(50, json::array({facet("owner", "ali")})),
      page(50, json::array({facet("tag", "bug")})),
      page(50, json::array({facet("comment", "repro")})),
  };
}

std::vector<std::string> LocalQueryNames() { return {"drafts", "liveDrafts", "selection"}; }

absl::StatusOr<Ast> BuildLocalQuery(std::string_view name) {
  const char* text = nullptr;
  if (name == "drafts") {
    text = R"({"table": "drafts", "orderBy": [["issueId", "asc"], ["id", "asc"]]})";
  } else if (name == "selection") {
    text = R"({"table": "selection", "orderBy": [["id", "asc"]],
               "related": [{"correlation": {"parentField": ["issueId"], "childField": ["id"]},
                            "subquery": {"table": "issue", "alias": "issue",
                                         "orderBy": [["id", "asc"]]}}]})";
  } else if (name == "liveDrafts") {
    text = R"({"table": "drafts", "orderBy": [["id", "asc"]],
               "where": {"type": "correlatedSubquery", "op": "EXISTS",
                         "related": {"correlation": {"parentField": ["issueId"],
                                                     "childField": ["id"]},
                                     "subquery": {"table": "issue", "alias": "zsubq_issue",
                                                  "orderBy": [["id", "asc"]]}}}})";
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown local query \"", std::string(name),
                                                   "\" (known: ", absl::StrJoin(LocalQueryNames(), ", "),
                                                   ")"));
  }
  return ParseAstText(text);
}

}  // namespace rindle::sim
