#pragma once
// ClhtMap<K, V, Table>: CLHT (weft/sync/clht.hpp; Table = ClhtLb, the
// default, or ClhtLf) for the user's own key and value types of at most a word: enums, pointers, small structs, ints of any sign.
// A key is compared by its bytes, so its type must have no padding and not be
// floating point (std::has_unique_object_representations).
// Each is stored as its bytes in a 64-bit word. Types of at most 7 bytes are
// shifted and tagged (never the reserved 0); 8-byte types are stored as they
// are, so the one 8-byte key and value whose bytes are all zero (0, nullptr,
// 0.0) are rejected with std::invalid_argument, as CLHT reserves them.
//
//   weft::sync::ClhtMap<Color, Widget*> m;
//   m.put(Color::red, w);   std::optional<Widget*> x = m.get(Color::red);

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "weft/sync/clht.hpp"

namespace weft::sync {

// A type ClhtMap stores as the bytes of one word.
template <class T>
concept ClhtWord = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;
// A key is compared by its bytes: equal keys must have equal bytes (no
// padding; not floating point, where 0.0 == -0.0 and NaN != NaN).
template <class T>
concept ClhtKey = ClhtWord<T> && std::has_unique_object_representations_v<T>;

template <ClhtKey K, ClhtWord V, class Table = ClhtLb>
class ClhtMap {
 public:
  explicit ClhtMap(std::size_t capacity = 1024) : table_(capacity) {}

  std::optional<V> get(const K& k) const {
    auto w = table_.get(encode(k, "key"));
    if (!w) return std::nullopt;
    return decode<V>(*w);
  }
  // Inserts if absent; false if the key is present.
  bool put(const K& k, const V& v) { return table_.put(encode(k, "key"), encode(v, "value")); }
  std::optional<V> remove(const K& k) {
    auto w = table_.remove(encode(k, "key"));
    if (!w) return std::nullopt;
    return decode<V>(*w);
  }
  void for_each(const std::function<void(const K&, const V&)>& f) const {
    table_.for_each([&](std::uint64_t k, std::uint64_t v) { f(decode<K>(k), decode<V>(v)); });
  }
  std::size_t size() const { return table_.size(); }
  const Table& table() const noexcept { return table_; }

 private:
  template <class T>
  static std::uint64_t encode(const T& x, const char* what) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof(T));
    if constexpr (sizeof(T) < 8) {
      return (bits << 1) | 1;
    } else {
      if (bits == 0)
        throw std::invalid_argument(std::string("ClhtMap: an 8-byte ") + what +
                                    " whose bytes are all zero is reserved by CLHT");
      return bits;
    }
  }
  template <class T>
  static T decode(std::uint64_t w) {
    if constexpr (sizeof(T) < 8) w >>= 1;
    T x;
    std::memcpy(&x, &w, sizeof(T));
    return x;
  }

  Table table_;
};

}  // namespace weft::sync
