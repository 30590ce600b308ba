// replay.h — `rindle-sim replay DIR|FILE...`: replays corpus scenario files (sim/scenario/scenario.h).
// Stateless entry point.
//
// A directory argument expands to its *.json files (not recursive), sorted by name; a file
// argument is replayed as given. Each scenario runs in its own worker process (worker.h), so a
// crash fails that file only. One line per file on stdout:
//   PASS <file>: <explanation>
//   FAIL <file>: <why: the failure line, or "expected … to fail but the run passed">
//   ERROR <file>: <load error naming the field and what was expected>
// A corrupt file is an ERROR and the remaining files still run. Then a one-line summary.
//
// Exit codes: 0 every file passed; 1 at least one FAIL; 2 no FAIL but at least one ERROR
// (unreadable, corrupt or invalid file, missing path). A directory without scenarios is a note.
#pragma once

#include <string>
#include <vector>

namespace rindle::sim::cli {

int RunReplay(const std::vector<std::string>& paths);

}  // namespace rindle::sim::cli
