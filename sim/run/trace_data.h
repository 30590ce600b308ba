// trace_data.h — the data half of the canonical trace (trace.h): what the run's rows and
// values were, as hashes (trace_hash.h) in canonical lines, with a readable "detail" (table,
// pk, columns) in the trace file only. Without it two runs whose values differ but whose event
// sequence agrees would share a digest. Holds state: how much of the authority's log and of
// the fault counters it has traced, and each subscription's hello columns (for the detail).
//
// Lines (every one also has "t", the virtual ms):
//   {"ev":"seed","table":T,"rows":n,"hash":H}        once per seed table, at setup
//   {"ev":"fault", ...FaultToJson(fault)}            each scenario fault as it fires, with its
//                                                    parameters (kind, client, duration, count)
//   {"ev":"fault_counters","moved":{name:+k}}        fault.* counters that moved in a step
//                                                    (the network's drawn losses/duplicates)
//   {"ev":"apply","c","mid","name","applied","cv","writes":n,"hash":H[,"reason"]}
//                                                    each envelope the authority processed; H
//                                                    hashes the twin's committed write-set
//   {"ev":"rows","c","qid","frame","cv","ops":n,"hash":H}
//                                                    each delivered snapshot/batch with rows
//   {"ev":"checkpoint","at":"step"|"end","step","views":{c:{qid:H}},
//    "local_views":{c:{qid:H}},"store":H}            every kCheckpointEvery steps and at the
//                                                    end: each client view's result tree and
//                                                    the authority's whole store
// Details (file only): apply → {"args", "rows":[{"table","op","pk","row"}]}; rows → {"ops":
// [{"op","table","pk","row"[,"old"]}]}, column names from the subscription's hello (the
// shipped, possibly projected or skewed, column order); fault_counters and faults are readable
// as they are.
// Determinism: reads only run data, iterates ordered maps. Errors: none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/schema.h"
#include "nlohmann/json.hpp"
#include "properties/world.h"
#include "sim/authority/authority_endpoint.h"
#include "sim/run/trace.h"
#include "sim/scenario/scenario.h"
#include "sim/world/frames.h"

namespace rindle::sim {

class DataTracer {
 public:
  // Every 64 steps: with it all data lines together cost ~3% of a run's instructions
  // (callgrind, seed 5; README "Determinism"), and a drift still shows within 64 steps.
  static constexpr int64_t kCheckpointEvery = 64;

  // `trace` and `schema` (the app schema: column names of applied rows) outlive this object.
  DataTracer(Trace* trace, const Schema* schema) : trace_(trace), schema_(schema) {}

  void SeedRows(const std::map<std::string, std::vector<RowValues>>& rows);
  void Fault(const ScenarioFault& fault, int64_t now_ms);
  // A server frame reaching `client` (before the client sees it).
  void Frame(const std::string& client, const ServerFrame& frame, int64_t now_ms);
  // After every step: the authority's newly processed envelopes, the fault counters that
  // moved, and on every kCheckpointEvery-th step a checkpoint.
  void AfterStep(int64_t step, int64_t now_ms, const AuthorityEndpoint& authority,
                 const props::World& world, const std::map<std::string, int64_t>& counters);
  void Checkpoint(const char* at, int64_t step, int64_t now_ms,
                  const AuthorityEndpoint& authority, const props::World& world);

 private:
  void Applied(const ProcessedEnvelope& e, int64_t now_ms);
  void FaultCounters(int64_t now_ms, const std::map<std::string, int64_t>& counters);
  nlohmann::json ReadableOps(const std::string& client, int64_t qid,
                             const std::vector<RowOp>& ops) const;

  Trace* trace_;
  const Schema* schema_;
  size_t log_seen_ = 0;
  std::map<std::string, int64_t> faults_seen_;
  // (client, qid) → the last hello's tables (their shipped column order).
  std::map<std::pair<std::string, int64_t>, std::vector<WireTable>> hello_;
};

// Readable row: {column: value} over `columns` (positional [..] when the widths differ).
nlohmann::json ReadableRow(const std::vector<std::string>& columns, const RowValues& row);

}  // namespace rindle::sim
