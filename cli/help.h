// help.h — the rindle-sim binary's help texts (one per subcommand; check-case / gen-cases keep
// theirs in check_case.h) and the two ways a command ends early: Help (the text on stdout,
// exit 0) and Usage (a one-line error naming the command on stderr, exit 2, SPEC §5).
// Stateless constants and printers.
#pragma once

#include <string>

namespace rindle::sim::cli {

extern const char kMainHelp[];
extern const char kFuzzHelp[];
extern const char kRunHelp[];
extern const char kShrinkHelp[];
extern const char kReplayHelp[];
extern const char kMergeHelp[];

// "rindle-sim <command>: <message>" and the --help hint on stderr; returns 2. `command` may be
// empty (the top level).
int Usage(const std::string& command, const std::string& message);

// Prints `text` on stdout; returns 0.
int Help(const char* text);

}  // namespace rindle::sim::cli
