// health.h — the client's sticky health status and its reconcile-cycle flag, shared by every part
// of the OptimisticBackend (the sticky health() of backend.h's Errors paragraph). Holds state;
// not thread-safe.
//
//   Fail(s)  — records the FIRST non-OK status; later failures are dropped (sticky): once
//              unhealthy the backend refuses invokes and ignores frames.
//   in_cycle — true while a reconcile cycle is open (between ServerBatchBegin and ServerBatchEnd).
//              The facade's guard refuses re-entry; Reconciler asserts it never nests.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace rindle {

// `s` with `prefix` prepended to its message; the code is kept.
inline absl::Status AnnotateStatus(const absl::Status& s, absl::string_view prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

struct ClientHealth {
  absl::Status status;
  bool in_cycle = false;

  bool ok() const { return status.ok(); }
  void Fail(absl::Status s) {
    if (status.ok() && !s.ok()) status = std::move(s);
  }
};

}  // namespace rindle
