#include "optimistic/domains.h"

#include "base/check.h"
#include "base/source_key.h"

namespace rindle {

std::string Domains::Resolve(const std::string& name, const nlohmann::json& args,
                             const std::optional<std::string>& pin) const {
  if (pin) return *pin;
  std::optional<std::string> declared = policy_ ? policy_(name, args) : std::nullopt;
  if (!declared) return std::string(kDaemonSource);
  RINDLE_CHECK_MSG(!declared->empty(), "domainPolicy named the empty domain for \"" + name + "\"");
  return *declared;
}

}  // namespace rindle
