// source.h — the `OptimisticSource` seam (seed 002): the one interface through which the
// optimistic client talks to an authority channel. Interface + wire value types, no logic. The
// simulator implements it over its network (sim/sim_client); unit tests drive it by hand.
//
// Downstream frames (authority → client), all on one ordered connection stream:
//   hello    {qid, tables: [{name, columns, primary_key?}]} — a (re)subscribe = a new epoch for qid
//   snapshot {qid, cv, ops: adds}             — the qid's whole footprint at cv
//   batch    {qid, cv, ops: add/remove/edit}  — footprint changes committed at cv
//   progress {cvMin}                          — every frame with cv ≤ cvMin has been sent
// Rows in ops are positional against the hello's column list for that table (projection by
// name, seed 002 NormalizedSync). The reserved qid 0 streams `_rindle_client_mutations`
// ([clientID, last_mutation_id], pk both columns) — confirmation as data, co-committed at the cv
// of the mutation it confirms.
// Upstream: RegisterQuery/UnregisterQuery (ordered, on the connection), PushMutation (the push
// path: may be lost, delayed, duplicated; the source's transport retries).
// Lifecycle: OnRestart fires when the authority came back with a new boot id (before its fresh
// hellos); OnResync fires after a reconnect re-registered every query (the client then re-sends
// its unconfirmed envelopes with their original mids, seed 002 §7.5 rule 3).
// Outcomes (seed 002 H-v §3.3 `onMutationOutcome`, optional): a `mutationOutcome` frame — the
// authority's verdict on one of this client's mids that it did NOT apply (`rejected`: a final
// validation failure, the mid is burnt; `deopt`: it will not confirm it, the daemon must). It is
// OUT OF BAND: the source dispatches it on arrival, never behind the cv buffer. A source without
// outcomes keeps the default no-op registration.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/value.h"
#include "nlohmann/json.hpp"

namespace rindle {

inline constexpr int64_t kLmidQid = 0;
inline constexpr char kLmidQueryName[] = "_rindle_client_mutations";
inline constexpr char kClientMutationsTable[] = "_rindle_client_mutations";

struct RemoteQuery {
  std::string name;
  nlohmann::json args;
  // Stable identity "name\0canonical-json(args)" — refcount key (seed 002 remoteKey).
  std::string Key() const { return name + std::string(1, '\0') + args.dump(); }
};

struct MutationEnvelope {
  std::string client_id;
  int64_t mid = 0;
  std::string name;
  nlohmann::json args;
  nlohmann::json ToJson() const {
    return {{"clientID", client_id}, {"mid", mid}, {"name", name}, {"args", args}};
  }
};

struct MutationOutcomeFrame {
  enum class Kind { kRejected, kDeopt };
  int64_t mid = 0;
  Kind kind = Kind::kRejected;
  std::optional<std::string> reason;  // rejected: the app-facing reason
  // The echoed mutation (self-contained frames): what a deopt for an already-retired mid
  // re-invokes. Absent name ⇒ nothing to re-invoke.
  std::optional<std::string> name;
  nlohmann::json args;
};

struct WireTable {
  std::string name;
  std::vector<std::string> columns;
  std::vector<int> primary_key = {};  // indexes into `columns`; empty = not advertised
};

struct RowOp {
  enum class Kind { kAdd, kRemove, kEdit };
  Kind op = Kind::kAdd;
  std::string table;
  RowValues row;      // add/remove: the row; edit: the new row
  RowValues old_row;  // edit only
};

struct NormalizedEvent {
  enum class Type { kHello, kSnapshot, kBatch };
  Type type = Type::kHello;
  std::vector<WireTable> tables;  // hello
  int64_t cv = 0;                 // snapshot / batch
  std::vector<RowOp> ops;         // snapshot (adds) / batch
};

struct ProgressFrame {
  int64_t cv_min = 0;
};

class OptimisticSource {
 public:
  virtual ~OptimisticSource() = default;
  virtual void RegisterQuery(int64_t qid, const RemoteQuery& query) = 0;
  virtual void UnregisterQuery(int64_t qid) = 0;
  virtual void PushMutation(const MutationEnvelope& envelope) = 0;
  // Handlers: one each; a later registration replaces the earlier one.
  virtual void OnNormalized(std::function<void(int64_t qid, const NormalizedEvent&)> handler) = 0;
  virtual void OnProgress(std::function<void(const ProgressFrame&)> handler) = 0;
  virtual void OnRestart(std::function<void()> handler) = 0;
  virtual void OnResync(std::function<void()> handler) = 0;
  // Optional (seed 002 `onMutationOutcome?`): a source that never answers outcomes ignores it.
  virtual void OnMutationOutcome(std::function<void(const MutationOutcomeFrame&)> /*handler*/) {}
};

}  // namespace rindle
