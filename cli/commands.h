// commands.h — the rindle-sim subcommands main.cc dispatches to: each parses its flags
// (flags.h), prints help or a usage error (help.h), runs, and returns the process exit code
// (SPEC §5: 0 ok, 1 a property failed, 2 usage or input error). Stateless entry points.
//   fuzz_command.cc   FuzzCommand  → RunCampaign (campaign.h)
//   run_command.cc    RunCommand   one seed or scenario: result line, digest, counters
//   main.cc           ShrinkCommand → RunShrinkCommand (shrink_command.h), ReplayCommand
#pragma once

#include <string>
#include <vector>

namespace rindle::sim::cli {

// `args` are the arguments after the subcommand's name.
int FuzzCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args);

}  // namespace rindle::sim::cli
