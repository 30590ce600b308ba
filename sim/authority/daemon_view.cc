// daemon_view.cc — see daemon_view.h.
#include "sim/authority/daemon_view.h"

#include "base/check.h"

namespace rindle::sim {

DaemonAuthorityView::DaemonAuthorityView(const DaemonAuthority* daemon) : daemon_(daemon) {
  RINDLE_CHECK(daemon_ != nullptr);
}

props::ProcessedRef DaemonAuthorityView::processed(size_t i) const {
  const auto& log = daemon_->log();
  RINDLE_CHECK_LT(i, log.size());
  const ProcessedEnvelope& e = log[i];
  return {e.client_id, e.mid, e.name, &e.args, e.applied, e.reason, e.cv, e.boot};
}

props::ProcessedRef DaemonAuthorityView::forgotten(size_t i) const {
  const auto& log = daemon_->forgotten();
  RINDLE_CHECK_LT(i, log.size());
  const ProcessedEnvelope& e = log[i];
  return {e.client_id, e.mid, e.name, &e.args, e.applied, e.reason, e.cv, e.boot, e.forgotten_at};
}

}  // namespace rindle::sim
