#include "oracles/like_match.h"

#include <utility>
#include <vector>

namespace rindle {
namespace {

// ---------------------------------------------------------------------------------------------
// UTF-8 and lowercasing

// Decodes UTF-8; an invalid byte decodes as itself (0x80..0xFF) so nothing is lost.
std::vector<char32_t> DecodeUtf8(std::string_view s) {
  std::vector<char32_t> out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    int len = 0;
    char32_t cp = 0;
    if (b < 0x80) {
      len = 1;
      cp = b;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    }
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const unsigned char c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) {
        ok = false;
      } else {
        cp = (cp << 6) | (c & 0x3F);
      }
    }
    if (!ok) {
      out.push_back(b);
      i += 1;
    } else {
      out.push_back(cp);
      i += len;
    }
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string& out) {
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

char32_t LowerCodePoint(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  // Latin-1 Supplement: À..Þ except ×.
  if (c <= 0xDE) return c == 0xD7 ? c : c + 32;
  if (c < 0x100) return c;
  // Latin Extended-A.
  if (c <= 0x17F) {
    if (c == 0x130) return 'i';  // İ
    if (c == 0x178) return 0xFF;  // Ÿ
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 0) ? c + 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
    return c;
  }
  // Greek.
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A3 && c <= 0x3AB)) return c + 32;
  // Cyrillic.
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || (c >= 0x4D0 && c <= 0x52F)) {
    return (c % 2 == 0) ? c + 1 : c;
  }
  if (c == 0x4C0) return 0x4CF;
  if (c >= 0x4C1 && c <= 0x4CE) return (c % 2 == 1) ? c + 1 : c;
  return c;
}

// ---------------------------------------------------------------------------------------------
// LIKE

struct PatternToken {
  enum Kind { kChar, kOne, kMany } kind;
  char32_t c = 0;
};

std::vector<PatternToken> TokenizePattern(const std::vector<char32_t>& p) {
  std::vector<PatternToken> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      if (i + 1 < p.size()) {
        out.push_back({PatternToken::kChar, p[++i]});
      } else {
        out.push_back({PatternToken::kChar, '\\'});
      }
    } else if (p[i] == '%') {
      out.push_back({PatternToken::kMany, 0});
    } else if (p[i] == '_') {
      out.push_back({PatternToken::kOne, 0});
    } else {
      out.push_back({PatternToken::kChar, p[i]});
    }
  }
  return out;
}

// Plain dynamic programming over (text position, pattern position): obviously correct.
bool MatchTokens(const std::vector<char32_t>& t, const std::vector<PatternToken>& p) {
  const size_t n = t.size(), m = p.size();
  // can[j] = pattern suffix p[j..] matches text suffix t[i..], for the current i (from the back).
  std::vector<char> next(m + 1, 0), cur(m + 1, 0);
  // i = n: only trailing %s match the empty text.
  next[m] = 1;
  for (size_t j = m; j-- > 0;) next[j] = p[j].kind == PatternToken::kMany && next[j + 1];
  for (size_t i = n; i-- > 0;) {
    cur[m] = 0;
    for (size_t j = m; j-- > 0;) {
      switch (p[j].kind) {
        case PatternToken::kChar: cur[j] = p[j].c == t[i] && next[j + 1]; break;
        case PatternToken::kOne: cur[j] = next[j + 1]; break;
        case PatternToken::kMany: cur[j] = cur[j + 1] || next[j]; break;
      }
    }
    std::swap(cur, next);
  }
  return next[0] != 0;
}

}  // namespace

std::string Utf8Lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Re-encode code points; invalid bytes (decoded as 0x80..0xFF) are copied back as raw bytes.
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      out.push_back(static_cast<char>(LowerCodePoint(b)));
      ++i;
      continue;
    }
    int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (int k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    }
    if (!ok) {
      out.push_back(text[i]);
      ++i;
      continue;
    }
    const std::vector<char32_t> cps = DecodeUtf8(text.substr(i, len));
    AppendUtf8(LowerCodePoint(cps[0]), out);
    i += len;
  }
  return out;
}

bool LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive) {
  std::vector<char32_t> t, p;
  if (case_insensitive) {
    t = DecodeUtf8(Utf8Lower(text));
    p = DecodeUtf8(Utf8Lower(pattern));
  } else {
    t = DecodeUtf8(text);
    p = DecodeUtf8(pattern);
  }
  return MatchTokens(t, TokenizePattern(p));
}

}  // namespace rindle
