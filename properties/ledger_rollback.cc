// ledger_rollback.cc — see ledger_rollback.h.
#include "properties/ledger_rollback.h"

#include <map>
#include <utility>

#include "base/str_util.h"
#include "optimistic/ledger.h"

namespace rindle::props {

bool RefusedRollback(const World& w, const ClientState& c) {
  if (c.backend == nullptr || !IsLedgerRegression(c.backend->health())) return false;
  const AuthorityView& a = *w.authority;
  for (size_t i = 0, n = a.forgotten_count(); i < n; ++i) {
    if (a.forgotten(i).client_id == c.id) return true;
  }
  return false;
}

MaybeViolation CheckRollbackRecovered(const World& w, const ClientState& c) {
  const AuthorityView& a = *w.authority;
  if (a.forgotten_count() == 0) return std::nullopt;
  std::map<int64_t, ProcessedRef> now;  // this client's mids in the restored authority's log
  for (size_t i = 0, n = a.processed_count(); i < n; ++i) {
    const ProcessedRef p = a.processed(i);
    if (p.client_id == c.id) now.emplace(p.mid, p);
  }
  for (size_t i = 0, n = a.forgotten_count(); i < n; ++i) {
    const ProcessedRef f = a.forgotten(i);
    if (f.client_id != c.id) continue;
    auto it = now.find(f.mid);
    if (it == now.end()) {
      return Violation{"no-lost-writes",
                       StrCat(c.id, ": mid ", f.mid, " (", f.name,
                              ") was forgotten by an authority rollback and never processed "
                              "again: the client neither refused the older ledger nor re-sent it")};
    }
    auto first = c.sent->find(f.mid);
    if (first == c.sent->end()) continue;  // never sent by this client: gapless-mids reports it
    if (it->second.name != first->second.name || *it->second.args != first->second.args) {
      return Violation{"no-lost-writes",
                       StrCat(c.id, ": mid ", f.mid, " was re-processed after an authority "
                              "rollback as ", it->second.name, " ", it->second.args->dump(),
                              ", but the client first sent ", first->second.name, " ",
                              first->second.args.dump())};
    }
  }
  return std::nullopt;
}

}  // namespace rindle::props
