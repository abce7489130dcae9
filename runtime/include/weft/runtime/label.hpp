#pragma once
// weft::label: the name a ULT's slices carry in a trace (weft/runtime/trace.hpp),
// given at spawn: weft::spawn(weft::label("bfs-level"), f). Unlabelled ULTs
// are "ult".

#include <cstddef>
#include <cstdint>

namespace weft {

// Built from a string literal only: its storage outlives every ULT, so a
// trace written at exit can still read it.
class label {
 public:
  template <std::size_t N>
  consteval label(const char (&name)[N]) : name_(name) {}  // implicit from a literal on purpose
  const char* name() const { return name_; }

 private:
  const char* name_;
};

namespace detail {
// The label's small id, kept in the ULT's control block (0 = no label).
// The first use of a literal takes a process-wide lock; later ones hit a
// per-thread cache. Throws std::length_error past 65535 distinct labels.
std::uint16_t label_id(label l);
const char* label_name(std::uint16_t id);  // "ult" for 0
}  // namespace detail

}  // namespace weft
