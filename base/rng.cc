// rng.cc — splitmix64 + xoshiro256** (public-domain reference algorithms by Vigna), own range
// reduction. See rng.h.
#include "base/rng.h"

namespace rindle::sim {
namespace {

constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed) {
  uint64_t sm = seed;
  for (uint64_t& word : s_) word = SplitMix64(&sm);
  // splitmix64 is a bijection over distinct counter values, so four consecutive outputs are
  // never all zero; keep the guard anyway (xoshiro's all-zero state is a fixed point).
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
}

uint64_t Rng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Rng::Below(uint64_t n) {
  RINDLE_CHECK_GT(n, 0u);
  // Reject the lowest (2^64 mod n) outputs so that the remaining 2^64 - (2^64 mod n) values
  // split into equally sized residue classes mod n. (-n) % n == 2^64 mod n in uint64 math.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = Next();
    if (r >= threshold) return r % n;
  }
}

int64_t Rng::Range(int64_t lo, int64_t hi) {
  RINDLE_CHECK_LE(lo, hi);
  // Width minus one, computed in unsigned arithmetic (no signed overflow for any lo <= hi).
  const uint64_t span_minus_one = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const uint64_t offset =
      span_minus_one == UINT64_MAX ? Next() : Below(span_minus_one + 1);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);  // two's complement wrap
}

bool Rng::Chance(uint32_t num, uint32_t den) {
  RINDLE_CHECK_GT(den, 0u);
  RINDLE_CHECK_LE(num, den);
  return Below(den) < num;
}

Rng Rng::Fork(std::string_view purpose) const {
  // Mix every state word and the purpose hash through splitmix64 into a fresh 64-bit seed.
  uint64_t acc = Fnv1a64(purpose);
  uint64_t seed = SplitMix64(&acc);
  for (uint64_t word : s_) {
    acc ^= word;
    seed ^= SplitMix64(&acc);
    seed = Rotl(seed, 23);
  }
  return Rng(seed);
}

}  // namespace rindle::sim
