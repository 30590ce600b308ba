// workload_mutators.cc — see workload_mutators.h.
#include "sim/workload/mutators.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// Typed access to one mutator's args, with errors naming the mutator and the arg.
class Args {
 public:
  Args(absl::string_view mutator, const json& j) : mutator_(mutator), j_(j) {}

  absl::Status CheckObject() const {
    if (j_.is_object()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("mutator ", mutator_, ": args must be an object, got ", j_.dump()));
  }
  bool Has(absl::string_view key) const {
    return j_.is_object() && j_.contains(std::string(key)) && !j_[std::string(key)].is_null();
  }
  absl::StatusOr<std::string> String(absl::string_view key) const {
    RETURN_IF_ERROR(Require(key));
    const json& v = j_[std::string(key)];
    if (!v.is_string()) return WrongType(key, "a string", v);
    return v.get<std::string>();
  }
  // A non-empty string (ids).
  absl::StatusOr<std::string> Id(absl::string_view key) const {
    ASSIGN_OR_RETURN(std::string s, String(key));
    if (s.empty()) return WrongType(key, "a non-empty id string", j_[std::string(key)]);
    return s;
  }
  absl::StatusOr<json> Number(absl::string_view key) const {
    RETURN_IF_ERROR(Require(key));
    const json& v = j_[std::string(key)];
    if (!v.is_number()) return WrongType(key, "a number", v);
    return v;
  }
  absl::StatusOr<json> Get(absl::string_view key) const {
    RETURN_IF_ERROR(Require(key));
    return j_[std::string(key)];
  }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("mutator ", mutator_, ": ", what));
  }

 private:
  absl::Status Require(absl::string_view key) const {
    if (Has(key)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("mutator ", mutator_, ": missing required arg \"", key, "\""));
  }
  absl::Status WrongType(absl::string_view key, absl::string_view expected, const json& v) const {
    return absl::InvalidArgumentError(absl::StrCat("mutator ", mutator_, ": arg \"", key,
                                                   "\" must be ", expected, ", got ", v.dump()));
  }

  absl::string_view mutator_;
  const json& j_;
};

// The server-only validation: a title / body that is blank after trimming.
absl::Status RejectBlank(bool server, absl::string_view mutator, absl::string_view field,
                         const std::string& text) {
  if (!server || !absl::StripAsciiWhitespace(text).empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("mutator ", mutator, ": ", field, " must not be blank"));
}

absl::Status RequireIssue(MutationTx& tx, absl::string_view mutator, const std::string& issue_id) {
  ASSIGN_OR_RETURN(std::optional<KeyedRow> row, tx.GetRow("issue", json{{"id", issue_id}}));
  if (row) return absl::OkStatus();
  return absl::NotFoundError(
      absl::StrCat("mutator ", mutator, ": issue \"", issue_id, "\" does not exist"));
}

// `table where issueId = issue_id`, single-table.
Ast ChildrenOf(std::string table, const std::string& issue_id) {
  Ast a;
  a.table = std::move(table);
  Condition c;
  c.type = Condition::Type::kSimple;
  c.op = SimpleOp::kEq;
  c.left.kind = ValuePosition::Kind::kColumn;
  c.left.column = "issueId";
  c.right.kind = ValuePosition::Kind::kLiteral;
  c.right.literal = Value::String(issue_id);
  a.where = std::move(c);
  return a;
}

// The authority's commit stamp (server twins only): strictly after both the client's claimed
// updatedAt and the row's stored one — the server assigns the timestamp, so the prediction's
// updatedAt is always replaced by a different authoritative value. The client keeps its own.
absl::StatusOr<json> Stamp(bool server, MutationTx& tx, const std::string& issue_id,
                           const json& claimed) {
  if (!server) return claimed;
  int64_t at = claimed.is_number_integer() ? claimed.get<int64_t>() : 0;
  ASSIGN_OR_RETURN(std::optional<KeyedRow> row, tx.GetRow("issue", json{{"id", issue_id}}));
  if (row && row->contains("updatedAt") && (*row)["updatedAt"].is_number_integer()) {
    at = std::max(at, (*row)["updatedAt"].get<int64_t>());
  }
  return json(at + 1);
}

