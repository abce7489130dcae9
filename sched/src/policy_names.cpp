// The MCTOP-PLACE policies' names (thesis Table 7.2) and their parser.
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

#include "weft/sched/placement.hpp"

namespace weft::sched {

namespace {

struct Name {
  Policy policy;
  std::string_view name;
};
constexpr std::array<Name, 12> kNames = {{
    {Policy::None, "NONE"},
    {Policy::Sequential, "SEQUENTIAL"},
    {Policy::ConHwc, "CON_HWC"},
    {Policy::ConCoreHwc, "CON_CORE_HWC"},
    {Policy::ConCore, "CON_CORE"},
    {Policy::BalanceHwc, "BALANCE_HWC"},
    {Policy::BalanceCoreHwc, "BALANCE_CORE_HWC"},
    {Policy::BalanceCore, "BALANCE_CORE"},
    {Policy::RrHwc, "RR_HWC"},
    {Policy::RrCore, "RR_CORE"},
    {Policy::RrScale, "RR_SCALE"},
    {Policy::Power, "POWER"},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < kNames.size(); ++i)
        if (static_cast<std::size_t>(kNames[i].policy) != i) return false;
      return true;
    }(),
    "kNames lists every policy in enum order");
// The policies of kNames, in its (the enum's) order.
constexpr std::array<Policy, kNames.size()> kAll = [] {
  std::array<Policy, kNames.size()> all{};
  for (std::size_t i = 0; i < kNames.size(); ++i) all[i] = kNames[i].policy;
  return all;
}();

}  // namespace

std::span<const Policy> all_policies() { return kAll; }

std::string_view to_string(Policy policy) {
  for (const auto& n : kNames)
    if (n.policy == policy) return n.name;
  return "?";
}

Policy parse_policy(std::string_view name) {
  std::string norm;
  for (char c : name) norm += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string_view prefix = "MCTOP_PLACE_";
  if (norm.rfind(prefix, 0) == 0) norm.erase(0, prefix.size());
  if (norm == "RR") return Policy::RrCore;
  if (norm == "BALANCE") return Policy::BalanceCore;
  for (const auto& n : kNames)
    if (n.name == norm) return n.policy;
  std::string valid;
  for (const auto& n : kNames) {
    if (!valid.empty()) valid += ", ";
    valid += n.name;
  }
  throw std::invalid_argument("weft::sched: unknown placement policy \"" + std::string(name) +
                              "\"; valid policies: " + valid + " (also RR = RR_CORE, BALANCE = BALANCE_CORE)");
}

}  // namespace weft::sched
