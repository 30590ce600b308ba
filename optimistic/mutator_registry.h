// mutator_registry.h — the named client mutators (seed 002 `registry`): name → Mutator.
// Holds state (an ordered map; immutable after construction). Find() of an unknown name is
// NotFound naming it and listing the registered names. Source: seed 002 `invoke`.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "optimistic/mutation_tx.h"

namespace rindle {

class MutatorRegistry {
 public:
  MutatorRegistry() = default;
  explicit MutatorRegistry(std::map<std::string, Mutator> mutators)
      : mutators_(std::move(mutators)) {}

  absl::StatusOr<const Mutator*> Find(const std::string& name) const {
    auto it = mutators_.find(name);
    if (it == mutators_.end() || !it->second) {
      std::vector<std::string> names;
      for (const auto& [n, m] : mutators_) names.push_back(n);
      return absl::NotFoundError(absl::StrCat("unknown client mutator \"", name,
                                              "\" — registered: ", absl::StrJoin(names, ", ")));
    }
    return &it->second;
  }
  bool Has(const std::string& name) const { return mutators_.count(name) > 0; }

 private:
  std::map<std::string, Mutator> mutators_;
};

}  // namespace rindle
