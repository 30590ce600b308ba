// workload_mutators_test.cc — the app's mutators against a small in-test MutationTx backed by
// ordered maps (keyed columns validated against the app schema), and the generator's actions run
// through the server twins.
#include "sim/workload/mutators.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/rng.h"
#include "sim/workload/generator.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// table → id → keyed row.
using Tables = std::map<std::string, std::map<std::string, json>>;

// A MutationTx over a copy of `Tables`: keyed writers with seed-002 semantics; Query supports
// single-table ASTs with an optional `column = literal` where. Records every call in `log`.
class FakeTx : public MutationTx {
 public:
  FakeTx(const Schema& schema, Tables tables) : schema_(schema), tables_(std::move(tables)) {}

  const Tables& tables() const { return tables_; }
  std::vector<std::string> log;

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                               const RowValues& pk) override {
    log.push_back(absl::StrCat("get ", std::string(table)));
    RETURN_IF_ERROR(CheckTable(table));
    auto& t = tables_[std::string(table)];
    auto it = t.find(pk.at(0).as_string());
    if (it == t.end()) return std::optional<RowValues>();
    return std::optional<RowValues>(Positional(table, it->second));
  }
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                 const KeyedRow& pk) override {
    log.push_back(absl::StrCat("getRow ", std::string(table)));
    ASSIGN_OR_RETURN(std::string id, Id(table, pk));
    auto& t = tables_[std::string(table)];
    auto it = t.find(id);
    if (it == t.end()) return std::optional<KeyedRow>();
    return std::optional<KeyedRow>(it->second);
  }
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override {
    log.push_back(absl::StrCat("query ", ast.table));
    RETURN_IF_ERROR(CheckTable(ast.table));
    if (!ast.related.empty()) return absl::UnimplementedError("fake: related");
    std::vector<TreeNode> out;
    for (const auto& [id, row] : tables_[ast.table]) {
      if (ast.where) {
        const Condition& c = *ast.where;
        if (c.type != Condition::Type::kSimple || c.op != SimpleOp::kEq ||
            c.left.kind != ValuePosition::Kind::kColumn) {
          return absl::UnimplementedError("fake: only column = literal");
        }
        if (!row.contains(c.left.column)) return absl::InvalidArgumentError("fake: bad column");
        if (row[c.left.column] != c.right.literal.ToJson()) continue;
      }
      TreeNode n;
      n.row = MakeRow(Positional(ast.table, row));
      out.push_back(std::move(n));
    }
    return out;
  }
  absl::Status Add(std::string_view, const RowValues&) override { return Unsupported(); }
  absl::Status Remove(std::string_view, const RowValues&) override { return Unsupported(); }
  absl::Status Edit(std::string_view, const RowValues&, const RowValues&) override {
    return Unsupported();
  }
  absl::Status Insert(std::string_view table, const KeyedRow& row) override {
    log.push_back(absl::StrCat("insert ", std::string(table)));
    RETURN_IF_ERROR(CheckFull(table, row));
    auto& t = tables_[std::string(table)];
    const std::string id = row["id"].get<std::string>();
    if (t.count(id)) return absl::AlreadyExistsError(absl::StrCat(std::string(table), " ", id));
    t[id] = row;
    return absl::OkStatus();
  }
  absl::Status Update(std::string_view table, const KeyedRow& row) override {
    log.push_back(absl::StrCat("update ", std::string(table)));
    RETURN_IF_ERROR(CheckColumns(table, row));
    ASSIGN_OR_RETURN(std::string id, Id(table, row));
    auto& t = tables_[std::string(table)];
    auto it = t.find(id);
    if (it == t.end()) return absl::OkStatus();
    for (const auto& [k, v] : row.items()) it->second[k] = v;
    return absl::OkStatus();
  }
  absl::Status Upsert(std::string_view table, const KeyedRow& row) override {
    log.push_back(absl::StrCat("upsert ", std::string(table)));
    RETURN_IF_ERROR(CheckFull(table, row));
    tables_[std::string(table)][row["id"].get<std::string>()] = row;
    return absl::OkStatus();
  }
  absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) override {
    log.push_back(absl::StrCat("insertIgnore ", std::string(table)));
    RETURN_IF_ERROR(CheckFull(table, row));
    tables_[std::string(table)].emplace(row["id"].get<std::string>(), row);
    return absl::OkStatus();
  }
  absl::Status Delete(std::string_view table, const KeyedRow& pk) override {
    log.push_back(absl::StrCat("delete ", std::string(table)));
    ASSIGN_OR_RETURN(std::string id, Id(table, pk));
    tables_[std::string(table)].erase(id);
    return absl::OkStatus();
  }

 private:
  static absl::Status Unsupported() { return absl::UnimplementedError("fake: positional writes"); }
  absl::Status CheckTable(std::string_view table) const {
    if (schema_.count(std::string(table))) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("unknown table ", std::string(table)));
  }
  absl::Status CheckColumns(std::string_view table, const KeyedRow& row) const {
    RETURN_IF_ERROR(CheckTable(table));
    if (!row.is_object()) return absl::InvalidArgumentError("row must be an object");
    const TableSpec& spec = schema_.at(std::string(table));
    for (const auto& [k, v] : row.items()) {
      const int col = spec.ColumnIndex(k);
      if (col < 0) return absl::InvalidArgumentError(absl::StrCat("unknown column ", k));
      absl::StatusOr<Value> value = Value::FromJson(v);
      if (!value.ok() || !spec.Accepts(col, *value)) {
        return absl::InvalidArgumentError(absl::StrCat("bad value for ", k, ": ", v.dump()));
      }
    }
    return absl::OkStatus();
  }
  absl::Status CheckFull(std::string_view table, const KeyedRow& row) const {
    RETURN_IF_ERROR(CheckColumns(table, row));
    for (const ColumnSpec& c : schema_.at(std::string(table)).columns) {
      if (!row.contains(c.name)) return absl::InvalidArgumentError("missing column " + c.name);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Id(std::string_view table, const KeyedRow& pk) const {
    RETURN_IF_ERROR(CheckColumns(table, pk));
    if (!pk.contains("id")) return absl::InvalidArgumentError("pk needs id");
    return pk["id"].get<std::string>();
  }
  RowValues Positional(std::string_view table, const json& row) const {
    RowValues out;
    for (const ColumnSpec& c : schema_.at(std::string(table)).columns) {
      out.push_back(*Value::FromJson(row[c.name]));
    }
    return out;
  }

  const Schema& schema_;
  Tables tables_;
};

class WorkloadMutatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Schema> s = LoadAppSchema();
    ASSERT_TRUE(s.ok()) << s.status();
    schema_ = *s;
    tables_["user"]["u01"] = {{"id", "u01"}, {"name", "Alice"}};
    tables_["issue"]["i001"] = Issue("i001", "low");
    tables_["issue"]["i002"] = Issue("i002", "urgent");
    tables_["comment"]["c001"] = Comment("c001", "i001");
    tables_["comment"]["c002"] = Comment("c002", "i001");
    tables_["comment"]["c003"] = Comment("c003", "i002");
    tables_["tag"]["t001"] = {{"id", "t001"}, {"issueId", "i001"}, {"name", "bug"}};
    tables_["tag"]["t002"] = {{"id", "t002"}, {"issueId", "i002"}, {"name", "ui"}};
  }

  static json Issue(const std::string& id, const std::string& priority) {
    return {{"id", id},          {"title", "Fix login"}, {"status", "todo"},
            {"priority", priority}, {"ownerId", "u01"}, {"createdAt", 1000},
            {"updatedAt", 1000}};
  }
  static json Comment(const std::string& id, const std::string& issue) {
    return {{"id", id}, {"issueId", issue}, {"authorId", "u01"}, {"body", "LGTM"},
            {"createdAt", 1100}};
  }

  // Runs `name` from `mutators` in a tx over a copy of tables_; commits into tables_ when OK.
  absl::Status Run(const std::map<std::string, Mutator>& mutators, const std::string& name,
                   const json& args, std::vector<std::string>* log = nullptr) {
    FakeTx tx(schema_, tables_);
    absl::Status s = mutators.at(name)(tx, args);
    if (log) *log = tx.log;
    if (s.ok()) tables_ = tx.tables();
    return s;
  }
  absl::Status Client(const std::string& name, const json& args,
                      std::vector<std::string>* log = nullptr) {
    return Run(ClientMutators(), name, args, log);
  }
  absl::Status Server(const std::string& name, const json& args) {
    return Run(ServerMutators(), name, args);
  }

  Schema schema_;
  Tables tables_;
};

