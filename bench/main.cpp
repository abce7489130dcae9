// weft-bench: one driver, a subcommand per suite (see docs/benchmarks.md).
#include "harness.hpp"

int main(int argc, char** argv) { return weft::bench::main_driver(argc, argv); }
