// workload_generator.h — deterministic generation of the app workload: the seed dataset and the
// next client mutation. Stateless (all randomness comes from the caller's Rng; the only carried
// state is the caller's per-client `id_counter`).
//
// Shapes:
//   SeedRows: table → positional rows in the app schema's column order (workload_schema.h), each
//     table's rows in id order. Ids: users u01..u05, issues i001..i008, comments c001..,
//     tags t001..; createdAt/updatedAt are integers (ms, all ≤ 10'000).
//   WorkloadState: what one client knows — ids of the rows in its local engine, in the order the
//     caller lists them (keep it deterministic, e.g. pk order).
//   MutationAction: {name, args} for workload_mutators.h (args a JSON object, keys sorted by the
//     JSON library so dumps are canonical).
// Fresh ids are unique per client: "<kind>-c<client_index>-<n>" with kind i (issue), c (comment),
// t (tag), u (user) and n = ++id_counter, so two clients never collide and one client never
// repeats an id as long as it keeps its counter.
// Deliberate mess, so the authority has something to reject and the client something to roll
// back: with probability mix.stale_num/stale_den a target id is one the client does not know (a
// never-created "…-missing-N" id, or a guess into another client's id space that may exist, may
// have been deleted, or never existed); with probability mix.blank_num/blank_den a title or
// comment body is blank ("", spaces, or other ASCII whitespace), which the server twins reject.
// Mutators that need a target the client lacks fall back: no issue known → createIssue; no
// comment → addComment; no tag → addTag.
// Determinism: only Rng draws (Below/Range/Chance), fixed iteration orders (vectors, std::map);
// the same Rng state and inputs give the same action. Time is only the caller's virtual now_ms.
// Source: SPEC §1 (workload), §2.3; ARCHITECTURE.md §2; the app's mutators (workload_mutators.h);
// value domains from bench/bench-workload.json (titles, statuses, priorities, tag names, bodies,
// user names).
//
//   Rng rng = root.Fork("workload/client/1");
//   int64_t counter = 0;
//   MutationAction a = NextMutation(rng, StateFromRows(local_rows), 1, now_ms, counter);
//   backend.Invoke(a.name, a.args);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/value.h"
#include "nlohmann/json.hpp"
#include "base/rng.h"

namespace rindle::sim {

struct WorkloadState {
  std::vector<std::string> issue_ids;
  std::vector<std::string> comment_ids;
  std::vector<std::string> tag_ids;
  std::vector<std::string> user_ids;
  // Issues the client saw once and that are gone now (recreateIssue reuses their ids); may be
  // empty — then recreateIssue targets a live issue (an id collision).
  std::vector<std::string> deleted_issue_ids;
  // The newest live issues (createdAt desc, id asc: the top of every createdAt-ordered page, the
  // rows a user sees first and acts on); may be empty. Deletes and moves-out draw from them half
  // the time, so a full limited window loses a row and needs its refill witness (limit_page.cc).
  std::vector<std::string> page_top_issue_ids;
};

struct MutationAction {
  std::string name;
  nlohmann::json args;
  nlohmann::json ToJson() const { return {{"name", name}, {"args", args}}; }
};

// Relative weights per mutator name (0 disables one; every name must be one of
// WorkloadMutatorNames(), else NextMutation aborts — a programmer error) and the mess
// probabilities (integer ratios, num <= den, den > 0).
struct WorkloadMix {
  std::map<std::string, uint32_t> weights;
  uint32_t stale_num = 1, stale_den = 12;  // target an id the client does not know
  uint32_t blank_num = 1, blank_den = 10;  // blank title / comment body
};

// Default weights: addComment 14, setStatus 12, createIssue 10, editTitle 10, addTag 8,
// setPriority 8, bumpPriority 6, editComment 6, removeTag 5, setOwner 5, deleteIssue 3,
// moveComment 5, reprioritize 5, duplicateIssue 4, recreateIssue 4, closeIssue 4,
// unassignIssue 3, escalateIssue 4.
WorkloadMix DefaultWorkloadMix();

// table → positional rows (schema column order), rows in id order.
using SeedRows = std::map<std::string, std::vector<RowValues>>;

// A small initial dataset: 5 users, 8 issues, 0–3 comments and 0–2 tags per issue. Every
// table of the app schema has an entry.
SeedRows SeedData(Rng& rng);

// The ids of `rows` (column 0 of each app table) in the given order; tables other than user,
// issue, comment, tag are ignored.
WorkloadState StateFromRows(const SeedRows& rows);

// The user a simulated client acts as: seed users round-robin (client 0 → u01, 1 → u02, …).
// Use it as QueryContext::user_id and as the author of the client's comments.
std::string ClientUserId(int client_index);

// The display name the workload gives `user_id` (a deterministic pick from the name domain).
std::string WorkloadUserName(std::string_view user_id);

// The next mutation client `client_index` invokes at virtual time `now_ms`. Advances
// `id_counter` once per fresh id it mints. Requires client_index >= 0 and a mix with a positive
// total weight.
MutationAction NextMutation(Rng& rng, const WorkloadState& state, int client_index,
                            int64_t now_ms, int64_t& id_counter,
                            const WorkloadMix& mix = DefaultWorkloadMix());

}  // namespace rindle::sim