json CreateArgs(const std::string& title) {
  return {{"id", "i-c1-1"},
          {"title", title},
          {"status", "todo"},
          {"priority", "high"},
          {"ownerId", "u-c1-2"},
          {"ownerName", "Zoe"},
          {"createdAt", 5000},
          {"description", {{"id", "c-c1-3"}, {"body", "steps to repro"}}},
          {"tags", json::array({{{"id", "t-c1-4"}, {"name", "bug"}},
                                {{"id", "t-c1-5"}, {"name", "p0"}}})}};
}

TEST_F(WorkloadMutatorsTest, NamesAreTheAppMutatorsOnBothSides) {
  const std::vector<std::string> expected = {
      "addComment",   "addTag",      "bumpPriority", "closeIssue",    "createIssue",
      "deleteIssue",  "duplicateIssue", "editComment", "editTitle",   "escalateIssue",
      "moveComment",
      "recreateIssue", "removeTag",  "reprioritize", "setOwner",      "setPriority",
      "setStatus",    "unassignIssue"};
  EXPECT_EQ(WorkloadMutatorNames(), expected);
  std::vector<std::string> client, server;
  for (const auto& [n, m] : ClientMutators()) client.push_back(n);
  for (const auto& [n, m] : ServerMutators()) server.push_back(n);
  EXPECT_EQ(client, expected);
  EXPECT_EQ(server, expected);
}

