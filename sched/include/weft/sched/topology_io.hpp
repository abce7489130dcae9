#pragma once
// Saving and loading a Topology as line-oriented text (docs/topology-format.md),
// so that the MCTOP-ALG measurement runs once and later runs load its result
// (thesis §7.2: "description files").

#include <iosfwd>
#include <stdexcept>
#include <string>

#include "weft/sched/topology.hpp"

namespace weft::sched {

// A malformed topology file: what() is "<source>:<line>: <what was expected>".
class TopologyFormatError : public std::runtime_error {
 public:
  TopologyFormatError(const std::string& source, int line, const std::string& message);
  int line() const { return line_; }

 private:
  int line_;
};

void save_topology(const Topology& topo, std::ostream& out);
void save_topology(const Topology& topo, const std::string& path);  // throws std::runtime_error if unwritable
// `source` names the input in error messages.
Topology load_topology(std::istream& in, const std::string& source = "<stream>");
Topology load_topology(const std::string& path);  // throws std::runtime_error if unreadable

}  // namespace weft::sched
