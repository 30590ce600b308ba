// version.h — the version and git commit of this rindle-sim build, for `rindle-sim --version`
// and the results-file header. The commit is taken when CMake configures the build
// (`git rev-parse --short HEAD`, "-dirty" when tracked files had uncommitted changes, "unknown"
// outside a git checkout): reconfigure (`cmake -S . -B build`) to refresh it. Stateless.
#pragma once

#include <string>

namespace rindle::sim::cli {

const char* Version();  // e.g. "0.1.0"
const char* Commit();   // e.g. "0598a21", "0598a21-dirty", "unknown"

// "rindle-sim 0.1.0 (commit 0598a21)".
std::string VersionLine();

}  // namespace rindle::sim::cli
