// domains.h — the DECLARED confirming domain of a mutation (seed 002 `domainPolicy` /
// `resolveDomain`, 302 §5: declared, not derived). Holds state: the injected policy only.
//
// Resolve(name, args, pin?): the pin when given (an H-v deopt re-invocation is pinned to the
// daemon and the policy never runs), else the policy's verdict, else kDaemonSource (no policy, or
// the policy abstains). Resolved BEFORE the prediction runs (a later issue's view plane picks the
// staging tables from it); the mid dealt from that domain's ledger then pins it (ledger.h). A
// folded entry carries its provisional domain and is re-resolved at flush from the final args
// (folds.h). Where the resolved domain's envelope ships is channels.h For().
// Errors: none; a policy naming the empty domain is a programmer error (CHECKed).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"

namespace rindle {

using DomainPolicy = std::function<std::optional<std::string>(const std::string& name,
                                                              const nlohmann::json& args)>;

class Domains {
 public:
  explicit Domains(DomainPolicy policy) : policy_(std::move(policy)) {}

  std::string Resolve(const std::string& name, const nlohmann::json& args,
                      const std::optional<std::string>& pin = std::nullopt) const;

 private:
  DomainPolicy policy_;  // may be empty: every mutation confirms on the daemon
};

}  // namespace rindle
