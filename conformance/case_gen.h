// case_gen.h — the seeded generator of rindle-peer-case/1 inputs (peer_case.h) for the
// differential test against the real engine (conformance/node/record.mjs records each input's
// expected file with @rindle/wasm@0.9.0). Stateless: the case is a pure function of the inputs
// and the seed.
//
// A case = the real app's schema (fixtures/app/app-schema.json) + one of the app's queries
// (fixtures/app/queries/*.json, picked by the seed; with probability 1/2 every `limit` in it,
// root and nested, is shrunk to 1..6 so windows overflow and refill) + initial rows (6–14 users,
// 12–40 issues, 10–60 comments, 10–60 tags; values drawn from small domains that contain the
// queries' literals — "crash", "review", "urgent", "ali", "bug", "repro", i007, u03, i030 — plus
// LIKE metacharacters, quotes, non-ASCII, fractional and tied numbers, dangling foreign keys) +
// 6–14 write txns of 1–3 ops each over parents and children: adds, removes (an issue with or
// without its children), edits of non-key columns, edits that move a row's sort position
// (createdAt, name), edits of correlation fields (comment/tag issueId, issue ownerId, comment
// authorId), and rarely a primary-key edit. Every op is valid against the state it applies to
// (removes and edit `old` rows are exact current rows; adds use fresh ids).
// Determinism: randomness only from base/rng.h Rng(seed) forked per purpose ("query", "rows",
// "txns"); state lives in ordered maps; queries are taken in file-name order.
// Errors (LoadCaseGenInputs): NotFound / InvalidArgument naming the file for an unreadable or
// malformed schema or query file, or a directory without queries.
// Source: issue 3 ("A differential test against the real engine itself"); fixtures/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "conformance/peer_case.h"
#include "nlohmann/json.hpp"

namespace rindle::conformance {

struct CaseGenInputs {
  nlohmann::json schema_json;  // {"tables": ...} (relationships dropped)
  Schema schema;
  std::vector<std::pair<std::string, nlohmann::json>> queries;  // (file stem, AST), by name
};

// `app_dir` is the folder holding app-schema.json and queries/ (fixtures/app).
absl::StatusOr<CaseGenInputs> LoadCaseGenInputs(const std::string& app_dir);

// The case for `seed`, named "gen-<seed>". The schema must be the app's (user, issue, comment,
// tag with their app columns); anything else is InvalidArgument.
absl::StatusOr<PeerCase> GenerateCase(const CaseGenInputs& inputs, uint64_t seed);

}  // namespace rindle::conformance
