// property_names_test.cc — kPropertyNames lists every property name the source can report:
// each `Violation{"name"`, `Fail({"name"` and `property = "name"` literal under properties/,
// sim/ and cli/ (so a new family cannot be refused by the scenario loader).
#include "properties/property_names.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace rindle::props {
namespace {

TEST(PropertyNamesTest, EveryReportedNameIsListed) {
  const std::regex literal(R"re((Violation\{|Fail\(\{|property = )"([^"]+)")re");
  std::set<std::string> missing;
  int found = 0;
  for (const char* dir : {"properties", "sim", "cli", "optimistic", "oracles"}) {
    const std::filesystem::path root = std::filesystem::path(RINDLE_SOURCE_DIR) / dir;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name.find("_test") != std::string::npos) continue;
      if (e.path().extension() != ".cc" && e.path().extension() != ".h") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string src = text.str();
      for (std::sregex_iterator it(src.begin(), src.end(), literal), end; it != end; ++it) {
        ++found;
        if (!IsKnownPropertyName((*it)[2].str())) missing.insert((*it)[2].str());
      }
    }
  }
  EXPECT_GT(found, 20);
  std::string report;
  for (const std::string& m : missing) report += m + "\n";
  EXPECT_EQ(report, "") << "add these to kPropertyNames";
}

TEST(PropertyNamesTest, KnowsTheFamilies) {
  EXPECT_TRUE(IsKnownPropertyName("view==fresh"));
  EXPECT_TRUE(IsKnownPropertyName("crash"));
  EXPECT_TRUE(IsKnownPropertyName("head-reorder-report"));
  EXPECT_TRUE(IsKnownPropertyName("fence-liveness"));
  EXPECT_TRUE(IsKnownPropertyName("push-drain"));
  EXPECT_TRUE(IsKnownPropertyName("room-context-leak"));
  EXPECT_TRUE(IsKnownPropertyName("room-stuck"));
  EXPECT_TRUE(IsKnownPropertyName("limit-page"));
  EXPECT_FALSE(IsKnownPropertyName("view==frsh"));
  EXPECT_FALSE(IsKnownPropertyName(""));
}

}  // namespace
}  // namespace rindle::props
