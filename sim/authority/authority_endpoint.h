// authority_endpoint.h — the contract between an authority (the daemon today; a room per
// document from issue 12) and the simulation around it: the network routes a client's link and
// pushes to an endpoint by its source key, the simulated client drives sessions, subscriptions
// and pushes through it, and the runner injects faults and reads it for the properties.
// Interface only: no state, no logic. Source: SPEC §2.3 (authority), §2.4 (network); seed 000
// §merge `sources` (one key per source).
//
// Contract every implementation keeps (the daemon's is spelled out in daemon.h):
//   - source_key() is fixed for the object's life and well-formed (base/source_key.h:
//     kDaemonSource, or RoomSourceKey(doc)); it keys the network path (client, source key).
//   - Connect opens a fresh session for a known client (dropping any old one) and sends the
//     welcome frame {boot id} first; Disconnect drops the session and its subscriptions.
//   - Register/Unregister for a client without a session are ignored (they raced a disconnect).
//   - HandlePush returns true when the envelope is acknowledged (processed now or a duplicate);
//     false while it is held (a gap before it). Envelopes are processed in mid order per client.
//   - Restart: a new boot id, cv back to 0, every session and subscription gone; the store and
//     the ledgers are durable.
//   - health() holds the FIRST internal error (a failed commit or registration that should
//     never fail); an expected failure (a burnt mid, a lost frame) is never a health error.
//   - TakeDirty() is true when the store or a subscription changed since the previous call.
// Errors: internal errors go to health(); precondition violations (an unknown client, a
// negative qid) are CHECKs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/db.h"
#include "nlohmann/json.hpp"
#include "optimistic/source.h"
#include "optimistic/write_set.h"
#include "sim/authority/authority_subscriptions.h"

namespace rindle::sim {

// One processed envelope in an authority's log (the oracles replay it).
struct ProcessedEnvelope {
  std::string client_id;
  int64_t mid = 0;
  std::string name;
  nlohmann::json args;
  bool applied = false;  // false: burnt (the twin failed)
  std::string reason;    // why it was burnt
  int64_t cv = 0;
  WriteSet writes;  // the rows the twin committed (empty when burnt); the trace hashes them
  int64_t boot = 0;  // the boot id it was processed under (cv restarts at 0 each boot)
  int64_t forgotten_at = 0;  // the boot of the rollback that forgot it (0: still in the log)
};

class AuthorityEndpoint {
 public:
  virtual ~AuthorityEndpoint() = default;

  // The network path key and the confirming-domain name of this authority.
  virtual std::string_view source_key() const = 0;

  // ---- driven by the client's link (network closures) ----
  virtual void Connect(const std::string& client) = 0;
  virtual void Disconnect(const std::string& client) = 0;
  virtual void Register(const std::string& client, int64_t qid, const RemoteQuery& query) = 0;
  virtual void Unregister(const std::string& client, int64_t qid) = 0;
  // The push path; true when acknowledged.
  virtual bool HandlePush(const MutationEnvelope& envelope) = 0;

  // ---- setup and faults (the runner) ----
  // Loads the initial authoritative rows (one commit, before any client connects).
  virtual absl::Status Seed(const std::map<std::string, std::vector<RowValues>>& rows) = 0;
  virtual void SetProjectionPolicy(ProjectionPolicy policy) = 0;
  virtual void Restart() = 0;
  // The next data hello to `client` is skewed (the schema_skew fault). One-shot.
  virtual void SkewNextHello(const std::string& client) = 0;
  // Withhold progress frames while `starve`; releasing sends one.
  virtual void StarveProgress(bool starve) = 0;

  // ---- read by the properties (the runner) ----
  virtual const absl::Status& health() const = 0;
  virtual bool TakeDirty() = 0;
  virtual int64_t boot_id() const = 0;
  virtual int64_t cv() const = 0;
  virtual const Db& store() const = 0;
  virtual const std::vector<ProcessedEnvelope>& log() const = 0;
  // The last processed mid of `client` (0 before any).
  virtual int64_t lmid(const std::string& client) const = 0;
  virtual CoverageMap Coverage(const std::string& client) const = 0;
  virtual std::vector<std::pair<std::string, int64_t>> Subscriptions() const = 0;
  virtual absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                                   int64_t qid) const = 0;
  virtual const Ast* SubscriptionAst(const std::string& client, int64_t qid) const = 0;
};

}  // namespace rindle::sim
