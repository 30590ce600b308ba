// workload_generator.cc — see workload_generator.h.
#include "sim/workload/generator.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_format.h"
#include "base/check.h"

namespace rindle::sim {
namespace {

using json = nlohmann::json;

// Value domains (bench/bench-workload.json "domains"; blank-free bodies — blanks are injected
// deliberately, see blank_num/blank_den).
constexpr std::array<std::string_view, 20> kTitles = {
    "Fix login bug", "Login page crash", "Add dark mode", "dark mode toggle broken",
    "Improve search", "Search is slow", "Crash on startup", "crash when offline",
    "100% CPU on idle", "snake_case config keys", "Update docs", "docs: typo in README",
    "Refactor auth", "AUTH token expiry", "Kanban drag & drop", "Emoji 🎉 in title",
    "Ünicode sort order", "zzz last", "A first", "login"};
constexpr std::array<std::string_view, 5> kStatuses = {"backlog", "todo", "in-progress", "review",
                                                       "done"};
constexpr std::array<std::string_view, 4> kPriorities = {"urgent", "high", "medium", "low"};
constexpr std::array<std::string_view, 10> kTagNames = {
    "bug", "Bug", "feature", "ui", "perf", "docs", "needs-triage", "good first issue", "p0",
    "regression"};
constexpr std::array<std::string_view, 13> kBodies = {
    "LGTM", "lgtm 👍", "needs repro", "Crash confirmed", "crash fixed in main", "+1",
    "Duplicate of #12", "won't fix", "50% done", "see_also #3", "Repro steps attached",
    "ping @alice", "Working on it"};
constexpr std::array<std::string_view, 17> kUserNames = {
    "Alice", "alice", "Alicia", "Bob", "bob-smith", "Carol", "Dave", "Eve", "Mallory",
    "Trent", "Zoe", "zoe", "Élodie", "Ünsal", "O'Brien", "anna_b", "50%er"};
constexpr std::array<std::string_view, 4> kBlanks = {"", "   ", "\t", " \n "};

constexpr int kSeedUsers = 5;
constexpr int kSeedIssues = 8;

template <size_t N>
std::string Pick(Rng& rng, const std::array<std::string_view, N>& items) {
  return std::string(items[static_cast<size_t>(rng.Below(N))]);
}

std::string PickKnown(Rng& rng, const std::vector<std::string>& ids) {
  RINDLE_CHECK(!ids.empty());
  return ids[static_cast<size_t>(rng.Below(ids.size()))];
}

std::string FreshId(absl::string_view kind, int client_index, int64_t& id_counter) {
  return absl::StrCat(kind, "-c", client_index, "-", ++id_counter);
}

// An id the client does not know: never created, or a guess into another client's id space.
std::string GhostId(Rng& rng, absl::string_view kind, int64_t id_counter) {
  if (rng.Chance(1, 2)) return absl::StrCat(kind, "-missing-", rng.Below(1000));
  const int64_t other = rng.Range(0, 3);
  const int64_t n = rng.Range(1, std::max<int64_t>(1, id_counter));
  return absl::StrCat(kind, "-c", other, "-", n);
}

class Generator {
 public:
  Generator(Rng& rng, const WorkloadState& state, int client_index, int64_t now_ms,
            int64_t& id_counter, const WorkloadMix& mix)
      : rng_(rng), state_(state), client_(client_index), now_ms_(now_ms), counter_(id_counter),
        mix_(mix) {}

  MutationAction Next() {
    std::string name = ChooseName();
    // Fall back when the client knows no target of the needed kind.
    if ((name == "editComment" || name == "moveComment") && state_.comment_ids.empty()) {
      name = "addComment";
    }
    if ((name == "removeTag") && state_.tag_ids.empty()) name = "addTag";
    if (name != "createIssue" && name != "editComment" && name != "removeTag" &&
        state_.issue_ids.empty()) {
      name = "createIssue";
    }
    MutationAction a;
    a.name = name;
    a.args = Args(name);
    return a;
  }

 private:
  std::string ChooseName() {
    uint64_t total = 0;
    for (const auto& [name, w] : mix_.weights) total += w;
    RINDLE_CHECK_MSG(total > 0, "WorkloadMix has no positive weight");
    uint64_t r = rng_.Below(total);
    for (const auto& [name, w] : mix_.weights) {
      if (r < w) return name;
      r -= w;
    }
    RINDLE_CHECK_MSG(false, "unreachable: weight walk overran");
    return {};
  }

  bool Stale() { return rng_.Chance(mix_.stale_num, mix_.stale_den); }
  bool Blank() { return rng_.Chance(mix_.blank_num, mix_.blank_den); }

