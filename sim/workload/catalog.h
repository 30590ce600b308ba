// catalog.h — the app's whole recorded query catalog (fixtures/app/app-queries-manifest.json and
// fixtures/app/queries/*.json) as simulator queries: every entry is a query SHAPE the workload
// draws per seed, with its literals substituted. State: the parsed manifest and recorded ASTs,
// loaded once per process (read-only afterwards; the files are part of the build's fixtures).
//
// Two kinds of entries:
//   "app"        the app's named queries (issuesPage, myIssues, issueDetail, …): drawn as that
//                RemoteQuery with its args redrawn (facet values, limits, ids); built by
//                BuildNamedQuery (queries.h) like any app query.
//   "app-style"  recorded ASTs with no app builder (NOT EXISTS, IN / NOT IN, LIKE variants,
//                cursors, IS NULL, related limits, related one(), …): drawn as
//                RemoteQuery{name: <catalog key>, args: {"literals": [...]}} and built here from the
//                recorded AST with its literals replaced positionally.
// After the manifest's entries come the simulator's own app-style shapes (sim_catalog.h: NOT IN
// and != over the nullable issue.ownerId, a one() carrying an explicit limit), built and drawn
// exactly like the recorded app-style entries.
// Literal slots of a recorded AST: every `{"type": "literal", "value": v}` and every value of a
// `start.row`, in a depth-first walk of the recorded JSON (object keys in sorted order — the JSON
// library's), each with the column it is compared against (or the start-row column). args null
// or {} keeps the recorded literals; args {"literals": [...]} must give exactly one value per slot,
// each of the recorded value's JSON kind (string, number, array of scalars, null).
// Shapes (QueryShape): the catalog key an instance was drawn from; app queries are classified
// by name and facet axes (issuesPage with a single status facet is "board-column", with ≥3 facets
// "issuesPage-search-all-axes"). Counted as workload.query.<shape> when retained.
// Errors: an unreadable / malformed catalog is a programmer error (the fixtures ship with the
// build: RINDLE_CHECK); bad args are InvalidArgument naming the entry and the slot.
// Source: fixtures/app/app-queries-manifest.json; fixtures/README.md; sim_catalog.h; issue 11
// "Workload coverage".
//
//   Rng rng = root.Fork("queries");
//   RemoteQuery q = DrawCatalogQuery(rng, "issues-without-comments");
//   absl::StatusOr<Ast> ast = BuildNamedQuery(q, ctx);  // routes app-style keys to the catalog
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/rng.h"
#include "engine/ast.h"
#include "nlohmann/json.hpp"
#include "optimistic/source.h"

namespace rindle::sim {

struct CatalogEntry {
  std::string key;             // manifest key: the shape name
  bool app = false;            // source "app": drawn as its remote {name, args}
  RemoteQuery remote;          // app entries: the recorded remote query
  nlohmann::json recorded;     // the recorded AST JSON
  std::vector<std::string> features;
};

// Every catalog entry: the manifest's in key order, then SimCatalogShapes() in their order.
const std::vector<CatalogEntry>& Catalog();
// The entry named `key`; nullptr when there is none.
const CatalogEntry* FindCatalogEntry(std::string_view key);

// One literal slot of a recorded AST (see the header comment).
struct LiteralSlot {
  std::string column;      // the column compared against ("" when not a column comparison)
  nlohmann::json recorded; // the recorded value
};
std::vector<LiteralSlot> LiteralSlots(const nlohmann::json& recorded_ast);

// True when `name` is an app-style catalog key (built by BuildCatalogQuery).
bool IsCatalogQueryName(std::string_view name);
// The AST of app-style entry `q.name` with q.args substituted. Errors as above.
absl::StatusOr<Ast> BuildCatalogQuery(const RemoteQuery& q);

// An instance of catalog entry `key` with freshly drawn args (about half the slots keep the
// recorded value). Requires a known key.
RemoteQuery DrawCatalogQuery(Rng& rng, std::string_view key);

// The shape a remote query counts as (see above); "other" for an unclassifiable query.
std::string QueryShape(const RemoteQuery& q);

}  // namespace rindle::sim
