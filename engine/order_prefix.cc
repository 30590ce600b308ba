#include "engine/order_prefix.h"

#include <cstring>
#include <string>

namespace rindle {

uint64_t OrderPrefix(const Value& v) {
  constexpr int kPayloadBits = 62;
  switch (v.kind()) {
    case Value::Kind::kNull:
      return 0;
    case Value::Kind::kBool:
      return (uint64_t{1} << kPayloadBits) | (v.as_bool() ? 1 : 0);
    case Value::Kind::kInt:
    case Value::Kind::kDouble: {
      double d = v.as_double();
      if (d == 0) d = 0;  // -0 == +0 under CompareValues
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof(bits));
      // Negative: flip every bit (larger magnitude sorts first); positive: set the sign bit.
      bits = (bits >> 63) ? ~bits : (bits | (uint64_t{1} << 63));
      return (uint64_t{2} << kPayloadBits) | (bits >> 2);
    }
    case Value::Kind::kString:
      // The first 7 bytes, held in the cell's tag (value.h): no read of the pooled text.
      return (uint64_t{3} << kPayloadBits) | (v.string_prefix7() << (kPayloadBits - 56));
  }
  return 0;
}

bool OrderPrefixExact(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
    case Value::Kind::kBool:
      return true;
    case Value::Kind::kInt:
    case Value::Kind::kDouble:
      return false;
    case Value::Kind::kString: {
      // 7 bytes + a zero pad byte: the first NUL marks the length, so equal images are equal.
      const std::string& s = v.as_string();
      return s.size() <= 7 && s.find('\0') == std::string::npos;
    }
  }
  return false;
}

}  // namespace rindle
