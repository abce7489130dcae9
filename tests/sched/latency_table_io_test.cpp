// Latency tables as text (docs/topology-format.md, "Latency tables"): the
// data file's format reads, saved tables read back exactly, and malformed
// text is an error naming the line and what was expected.
#include "weft/sched/latency_table_io.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace weft::sched;

namespace {

LatencyTableFile read(const std::string& text) {
  std::istringstream in(text);
  return read_latency_table(in, "t.txt");
}

void expect_format_error(const std::string& text, const std::string& what) {
  try {
    read(text);
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const TopologyFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(LatencyTableIo, ReadsTheKvmGuestDataFile) {
  LatencyTableFile f = load_latency_table(WEFT_SCHED_TEST_DATA "/latency-16cpu-kvm-xeon.txt");
  ASSERT_EQ(f.table.size(), 16);
  EXPECT_EQ(f.table.os_cpus.front(), 0);
  EXPECT_EQ(f.table.os_cpus.back(), 15);
  EXPECT_TRUE(f.os_nodes.empty());
  EXPECT_EQ(f.table.at(9, 11), 76);
  EXPECT_EQ(f.table.at(11, 13), 77);
  EXPECT_EQ(f.table.at(9, 13), 306);
  EXPECT_EQ(f.table.at(0, 1), 290);
  EXPECT_EQ(f.table.at(15, 15), 0);
}

TEST(LatencyTableIo, SavedTablesReadBackExactly) {
  LatencyTable t;
  t.os_cpus = {2, 5, 9};
  t.values = {0, 101.25, 300, 101.25, 0, 1.0 / 3, 299.5, 1.0 / 3, 0};
  std::ostringstream out;
  save_latency_table(t, out, {"two lines\nof comment"}, {0, 0, 1});
  EXPECT_NE(out.str().find("# two lines\n# of comment\n"), std::string::npos) << out.str();
  LatencyTableFile back = read(out.str());
  EXPECT_EQ(back.table.os_cpus, t.os_cpus);
  EXPECT_EQ(back.table.values, t.values);
  EXPECT_EQ(back.os_nodes, (std::vector<int>{0, 0, 1}));
}

TEST(LatencyTableIo, CommentsAnywhereAndOptionalLines) {
  LatencyTableFile f = read("# header\n\ncpus 4 6  # the OS cpus\n  0 10 # row 0\n\t10 0\n# end\n");
  EXPECT_EQ(f.table.os_cpus, (std::vector<int>{4, 6}));
  EXPECT_EQ(f.table.at(0, 1), 10);
  // One triangle is enough.
  f = read("0 10 20\n0 0 30\n0 0 0\n");
  EXPECT_EQ(f.table.at(0, 2), 20);
  EXPECT_EQ(f.table.at(2, 0), 0);
}

TEST(LatencyTableIo, MalformedTextNamesTheLine) {
  expect_format_error("0 1\n1 0 5\n", "t.txt:2: expected 2 latencies in cycles (row 1;");
  expect_format_error("0 1\n-1 0\n", "t.txt:2: expected 2 latencies");
  expect_format_error("0 x\n1 0\n", "t.txt:1: expected a row of latencies in cycles (numbers >= 0), got '0 x'");
  expect_format_error("0 nan\nnan 0\n", "t.txt:1: expected a row of latencies");
  expect_format_error("0 1 1\n1 0 1\n", "t.txt:3: expected 3 rows (the first row has 3 numbers), not 2, got end of file");
  expect_format_error("0 1\n1 0\n1 1\n", "t.txt:3: expected the end of the table after 2 rows");
  expect_format_error("5 1\n1 0\n", "t.txt:1: expected 0 on the diagonal (column 0 of row 0), got '5 1'");
  expect_format_error("cpus 0 1 2\n0 1\n1 0\n", "t.txt:1: expected one OS cpu per row (2)");
  expect_format_error("cpus 3 1\n0 1\n1 0\n", "t.txt:1: expected OS cpus in strictly ascending order");
  expect_format_error("cpus 0 -1\n0 1\n1 0\n", "t.txt:1: expected 'cpus' followed by one integer >= 0 per row");
  expect_format_error("nodes 0\n0 1\n1 0\n", "t.txt:1: expected one OS node per row (2)");
  expect_format_error("0 1\ncpus 0 1\n1 0\n", "t.txt:2: expected a row of latencies ('cpus' must come before the rows)");
  expect_format_error("cpus 0 1\ncpus 0 1\n0 1\n1 0\n", "t.txt:2: expected at most one 'cpus' line (the first is line 1)");
  expect_format_error("0 1 0\n1 0 1\n0 1 0\n", "t.txt:1: expected a latency between cpus 0 and 2");
  expect_format_error("# nothing\n", "t.txt:2: expected a latency table: N rows of N numbers, got end of file");
  EXPECT_THROW(load_latency_table("/nonexistent/weft-table.txt"), std::runtime_error);
}
