// corpus_files.h — the one directory scan and test naming of the corpus replay tests
// (replay_test.cc: corpus/*.json, merge_replay_test.cc: corpus/merge/*.json). Stateless,
// header-only (test support, not a library).
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "gtest/gtest.h"

namespace rindle::sim {

// Every *.json file directly in `dir` (not its subdirectories), sorted by path; empty when the
// directory is missing.
inline std::vector<std::string> CorpusJsonFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A gtest parameter name for a corpus file: its stem with every non-alphanumeric character
// replaced by '_', then "_<index>" (stems alone may collide after the replacement).
inline std::string CorpusTestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name + "_" + std::to_string(info.index);
}

}  // namespace rindle::sim