TEST_F(WorkloadMutatorsTest, CreateIssueWritesIssueDescriptionTagsAndOwner) {
  ASSERT_TRUE(Client("createIssue", CreateArgs("Crash on save")).ok());
  EXPECT_EQ(tables_["issue"]["i-c1-1"],
            (json{{"id", "i-c1-1"}, {"title", "Crash on save"}, {"status", "todo"},
                  {"priority", "high"}, {"ownerId", "u-c1-2"}, {"createdAt", 5000},
                  {"updatedAt", 5000}}));
  EXPECT_EQ(tables_["comment"]["c-c1-3"],
            (json{{"id", "c-c1-3"}, {"issueId", "i-c1-1"}, {"authorId", "u-c1-2"},
                  {"body", "steps to repro"}, {"createdAt", 5000}}));
  EXPECT_EQ(tables_["tag"]["t-c1-4"], (json{{"id", "t-c1-4"}, {"issueId", "i-c1-1"}, {"name", "bug"}}));
  EXPECT_EQ(tables_["tag"]["t-c1-5"], (json{{"id", "t-c1-5"}, {"issueId", "i-c1-1"}, {"name", "p0"}}));
  EXPECT_EQ(tables_["user"]["u-c1-2"], (json{{"id", "u-c1-2"}, {"name", "Zoe"}}));
}

TEST_F(WorkloadMutatorsTest, CreateIssueKeepsAnExistingOwnerAndNeedsNoDescriptionOrTags) {
  json args = CreateArgs("Plain");
  args["ownerId"] = "u01";
  args["ownerName"] = "Someone Else";
  args.erase("description");
  args.erase("tags");
  std::vector<std::string> log;
  ASSERT_TRUE(Client("createIssue", args, &log).ok());
  EXPECT_THAT(log, ElementsAre("insert issue", "insertIgnore user"));
  EXPECT_EQ(tables_["user"]["u01"]["name"], "Alice");
  EXPECT_EQ(tables_["user"].size(), 1u);
}

TEST_F(WorkloadMutatorsTest, CreateIssueFailsOnAnExistingIdAndWritesNothing) {
  json args = CreateArgs("Dup");
  args["id"] = "i001";
  const Tables before = tables_;
  EXPECT_FALSE(Client("createIssue", args).ok());
  EXPECT_EQ(tables_, before);
}

