// folds.cc — fold and flush-on-enqueue, the action-time fold checks (families.h; seed 002 §4.2,
// FOLDED-MUTATIONS-DESIGN): the workload's blind keyed writers are fold-legal, so a folded
// invoke of one is never refused (the read trap must not fire); FlushFolds leaves no window
// open; after a normal invoke no open fold that does not defer across writes shares a table
// with it — it must have taken its mid first (wire order == apply order). Stateless.
#include <algorithm>
#include <set>

#include "base/str_util.h"
#include "properties/families.h"

namespace rindle::props {

MaybeViolation CheckFoldRefusal(const std::string& client, const std::string& name,
                                const nlohmann::json& args, const absl::Status& status) {
  static const std::set<std::string> kFoldLegal = {"editTitle", "setStatus", "setPriority",
                                                   "setOwner", "editComment"};
  if (status.ok() || !kFoldLegal.contains(name)) return std::nullopt;
  return Violation{"fold", StrCat(client, ": folded ", name, " ", args.dump(),
                                  " refused: ", status.message())};
}

MaybeViolation CheckFlushFoldsClosedAll(const std::string& client, size_t open) {
  if (open == 0) return std::nullopt;
  return Violation{"fold", StrCat(client, ": FlushFolds left ", open, " fold windows open")};
}

MaybeViolation CheckFlushOnEnqueue(const std::string& client, const std::string& name,
                                   int64_t mid, const Inspect& inspect) {
  const PendingInspect* self = nullptr;
  for (const auto& p : inspect.pending) {
    if (p.mid == mid) self = &p;
  }
  if (self == nullptr) return std::nullopt;
  for (const auto& p : inspect.pending) {
    if (!p.fold || p.fold->flushed || p.fold->defer_across_writes) continue;
    for (const auto& t : p.tables) {
      if (std::find(self->tables.begin(), self->tables.end(), t) == self->tables.end()) continue;
      std::string key = p.key;
      std::replace(key.begin(), key.end(), '\0', '|');  // the fold key's separator
      return Violation{"flush-on-enqueue", StrCat(client, ": ", name, " (mid ", mid, ") wrote \"",
                                                  t, "\" while fold ", key, " stayed open on it")};
    }
  }
  return std::nullopt;
}

}  // namespace rindle::props
