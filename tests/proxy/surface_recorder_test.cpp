#include "proxy/surface_recorder.hpp"

#include <doctest/doctest.h>

using namespace warden::proxy;
using nlohmann::json;

TEST_CASE("initialize results fill the server part of the surface") {
  surface_recorder recorder;
  recorder.record_initialize(json::parse(R"({"protocolVersion":"2025-06-18",
    "capabilities":{"tools":{"listChanged":true},"prompts":{}},
    "serverInfo":{"name":"demo","version":"1.2.3"},"instructions":"Use wisely."})"));
  CHECK(recorder.initialized());
  const auto& s = recorder.surface();
  CHECK(s.name == "demo");
  CHECK(s.version == "1.2.3");
  CHECK(s.protocol_version == "2025-06-18");
  CHECK(s.instructions.value_or("") == "Use wisely.");
  CHECK(server_offers(s.capabilities, list_kind::tools));
  CHECK(server_offers(s.capabilities, list_kind::prompts));
  CHECK_FALSE(server_offers(s.capabilities, list_kind::resources));
}

TEST_CASE("a listing follows nextCursor and replaces the previous one when complete") {
  surface_recorder recorder;
  recorder.start_listing(list_kind::tools, list_source::warden);
  CHECK_FALSE(recorder.add_page(list_kind::tools, list_source::warden,
                                json::parse(R"({"tools":[{"name":"a"}],"nextCursor":"p2"})")));
  CHECK_FALSE(recorder.listed(list_kind::tools));
  CHECK(recorder.add_page(list_kind::tools, list_source::warden, json::parse(R"({"tools":[{"name":"b"}]})")));
  CHECK(recorder.listed(list_kind::tools));
  REQUIRE(recorder.surface().tools.size() == 2);
  CHECK(recorder.surface().tools[1]["name"] == "b");

  SUBCASE("a new listing replaces, not appends") {
    recorder.start_listing(list_kind::tools, list_source::warden);
    CHECK(recorder.add_page(list_kind::tools, list_source::warden, json::parse(R"({"tools":[{"name":"c"}]})")));
    REQUIRE(recorder.surface().tools.size() == 1);
    CHECK(recorder.surface().tools[0]["name"] == "c");
  }
  SUBCASE("interleaved client and warden listings do not mix pages") {
    recorder.start_listing(list_kind::tools, list_source::warden);
    recorder.start_listing(list_kind::tools, list_source::client);
    CHECK_FALSE(recorder.add_page(list_kind::tools, list_source::warden,
                                  json::parse(R"({"tools":[{"name":"w1"}],"nextCursor":"x"})")));
    CHECK(recorder.add_page(list_kind::tools, list_source::client, json::parse(R"({"tools":[{"name":"c1"}]})")));
    CHECK(recorder.surface().tools.size() == 1);
    CHECK(recorder.add_page(list_kind::tools, list_source::warden, json::parse(R"({"tools":[{"name":"w2"}]})")));
    REQUIRE(recorder.surface().tools.size() == 2);
    CHECK(recorder.surface().tools[0]["name"] == "w1");
  }
}

TEST_CASE("list_changed notifications map to the list they invalidate") {
  CHECK(list_kind_of_change("notifications/tools/list_changed") == list_kind::tools);
  CHECK(list_kind_of_change("notifications/resources/list_changed") == list_kind::resources);
  CHECK_FALSE(list_kind_of_change("notifications/progress").has_value());
  CHECK(list_kind_of_method("resources/templates/list") == list_kind::resource_templates);
}

TEST_CASE("a refused listing ends the listing and keeps what was confirmed") {
  surface_recorder recorder;
  recorder.start_listing(list_kind::resources, list_source::warden);
  CHECK(recorder.add_page(list_kind::resources, list_source::warden, json::parse(R"({"resources":[{"uri":"a://1"}]})")));
  recorder.start_listing(list_kind::resources, list_source::warden);
  recorder.finish_listing_refused(list_kind::resources, list_source::warden);
  CHECK(recorder.listed(list_kind::resources));
  CHECK(recorder.refused(list_kind::resources));
  REQUIRE(recorder.surface().resources.size() == 1);
  SUBCASE("a refused first listing leaves the list empty but done") {
    surface_recorder fresh;
    fresh.start_listing(list_kind::prompts, list_source::warden);
    fresh.finish_listing_refused(list_kind::prompts, list_source::warden);
    CHECK(fresh.listed(list_kind::prompts));
    CHECK(fresh.surface().prompts.empty());
  }
}