TEST_F(WorkloadMutatorsTest, MissingOrMistypedArgsAreInvalidArgumentNamingMutatorAndArg) {
  for (const std::string& name : WorkloadMutatorNames()) {
    SCOPED_TRACE(name);
    absl::Status s = Client(name, json::object());
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(name));
    EXPECT_THAT(std::string(s.message()), HasSubstr("missing required arg"));
    EXPECT_EQ(Server(name, "not an object").code(), absl::StatusCode::kInvalidArgument);
  }
  absl::Status s = Client("setStatus", {{"id", "i001"}, {"status", 3}, {"updatedAt", 1}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"status\""));
  s = Client("editTitle", {{"id", "i001"}, {"title", "x"}, {"updatedAt", "soon"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  json bad_tags = CreateArgs("t");
  bad_tags["tags"] = json::array({{{"id", "t9"}}});
  EXPECT_EQ(Client("createIssue", bad_tags).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(WorkloadMutatorsTest, FieldEditsUpdateTheIssue) {
  ASSERT_TRUE(Client("editTitle", {{"id", "i001"}, {"title", "New"}, {"updatedAt", 2000}}).ok());
  ASSERT_TRUE(Client("setStatus", {{"id", "i001"}, {"status", "done"}, {"updatedAt", 2001}}).ok());
  ASSERT_TRUE(Client("setPriority", {{"id", "i001"}, {"priority", "high"}, {"updatedAt", 2002}}).ok());
  ASSERT_TRUE(Client("setOwner", {{"id", "i001"}, {"ownerId", "u09"}, {"ownerName", "Eve"},
                                  {"updatedAt", 2003}}).ok());
  const json& i = tables_["issue"]["i001"];
  EXPECT_EQ(i["title"], "New");
  EXPECT_EQ(i["status"], "done");
  EXPECT_EQ(i["priority"], "high");
  EXPECT_EQ(i["ownerId"], "u09");
  EXPECT_EQ(i["updatedAt"], 2003);
  EXPECT_EQ(i["createdAt"], 1000);
  EXPECT_EQ(tables_["user"]["u09"], (json{{"id", "u09"}, {"name", "Eve"}}));
  // Without ownerName no user row is written.
  ASSERT_TRUE(Client("setOwner", {{"id", "i001"}, {"ownerId", "u10"}, {"updatedAt", 2004}}).ok());
  EXPECT_EQ(tables_["user"].count("u10"), 0u);
  EXPECT_EQ(tables_["issue"]["i001"]["ownerId"], "u10");
  ASSERT_TRUE(Client("editComment", {{"id", "c001"}, {"body", "edited"}}).ok());
  EXPECT_EQ(tables_["comment"]["c001"]["body"], "edited");
}

TEST_F(WorkloadMutatorsTest, TagsAndCommentsAreAddedAndRemoved) {
  ASSERT_TRUE(Client("addTag", {{"id", "t9"}, {"issueId", "i002"}, {"name", "perf"}}).ok());
  EXPECT_EQ(tables_["tag"]["t9"], (json{{"id", "t9"}, {"issueId", "i002"}, {"name", "perf"}}));
  ASSERT_TRUE(Client("removeTag", {{"id", "t001"}}).ok());
  EXPECT_EQ(tables_["tag"].count("t001"), 0u);
  ASSERT_TRUE(Client("removeTag", {{"id", "t001"}}).ok());  // idempotent
  ASSERT_TRUE(Client("addComment", {{"id", "c9"}, {"issueId", "i002"}, {"authorId", "u01"},
                                    {"body", "+1"}, {"createdAt", 3000}}).ok());
  EXPECT_EQ(tables_["comment"]["c9"]["issueId"], "i002");
}

TEST_F(WorkloadMutatorsTest, DeleteIssueRemovesItsCommentsAndTagsOnly) {
  std::vector<std::string> log;
  ASSERT_TRUE(Client("deleteIssue", {{"id", "i001"}}, &log).ok());
  EXPECT_EQ(tables_["issue"].count("i001"), 0u);
  EXPECT_EQ(tables_["comment"].count("c001"), 0u);
  EXPECT_EQ(tables_["comment"].count("c002"), 0u);
  EXPECT_EQ(tables_["tag"].count("t001"), 0u);
  // The other issue's children stay.
  EXPECT_EQ(tables_["issue"].count("i002"), 1u);
  EXPECT_EQ(tables_["comment"].count("c003"), 1u);
  EXPECT_EQ(tables_["tag"].count("t002"), 1u);
  EXPECT_THAT(log, ElementsAre("query comment", "delete comment", "delete comment", "query tag",
                               "delete tag", "delete issue"));
}

TEST_F(WorkloadMutatorsTest, DeleteIssueOfAMissingIssueIsANoOpThatStillClearsOrphans) {
  tables_["comment"]["c-orphan"] = Comment("c-orphan", "i-gone");
  ASSERT_TRUE(Client("deleteIssue", {{"id", "i-gone"}}).ok());
  EXPECT_EQ(tables_["comment"].count("c-orphan"), 0u);
  EXPECT_EQ(tables_["issue"].size(), 2u);
}

TEST_F(WorkloadMutatorsTest, BumpPriorityReadsThenWritesOneStepUp) {
  std::vector<std::string> log;
  ASSERT_TRUE(Client("bumpPriority", {{"id", "i001"}, {"updatedAt", 4000}}, &log).ok());
  EXPECT_THAT(log, ElementsAre("getRow issue", "update issue"));
  EXPECT_EQ(tables_["issue"]["i001"]["priority"], "medium");
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 4000);
  ASSERT_TRUE(Client("bumpPriority", {{"id", "i001"}, {"updatedAt", 4001}}).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["priority"], "high");
  ASSERT_TRUE(Client("bumpPriority", {{"id", "i001"}, {"updatedAt", 4002}}).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["priority"], "urgent");
  // Urgent stays urgent and nothing is written.
  ASSERT_TRUE(Client("bumpPriority", {{"id", "i001"}, {"updatedAt", 4003}}, &log).ok());
  EXPECT_THAT(log, ElementsAre("getRow issue"));
  EXPECT_EQ(tables_["issue"]["i001"]["priority"], "urgent");
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 4002);
}

TEST_F(WorkloadMutatorsTest, BumpPriorityOfAnUnknownPriorityIsFailedPrecondition) {
  tables_["issue"]["i001"]["priority"] = "whenever";
  EXPECT_EQ(Client("bumpPriority", {{"id", "i001"}, {"updatedAt", 1}}).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(WorkloadMutatorsTest, UnknownIssueHandling) {
  const Tables before = tables_;
  // Field edits of a missing row are no-op updates (blind writes).
  EXPECT_TRUE(Client("editTitle", {{"id", "i-x"}, {"title", "t"}, {"updatedAt", 1}}).ok());
  EXPECT_TRUE(Client("setStatus", {{"id", "i-x"}, {"status", "done"}, {"updatedAt", 1}}).ok());
  EXPECT_TRUE(Client("setPriority", {{"id", "i-x"}, {"priority", "low"}, {"updatedAt", 1}}).ok());
  EXPECT_TRUE(Client("setOwner", {{"id", "i-x"}, {"ownerId", "u01"}, {"updatedAt", 1}}).ok());
  EXPECT_TRUE(Client("editComment", {{"id", "c-x"}, {"body", "b"}}).ok());
  EXPECT_TRUE(Client("deleteIssue", {{"id", "i-x"}}).ok());
  EXPECT_EQ(tables_, before);
  // Children of a missing issue, and a read-dependent bump, fail (client and server alike).
  for (bool server : {false, true}) {
    const auto& m = server ? ServerMutators() : ClientMutators();
    absl::Status s = Run(m, "addComment", {{"id", "c9"}, {"issueId", "i-x"}, {"authorId", "u01"},
                                           {"body", "hi"}, {"createdAt", 1}});
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("i-x"));
    EXPECT_EQ(Run(m, "addTag", {{"id", "t9"}, {"issueId", "i-x"}, {"name", "bug"}}).code(),
              absl::StatusCode::kNotFound);
    EXPECT_EQ(Run(m, "bumpPriority", {{"id", "i-x"}, {"updatedAt", 1}}).code(),
              absl::StatusCode::kNotFound);
  }
  EXPECT_EQ(tables_, before);
}

TEST_F(WorkloadMutatorsTest, ServerTwinsRejectBlankTitlesAndBodiesThatClientsAccept) {
  for (const std::string blank : {"", "   ", "\t\n "}) {
    SCOPED_TRACE(json(blank).dump());
    const json create = CreateArgs(blank);
    const json title = {{"id", "i001"}, {"title", blank}, {"updatedAt", 9}};
    const json add = {{"id", "c9"}, {"issueId", "i001"}, {"authorId", "u01"}, {"body", blank},
                      {"createdAt", 9}};
    const json edit = {{"id", "c001"}, {"body", blank}};
    const Tables before = tables_;
    for (const auto& [name, args] : std::vector<std::pair<std::string, json>>{
             {"createIssue", create}, {"editTitle", title}, {"addComment", add},
             {"editComment", edit}}) {
      SCOPED_TRACE(name);
      absl::Status s = Server(name, args);
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_THAT(std::string(s.message()), HasSubstr("must not be blank"));
      EXPECT_EQ(tables_, before);
      // The client's prediction goes through (and will snap back).
      tables_ = before;
      EXPECT_TRUE(Client(name, args).ok()) << name;
      tables_ = before;
    }
  }
  // Non-blank text with surrounding spaces is fine on the server, which normalizes it.
  EXPECT_TRUE(Server("editTitle", {{"id", "i001"}, {"title", "  ok  "}, {"updatedAt", 9}}).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["title"], "ok");
}

TEST_F(WorkloadMutatorsTest, GeneratedActionsRunThroughServerTwins) {
  // Seed data → tables, then 600 generated actions from 3 clients applied by the server twins.
  Rng root(42);
  Rng seed_rng = root.Fork("seed");
  const SeedRows seed = SeedData(seed_rng);
  tables_.clear();
  for (const auto& [table, rows] : seed) {
    const TableSpec& spec = schema_.at(table);
    for (const RowValues& row : rows) {
      json keyed = json::object();
      for (size_t c = 0; c < spec.columns.size(); ++c) keyed[spec.columns[c].name] = row[c].ToJson();
      tables_[table][row[0].as_string()] = keyed;
    }
  }
  std::vector<Rng> rngs;
  std::vector<int64_t> counters(3, 0);
  for (int c = 0; c < 3; ++c) rngs.push_back(root.Fork(absl::StrCat("client/", c)));
  std::map<std::string, int> outcomes;
  const auto server = ServerMutators();
  std::set<std::string> ever;  // issue ids seen (recreateIssue reuses the deleted ones)
  for (int step = 0; step < 600; ++step) {
    const int c = step % 3;
    WorkloadState state;
    for (const auto& [id, row] : tables_["issue"]) state.issue_ids.push_back(id);
    for (const auto& [id, row] : tables_["comment"]) state.comment_ids.push_back(id);
    for (const auto& [id, row] : tables_["tag"]) state.tag_ids.push_back(id);
    for (const auto& [id, row] : tables_["user"]) state.user_ids.push_back(id);
    for (const auto& [id, row] : tables_["issue"]) ever.insert(id);
    for (const std::string& id : ever) {
      if (!tables_["issue"].count(id)) state.deleted_issue_ids.push_back(id);
    }
    const MutationAction a = NextMutation(rngs[c], state, c, 10000 + step * 7, counters[c]);
    absl::Status s = Run(server, a.name, a.args);
    if (s.code() == absl::StatusCode::kInvalidArgument) {
      // The only InvalidArgument the generator may provoke is the server's blank check.
      EXPECT_THAT(std::string(s.message()), HasSubstr("must not be blank")) << a.ToJson().dump();
    } else {
      // NotFound: a gone target; FailedPrecondition: closeIssue without comments, escalateIssue
      // of a done issue, a duplicate tag name; AlreadyExists: recreateIssue onto a live id.
      EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kNotFound ||
                  s.code() == absl::StatusCode::kFailedPrecondition ||
                  s.code() == absl::StatusCode::kAlreadyExists)
          << s << a.ToJson().dump();
    }
    ++outcomes[absl::StrCat(a.name, ":", absl::StatusCodeToString(s.code()))];
  }
  // Every mutator ran successfully at least once; blanks and missing targets both occurred.
  for (const std::string& name : WorkloadMutatorNames()) {
    EXPECT_GT(outcomes[name + ":OK"], 0) << name;
  }
  EXPECT_GT(outcomes["editTitle:INVALID_ARGUMENT"] + outcomes["createIssue:INVALID_ARGUMENT"], 0);
  EXPECT_GT(outcomes["addComment:INVALID_ARGUMENT"] + outcomes["editComment:INVALID_ARGUMENT"], 0);
  EXPECT_GT(outcomes["addComment:NOT_FOUND"] + outcomes["addTag:NOT_FOUND"], 0);
  // No orphans: every comment and tag belongs to an existing issue.
  for (const char* child : {"comment", "tag"}) {
    for (const auto& [id, row] : tables_[child]) {
      EXPECT_EQ(tables_["issue"].count(row["issueId"].get<std::string>()), 1u) << child << " " << id;
    }
  }
}

TEST_F(WorkloadMutatorsTest, MoveCommentReparentsAndNeedsTheTargetIssue) {
  for (bool server : {false, true}) {
    tables_.clear();
    SetUp();
    auto run = [&](const json& a) { return server ? Server("moveComment", a) : Client("moveComment", a); };
    ASSERT_TRUE(run({{"id", "c001"}, {"issueId", "i002"}}).ok());
    EXPECT_EQ(tables_["comment"]["c001"]["issueId"], "i002");
    EXPECT_EQ(run({{"id", "c002"}, {"issueId", "i404"}}).code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(tables_["comment"]["c002"]["issueId"], "i001");
  }
}

TEST_F(WorkloadMutatorsTest, ReprioritizeEditsSortColumnsAndTheServerStampsUpdatedAt) {
  const json args = {{"id", "i001"}, {"priority", "urgent"}, {"createdAt", 50}, {"updatedAt", 900}};
  const Tables before = tables_;
  ASSERT_TRUE(Client("reprioritize", args).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["priority"], "urgent");
  EXPECT_EQ(tables_["issue"]["i001"]["createdAt"], 50);
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 900);  // the client's own claim
  tables_ = before;
  ASSERT_TRUE(Server("reprioritize", args).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["createdAt"], 50);
  // The stored updatedAt (1000) is later than the claim: the server's stamp is after both.
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 1001);
  ASSERT_TRUE(Server("setStatus", {{"id", "i001"}, {"status", "done"}, {"updatedAt", 5000}}).ok());
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 5001);
}