  std::string Target(const std::vector<std::string>& known, absl::string_view kind) {
    if (known.empty() || Stale()) return GhostId(rng_, kind, counter_);
    return PickKnown(rng_, known);
  }
  std::string Issue() { return Target(state_.issue_ids, "i"); }
  // What a user deletes or moves out of the page they look at: half the time a page-top issue.
  std::string PageTopIssue() {
    if (state_.page_top_issue_ids.empty() || !rng_.Chance(1, 2)) return Issue();
    return PickKnown(rng_, state_.page_top_issue_ids);
  }

  // Sometimes padded with whitespace, which the server twins normalize away.
  std::string Title() {
    if (Blank()) return Pick(rng_, kBlanks);
    if (rng_.Chance(1, 6)) return absl::StrCat("  ", Pick(rng_, kTitles), " \t");
    return Pick(rng_, kTitles);
  }
  std::string Body() {
    if (Blank()) return Pick(rng_, kBlanks);
    return Pick(rng_, kBodies);
  }
  // A known user, the client's own user, or (1 in 10) a brand-new one.
  std::string User() {
    if (rng_.Chance(1, 10)) return FreshId("u", client_, counter_);
    if (state_.user_ids.empty() || rng_.Chance(1, 3)) return ClientUserId(client_);
    return PickKnown(rng_, state_.user_ids);
  }
  json Now() const { return now_ms_; }

  json Args(const std::string& name) {
    if (name == "createIssue") {
      const std::string id = FreshId("i", client_, counter_);
      const std::string owner = User();
      json tags = json::array();
      const int64_t n_tags = rng_.Range(0, 2);
      for (int64_t k = 0; k < n_tags; ++k) {
        tags.push_back({{"id", FreshId("t", client_, counter_)}, {"name", Pick(rng_, kTagNames)}});
      }
      const std::string desc_id = FreshId("c", client_, counter_);
      return {{"id", id},
              {"title", Title()},
              {"status", Pick(rng_, kStatuses)},
              {"priority", Pick(rng_, kPriorities)},
              {"ownerId", owner},
              {"ownerName", WorkloadUserName(owner)},
              {"createdAt", Now()},
              {"description", {{"id", desc_id}, {"body", Pick(rng_, kBodies)}}},
              {"tags", tags}};
    }
    if (name == "editTitle") {
      std::string id = Issue();
      return {{"id", id}, {"title", Title()}, {"updatedAt", Now()}};
    }
    if (name == "setStatus") {
      std::string id = PageTopIssue();
      return {{"id", id}, {"status", Pick(rng_, kStatuses)}, {"updatedAt", Now()}};
    }
    if (name == "setPriority") {
      std::string id = Issue();
      return {{"id", id}, {"priority", Pick(rng_, kPriorities)}, {"updatedAt", Now()}};
    }
    if (name == "setOwner") {
      std::string id = Issue();
      const std::string owner = User();
      json args = {{"id", id}, {"ownerId", owner}, {"updatedAt", Now()}};
      // A brand-new user always comes with its name; a known one sometimes.
      if (owner.rfind("u-c", 0) == 0 || rng_.Chance(1, 2)) {
        args["ownerName"] = WorkloadUserName(owner);
      }
      return args;
    }
    if (name == "addTag") {
      std::string issue = Issue();
      return {{"id", FreshId("t", client_, counter_)},
              {"issueId", issue},
              {"name", Pick(rng_, kTagNames)}};
    }
    if (name == "removeTag") return {{"id", Target(state_.tag_ids, "t")}};
    if (name == "addComment") {
      std::string issue = Issue();
      std::string id = FreshId("c", client_, counter_);
      return {{"id", id},
              {"issueId", issue},
              {"authorId", ClientUserId(client_)},
              {"body", Body()},
              {"createdAt", Now()}};
    }
    if (name == "editComment") {
      std::string id = Target(state_.comment_ids, "c");
      return {{"id", id}, {"body", Body()}};
    }
    if (name == "deleteIssue") return {{"id", PageTopIssue()}};
    if (name == "moveComment") {
      std::string id = Target(state_.comment_ids, "c");
      return {{"id", id}, {"issueId", Issue()}};
    }
    if (name == "reprioritize") {
      std::string id = PageTopIssue();
      // Backdated or brought to the top of the createdAt-ordered lists.
      const int64_t created = rng_.Chance(1, 2) ? now_ms_ : rng_.Range(0, std::max<int64_t>(0, now_ms_));
      return {{"id", id}, {"priority", Pick(rng_, kPriorities)}, {"createdAt", created},
              {"updatedAt", Now()}};
    }
    if (name == "duplicateIssue") {
      std::string source = Issue();
      return {{"id", FreshId("i", client_, counter_)}, {"sourceId", source}, {"createdAt", Now()}};
    }
    if (name == "recreateIssue") {
      // A deleted issue's id (reuse) or a live one's (collision → the insert's error).
      std::string id;
      if (!state_.deleted_issue_ids.empty() && rng_.Chance(2, 3)) {
        id = PickKnown(rng_, state_.deleted_issue_ids);
      } else {
        id = Issue();
      }
      return {{"id", id}, {"title", Title()}, {"createdAt", Now()}};
    }
    if (name == "closeIssue" || name == "unassignIssue" || name == "escalateIssue") {
      std::string id = Issue();
      return {{"id", id}, {"updatedAt", Now()}};
    }
    if (name == "bumpPriority") {
      std::string id = Issue();
      return {{"id", id}, {"updatedAt", Now()}};
    }
    RINDLE_CHECK_MSG(false, "WorkloadMix names an unknown mutator: " + name);
    return {};
  }

