// The one doctest main shared by every unit-test executable (link target warden_test_main).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
