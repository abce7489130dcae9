// OMP_PLACES / OMP_PROC_BIND: the 5.2 grammar, resolution on a machine, and
// the thread-to-place rules of "Controlling OpenMP Thread Affinity". Expected
// values are derived by hand from those definitions (comments show how).
#include "weft/sched/omp_places.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

using namespace weft::sched;
using V = std::vector<int>;
using Places = std::vector<std::vector<int>>;

namespace {

Places explicit_places(const std::string& v) {
  OmpPlacesSpec s = parse_omp_places(v);
  EXPECT_EQ(s.kind, OmpPlacesSpec::Kind::Explicit) << v;
  return s.places;
}

// The error for a bad value: checks it names the variable and the part.
void expect_error(const std::function<void()>& f, const std::string& variable, const std::string& part,
                  const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected an error about " << part;
  } catch (const OmpEnvError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.variable(), variable);
    EXPECT_NE(what.find("environment variable " + variable + "="), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
    EXPECT_NE(what.find(message), std::string::npos) << what;
  }
}
void bad_places(const std::string& value, const std::string& part, const std::string& message) {
  expect_error([&] { parse_omp_places(value); }, "OMP_PLACES", part, message);
}
void bad_bind(const std::string& value, const std::string& part, const std::string& message) {
  expect_error([&] { parse_omp_proc_bind(value); }, "OMP_PROC_BIND", part, message);
}

// 2 sockets x 2 cores x 2 SMT: cpus 0..7, core c = {2c, 2c+1}, socket 0 = 0..3.
const Topology& box() {
  static Topology t = Topology::from_hwloc_synthetic("pack:2 core:2 pu:2");
  return t;
}

}  // namespace

TEST(OmpPlaces, SpecExamplesAreTheSameList) {
  // OpenMP 5.2 §21.1.6's examples of one list written three ways.
  Places four = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}};
  EXPECT_EQ(explicit_places("{0,1,2,3},{4,5,6,7},{8,9,10,11},{12,13,14,15}"), four);
  EXPECT_EQ(explicit_places("{0:4},{4:4},{8:4},{12:4}"), four);
  EXPECT_EQ(explicit_places("{0:4}:4:4"), four);
}

