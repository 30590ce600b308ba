// authority_model.h — the authority model oracle: the sequential truth of what an authority's
// store must be, given the envelopes it processed, in its processing order (SPEC §3, §2.3).
// Holds state (a PlainStore and the per-client last processed mid).
//
// Shapes: an envelope is {client_id, mid, name, args} (seed 002's `{clientID, mid, name,
// args}`); `twins` maps a mutator name to its server twin (optimistic/mutation_tx.h Mutator).
// Each processed envelope runs its twin once in a PlainMutationTx over the store: an OK twin
// commits its writes (kApplied); a twin that fails — non-OK status, or a name with no twin — is
// processed as a no-op: its mid is burnt, nothing of it applies (kBurnt).
//
// Invariant checked (SPEC §2.3 "strictly in mid order per client"): per client, the processed
// mids are strictly increasing by exactly 1, starting after the client's initial lmid (0 when
// absent, so the first processed mid is 1). A violation is FailedPrecondition naming the
// client, the expected and the actual mid, and the envelope is NOT applied (the model stays at
// the state before it). Duplicates must already be filtered out by the caller (the log holds
// processed envelopes only).
// Not thread-safe; deterministic (ordered maps, no clocks).
// Source: SPEC §2.3 (daemon), §3 (authority model).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "optimistic/mutation_tx.h"
#include "oracles/plain_store.h"

namespace rindle {

struct Envelope {
  std::string client_id;
  int64_t mid = 0;
  std::string name;
  nlohmann::json args;
};

enum class EnvelopeFate { kApplied, kBurnt };
std::string_view EnvelopeFateName(EnvelopeFate f);

struct ProcessedEnvelope {
  Envelope envelope;
  EnvelopeFate fate = EnvelopeFate::kApplied;
  absl::Status twin_status;  // why it burnt (OK when applied)
};

class AuthorityModel {
 public:
  // `initial_lmids`: client → last mid already processed before the log starts.
  AuthorityModel(PlainStore initial, std::map<std::string, Mutator> twins,
                 std::map<std::string, int64_t> initial_lmids = {});

  // Processes the next envelope; returns its fate, or FailedPrecondition for an out-of-order
  // mid (nothing applied).
  absl::StatusOr<EnvelopeFate> Process(const Envelope& envelope);

  const PlainStore& store() const { return store_; }
  const std::vector<ProcessedEnvelope>& processed() const { return processed_; }
  // client → last processed mid (the lmid the authority must confirm).
  const std::map<std::string, int64_t>& lmids() const { return lmids_; }

 private:
  PlainStore store_;
  std::map<std::string, Mutator> twins_;
  std::map<std::string, int64_t> lmids_;
  std::vector<ProcessedEnvelope> processed_;
};

// Checks only the ordering invariant of a processed log (see header comment).
absl::Status CheckMidOrder(const std::vector<Envelope>& log,
                           const std::map<std::string, int64_t>& initial_lmids = {});

// Runs a whole log from `initial`; the first ordering violation is returned as the error.
absl::StatusOr<AuthorityModel> ReplayAuthority(const PlainStore& initial,
                                               const std::vector<Envelope>& log,
                                               const std::map<std::string, Mutator>& twins,
                                               const std::map<std::string, int64_t>&
                                                   initial_lmids = {});

}  // namespace rindle
