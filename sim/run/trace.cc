// trace.cc — see trace.h.
#include "sim/run/trace.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/check.h"
#include "xxhash.h"

namespace rindle::sim {
namespace {

XXH3_state_t* AsState(void* p) { return static_cast<XXH3_state_t*>(p); }

}  // namespace

void Trace::StateDeleter::operator()(void* state) const { XXH3_freeState(AsState(state)); }

Trace::Trace(size_t keep_last) : keep_last_(keep_last), state_(XXH3_createState()) {
  RINDLE_CHECK_MSG(state_ != nullptr, "XXH3_createState failed");
  RINDLE_CHECK_EQ(XXH3_64bits_reset(AsState(state_.get())), XXH_OK);
}

Trace::~Trace() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::Status Trace::OpenFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("trace file \"", path,
                                                   "\": cannot open for writing: ",
                                                   std::strerror(errno)));
  }
  if (file_ != nullptr) std::fclose(file_);
  file_ = f;
  file_path_ = path;
  file_status_ = absl::OkStatus();
  return absl::OkStatus();
}

namespace {

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

const std::string& Trace::Add(const nlohmann::json& event) {
  AddLine(Dump(event));
  return last_line_;
}

const std::string& Trace::Add(const nlohmann::json& event, const nlohmann::json& detail) {
  if (file_ == nullptr || detail.is_null()) return Add(event);
  const std::string line = Dump(event);
  Record(line);  // the digest and the ring see the canonical line only
  nlohmann::json with = event;
  with["detail"] = detail;
  WriteFileLine(Dump(with));
  return last_line_;
}

std::string CanonicalLine(const std::string& file_line) {
  nlohmann::json j = nlohmann::json::parse(file_line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("detail")) return file_line;
  j.erase("detail");
  return Dump(j);
}

void Trace::AddLine(std::string_view line) {
  Record(line);
  WriteFileLine(line);
}

void Trace::Record(std::string_view line) {
  RINDLE_CHECK_MSG(line.find('\n') == std::string_view::npos,
                   "a trace line must not contain a newline");
  XXH3_state_t* st = AsState(state_.get());
  RINDLE_CHECK_EQ(XXH3_64bits_update(st, line.data(), line.size()), XXH_OK);
  RINDLE_CHECK_EQ(XXH3_64bits_update(st, "\n", 1), XXH_OK);
  ++lines_;
  last_line_.assign(line);
  if (keep_last_ > 0) {
    if (recent_.size() == keep_last_) recent_.pop_front();
    recent_.emplace_back(line);
  }
}

void Trace::WriteFileLine(std::string_view line) {
  if (file_ != nullptr && file_status_.ok()) {
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
        std::fputc('\n', file_) == EOF || std::fflush(file_) != 0) {
      file_status_ = absl::DataLossError(absl::StrCat(
          "trace file \"", file_path_, "\": write failed: ", std::strerror(errno)));
    }
  }
}

uint64_t Trace::Digest() const { return XXH3_64bits_digest(AsState(state_.get())); }

std::string Trace::DigestHex() const {
  return absl::StrFormat("%016x", Digest());
}

std::vector<std::string> Trace::Recent() const {
  return std::vector<std::string>(recent_.begin(), recent_.end());
}

std::string Trace::FirstDifference(const std::vector<std::string>& other) const {
  const size_t first = first_retained_index();
  if (first >= other.size() && !recent_.empty()) {
    return absl::StrCat("the other trace has ", other.size(), " lines; this one has ", lines_,
                        " (retained from line ", first, ")");
  }
  // Align `other` to the retained window.
  std::vector<std::string> other_window(
      other.begin() + static_cast<std::ptrdiff_t>(std::min(first, other.size())), other.end());
  return ::rindle::sim::FirstDifference(other_window, Recent(), first, first);
}

std::string FirstDifference(const std::vector<std::string>& expected,
                            const std::vector<std::string>& actual,
                            size_t expected_first_index, size_t actual_first_index) {
  const size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] != actual[i]) {
      return absl::StrCat("trace line ", expected_first_index + i, " differs:\n  expected: ",
                          expected[i], "\n  actual:   ", actual[i]);
    }
  }
  if (expected.size() == actual.size()) return "";
  if (expected.size() > actual.size()) {
    return absl::StrCat("actual trace ends at line ", actual_first_index + actual.size(),
                        "; expected continues with: ", expected[n]);
  }
  return absl::StrCat("expected trace ends at line ", expected_first_index + expected.size(),
                      "; actual continues with: ", actual[n]);
}

}  // namespace rindle::sim