TEST_F(WorkloadMutatorsTest, DuplicateIssueInsertsWhatItRead) {
  for (bool server : {false, true}) {
    tables_.clear();
    SetUp();
    tables_["tag"]["t003"] = {{"id", "t003"}, {"issueId", "i001"}, {"name", "perf"}};
    const json args = {{"id", "i-c0-9"}, {"sourceId", "i001"}, {"createdAt", 7000}};
    const absl::Status st = server ? Server("duplicateIssue", args) : Client("duplicateIssue", args);
    ASSERT_TRUE(st.ok()) << st;
    const json& copy = tables_["issue"]["i-c0-9"];
    EXPECT_EQ(copy["title"], "Fix login (copy)");
    EXPECT_EQ(copy["priority"], "low");
    EXPECT_EQ(copy["ownerId"], "u01");
    EXPECT_EQ(tables_["tag"]["i-c0-9-t1"]["name"], "bug");
    EXPECT_EQ(tables_["tag"]["i-c0-9-t2"]["name"], "perf");
    const json gone = {{"id", "i-c0-10"}, {"sourceId", "i404"}, {"createdAt", 7000}};
    EXPECT_EQ((server ? Server("duplicateIssue", gone) : Client("duplicateIssue", gone)).code(),
              absl::StatusCode::kNotFound);
  }
}

