// merge.h — `rindle-sim merge`: combines the results files of a campaign split over machines
// (`fuzz --shard I/N`, a Slurm array, GNU parallel) into one results file, one summary (seeds,
// failures with their reproduce commands, the counters table and the health section — the
// same printers as a one-machine campaign, so the two summaries compare line by line) and an
// optional JUnit file (issue 15 "Campaigns across machines"). Stateless entry point.
//
// Inputs are read whole and strictly (result_io.h ReadResultsText) before anything is written;
// each is refused (exit 2, naming the file and why) when it has no header, a torn last line
// (its campaign was killed mid-write: `fuzz --resume` it first), other run-changing options
// than the first input (the option and both values), or another build's commit. A seed in two
// inputs must have the same result (ok, property, step, digest): then it counts once; a
// conflict is refused naming the seed and both files. The output is written to a temporary
// file and renamed into place (base/json_file.h); an output equal to an input, or a JUnit
// path equal to the output or an input, is a usage error. An existing output is replaced.
//
// Output: the first input's header line, then one line per seed in increasing seed order
// (with its counters and options, as fuzz writes them).
// Exit codes: 0 every seed passed; 1 at least one failed; 2 usage or input error.
#pragma once

#include <string>
#include <vector>

namespace rindle::sim::cli {

struct MergeOptions {
  std::vector<std::string> inputs;  // results files, at least one
  std::string out_path;             // required
  std::string junit_path;           // "" = none
};

int RunMerge(const MergeOptions& options);

// `rindle-sim merge` argument parsing, help and usage errors, then RunMerge.
int MergeCommand(const std::vector<std::string>& args);

}  // namespace rindle::sim::cli
