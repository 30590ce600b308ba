// no_lost_writes.h — the message no-lost-writes gives for mutations still pending at
// quiescence: each one named (mid or "unsent", mutator name, compact args, domain), so a reader
// sees which write was lost without re-running the seed. Stateless.
#pragma once

#include <string>
#include <vector>

#include "optimistic/pending.h"

namespace rindle::props {

// "c1: 2 mutations still pending at quiescence: mid 3 addIssue {"id":"i1"} (domain daemon);
// unsent rename {"id":"i2"} (domain daemon)". Lists at most 5, then "... and N more".
std::string DescribePendingAtQuiescence(const std::string& client,
                                        const std::vector<PendingMutation>& pending);

}  // namespace rindle::props
