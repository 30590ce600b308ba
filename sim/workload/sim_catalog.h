// sim_catalog.h — the simulator's own app-style query shapes: queries a real issue-tracker app
// runs that the recorded catalog (fixtures/app/, recorded by a peer; data only, never edited)
// lacks, authored here as Zero wire AST JSON in the recorded entries' style. Stateless (the
// entries are constants).
//
// Why they exist: the recorded catalog never compares the one nullable column (issue.ownerId,
// schema.h) with NOT IN or !=, and never carries an explicit limit next to one(), so the engine's
// null handling there (seed 000 §2.1 / SPEC §2.1: a comparison with null is false except IS /
// IS NOT) and "a one query is limit 1 presented singular" were never exercised by a campaign.
//   issues-owner-not-in     issues whose owner is NOT IN a set of users (unowned ones excluded),
//                           with the related one() owner (issue.owner)
//   issues-owner-ne         issues whose owner != a user (unowned ones excluded), related owner
//   issue-next-one-limited  a top-level one() whose AST also carries limit 20 (a list query made
//                           one(), as the wire AST can carry both), with a related one() latest
//                           comment carrying limit 3 — both must materialise at most one row
// Each entry is drawn, built and counted like a recorded app-style entry (catalog.h: literal
// slots, workload.query.<key>). Keys never collide with the manifest's (catalog_test checks).
// Source: issue 11 "Workload coverage"; SPEC §2.1 "Queries"; mutants 002, 003, 006.
#pragma once

#include <string>
#include <vector>

namespace rindle::sim {

struct SimCatalogShape {
  std::string key;
  std::vector<std::string> features;
  std::string ast_json;  // the AST as the wire carries it
};

// The simulator-authored shapes, in a fixed order (appended after the manifest's entries).
const std::vector<SimCatalogShape>& SimCatalogShapes();

}  // namespace rindle::sim
