// property_names.h — the one list of property names a run can report (RunResult::property):
// every family's violations (families.h), the runner's own verdicts (setup, liveness, workload,
// nondeterminism) and the worker's crash and timeout (cli/worker.h). A scenario's "property" must
// be one of them (an unknown name is a typo that could never match, so "expect": "fail" would
// never pass).
// property_names_test.cc checks that every name the source reports is listed here.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace rindle::props {

inline constexpr std::array<std::string_view, 55> kPropertyNames = {
    "authority-health", "authority-model", "client-health",   "convergence",
    "crash",            "events==view",    "flush-on-enqueue", "fold",
    "fold-wire",        "gapless-mids",    "gate-model",      "head==sync+pending",
    "liveness",         "local-rows",      "local-tables",    "no-lost-writes",
    "nondeterminism",   "pending-axis",    "replay-order",    "result-type",
    "setup",            "superseded-epoch", "timeout",      "view==fresh",
    "workload",
    "consistent-view", "applied-once",
    "resend-faithful",
    "no-flicker",       "cv-promise",
    "head-reorder-report",
    "merge-error",      "merge-fold",      "merge-fence",     "merge-view==fresh",
    "merge-rows",       "merge-provenance", "merge-held-back", "merge-routing",
    "merge-writable",   "merge-setup",     "merge-source-rows",
    "room-gapless-mids", "room-retire", "room-rejection", "room-deopt-once", "channel-isolation",
    "room-deopt-seq",
    "fence-liveness",   "push-drain",
    "room-context-leak", "room-stuck",  "room-watermark", "room-ghost-fence",
    "limit-page",
};

inline bool IsKnownPropertyName(std::string_view name) {
  for (std::string_view known : kPropertyNames) {
    if (known == name) return true;
  }
  return false;
}

// "a, b, ..." for error messages.
inline std::string KnownPropertyNamesText() {
  std::string out;
  for (std::string_view known : kPropertyNames) {
    if (!out.empty()) out += ", ";
    out += known;
  }
  return out;
}

}  // namespace rindle::props
