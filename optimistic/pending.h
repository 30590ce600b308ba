// pending.h — one unconfirmed optimistic mutation (seed 002 `PendingMutation`, §7.1/§7.2/§3.2).
// Plain value type, no logic.
//
//   mid    — the wire mutation id dealt from `domain`'s ledger (gapless per domain). nullopt is
//            reserved for an unflushed FOLDED entry (later issue): never confirmable, re-invoked
//            after every dealt seq.
//   seq    — the client-global deal sequence stamped with `mid`: the ONE replay order (the
//            reconcile re-invokes in seq order, never mid order). nullopt iff mid is.
//   domain — the confirming stream (kDaemonSource in the single-domain core); its watermark alone
//            retires the entry (mid ≤ watermark[domain]).
//   writes — the pk-granular write-set of the LAST invocation, merged union-never-shrink across
//            re-invocations; `Touched(writes)` is the pending-axis table set.
//   reads  — the read log of the ORIGINAL invoke only (recording is not re-armed on replay).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/source_key.h"
#include "nlohmann/json.hpp"
#include "optimistic/write_set.h"

namespace rindle {

struct PendingMutation {
  uint64_t id = 0;  // creation order (stable identity; a fold window references its entry by it)
  std::optional<int64_t> mid;
  std::optional<int64_t> seq;
  std::string name;
  nlohmann::json args;
  std::string domain = std::string(kDaemonSource);
  WriteSet writes;
  ReadLog reads;
};

}  // namespace rindle
