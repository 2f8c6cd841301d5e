#include "metrics/registry.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <thread>

#include "metrics/warden_metrics.hpp"

using namespace warden::metrics;

TEST_CASE("text format: counters and gauges") {
  registry r;
  auto& calls = r.counter_family("demo_calls_total", "Calls by verdict", {"verdict", "server"});
  calls.with({"deny", "b"}).inc();
  calls.with({"allow", "b"}).inc(2);
  calls.with({"allow", "a"}).inc();
  r.add_gauge("demo_depth", "Queue depth").set(-3);
  r.add_counter("demo_empty_total", "Never touched");
  CHECK(r.render() ==
        "# HELP demo_calls_total Calls by verdict\n"
        "# TYPE demo_calls_total counter\n"
        "demo_calls_total{verdict=\"allow\",server=\"a\"} 1\n"
        "demo_calls_total{verdict=\"allow\",server=\"b\"} 2\n"
        "demo_calls_total{verdict=\"deny\",server=\"b\"} 1\n"
        "# HELP demo_depth Queue depth\n"
        "# TYPE demo_depth gauge\n"
        "demo_depth -3\n"
        "# HELP demo_empty_total Never touched\n"
        "# TYPE demo_empty_total counter\n"
        "demo_empty_total 0\n");
}

TEST_CASE("text format: escaping") {
  registry r;
  SUBCASE("label values: backslash, double quote, newline") {
    r.counter_family("demo_total", "x", {"server"}).with({"a\\b\"c\nd"}).inc();
    CHECK(r.render().find("demo_total{server=\"a\\\\b\\\"c\\nd\"} 1\n") != std::string::npos);
  }
  SUBCASE("help text: backslash and newline, quotes kept") {
    r.add_counter("demo_total", "say \"hi\"\\now\nthen");
    CHECK(r.render().starts_with("# HELP demo_total say \"hi\"\\\\now\\nthen\n"));
  }
  SUBCASE("label values: invalid UTF-8 replaced, valid kept") {
    r.counter_family("demo_total", "x", {"server"}).with({"caf\xc3\xa9 \xff!"}).inc();
    CHECK(r.render().find("demo_total{server=\"caf\xc3\xa9 \xef\xbf\xbd!\"} 1\n") != std::string::npos);
  }
  SUBCASE("label values: cut at a character boundary") {
    std::string value(family_base::max_label_bytes - 1, 'x');
    value += "\xc3\xa9\xc3\xa9";
    r.counter_family("demo_total", "x", {"server"}).with({value}).inc();
    CHECK(r.render().find("{server=\"" + std::string(family_base::max_label_bytes - 1, 'x') + "\"} 1\n") != std::string::npos);
  }
}

TEST_CASE("text format: histogram buckets are cumulative and end with +Inf") {
  registry r;
  auto& latency = r.histogram_family("demo_seconds", "Latency", {"server"}, {0.25, 0.5, 1});
  auto& h = latency.with({"s"});
  h.observe(0.125);
  h.observe(0.25);  // on a bound: counted in that bucket (le means <=)
  h.observe(0.75);
  h.observe(3);
  CHECK(r.render() ==
        "# HELP demo_seconds Latency\n"
        "# TYPE demo_seconds histogram\n"
        "demo_seconds_bucket{server=\"s\",le=\"0.25\"} 2\n"
        "demo_seconds_bucket{server=\"s\",le=\"0.5\"} 2\n"
        "demo_seconds_bucket{server=\"s\",le=\"1\"} 3\n"
        "demo_seconds_bucket{server=\"s\",le=\"+Inf\"} 4\n"
        "demo_seconds_sum{server=\"s\"} 4.125\n"
        "demo_seconds_count{server=\"s\"} 4\n");
  SUBCASE("without labels") {
    registry plain;
    plain.histogram_family("demo_seconds", "Latency", {}, {1}).with({}).observe(2);
    CHECK(plain.render().find("demo_seconds_bucket{le=\"1\"} 0\ndemo_seconds_bucket{le=\"+Inf\"} 1\n"
                              "demo_seconds_sum 2\ndemo_seconds_count 1\n") != std::string::npos);
  }
}

TEST_CASE("families: a label set resolves to one series") {
  registry r;
  auto& f = r.counter_family("demo_total", "x", {"a"});
  counter& first = f.with({"v"});
  CHECK(&first == &f.with({"v"}));
  CHECK(&first != &f.with({"w"}));
  SUBCASE("past max_series, new label sets share the overflow series") {
    for (std::size_t i = 2; i < family_base::max_series; ++i) f.with({std::to_string(i)});
    counter& over = f.with({"one more"});
    CHECK(&over == &f.with({"and another"}));
    CHECK(&first == &f.with({"v"}));
    over.inc();
    CHECK(r.render().find("demo_total{a=\"_overflow\"} 1\n") != std::string::npos);
  }
}

TEST_CASE("registration mistakes throw") {
  registry r;
  r.add_counter("demo_total", "x");
  CHECK_THROWS_WITH_AS(r.add_counter("demo_total", "y"), "metric 'demo_total' registered twice", std::invalid_argument);
  CHECK_THROWS_WITH_AS(r.add_gauge("9lives", "y"), "invalid metric name '9lives'", std::invalid_argument);
  CHECK_THROWS_WITH_AS(r.histogram_family("demo_seconds", "y", {"le"}, {1}), "invalid label name 'le' in demo_seconds",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(r.histogram_family("demo_seconds", "y", {}, {1, 0.5}),
                       "histogram bounds must be finite and ascending", std::invalid_argument);
  CHECK_THROWS_WITH_AS(r.counter_family("demo2_total", "y", {"a"}).with({}), "demo2_total takes 1 label value(s)",
                       std::invalid_argument);
}

TEST_CASE("updates from several threads are all counted") {
  registry r;
  counter& c = r.add_counter("demo_total", "x");
  histogram& h = r.histogram_family("demo_seconds", "x", {}, {1}).with({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.observe(0.5);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(c.value() == 40000);
  CHECK(h.cumulative().back() == 40000);
  CHECK(h.sum() == doctest::Approx(20000));
}

TEST_CASE("mcp-warden's metrics: names and types") {
  registry r;
  warden_metrics m(r, "1.2.3");
  m.tool_calls.with({"allow", "everything"}).inc();
  m.tool_call_duration.with({"everything"}).observe(0.002);
  const std::string text = r.render();
  for (const char* line : {"# TYPE mcp_warden_tool_calls_total counter\n",
                           "mcp_warden_tool_calls_total{verdict=\"allow\",server=\"everything\"} 1\n",
                           "# TYPE mcp_warden_tool_call_duration_seconds histogram\n",
                           "mcp_warden_tool_call_duration_seconds_bucket{server=\"everything\",le=\"0.0025\"} 1\n",
                           "# TYPE mcp_warden_findings_total counter\n",
                           "mcp_warden_audit_records_total 0\n", "mcp_warden_audit_records_lost_total 0\n",
                           "# TYPE mcp_warden_audit_queue_depth gauge\n", "mcp_warden_sessions_active 0\n",
                           "mcp_warden_sessions_opened_total 0\n", "mcp_warden_build_info{version=\"1.2.3\"} 1\n"})
    CHECK_MESSAGE(text.find(line) != std::string::npos, line);
}