  Rng& rng_;
  const WorkloadState& state_;
  int client_;
  int64_t now_ms_;
  int64_t& counter_;
  const WorkloadMix& mix_;
};

}  // namespace

WorkloadMix DefaultWorkloadMix() {
  WorkloadMix mix;
  mix.weights = {{"addComment", 14}, {"setStatus", 12},  {"createIssue", 10},
                 {"editTitle", 10},  {"addTag", 8},      {"setPriority", 8},
                 {"bumpPriority", 6}, {"editComment", 6}, {"removeTag", 5},
                 {"setOwner", 5},    {"deleteIssue", 3},
                 {"moveComment", 5}, {"reprioritize", 5}, {"duplicateIssue", 4},
                 {"recreateIssue", 4}, {"closeIssue", 4}, {"unassignIssue", 3},
                 {"escalateIssue", 4}};
  return mix;
}

std::string ClientUserId(int client_index) {
  RINDLE_CHECK_GE(client_index, 0);
  return absl::StrFormat("u%02d", client_index % kSeedUsers + 1);
}

std::string WorkloadUserName(std::string_view user_id) {
  return std::string(kUserNames[Fnv1a64(user_id) % kUserNames.size()]);
}

SeedRows SeedData(Rng& rng) {
  SeedRows rows;
  std::vector<RowValues>& users = rows["user"];
  std::vector<RowValues>& issues = rows["issue"];
  std::vector<RowValues>& comments = rows["comment"];
  std::vector<RowValues>& tags = rows["tag"];
  std::vector<std::string> user_ids;
  for (int u = 1; u <= kSeedUsers; ++u) {
    const std::string id = absl::StrFormat("u%02d", u);
    user_ids.push_back(id);
    users.push_back({Value::String(id), Value::String(WorkloadUserName(id))});
  }
  int comment_n = 0, tag_n = 0;
  for (int k = 1; k <= kSeedIssues; ++k) {
    const std::string id = absl::StrFormat("i%03d", k);
    const int64_t created = k * 1000;
    const int64_t updated = created + rng.Range(0, 500);
    issues.push_back({Value::String(id), Value::String(Pick(rng, kTitles)),
                      Value::String(Pick(rng, kStatuses)), Value::String(Pick(rng, kPriorities)),
                      k % 4 == 3 ? Value::Null() : Value::String(PickKnown(rng, user_ids)),
                      Value::Int(created),
                      Value::Int(updated)});
    const int64_t n_comments = rng.Range(0, 3);
    for (int64_t c = 0; c < n_comments; ++c) {
      comments.push_back({Value::String(absl::StrFormat("c%03d", ++comment_n)), Value::String(id),
                          Value::String(PickKnown(rng, user_ids)),
                          Value::String(Pick(rng, kBodies)),
                          Value::Int(created + 100 * (c + 1) + rng.Range(0, 99))});
    }
    const int64_t n_tags = rng.Range(0, 2);
    for (int64_t t = 0; t < n_tags; ++t) {
      tags.push_back({Value::String(absl::StrFormat("t%03d", ++tag_n)), Value::String(id),
                      Value::String(Pick(rng, kTagNames))});
    }
  }
  return rows;
}

WorkloadState StateFromRows(const SeedRows& rows) {
  WorkloadState s;
  const std::pair<const char*, std::vector<std::string>*> tables[] = {
      {"issue", &s.issue_ids}, {"comment", &s.comment_ids}, {"tag", &s.tag_ids},
      {"user", &s.user_ids}};
  for (const auto& [table, out] : tables) {
    auto it = rows.find(table);
    if (it == rows.end()) continue;
    for (const RowValues& row : it->second) {
      if (!row.empty() && row[0].is_string()) out->push_back(row[0].as_string());
    }
  }
  return s;
}

MutationAction NextMutation(Rng& rng, const WorkloadState& state, int client_index,
                            int64_t now_ms, int64_t& id_counter, const WorkloadMix& mix) {
  RINDLE_CHECK_GE(client_index, 0);
  return Generator(rng, state, client_index, now_ms, id_counter, mix).Next();
}

}  // namespace rindle::sim
