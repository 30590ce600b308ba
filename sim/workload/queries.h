// workload_queries.h — the real app's named remote queries (issue tracker), built in C++ exactly
// as the app's query builder (@rindle/client@0.9.0) builds them. Stateless.
//
// Named queries (RemoteQuery{name, args}; ctx = the signed-in user):
//   issuesPage({limit, filter: [{axis, value}...]})  issue card list, createdAt desc, id asc;
//       axes: title (title ILIKE %v%), status (= v), priority (= v), owner (EXISTS user where
//       id ILIKE %v% or name ILIKE %v%), tag (EXISTS tag where name ILIKE %v%), comment (EXISTS
//       comment where body ILIKE %v%). One facet is the where itself; several are an `and` in
//       filter order; none is no where. `filter` may be omitted (= []).
//   myIssues({limit})            issue cards with ownerId = ctx.user_id (must be non-empty)
//   issueDetail(id)              one() issue + comments (createdAt asc, with author) + owner + tags;
//                                args is the id string (or {"id": id})
//   recentComments({limit})      comments createdAt desc, id asc + author + issue link
//   tagOptions(null)             tag names by name;   users(null)   whole user table by name
//   issueTags(id)                NOT an app query: the harness's context cover for a detail view
//                                upgraded into a room (seed 002 302 §6.1) — the tags,
//                                whole rows, by name; never drawn by the workload
//   <app-style catalog key>({literals}?)  a recorded catalog AST, literals substituted
//                                (catalog.h: NOT EXISTS, IN, LIKE, cursors, IS NULL, related one())
// The issue card (issuesPage, myIssues) selects id, ownerId, priority, status, title, updatedAt and
// relates commentCount (count of comments), owner (user id,name) and tags (id,name by name).
// The produced ASTs equal the recorded fixtures fixtures/app/queries/*.json (checked by
// workload_queries_test against app-queries-manifest.json).
// Errors: an unknown name, or args of the wrong shape (missing/negative/non-integer limit, a
// filter entry that is not {axis, value: string}, an unknown axis, unknown arg keys, an empty
// issueDetail id, myIssues without a user) are InvalidArgument naming the query and the field.
// Source: fixtures/app/app-queries-manifest.json; SPEC §2.1 "Queries".
//
//   ASSIGN_OR_RETURN(Ast ast, BuildNamedQuery({"issuesPage", {{"limit", 20}, {"filter", ...}}},
//                                             QueryContext{"u03"}));
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/ast.h"
#include "optimistic/source.h"

namespace rindle::sim {

// Who is asking: the app's auth context (ctx.user in the app's query definitions).
struct QueryContext {
  std::string user_id;
};

// The names BuildNamedQuery knows, sorted.
std::vector<std::string> NamedQueryNames();

absl::StatusOr<Ast> BuildNamedQuery(const RemoteQuery& q, const QueryContext& ctx);

// The set of named queries simulated clients retain: issuesPage variants (no filter; status,
// priority, title and status+priority facets; limits 50, 20 and small windows 5 and 3 that the
// seed data overflows), owner/tag/comment EXISTS facets (last), myIssues, issueDetail of two seed
// issues (i001, i002 of SeedData), recentComments (30 and 5), tagOptions, users. Fixed order.
std::vector<RemoteQuery> WorkloadQueries();

// Local-only views a simulated client registers without a remote (RegisterQuery(qid, ast)) over
// its local UI tables (workload_schema.h), some relating synced rows:
//   drafts      drafts, issueId asc, id asc
//   selection   selection by id, related `issue` (the selected issue row, if the client has it)
//   liveDrafts  drafts whose issue the client holds (EXISTS issue where id = issueId), by id
// Their expected value is the client's own local rows (plus its synced rows for the relations).
std::vector<std::string> LocalQueryNames();
// Errors: an unknown name (InvalidArgument listing the known ones).
absl::StatusOr<Ast> BuildLocalQuery(std::string_view name);

}  // namespace rindle::sim