// The server's title normalization: ASCII whitespace trimmed, inner runs collapsed to one space.
std::string NormalizeTitle(bool server, const std::string& title) {
  if (!server) return title;
  std::string out;
  for (char ch : title) {
    const bool space = absl::ascii_isspace(static_cast<unsigned char>(ch));
    if (space) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(ch);
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The server's tag name normalization: ASCII lower-case ("Bug" and "bug" are one tag name).
std::string NormalizeTag(bool server, const std::string& name) {
  return server ? absl::AsciiStrToLower(name) : name;
}

absl::Status CreateIssue(bool server, MutationTx& tx, const json& j) {
  Args a("createIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string title, a.String("title"));
  ASSIGN_OR_RETURN(std::string status, a.String("status"));
  ASSIGN_OR_RETURN(std::string priority, a.String("priority"));
  ASSIGN_OR_RETURN(std::string owner_id, a.Id("ownerId"));
  ASSIGN_OR_RETURN(std::string owner_name, a.String("ownerName"));
  ASSIGN_OR_RETURN(json created_at, a.Number("createdAt"));
  RETURN_IF_ERROR(RejectBlank(server, "createIssue", "title", title));

  std::optional<std::pair<std::string, std::string>> description;  // (comment id, body)
  if (a.Has("description")) {
    ASSIGN_OR_RETURN(json d, a.Get("description"));
    if (!d.is_object() || !d.contains("id") || !d["id"].is_string() ||
        d["id"].get<std::string>().empty() || !d.contains("body") || !d["body"].is_string()) {
      return a.Error(absl::StrCat("arg \"description\" must be {id: string, body: string}, got ",
                                  d.dump()));
    }
    description.emplace(d["id"].get<std::string>(), d["body"].get<std::string>());
  }
  std::vector<std::pair<std::string, std::string>> tags;  // (tag id, name)
  if (a.Has("tags")) {
    ASSIGN_OR_RETURN(json t, a.Get("tags"));
    if (!t.is_array()) return a.Error(absl::StrCat("arg \"tags\" must be an array, got ", t.dump()));
    for (size_t i = 0; i < t.size(); ++i) {
      const json& e = t[i];
      if (!e.is_object() || !e.contains("id") || !e["id"].is_string() ||
          e["id"].get<std::string>().empty() || !e.contains("name") || !e["name"].is_string()) {
        return a.Error(absl::StrCat("arg \"tags[", i, "]\" must be {id: string, name: string}, got ",
                                    e.dump()));
      }
      tags.emplace_back(e["id"].get<std::string>(), e["name"].get<std::string>());
    }
  }

  RETURN_IF_ERROR(tx.Insert("issue", json{{"id", id},
                                          {"title", NormalizeTitle(server, title)},
                                          {"status", status},
                                          {"priority", priority},
                                          {"ownerId", owner_id},
                                          {"createdAt", created_at},
                                          {"updatedAt", created_at}}));
  if (description) {
    RETURN_IF_ERROR(tx.Insert("comment", json{{"id", description->first},
                                              {"issueId", id},
                                              {"authorId", owner_id},
                                              {"body", description->second},
                                              {"createdAt", created_at}}));
  }
  for (const auto& [tag_id, name] : tags) {
    RETURN_IF_ERROR(tx.Insert(
        "tag", json{{"id", tag_id}, {"issueId", id}, {"name", NormalizeTag(server, name)}}));
  }
  return tx.InsertIgnore("user", json{{"id", owner_id}, {"name", owner_name}});
}

// editTitle / setStatus / setPriority: update one string column of the issue plus updatedAt.
absl::Status SetIssueField(bool server, absl::string_view mutator, absl::string_view field,
                           MutationTx& tx, const json& j) {
  Args a(mutator, j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string value, a.String(field));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  if (field == "title") {
    RETURN_IF_ERROR(RejectBlank(server, mutator, "title", value));
    value = NormalizeTitle(server, value);
  }
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  return tx.Update("issue",
                   json{{"id", id}, {std::string(field), value}, {"updatedAt", updated_at}});
}

absl::Status SetOwner(bool server, MutationTx& tx, const json& j) {
  Args a("setOwner", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string owner_id, a.Id("ownerId"));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  if (a.Has("ownerName")) {
    ASSIGN_OR_RETURN(std::string owner_name, a.String("ownerName"));
    RETURN_IF_ERROR(tx.InsertIgnore("user", json{{"id", owner_id}, {"name", owner_name}}));
  }
  return tx.Update("issue", json{{"id", id}, {"ownerId", owner_id}, {"updatedAt", updated_at}});
}

absl::Status AddTag(bool server, MutationTx& tx, const json& j) {
  Args a("addTag", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string issue_id, a.Id("issueId"));
  ASSIGN_OR_RETURN(std::string name, a.String("name"));
  RETURN_IF_ERROR(RequireIssue(tx, "addTag", issue_id));
  name = NormalizeTag(server, name);
  if (server) {  // a validation the client does not know: one tag name per issue
    ASSIGN_OR_RETURN(std::vector<TreeNode> tags, tx.Query(ChildrenOf("tag", issue_id)));
    for (const TreeNode& node : tags) {
      if (node.row != nullptr && static_cast<int>(node.row->size()) > kTagName &&
          (*node.row)[kTagName].is_string() &&
          absl::AsciiStrToLower((*node.row)[kTagName].as_string()) == name) {
        return absl::FailedPreconditionError(absl::StrCat(
            "mutator addTag: issue \"", issue_id, "\" already has a tag \"", name, "\""));
      }
    }
  }
  return tx.Insert("tag", json{{"id", id}, {"issueId", issue_id}, {"name", name}});
}

absl::Status RemoveTag(MutationTx& tx, const json& j) {
  Args a("removeTag", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  return tx.Delete("tag", json{{"id", id}});
}

absl::Status AddComment(bool server, MutationTx& tx, const json& j) {
  Args a("addComment", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string issue_id, a.Id("issueId"));
  ASSIGN_OR_RETURN(std::string author_id, a.Id("authorId"));
  ASSIGN_OR_RETURN(std::string body, a.String("body"));
  ASSIGN_OR_RETURN(json created_at, a.Number("createdAt"));
  RETURN_IF_ERROR(RejectBlank(server, "addComment", "body", body));
  RETURN_IF_ERROR(RequireIssue(tx, "addComment", issue_id));
  return tx.Insert("comment", json{{"id", id},
                                   {"issueId", issue_id},
                                   {"authorId", author_id},
                                   {"body", body},
                                   {"createdAt", created_at}});
}

absl::Status EditComment(bool server, MutationTx& tx, const json& j) {
  Args a("editComment", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string body, a.String("body"));
  RETURN_IF_ERROR(RejectBlank(server, "editComment", "body", body));
  return tx.Update("comment", json{{"id", id}, {"body", body}});
}

// Deletes every row of `table` whose issueId is `issue_id` (id column `id_col`).
absl::Status DeleteChildren(MutationTx& tx, const std::string& table, int id_col,
                            const std::string& issue_id) {
  ASSIGN_OR_RETURN(std::vector<TreeNode> rows, tx.Query(ChildrenOf(table, issue_id)));
  std::vector<std::string> ids;
  for (const TreeNode& node : rows) {
    if (node.row == nullptr || static_cast<int>(node.row->size()) <= id_col ||
        !(*node.row)[id_col].is_string()) {
      return absl::InternalError(absl::StrCat("deleteIssue: query of ", table,
                                              " returned a row without a string id"));
    }
    ids.push_back((*node.row)[id_col].as_string());
  }
  std::sort(ids.begin(), ids.end());  // deterministic write order whatever the query order
  for (const std::string& id : ids) RETURN_IF_ERROR(tx.Delete(table, json{{"id", id}}));
  return absl::OkStatus();
}

absl::Status DeleteIssue(MutationTx& tx, const json& j) {
  Args a("deleteIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  RETURN_IF_ERROR(DeleteChildren(tx, "comment", kCommentId, id));
  RETURN_IF_ERROR(DeleteChildren(tx, "tag", kTagId, id));
  return tx.Delete("issue", json{{"id", id}});
}

absl::Status BumpPriority(MutationTx& tx, const json& j) {
  Args a("bumpPriority", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(json updated_at, a.Number("updatedAt"));
  ASSIGN_OR_RETURN(std::optional<KeyedRow> row, tx.GetRow("issue", json{{"id", id}}));
  if (!row) {
    return absl::NotFoundError(
        absl::StrCat("mutator bumpPriority: issue \"", id, "\" does not exist"));
  }
  const json current = row->contains("priority") ? (*row)["priority"] : json();
  const std::vector<std::string>& ladder = PriorityLadder();
  auto it = current.is_string() ? std::find(ladder.begin(), ladder.end(),
                                            current.get<std::string>())
                                : ladder.end();
  if (it == ladder.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "mutator bumpPriority: issue \"", id, "\" has priority ", current.dump(),
        ", not one of low, medium, high, urgent"));
  }
  if (std::next(it) == ladder.end()) return absl::OkStatus();  // urgent stays: nothing written
  return tx.Update("issue", json{{"id", id}, {"priority", *std::next(it)}, {"updatedAt", updated_at}});
}

// moveComment {id, issueId}: re-parents a comment (its correlation column). The target issue
// must exist (NotFound); an absent comment is a no-op update.
absl::Status MoveComment(MutationTx& tx, const json& j) {
  Args a("moveComment", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string issue_id, a.Id("issueId"));
  RETURN_IF_ERROR(RequireIssue(tx, "moveComment", issue_id));
  return tx.Update("comment", json{{"id", id}, {"issueId", issue_id}});
}

// reprioritize {id, priority, createdAt, updatedAt}: moves an issue in every createdAt-ordered
// list (the card order column) and sets its priority (another sort column).
absl::Status Reprioritize(bool server, MutationTx& tx, const json& j) {
  Args a("reprioritize", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string priority, a.String("priority"));
  ASSIGN_OR_RETURN(json created_at, a.Number("createdAt"));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  return tx.Update("issue", json{{"id", id},
                                 {"priority", priority},
                                 {"createdAt", created_at},
                                 {"updatedAt", updated_at}});
}

// duplicateIssue {id, sourceId, createdAt}: a read-dependent insert — reads the source issue
// (absent → NotFound) and its tags, inserts a copy under `id` ("<title> (copy)", same status,
// priority, owner) with tags "<id>-t<k>" of the same names.
absl::Status DuplicateIssue(MutationTx& tx, const json& j) {
  Args a("duplicateIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string source_id, a.Id("sourceId"));
  ASSIGN_OR_RETURN(json created_at, a.Number("createdAt"));
  ASSIGN_OR_RETURN(std::optional<KeyedRow> src, tx.GetRow("issue", json{{"id", source_id}}));
  if (!src) {
    return absl::NotFoundError(
        absl::StrCat("mutator duplicateIssue: issue \"", source_id, "\" does not exist"));
  }
  const std::string title = (*src)["title"].is_string() ? (*src)["title"].get<std::string>() : "";
  RETURN_IF_ERROR(tx.Insert("issue", json{{"id", id},
                                          {"title", absl::StrCat(title, " (copy)")},
                                          {"status", (*src)["status"]},
                                          {"priority", (*src)["priority"]},
                                          {"ownerId", (*src)["ownerId"]},
                                          {"createdAt", created_at},
                                          {"updatedAt", created_at}}));
  ASSIGN_OR_RETURN(std::vector<TreeNode> tags, tx.Query(ChildrenOf("tag", source_id)));
  std::vector<std::string> names;
  for (const TreeNode& node : tags) {
    if (node.row != nullptr && static_cast<int>(node.row->size()) > kTagName &&
        (*node.row)[kTagName].is_string()) {
      names.push_back((*node.row)[kTagName].as_string());
    }
  }
  std::sort(names.begin(), names.end());  // deterministic whatever the query order
  for (size_t k = 0; k < names.size(); ++k) {
    RETURN_IF_ERROR(tx.Insert("tag", json{{"id", absl::StrCat(id, "-t", k + 1)},
                                          {"issueId", id},
                                          {"name", names[k]}}));
  }
  return absl::OkStatus();
}

// recreateIssue {id, title, createdAt}: inserts an issue under a caller-chosen id — the id of a
// deleted issue (reuse) or of a live one (collision: the insert's AlreadyExists error).
absl::Status RecreateIssue(bool server, MutationTx& tx, const json& j) {
  Args a("recreateIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(std::string title, a.String("title"));
  ASSIGN_OR_RETURN(json created_at, a.Number("createdAt"));
  RETURN_IF_ERROR(RejectBlank(server, "recreateIssue", "title", title));
  return tx.Insert("issue", json{{"id", id},
                                 {"title", NormalizeTitle(server, title)},
                                 {"status", "backlog"},
                                 {"priority", "low"},
                                 {"ownerId", nullptr},
                                 {"createdAt", created_at},
                                 {"updatedAt", created_at}});
}

// closeIssue {id, updatedAt}: writes status "done", THEN reads the issue's comments and throws
// FailedPrecondition when it has none ("say why you close it") — a mutator that fails after
// writing: its write must not survive (the tx rolls back; no mid on the client, seed 002).
absl::Status CloseIssue(bool server, MutationTx& tx, const json& j) {
  Args a("closeIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  RETURN_IF_ERROR(
      tx.Update("issue", json{{"id", id}, {"status", "done"}, {"updatedAt", updated_at}}));
  ASSIGN_OR_RETURN(std::vector<TreeNode> comments, tx.Query(ChildrenOf("comment", id)));
  if (comments.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("mutator closeIssue: issue \"", id, "\" has no comment (written, then thrown)"));
  }
  return absl::OkStatus();
}

// escalateIssue {id, updatedAt}: a two-step edit of ONE row — raises the priority one step, then
// re-reads the row (its own write) and raises it again (urgent stays urgent but is written), THEN
// validates: a done issue cannot be escalated (FailedPrecondition). The validation reads the
// status after both writes, so the throw depends on the replica's state; the row was written
// twice before the throw, so a rollback must restore the state before the FIRST write (seed 000
// §2.1) — undoing in the wrong order leaves the intermediate priority.
absl::Status EscalateStep(bool server, MutationTx& tx, const std::string& id,
                          const json& claimed) {
  ASSIGN_OR_RETURN(std::optional<KeyedRow> row, tx.GetRow("issue", json{{"id", id}}));
  if (!row) {
    return absl::NotFoundError(
        absl::StrCat("mutator escalateIssue: issue \"", id, "\" does not exist"));
  }
  const json current = row->contains("priority") ? (*row)["priority"] : json();
  const std::vector<std::string>& ladder = PriorityLadder();
  auto it = current.is_string()
                ? std::find(ladder.begin(), ladder.end(), current.get<std::string>())
                : ladder.end();
  if (it == ladder.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "mutator escalateIssue: issue \"", id, "\" has priority ", current.dump()));
  }
  const std::string next = std::next(it) == ladder.end() ? *it : *std::next(it);
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  return tx.Update("issue", json{{"id", id}, {"priority", next}, {"updatedAt", updated_at}});
}

absl::Status EscalateIssue(bool server, MutationTx& tx, const json& j) {
  Args a("escalateIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  RETURN_IF_ERROR(EscalateStep(server, tx, id, claimed));
  RETURN_IF_ERROR(EscalateStep(server, tx, id, claimed));
  ASSIGN_OR_RETURN(std::optional<KeyedRow> row, tx.GetRow("issue", json{{"id", id}}));
  if (row && row->contains("status") && (*row)["status"] == "done") {
    return absl::FailedPreconditionError(absl::StrCat(
        "mutator escalateIssue: issue \"", id, "\" is done (written twice, then thrown)"));
  }
  return absl::OkStatus();
}

// unassignIssue {id, updatedAt}: ownerId := null (the nullable column; schema.h).
absl::Status UnassignIssue(bool server, MutationTx& tx, const json& j) {
  Args a("unassignIssue", j);
  RETURN_IF_ERROR(a.CheckObject());
  ASSIGN_OR_RETURN(std::string id, a.Id("id"));
  ASSIGN_OR_RETURN(json claimed, a.Number("updatedAt"));
  ASSIGN_OR_RETURN(json updated_at, Stamp(server, tx, id, claimed));
  return tx.Update("issue", json{{"id", id}, {"ownerId", nullptr}, {"updatedAt", updated_at}});
}

std::map<std::string, Mutator> MakeMutators(bool server) {
  std::map<std::string, Mutator> m;
  m["createIssue"] = [server](MutationTx& tx, const json& a) { return CreateIssue(server, tx, a); };
  m["editTitle"] = [server](MutationTx& tx, const json& a) {
    return SetIssueField(server, "editTitle", "title", tx, a);
  };
  m["setStatus"] = [server](MutationTx& tx, const json& a) {
    return SetIssueField(server, "setStatus", "status", tx, a);
  };
  m["setPriority"] = [server](MutationTx& tx, const json& a) {
    return SetIssueField(server, "setPriority", "priority", tx, a);
  };
  m["setOwner"] = [server](MutationTx& tx, const json& a) { return SetOwner(server, tx, a); };
  m["addTag"] = [server](MutationTx& tx, const json& a) { return AddTag(server, tx, a); };
  m["removeTag"] = [](MutationTx& tx, const json& a) { return RemoveTag(tx, a); };
  m["addComment"] = [server](MutationTx& tx, const json& a) { return AddComment(server, tx, a); };
  m["editComment"] = [server](MutationTx& tx, const json& a) { return EditComment(server, tx, a); };
  m["deleteIssue"] = [](MutationTx& tx, const json& a) { return DeleteIssue(tx, a); };
  m["bumpPriority"] = [](MutationTx& tx, const json& a) { return BumpPriority(tx, a); };
  m["moveComment"] = [](MutationTx& tx, const json& a) { return MoveComment(tx, a); };
  m["reprioritize"] = [server](MutationTx& tx, const json& a) {
    return Reprioritize(server, tx, a);
  };
  m["duplicateIssue"] = [](MutationTx& tx, const json& a) { return DuplicateIssue(tx, a); };
  m["recreateIssue"] = [server](MutationTx& tx, const json& a) {
    return RecreateIssue(server, tx, a);
  };
  m["closeIssue"] = [server](MutationTx& tx, const json& a) { return CloseIssue(server, tx, a); };
  m["unassignIssue"] = [server](MutationTx& tx, const json& a) {
    return UnassignIssue(server, tx, a);
  };
  m["escalateIssue"] = [server](MutationTx& tx, const json& a) {
    return EscalateIssue(server, tx, a);
  };
  return m;
}

}  // namespace

const std::vector<std::string>& PriorityLadder() {
  static const std::vector<std::string>* const kLadder =
      new std::vector<std::string>{"low", "medium", "high", "urgent"};
  return *kLadder;
}

namespace {

MutatorArg Arg(std::string name, ArgType type, bool required = true,
               std::vector<std::string> values = {}) {
  return MutatorArg{std::move(name), type, required, std::move(values)};
}

std::vector<MutatorSignature> MakeSignatures() {
  using T = ArgType;
  const std::vector<std::string> statuses = {"backlog", "todo", "in-progress", "review", "done"};
  const std::vector<std::string>& priorities = PriorityLadder();
  const MutatorArg id = Arg("id", T::kId);
  const MutatorArg updated_at = Arg("updatedAt", T::kInt);
  std::vector<MutatorSignature> table = {
      {"addComment",
       {id, Arg("issueId", T::kId), Arg("authorId", T::kId), Arg("body", T::kString),
        Arg("createdAt", T::kInt)}},
      {"addTag", {id, Arg("issueId", T::kId), Arg("name", T::kString)}},
      {"bumpPriority", {id, updated_at}},
      {"closeIssue", {id, updated_at}},
      {"createIssue",
       {id, Arg("title", T::kString), Arg("status", T::kEnum, true, statuses),
        Arg("priority", T::kEnum, true, priorities), Arg("ownerId", T::kId),
        Arg("ownerName", T::kString), Arg("createdAt", T::kInt),
        Arg("description", T::kDescription, false), Arg("tags", T::kTags, false)}},
      {"deleteIssue", {id}},
      {"duplicateIssue", {id, Arg("sourceId", T::kId), Arg("createdAt", T::kInt)}},
      {"editComment", {id, Arg("body", T::kString)}},
      {"editTitle", {id, Arg("title", T::kString), updated_at}},
      {"escalateIssue", {id, updated_at}},
      {"moveComment", {id, Arg("issueId", T::kId)}},
      {"recreateIssue", {id, Arg("title", T::kString), Arg("createdAt", T::kInt)}},
      {"removeTag", {id}},
      {"reprioritize",
       {id, Arg("priority", T::kEnum, true, priorities), Arg("createdAt", T::kInt), updated_at}},
      {"setOwner", {id, Arg("ownerId", T::kId), Arg("ownerName", T::kString, false), updated_at}},
      {"setPriority", {id, Arg("priority", T::kEnum, true, priorities), updated_at}},
      {"setStatus", {id, Arg("status", T::kEnum, true, statuses), updated_at}},
      {"unassignIssue", {id, updated_at}},
  };
  return table;
}

bool IsId(const json& v) { return v.is_string() && !v.get<std::string>().empty(); }

// {key1: kId, key2: kString} — the shape of a description and of one tag.
bool IsPair(const json& v, const char* id_key, const char* text_key) {
  return v.is_object() && v.size() == 2 && v.contains(id_key) && IsId(v[id_key]) &&
         v.contains(text_key) && v[text_key].is_string();
}

bool Fits(const MutatorArg& arg, const json& v) {
  switch (arg.type) {
    case ArgType::kString: return v.is_string();
    case ArgType::kId: return IsId(v);
    case ArgType::kInt:
      return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    case ArgType::kBool: return v.is_boolean();
    case ArgType::kEnum:
      return v.is_string() &&
             std::find(arg.values.begin(), arg.values.end(), v.get<std::string>()) !=
                 arg.values.end();
    case ArgType::kDescription: return IsPair(v, "id", "body");
    case ArgType::kTags:
      return v.is_array() &&
             std::all_of(v.begin(), v.end(), [](const json& e) { return IsPair(e, "id", "name"); });
  }
  return false;
}

}  // namespace

const std::vector<MutatorSignature>& MutatorSignatures() {
  static const std::vector<MutatorSignature>* const kTable =
      new std::vector<MutatorSignature>(MakeSignatures());
  return *kTable;
}

const MutatorSignature* FindMutatorSignature(std::string_view name) {
  for (const MutatorSignature& s : MutatorSignatures()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const MutatorArg* FindMutatorArg(std::string_view mutator, std::string_view arg) {
  const MutatorSignature* sig = FindMutatorSignature(mutator);
  if (sig == nullptr) return nullptr;
  for (const MutatorArg& a : sig->args) {
    if (a.name == arg) return &a;
  }
  return nullptr;
}

std::string DescribeMutatorArg(const MutatorArg& arg) {
  switch (arg.type) {
    case ArgType::kString: return "a string";
    case ArgType::kId: return "a non-empty id string";
    case ArgType::kInt: return "a non-negative integer (virtual ms)";
    case ArgType::kBool: return "true or false";
    case ArgType::kEnum: {
      std::string out = "one of ";
      for (size_t i = 0; i < arg.values.size(); ++i) {
        absl::StrAppend(&out, i == 0 ? "" : ", ", arg.values[i]);
      }
      return out;
    }
    case ArgType::kDescription: return "{\"id\": a non-empty id string, \"body\": a string}";
    case ArgType::kTags: return "an array of {\"id\": a non-empty id string, \"name\": a string}";
  }
  return "?";
}

std::optional<ArgProblem> CheckMutatorArgs(std::string_view mutator, const json& args) {
  const MutatorSignature* sig = FindMutatorSignature(mutator);
  if (sig == nullptr) return ArgProblem{"", StrCat("a workload mutator, not ", mutator), {}};
  if (!args.is_object()) {
    return ArgProblem{"", StrCat("a JSON object of mutator ", mutator, "'s args"), args};
  }
  for (const MutatorArg& a : sig->args) {
    const bool present = args.contains(a.name) && !args[a.name].is_null();
    if (!present && a.required) {
      return ArgProblem{a.name,
                        StrCat("the required arg of mutator ", mutator, ": ",
                                     DescribeMutatorArg(a), " (missing)"),
                        std::nullopt};
    }
    if (present && !Fits(a, args[a.name])) {
      return ArgProblem{a.name, StrCat(DescribeMutatorArg(a), " (mutator ", mutator, ")"),
                        args[a.name]};
    }
  }
  for (const auto& [key, value] : args.items()) {
    if (FindMutatorArg(mutator, key) != nullptr) continue;
    std::string known;
    for (const MutatorArg& a : sig->args) absl::StrAppend(&known, known.empty() ? "" : ", ", a.name);
    return ArgProblem{key,
                      StrCat("no such arg: mutator ", mutator, " takes ", known),
                      value};
  }
  return std::nullopt;
}

std::vector<std::string> WorkloadMutatorNames() {
  std::vector<std::string> names;
  for (const auto& [name, m] : MakeMutators(false)) names.push_back(name);
  return names;
}

std::map<std::string, Mutator> ClientMutators() { return MakeMutators(false); }
std::map<std::string, Mutator> ServerMutators() { return MakeMutators(true); }

}  // namespace rindle::sim
