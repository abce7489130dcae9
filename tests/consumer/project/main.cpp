// A program written against the installed weft: one header, one target.
#include <weft/weft.hpp>

#include <cstdio>

int main() {
  weft::Runtime rt;
  long sum = rt.run([] {
    weft::TaskGroup group;
    std::atomic<long> total{0};
    group.run_n(1000, [&](std::size_t i) { total += static_cast<long>(i); });
    group.wait();
    return total.load();
  });
  std::printf("consumer: %d workers, sum %ld\n", rt.num_workers(), sum);
  return sum == 499500 ? 0 : 1;
}
