// sim_catalog.cc — see sim_catalog.h.
#include "sim/workload/sim_catalog.h"

namespace rindle::sim {

const std::vector<SimCatalogShape>& SimCatalogShapes() {
  static const std::vector<SimCatalogShape>* const kShapes = new std::vector<SimCatalogShape>{
      {"issues-owner-not-in",
       {"NOT IN", "nullable", "related-one"},
       R"({"table": "issue",
           "where": {"type": "simple", "op": "NOT IN", "left": {"type": "column", "name": "ownerId"},
                     "right": {"type": "literal", "value": ["u01", "u02"]}},
           "related": [{"correlation": {"parentField": ["ownerId"], "childField": ["id"]},
                        "subquery": {"table": "user", "alias": "owner", "one": true,
                                     "select": ["id", "name"]}}],
           "orderBy": [["updatedAt", "desc"], ["id", "asc"]]})"},
      {"issues-owner-ne",
       {"!=", "nullable", "related-one"},
       R"({"table": "issue",
           "where": {"type": "simple", "op": "!=", "left": {"type": "column", "name": "ownerId"},
                     "right": {"type": "literal", "value": "u03"}},
           "related": [{"correlation": {"parentField": ["ownerId"], "childField": ["id"]},
                        "subquery": {"table": "user", "alias": "owner", "one": true}}],
           "orderBy": [["createdAt", "desc"], ["id", "asc"]]})"},
      {"issue-next-one-limited",
       {"one", "one-limit", "IN", "related-one", "related-limit"},
       R"({"table": "issue",
           "where": {"type": "simple", "op": "IN", "left": {"type": "column", "name": "status"},
                     "right": {"type": "literal", "value": ["todo", "in-progress", "review"]}},
           "related": [{"correlation": {"parentField": ["id"], "childField": ["issueId"]},
                        "subquery": {"table": "comment", "alias": "latestComment",
                                     "orderBy": [["createdAt", "desc"], ["id", "asc"]],
                                     "limit": 3, "one": true}}],
           "orderBy": [["updatedAt", "desc"], ["id", "asc"]],
           "limit": 20, "one": true})"},
  };
  return *kShapes;
}

}  // namespace rindle::sim
