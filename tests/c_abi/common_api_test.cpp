// Version, status strings and the thread-local last error.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "ferry/ferry.h"

TEST(CommonApi, VersionMatchesHeader) {
  EXPECT_EQ(ferry_version(), FERRY_VERSION_NUMBER);
  const std::string text = ferry_version_string();
  EXPECT_EQ(text.rfind("0.2.0", 0), 0u) << text;
}

TEST(CommonApi, EveryStatusHasAName) {
  for (int s = FERRY_OK; s <= FERRY_ERR_OUTPUT_TOO_SMALL; ++s) {  // the last status
    const std::string name = ferry_status_string(static_cast<ferry_status>(s));
    EXPECT_EQ(name.rfind("FERRY_", 0), 0u) << s;
    EXPECT_NE(name, "FERRY_STATUS_UNKNOWN") << s;
  }
  EXPECT_STREQ(ferry_status_string(static_cast<ferry_status>(999)), "FERRY_STATUS_UNKNOWN");
  EXPECT_STREQ(ferry_status_string(static_cast<ferry_status>(-1)), "FERRY_STATUS_UNKNOWN");
}

TEST(CommonApi, LastErrorIsPerThreadAndClearedOnSuccess) {
  EXPECT_EQ(ferry_context_create(nullptr, nullptr), FERRY_ERR_INVALID_ARGUMENT);
  const std::string here = ferry_last_error();
  EXPECT_NE(here.find("out is NULL"), std::string::npos) << here;
  std::string there = "unset";
  std::thread([&] { there = ferry_last_error(); }).join();
  EXPECT_EQ(there, "");
  int count = -1;
  EXPECT_EQ(ferry_device_count(&count), FERRY_OK);
  EXPECT_STREQ(ferry_last_error(), "");
}