TEST_F(WorkloadMutatorsTest, RecreateIssueReusesADeletedIdAndCollidesWithALiveOne) {
  ASSERT_TRUE(Client("deleteIssue", {{"id", "i002"}}).ok());
  const json reuse = {{"id", "i002"}, {"title", "  back   again "}, {"createdAt", 8000}};
  const Tables before = tables_;
  ASSERT_TRUE(Client("recreateIssue", reuse).ok());
  EXPECT_EQ(tables_["issue"]["i002"]["title"], "  back   again ");
  EXPECT_TRUE(tables_["issue"]["i002"]["ownerId"].is_null());  // the nullable column
  tables_ = before;
  ASSERT_TRUE(Server("recreateIssue", reuse).ok());
  EXPECT_EQ(tables_["issue"]["i002"]["title"], "back again");  // the server's normalization
  const json collide = {{"id", "i001"}, {"title", "x"}, {"createdAt", 8000}};
  EXPECT_EQ(Client("recreateIssue", collide).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Server("recreateIssue", collide).code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(WorkloadMutatorsTest, CloseIssueThrowsAfterWritingAndNothingApplies) {
  for (bool server : {false, true}) {
    tables_.clear();
    SetUp();
    tables_["issue"]["i003"] = Issue("i003", "high");  // no comments
    const Tables before = tables_;
    std::vector<std::string> log;
    const absl::Status s = Run(server ? ServerMutators() : ClientMutators(), "closeIssue",
                               {{"id", "i003"}, {"updatedAt", 2000}}, &log);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_THAT(log, ::testing::Contains("update issue"));  // it wrote before it threw
    EXPECT_EQ(tables_, before);                              // and the tx was discarded
    ASSERT_TRUE(Run(server ? ServerMutators() : ClientMutators(), "closeIssue",
                    {{"id", "i001"}, {"updatedAt", 2000}}).ok());
    EXPECT_EQ(tables_["issue"]["i001"]["status"], "done");
  }
}

TEST_F(WorkloadMutatorsTest, EscalateWritesTheRowTwiceThenThrowsOnADoneIssue) {
  for (bool server : {false, true}) {
    tables_.clear();
    SetUp();
    const auto& mutators = server ? ServerMutators() : ClientMutators();
    std::vector<std::string> log;
    ASSERT_TRUE(Run(mutators, "escalateIssue", {{"id", "i001"}, {"updatedAt", 2000}}, &log).ok());
    EXPECT_EQ(tables_["issue"]["i001"]["priority"], "high");  // low → medium → high
    EXPECT_EQ(std::count(log.begin(), log.end(), "update issue"), 2);
    EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], server ? 2002 : 2000);  // stamped per write
    // urgent stays urgent (still written twice); a done issue throws after both writes.
    ASSERT_TRUE(Run(mutators, "escalateIssue", {{"id", "i002"}, {"updatedAt", 2000}}).ok());
    EXPECT_EQ(tables_["issue"]["i002"]["priority"], "urgent");
    tables_["issue"]["i001"]["status"] = "done";
    const Tables before = tables_;
    const absl::Status s =
        Run(mutators, "escalateIssue", {{"id", "i001"}, {"updatedAt", 3000}}, &log);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_EQ(std::count(log.begin(), log.end(), "update issue"), 2);  // wrote twice, then threw
    EXPECT_EQ(tables_, before);
    EXPECT_EQ(Run(mutators, "escalateIssue", {{"id", "i-gone"}, {"updatedAt", 1}}).code(),
              absl::StatusCode::kNotFound);
  }
}

TEST_F(WorkloadMutatorsTest, UnassignWritesNullAndServerTwinsNormalizeAndValidateTags) {
  ASSERT_TRUE(Client("unassignIssue", {{"id", "i001"}, {"updatedAt", 1500}}).ok());
  EXPECT_TRUE(tables_["issue"]["i001"]["ownerId"].is_null());
  EXPECT_EQ(tables_["issue"]["i001"]["updatedAt"], 1500);
  // addTag: the client keeps "Bug" and allows a second "bug"; the server lower-cases and
  // rejects a tag name the issue already has (a validation the client does not know).
  const json dup = {{"id", "t-c0-1"}, {"issueId", "i001"}, {"name", "Bug"}};
  const Tables before = tables_;
  ASSERT_TRUE(Client("addTag", dup).ok());
  EXPECT_EQ(tables_["tag"]["t-c0-1"]["name"], "Bug");
  tables_ = before;
  EXPECT_EQ(Server("addTag", dup).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Server("addTag", {{"id", "t-c0-2"}, {"issueId", "i001"}, {"name", "PERF"}}).ok());
  EXPECT_EQ(tables_["tag"]["t-c0-2"]["name"], "perf");
}

}  // namespace
}  // namespace rindle::sim
