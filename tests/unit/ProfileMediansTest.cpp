// `tessera bench --profile` reports each step's median time over the profiled runs whose
// steps match the last run's.
#include <gtest/gtest.h>

#include "tools/cli/ProfileMedians.hpp"

namespace tessera {
namespace test {
namespace {

using Steps = std::vector<Session::ProfileEntry>;

Steps run(std::vector<std::pair<std::string, double>> steps) {
  Steps out;
  for (auto& [name, ms] : steps) {
    Session::ProfileEntry e;
    e.step = name;
    e.ms = ms;
    out.push_back(e);
  }
  return out;
}

Steps medians(const std::vector<Steps>& runs, int* used) {
  cli::ProfileMedians m;
  for (const Steps& r : runs) m.add(r);
  return m.medians(used);
}

TEST(ProfileMedians, EachStepsMedianOverTheRuns) {
  int used = 0;
  const Steps m = medians({run({{"Conv 'a'", 5.0}, {"Relu 'b'", 1.0}}),
                                      run({{"Conv 'a'", 1.0}, {"Relu 'b'", 9.0}}),
                                      run({{"Conv 'a'", 2.0}, {"Relu 'b'", 3.0}})},
                                     &used);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(used, 3);
  EXPECT_EQ(m[0].step, "Conv 'a'");
  EXPECT_DOUBLE_EQ(m[0].ms, 2.0);
  EXPECT_DOUBLE_EQ(m[1].ms, 3.0);
  // An even count: the mean of the middle two.
  const Steps even = medians({run({{"Conv 'a'", 4.0}}), run({{"Conv 'a'", 1.0}}),
                                         run({{"Conv 'a'", 2.0}}), run({{"Conv 'a'", 8.0}})},
                                        &used);
  EXPECT_EQ(used, 4);
  EXPECT_DOUBLE_EQ(even[0].ms, 3.0);
}

TEST(ProfileMedians, RunsWithOtherStepsAreLeftOut) {
  int used = 0;
  const Steps m = medians({run({{"Conv 'a'", 100.0}}),                        // another plan
                                      run({{"Conv 'a'", 7.0}, {"Relu 'b'", 2.0}}),
                                      run({{"Relu 'b'", 50.0}, {"Conv 'a'", 50.0}}),      // another order
                                      run({{"Conv 'a'", 5.0}, {"Relu 'b'", 4.0}})},
                                     &used);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(used, 2);
  EXPECT_DOUBLE_EQ(m[0].ms, 6.0);
  EXPECT_DOUBLE_EQ(m[1].ms, 3.0);
  EXPECT_TRUE(medians({}, &used).empty());
  EXPECT_EQ(used, 0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
