// channels.h — the client's authority channels by source key (seed 002 `gates`, `connectSource` /
// `disconnectSource` / `channelFor` / `requireGate`, §5.1): one Channel (its own coherence gate
// and NormalizedSync — coherent within a channel, eventual across) per connected source. Holds
// state: the channels; not thread-safe.
//
// Invariants: the daemon channel (kDaemonSource) exists from construction to destruction and is
// never removed; keys are unique; a channel's key is the domain its lmid stream (qid 0) folds
// into (watermark[key], ledger.h).
// Add(key, source) attaches a fresh Channel; Remove(key) drops one (its gate, buffer and sync go
// with it — the DOMAIN's ledger state is the ledger's and survives). For(domain): the channel an
// envelope of `domain` ships on — that domain's own, or the daemon's when the domain has no
// connected gate (seed 002 channelFor: the gate-less configurations). Require(key): the channel
// a retain registers through; NotFound (the seed's message) when `key` is not connected.
// Errors: Require only; adding an existing key or removing the daemon is a programmer error
// (the backend returns Status first).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "engine/schema.h"
#include "optimistic/channel.h"
#include "optimistic/source.h"

namespace rindle {

class Channels {
 public:
  // `schema`, `local_tables` and `daemon` must outlive this object; `daemon` non-null.
  Channels(std::string client_id, const Schema* schema, const std::set<std::string>* local_tables,
           size_t buffer_cap, OptimisticSource* daemon);

  Channel& Add(const std::string& key, OptimisticSource* source);
  void Remove(const std::string& key);
  bool Has(const std::string& key) const { return channels_.count(key) > 0; }
  Channel* Find(const std::string& key);
  const Channel* Find(const std::string& key) const;
  Channel& For(const std::string& domain);
  absl::StatusOr<Channel*> Require(const std::string& key);

  Channel& daemon() { return *daemon_; }
  const Channel& daemon() const { return *daemon_; }
  // Key order — deterministic.
  const std::map<std::string, std::unique_ptr<Channel>>& all() const { return channels_; }

 private:
  std::string client_id_;
  const Schema* schema_;
  const std::set<std::string>* local_tables_;
  size_t buffer_cap_;
  std::map<std::string, std::unique_ptr<Channel>> channels_;
  Channel* daemon_;
};

}  // namespace rindle
