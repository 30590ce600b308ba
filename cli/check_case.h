// check_case.h — the conformance subcommands of `rindle-sim`:
//
//   rindle-sim check-case FILE|DIR...        run recorded cases through our engine
//   rindle-sim gen-cases --seeds A..B --out DIR [--app DIR]
//                                            write seeded rindle-peer-case/1 inputs
//
// check-case accepts rindle-peer-case/1 inputs (case-NNNN.json; the recorded result is read
// from the sibling case-NNNN.expected.json) and zql-diff cases ({kind, input, expected}). A
// directory means every *.json in it (sorted, not recursive) except *.expected.json and files
// whose `format` is not a case format (index.json, errors.json). One line per case:
//   pass <name>
//   FAIL <name> step=<hydrate|txn N|push N>      followed by the indented diff or error
//   ERROR <file>: <why>                          the input could not be read or is malformed
// then a summary line. Exit 0 all passed, 1 any case failed, 2 usage or any input error.
//
// gen-cases writes DIR/case-<seed, 6 digits>.json for every seed (conformance/case_gen.h),
// creating DIR; --app defaults to the project's fixtures/app. Exit 0, or 2 on a usage or I/O
// error. Source: issue 3 ("rindle-sim check-case FILE..."; the Node differential).
#pragma once

#include <string>
#include <vector>

namespace rindle::sim::cli {

extern const char kCheckCaseHelp[];
extern const char kGenCasesHelp[];

// `args` are the arguments after the subcommand name. Return the process exit code.
int CheckCaseCommand(const std::vector<std::string>& args);
int GenCasesCommand(const std::vector<std::string>& args);

}  // namespace rindle::sim::cli
