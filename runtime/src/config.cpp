#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "weft/runtime/config.hpp"

namespace weft {

namespace {

[[noreturn]] void bad(const char* var, const std::string& value, const std::string& expected) {
  throw std::invalid_argument(std::string("weft: environment variable ") + var + "='" + value +
                              "' is invalid: expected " + expected);
}

long long parse_integer(const char* var, const std::string& value, long long lo, long long hi,
                        const std::string& expected) {
  if (value.empty()) bad(var, value, expected);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) bad(var, value, expected);
  return v;
}

std::size_t parse_bytes(const char* var, const std::string& value) {
  const std::string expected = "a byte count such as 262144, 256K or 1M (16K..1G)";
  if (value.empty()) bad(var, value, expected);
  std::string digits = value;
  std::size_t scale = 1;
  char suffix = value.back();
  if (suffix == 'K' || suffix == 'k') scale = 1024;
  if (suffix == 'M' || suffix == 'm') scale = 1024 * 1024;
  if (suffix == 'G' || suffix == 'g') scale = 1024ull * 1024 * 1024;
  if (scale != 1) digits.pop_back();
  long long n = parse_integer(var, digits, 1, std::numeric_limits<int>::max(), expected);
  auto bytes = static_cast<std::size_t>(n) * scale;
  if (bytes < 16 * 1024 || bytes > 1024ull * 1024 * 1024) bad(var, value, expected);
  return bytes;
}

}  // namespace

Config Config::from_env(Config base) {
  if (const char* v = std::getenv("WEFT_WORKERS"))
    base.workers = static_cast<int>(
        parse_integer("WEFT_WORKERS", v, 0, 4096, "a worker count from 0 (= one per CPU) to 4096"));
  if (const char* v = std::getenv("WEFT_STACK_SIZE")) base.stack_size = parse_bytes("WEFT_STACK_SIZE", v);
  if (const char* v = std::getenv("WEFT_PIN")) {
    std::string s = v;
    if (s == "1" || s == "true" || s == "yes") base.pin_workers = true;
    else if (s == "0" || s == "false" || s == "no") base.pin_workers = false;
    else bad("WEFT_PIN", s, "0 or 1");
  }
  if (const char* v = std::getenv("WEFT_CPUS")) {
    base.cpus.clear();
    std::stringstream list(v);
    std::string item;
    while (std::getline(list, item, ','))
      base.cpus.push_back(static_cast<int>(parse_integer(
          "WEFT_CPUS", item, 0, 1 << 20, "a comma-separated list of OS CPU ids, e.g. 0,2,4")));
    if (base.cpus.empty()) bad("WEFT_CPUS", v, "a comma-separated list of OS CPU ids, e.g. 0,2,4");
  }
  if (const char* v = std::getenv("WEFT_PLACEMENT")) base.placement = v;
  if (const char* v = std::getenv("WEFT_IDLE_SPIN_US"))
    base.idle_spin_us = static_cast<int>(
        parse_integer("WEFT_IDLE_SPIN_US", v, 0, 10'000'000, "microseconds from 0 to 10000000"));
  return base;
}

}  // namespace weft
