// daemon_view.h — the adapter that shows the simulated DaemonAuthority to the property checker
// as a read-only props::AuthorityView (properties/world.h), so properties/ never includes sim/.
// Holds no state beyond the daemon pointer; every getter forwards (no copy of the log: a
// ProcessedRef points into the daemon's log entry).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "properties/world.h"
#include "sim/authority/daemon.h"

namespace rindle::sim {

class DaemonAuthorityView : public props::AuthorityView {
 public:
  // `daemon` must be non-null and outlive the view.
  explicit DaemonAuthorityView(const DaemonAuthority* daemon);

  const absl::Status& health() const override { return daemon_->health(); }
  const Db& store() const override { return daemon_->store(); }
  std::vector<std::pair<std::string, int64_t>> Subscriptions() const override {
    return daemon_->Subscriptions();
  }
  absl::StatusOr<std::vector<TreeNode>> SubscriptionResult(const std::string& client,
                                                           int64_t qid) const override {
    return daemon_->SubscriptionResult(client, qid);
  }
  const Ast* SubscriptionAst(const std::string& client, int64_t qid) const override {
    return daemon_->SubscriptionAst(client, qid);
  }
  size_t processed_count() const override { return daemon_->log().size(); }
  props::ProcessedRef processed(size_t i) const override;
  int64_t lmid(const std::string& client) const override { return daemon_->lmid(client); }
  props::Coverage CoverageOf(const std::string& client) const override {
    return daemon_->Coverage(client);
  }
  int64_t rollbacks() const override { return daemon_->rollbacks(); }
  size_t forgotten_count() const override { return daemon_->forgotten().size(); }
  props::ProcessedRef forgotten(size_t i) const override;
  int64_t boot_id() const override { return daemon_->boot_id(); }
  int64_t cv() const override { return daemon_->cv(); }

 private:
  const DaemonAuthority* daemon_;
};

}  // namespace rindle::sim
