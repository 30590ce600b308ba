// version.cc — see version.h. RINDLE_SIM_VERSION and RINDLE_SIM_COMMIT come from
// cli/CMakeLists.txt (configure time), on this file only.
#include "cli/version.h"

#ifndef RINDLE_SIM_VERSION
#define RINDLE_SIM_VERSION "unknown"
#endif
#ifndef RINDLE_SIM_COMMIT
#define RINDLE_SIM_COMMIT "unknown"
#endif

namespace rindle::sim::cli {

const char* Version() { return RINDLE_SIM_VERSION; }
const char* Commit() { return RINDLE_SIM_COMMIT; }

std::string VersionLine() {
  return std::string("rindle-sim ") + Version() + " (commit " + Commit() + ")";
}

}  // namespace rindle::sim::cli