TEST(OmpPlaces, IntervalsStridesAndBareNumbers) {
  // {0:3}: 0,1,2; {7:3}: 7,8,9.
  EXPECT_EQ(explicit_places("{0:3}, {3:3}, {7:3}, {10:3}"), (Places{{0, 1, 2}, {3, 4, 5}, {7, 8, 9}, {10, 11, 12}}));
  // {0:2} copied 4 times, each shifted by 3.
  EXPECT_EQ(explicit_places("{0:2}:4:3"), (Places{{0, 1}, {3, 4}, {6, 7}, {9, 10}}));
  EXPECT_EQ(explicit_places("{0:4:2}"), (Places{{0, 2, 4, 6}}));
  EXPECT_EQ(explicit_places("{6:4:-2}"), (Places{{0, 2, 4, 6}}));  // 6,4,2,0 as a set
  EXPECT_EQ(explicit_places("{8:2}:3:-4"), (Places{{8, 9}, {4, 5}, {0, 1}}));
  // Braces may be omitted for a one-CPU place (5.1): "0:4" is 4 places.
  EXPECT_EQ(explicit_places("0,1,2"), (Places{{0}, {1}, {2}}));
  EXPECT_EQ(explicit_places("0:4"), (Places{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(explicit_places("0:4:2"), (Places{{0}, {2}, {4}, {6}}));
  EXPECT_EQ(explicit_places("{3,1,1,2}"), (Places{{1, 2, 3}}));  // a place is a set
  EXPECT_EQ(explicit_places("  { 0 : 2 } ,\t{ 2 : 2 }  "), (Places{{0, 1}, {2, 3}}));
}

TEST(OmpPlaces, Exclusion) {
  // !res removes a CPU from its place, wherever it is written.
  EXPECT_EQ(explicit_places("{0:8,!3,!5}"), (Places{{0, 1, 2, 4, 6, 7}}));
  EXPECT_EQ(explicit_places("{!3,0:4}"), (Places{{0, 1, 2}}));
  // !place removes the identical earlier place.
  EXPECT_EQ(explicit_places("{0:2},{2:2},{4:2},!{2,3}"), (Places{{0, 1}, {4, 5}}));
  EXPECT_EQ(explicit_places("{0:2}:3:2,!{3,2}"), (Places{{0, 1}, {4, 5}}));
  bad_places("{0:2},!{5}", "!{5}", "excludes the place {5}, which is not in the list before it");
  bad_places("!{0}", "!{0}", "not in the list before it");
  bad_places("{0},!{0}", "", "every place has been excluded");
  bad_places("{0:4},!{0:4}:2", ":2", "an excluded place ('!') cannot take ':len'");
  bad_places("{0:4,!1:2}", "!1:2}", "an excluded CPU ('!') cannot take ':'");
  bad_places("{0,!0}", "{0,!0}", "the place is empty");
}

TEST(OmpPlaces, AbstractNames) {
  OmpPlacesSpec s = parse_omp_places("threads");
  EXPECT_EQ(s.kind, OmpPlacesSpec::Kind::Threads);
  EXPECT_FALSE(s.count);
  s = parse_omp_places("CORES(4)");
  EXPECT_EQ(s.kind, OmpPlacesSpec::Kind::Cores);
  EXPECT_EQ(s.count, 4);
  s = parse_omp_places(" sockets ( 2 ) ");
  EXPECT_EQ(s.kind, OmpPlacesSpec::Kind::Sockets);
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(parse_omp_places("ll_caches").kind, OmpPlacesSpec::Kind::LlCaches);
  EXPECT_EQ(parse_omp_places("numa_domains(1)").kind, OmpPlacesSpec::Kind::NumaDomains);
  EXPECT_EQ(to_string(OmpPlacesSpec::Kind::NumaDomains), "numa_domains");
}

TEST(OmpPlaces, MalformedValuesNameTheVariableAndThePart) {
  bad_places("", "the end of the value", "expected an abstract name");
  bad_places("   ", "the end of the value", "expected an abstract name");
  bad_places("{0:4},{4:x}", "'x}' (column 10)", "expected a positive count after ':'");
  bad_places("{0,1", "at the end of the value", "expected ',' or '}' in a place");
  bad_places("{0 1}", "'1}' (column 4)", "expected ',' or '}' in a place");
  bad_places("{}", "'}'", "expected a non-negative CPU number");
  bad_places("{-1}", "'-1}'", "expected a non-negative CPU number");
  bad_places("{0:0}", "'0}'", "a positive count after ':' must be between 1 and");
  bad_places("{1:3:-1}", "1:3:-1}", "the interval reaches CPU -1");
  bad_places("{0:4}:0", "'0'", "a positive place count after ':' must be between 1 and");
  bad_places("{0}:2:x", "'x'", "a stride (an integer) after the second ':'");
  bad_places("{0},", "at the end of the value", "expected a place after ','");
  bad_places("{0};{1}", "';{1}' (column 4)", "expected ',' between places");
  bad_places("{0},,{1}", "',{1}'", "a non-negative CPU number or '{'");
  bad_places("{99999999999}", "99999999999}", "too large");
  bad_places("corez", "'corez'", "unknown abstract name 'corez'");
  bad_places("cores(0)", "'0)'", "a positive number of places must be between 1 and");
  bad_places("cores(2", "at the end of the value", "expected ')'");
  bad_places("cores(2)x", "'x'", "unexpected text after the abstract name");
  bad_places("cores,{0}", "',{0}'", "unexpected text after the abstract name");
}

TEST(OmpPlaces, ResolveOnAMachine) {
  const Topology& t = box();
  auto resolve = [&](const std::string& v) { return resolve_omp_places(parse_omp_places(v), t, v); };
  EXPECT_EQ(resolve("threads").places, (Places{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  EXPECT_EQ(resolve("cores").places, (Places{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(resolve("cores(3)").places, (Places{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(resolve("cores(99)").places.size(), 4u);  // more than there are: all of them
  EXPECT_EQ(resolve("sockets").places, (Places{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(resolve("numa_domains").places, (Places{{0, 1, 2, 3, 4, 5, 6, 7}}));  // one NUMA node
  EXPECT_EQ(resolve("ll_caches").places, (Places{{0, 1, 2, 3}, {4, 5, 6, 7}}));  // no group below the socket
  Topology numa = Topology::from_hwloc_synthetic("pack:2 [numa] core:2 pu:2");
  EXPECT_EQ(resolve_omp_places(parse_omp_places("numa_domains"), numa).places, (Places{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // Dies of 3 cores share a cache below the package: they are the ll_caches.
  Topology dies = Topology::from_hwloc_synthetic("pack:2 die:2 core:3 pu:1");
  EXPECT_EQ(resolve_omp_places(parse_omp_places("ll_caches"), dies).places,
            (Places{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}));
  // Explicit CPUs the machine lacks are dropped (libgomp does the same).
  OmpPlaceList l = resolve("{6:4},{1}");
  EXPECT_EQ(l.places, (Places{{6, 7}, {1}}));
  EXPECT_EQ(l.dropped_cpus, (V{8, 9}));
  l = resolve("{1},{9},{3}");
  EXPECT_EQ(l.places, (Places{{1}, {3}}));
  EXPECT_EQ(l.dropped_cpus, V{9});
  expect_error([&] { resolve("{8:4}"); }, "OMP_PLACES", "{8:4}", "none of its CPUs is available to this process (available: 0,1,2,3,4,5,6,7)");
}

TEST(OmpProcBind, Values) {
  EXPECT_EQ(parse_omp_proc_bind("true"), std::vector<OmpBind>{OmpBind::True});
  EXPECT_EQ(parse_omp_proc_bind("FALSE"), std::vector<OmpBind>{OmpBind::False});
  EXPECT_EQ(parse_omp_proc_bind("master"), std::vector<OmpBind>{OmpBind::Primary});
  EXPECT_EQ(parse_omp_proc_bind("primary"), std::vector<OmpBind>{OmpBind::Primary});
  EXPECT_EQ(parse_omp_proc_bind(" Spread "), std::vector<OmpBind>{OmpBind::Spread});
  EXPECT_EQ(parse_omp_proc_bind("spread, close,primary"),
            (std::vector<OmpBind>{OmpBind::Spread, OmpBind::Close, OmpBind::Primary}));
  bad_bind("", "the end of the value", "expected true, false, or a comma-separated list");
  bad_bind("spreadd", "'spreadd' (column 1)", "unknown binding 'spreadd'");
  bad_bind("close,true", "'true' (column 7)", "cannot be part of a list");
  bad_bind("true,close", "'close'", "'true' cannot be part of a list");
  bad_bind("close;spread", "';spread'", "expected ',' between bindings");
  bad_bind("close,", "at the end of the value", "expected true, false");
  bad_bind("1", "'1'", "expected true, false");
}

TEST(OmpProcBind, ThreadToPlaceRules) {
  // CLOSE, T <= P: thread i on place i.
  EXPECT_EQ(omp_thread_places(OmpBind::Close, 4, 2), (V{0, 1}));
  EXPECT_EQ(omp_thread_places(OmpBind::Close, 4, 4), (V{0, 1, 2, 3}));
  // CLOSE, T > P: blocks of floor(6/4) = 1, the first 6 mod 4 = 2 places one more.
  EXPECT_EQ(omp_thread_places(OmpBind::Close, 4, 6), (V{0, 0, 1, 1, 2, 3}));
  EXPECT_EQ(omp_thread_places(OmpBind::Close, 4, 8), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(omp_thread_places(OmpBind::True, 4, 6), omp_thread_places(OmpBind::Close, 4, 6));
  // SPREAD, T <= P: runs of floor(P/T) places, the first P mod T one longer;
  // thread i on the first place of run i: i * s + min(i, rest).
  EXPECT_EQ(omp_thread_places(OmpBind::Spread, 8, 2), (V{0, 4}));          // s 4
  EXPECT_EQ(omp_thread_places(OmpBind::Spread, 8, 3), (V{0, 3, 6}));       // s 2, rest 2: runs 3,3,2
  EXPECT_EQ(omp_thread_places(OmpBind::Spread, 16, 5), (V{0, 4, 7, 10, 13}));  // s 3, rest 1: 4,3,3,3,3
  EXPECT_EQ(omp_thread_places(OmpBind::Spread, 4, 4), (V{0, 1, 2, 3}));
  // SPREAD, T > P: as CLOSE.
  EXPECT_EQ(omp_thread_places(OmpBind::Spread, 4, 6), (V{0, 0, 1, 1, 2, 3}));
  // PRIMARY: all on the primary thread's place.
  EXPECT_EQ(omp_thread_places(OmpBind::Primary, 4, 3), (V{0, 0, 0}));
  EXPECT_THROW(omp_thread_places(OmpBind::False, 4, 2), std::invalid_argument);
  EXPECT_THROW(omp_thread_places(OmpBind::Close, 0, 2), std::invalid_argument);
  EXPECT_THROW(omp_thread_places(OmpBind::Close, 2, 0), std::invalid_argument);
}

TEST(OmpBindingTest, WorkersOnCpus) {
  const Topology& t = box();
  auto cpus = [&](std::optional<std::string_view> places, std::optional<std::string_view> bind, int n) {
    OmpBinding b = omp_binding(t, places, bind, n);
    EXPECT_TRUE(b.active);
    EXPECT_TRUE(b.pinned);
    return b.os_cpus;
  };
  EXPECT_FALSE(omp_binding(t, std::nullopt, std::nullopt, 4).active);
  // cores, OMP_PROC_BIND unset (= true = close): one worker per core.
  OmpBinding b = omp_binding(t, "cores", std::nullopt, 4);
  EXPECT_EQ(b.bind, OmpBind::Close);
  EXPECT_EQ(b.thread_place, (V{0, 1, 2, 3}));
  EXPECT_EQ(b.os_cpus, (V{0, 2, 4, 6}));
  // 8 workers on 4 core places: 2 per place, the k-th worker of a place on its k-th CPU.
  EXPECT_EQ(cpus("cores", "close", 8), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  // sockets, spread, 4 workers > 2 places: as close, 2 per socket.
  EXPECT_EQ(cpus("sockets", "spread", 4), (V{0, 1, 4, 5}));
  // threads, spread, 2 workers: places 0 and 4.
  EXPECT_EQ(cpus("threads", "spread", 2), (V{0, 4}));
  // OMP_PLACES unset: the places are the threads.
  EXPECT_EQ(cpus(std::nullopt, "spread", 2), (V{0, 4}));
  EXPECT_EQ(cpus(std::nullopt, "true", 3), (V{0, 1, 2}));
  // master: every worker on place 0 = core {0,1}: CPUs 0, 1, then wrapping to 0.
  EXPECT_EQ(cpus("cores", "master", 3), (V{0, 1, 0}));
  // A list: the first item applies.
  EXPECT_EQ(cpus("cores", "spread,close", 2), (V{0, 4}));
  EXPECT_EQ(cpus("{1},{3},{5}", "close", 3), (V{1, 3, 5}));
  // false: not pinned; the places are still checked.
  b = omp_binding(t, "cores", "false", 4);
  EXPECT_TRUE(b.active);
  EXPECT_FALSE(b.pinned);
  EXPECT_TRUE(b.os_cpus.empty());
  EXPECT_NE(b.describe().find("not pinned"), std::string::npos);
  expect_error([&] { omp_binding(t, "cores(", "false", 4); }, "OMP_PLACES", "the end of the value", "a positive number of places");
  expect_error([&] { omp_binding(t, "cores", "nearby", 4); }, "OMP_PROC_BIND", "'nearby'", "unknown binding");
  // Dropped CPUs are reported.
  b = omp_binding(t, "{6:4}", "close", 2);
  EXPECT_EQ(b.os_cpus, (V{6, 7}));
  EXPECT_EQ(b.dropped_cpus, (V{8, 9}));
  EXPECT_NE(b.describe().find("dropped (not available to this process): 8,9"), std::string::npos) << b.describe();
}
