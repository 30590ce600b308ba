// trace_test.cc — canonical trace lines, the XXH3-64 digest, the trace file and the
// first-difference report used for determinism mismatches.
#include "sim/run/trace.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "xxhash.h"

namespace rindle::sim {
namespace {

std::string Xxh3Hex(const std::string& bytes) {
  return absl::StrFormat("%016x", XXH3_64bits(bytes.data(), bytes.size()));
}

TEST(TraceTest, EmptyTraceDigestIsXxh3OfNothing) {
  Trace t;
  EXPECT_EQ(t.lines(), 0u);
  EXPECT_EQ(t.DigestHex(), Xxh3Hex(""));
  EXPECT_EQ(t.DigestHex().size(), 16u);
}

TEST(TraceTest, DigestCoversEveryLineAndNewline) {
  Trace t;
  t.Add({{"t", 1}, {"ev", "push"}});
  t.AddLine(R"({"ev":"ack","t":2})");
  EXPECT_EQ(t.lines(), 2u);
  EXPECT_EQ(t.DigestHex(), Xxh3Hex("{\"ev\":\"push\",\"t\":1}\n{\"ev\":\"ack\",\"t\":2}\n"));
}

TEST(TraceTest, LinesAreCanonicalWhateverTheKeyInsertionOrder) {
  nlohmann::json a;
  a["zeta"] = 1;
  a["alpha"] = {{"y", 2}, {"x", 1}};
  nlohmann::json b;
  b["alpha"] = {{"x", 1}, {"y", 2}};
  b["zeta"] = 1;
  Trace ta;
  Trace tb;
  EXPECT_EQ(ta.Add(a), R"({"alpha":{"x":1,"y":2},"zeta":1})");
  EXPECT_EQ(tb.Add(b), R"({"alpha":{"x":1,"y":2},"zeta":1})");
  EXPECT_EQ(ta.DigestHex(), tb.DigestHex());
}

TEST(TraceTest, DigestIsStableAcrossRunsAndSensitiveToOrder) {
  auto digest = [](bool swap) {
    Trace t;
    nlohmann::json first = {{"t", 5}, {"ev", "a"}};
    nlohmann::json second = {{"t", 5}, {"ev", "b"}};
    t.Add(swap ? second : first);
    t.Add(swap ? first : second);
    return t.DigestHex();
  };
  EXPECT_EQ(digest(false), digest(false));
  EXPECT_NE(digest(false), digest(true));
}

TEST(TraceTest, InvalidUtf8IsReplacedNotThrown) {
  Trace t;
  std::string bad = "ok\xff";
  EXPECT_NO_THROW(t.Add({{"s", bad}}));
  EXPECT_EQ(t.lines(), 1u);
}

TEST(TraceTest, KeepsOnlyTheLastLines) {
  Trace t(3);
  for (int i = 0; i < 10; ++i) t.Add({{"i", i}});
  EXPECT_EQ(t.lines(), 10u);
  EXPECT_EQ(t.first_retained_index(), 7u);
  EXPECT_EQ(t.Recent(), (std::vector<std::string>{R"({"i":7})", R"({"i":8})", R"({"i":9})"}));
}

TEST(TraceTest, WritesTheSameBytesItDigests) {
  const std::string path = testing::TempDir() + "/trace_test_out.jsonl";
  std::string digest;
  {
    Trace t;
    ASSERT_TRUE(t.OpenFile(path).ok());
    t.Add({{"t", 0}, {"ev", "start"}});
    t.Add({{"t", 3}, {"ev", "deliver"}, {"bytes", 12}});
    EXPECT_TRUE(t.file_status().ok());
    digest = t.DigestHex();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(),
            "{\"ev\":\"start\",\"t\":0}\n{\"bytes\":12,\"ev\":\"deliver\",\"t\":3}\n");
  EXPECT_EQ(Xxh3Hex(content.str()), digest);
  std::remove(path.c_str());
}

// The readable detail goes to the file only: the digest and the retained lines are those of the
// canonical line, and CanonicalLine() recovers it from the file, so a file's canonical lines
// hash to the run's digest whether or not details were written.
TEST(TraceTest, DetailReachesTheFileButNotTheDigest) {
  const std::string path = testing::TempDir() + "/trace_test_detail.jsonl";
  const nlohmann::json event = {{"ev", "apply"}, {"hash", "00ff"}, {"t", 4}};
  const nlohmann::json detail = {{"rows", {{{"table", "issue"}, {"pk", {{"id", "i1"}}}}}}};
  Trace plain;
  plain.Add(event);
  std::string digest;
  {
    Trace t;
    ASSERT_TRUE(t.OpenFile(path).ok());
    EXPECT_TRUE(t.writes_file());
    EXPECT_EQ(t.Add(event, detail), R"({"ev":"apply","hash":"00ff","t":4})");
    t.Add({{"ev", "end"}}, nullptr);  // a null detail writes the line as it is
    EXPECT_EQ(t.Recent().front(), R"({"ev":"apply","hash":"00ff","t":4})");
    digest = t.DigestHex();
  }
  plain.Add({{"ev", "end"}});
  EXPECT_EQ(digest, plain.DigestHex());
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::string canonical;
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    lines.push_back(line);
    canonical += CanonicalLine(line) + "\n";
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find(R"("detail":{"rows":[{"pk":{"id":"i1"},"table":"issue"}]})"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1], R"({"ev":"end"})");
  EXPECT_EQ(Xxh3Hex(canonical), digest);
  EXPECT_EQ(CanonicalLine("not json"), "not json");
  std::remove(path.c_str());
}

TEST(TraceTest, NoFileMeansNoDetailIsWanted) {
  Trace t;
  EXPECT_FALSE(t.writes_file());
  t.Add({{"ev", "x"}}, {{"rows", 1}});
  EXPECT_EQ(t.Recent().front(), R"({"ev":"x"})");
}

TEST(TraceTest, OpenFileErrorNamesThePath) {
  Trace t;
  absl::Status s = t.OpenFile("/nonexistent-dir/x/trace.jsonl");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/x/trace.jsonl"), std::string::npos);
}

TEST(TraceTest, FirstDifferenceNamesTheFirstDifferingLine) {
  EXPECT_EQ(FirstDifference({"a", "b"}, {"a", "b"}), "");
  const std::string diff = FirstDifference({"a", "b", "c"}, {"a", "x", "c"});
  EXPECT_NE(diff.find("line 1"), std::string::npos) << diff;
  EXPECT_NE(diff.find("expected: b"), std::string::npos) << diff;
  EXPECT_NE(diff.find("actual:   x"), std::string::npos) << diff;
  EXPECT_NE(FirstDifference({"a", "b"}, {"a"}).find("actual trace ends at line 1"),
            std::string::npos);
  EXPECT_NE(FirstDifference({"a"}, {"a", "b"}).find("actual continues with: b"),
            std::string::npos);
}

TEST(TraceTest, MemberFirstDifferenceAlignsTheRetainedWindow) {
  Trace t(2);
  std::vector<std::string> other;
  for (int i = 0; i < 5; ++i) {
    other.push_back(t.Add({{"i", i}}));
  }
  EXPECT_EQ(t.FirstDifference(other), "");
  other[4] = R"({"i":"changed"})";
  const std::string diff = t.FirstDifference(other);
  EXPECT_NE(diff.find("line 4"), std::string::npos) << diff;
}

}  // namespace
}  // namespace rindle::sim
