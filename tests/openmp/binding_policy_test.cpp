// weft's extension omp_set_binding_policy (MCTOP_MP, thesis §7.7.4): the
// policy of the next regions, changed between regions; a bad name is
// refused with -1 and a message, and leaves the policy in force.
#include <atomic>
#include <cstring>

#include "check.hpp"

int main() {
  omptest::start("binding_policy_test");
  using Set = int (*)(const char*);
  using Get = const char* (*)();
  auto set = reinterpret_cast<Set>(dlsym(RTLD_DEFAULT, "omp_set_binding_policy"));
  auto get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "omp_get_binding_policy"));
  CHECK(set && get, "omp_set_binding_policy / omp_get_binding_policy not found");
  if (!set || !get) return omptest::finish("binding_policy_test");
  CHECK(std::strcmp(get(), "NONE") == 0, "initial policy %s", get());
  const char* policies[] = {"CON_CORE", "rr-core", "BALANCE_CORE_HWC", "POWER", "NONE"};
  for (const char* p : policies) {
    CHECK(set(p) == 0, "omp_set_binding_policy(%s) refused", p);
    for (int n : {2, 3, 5}) {
      std::atomic<int> sum{0};
#pragma omp parallel num_threads(n)
      sum += omp_get_thread_num() + 1;
      CHECK(sum == n * (n + 1) / 2, "policy %s, %d members: %d", p, n, sum.load());
    }
  }
  CHECK(set("RR_CORE") == 0 && std::strcmp(get(), "RR_CORE") == 0, "RR_CORE set, get says %s", get());
  CHECK(set("NO_SUCH_POLICY") == -1, "an unknown policy was accepted");
  CHECK(std::strcmp(get(), "RR_CORE") == 0, "a refused policy changed the one in force to %s", get());
  // Inherited by the members' implicit tasks and by tasks.
  std::atomic<int> inherited{0};
#pragma omp parallel num_threads(2)
  {
    if (std::strcmp(get(), "RR_CORE") == 0) inherited++;
#pragma omp single
    {
#pragma omp task shared(inherited)
      if (std::strcmp(get(), "RR_CORE") == 0) inherited++;
    }
  }
  CHECK(inherited == 3, "policy seen by %d of 3 tasks", inherited.load());
  CHECK(set(nullptr) == 0 && std::strcmp(get(), "NONE") == 0, "reset to NONE");
  return omptest::finish("binding_policy_test");
}
