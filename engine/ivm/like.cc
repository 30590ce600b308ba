#include "base/str_util.h"
#include "engine/ivm/like.h"

#include <cstdint>
#include <vector>

namespace rindle {
namespace {

std::vector<uint32_t> Decode(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = 1;
    uint32_t cp = c;
    if (c >= 0xF0 && c < 0xF8) { len = 4; cp = c & 0x07; }
    else if (c >= 0xE0) { len = c < 0xF0 ? 3 : 1; cp = c & 0x0F; }
    else if (c >= 0xC0) { len = 2; cp = c & 0x1F; }
    if (len > 1 && i + len <= s.size()) {
      bool ok = true;
      for (int k = 1; k < len; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80) { ok = false; break; }
        cp = (cp << 6) | (cc & 0x3F);
      }
      if (ok) { out.push_back(cp); i += len; continue; }
    }
    out.push_back(c);
    i += 1;
  }
  return out;
}

uint32_t LowerCp(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;          // Latin-1
  if (c >= 0x100 && c <= 0x17F) {                                   // Latin Extended-A
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
    if (c == 0x178) return 0xFF;
    if (c == 0x130) return 'i';
    return (c % 2 == 0) ? c + 1 : c;
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;       // Greek
  if (c >= 0x410 && c <= 0x42F) return c + 32;                      // Cyrillic
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

void Encode(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

struct PatternChar {
  enum Kind { kLiteral, kAny, kOne } kind;
  uint32_t cp;
};

}  // namespace

std::string SqlLowerUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (uint32_t cp : Decode(s)) Encode(LowerCp(cp), out);
  return out;
}

bool SqlLikeMatch(std::string_view text_in, std::string_view pattern_in, bool case_insensitive) {
  std::vector<uint32_t> text = Decode(text_in);
  std::vector<uint32_t> raw = Decode(pattern_in);
  if (case_insensitive) {
    for (auto& c : text) c = LowerCp(c);
    for (auto& c : raw) c = LowerCp(c);
  }
  std::vector<PatternChar> pat;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) {
      pat.push_back({PatternChar::kLiteral, raw[++i]});
    } else if (raw[i] == '%') {
      if (pat.empty() || pat.back().kind != PatternChar::kAny) pat.push_back({PatternChar::kAny, 0});
    } else if (raw[i] == '_') {
      pat.push_back({PatternChar::kOne, 0});
    } else {
      pat.push_back({PatternChar::kLiteral, raw[i]});
    }
  }
  // Greedy match with single backtrack point (classic wildcard algorithm).
  size_t t = 0, p = 0, star_p = SIZE_MAX, star_t = 0;
  while (t < text.size()) {
    if (p < pat.size() && pat[p].kind == PatternChar::kAny) {
      star_p = p++;
      star_t = t;
    } else if (p < pat.size() && (pat[p].kind == PatternChar::kOne ||
                                  (pat[p].kind == PatternChar::kLiteral && pat[p].cp == text[t]))) {
      ++p;
      ++t;
    } else if (star_p != SIZE_MAX) {
      p = star_p + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p].kind == PatternChar::kAny) ++p;
  return p == pat.size();
}

}  // namespace rindle
