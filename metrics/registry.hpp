#pragma once
// A small Prometheus registry: counters, gauges and histograms in labelled families, rendered in
// the text exposition format 0.0.4. Updating a metric is one relaxed atomic operation; resolving a
// label set (family::with) takes the family's lock, so hot paths resolve once and keep the
// reference, which stays valid as long as the registry. Thread-safe throughout.
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::metrics {

// The Content-Type of registry::render()'s text.
inline constexpr std::string_view text_format = "text/plain; version=0.0.4; charset=utf-8";

// What counters and gauges share: one atomic value, read and changed with relaxed order.
template <typename T>
class atomic_metric {
 public:
  T value() const noexcept { return value_.load(std::memory_order_relaxed); }

 protected:
  void add_relaxed(T n) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::atomic<T> value_{0};
};

class counter : public atomic_metric<std::uint64_t> {
 public:
  void inc(std::uint64_t n = 1) noexcept { add_relaxed(n); }
};

class gauge : public atomic_metric<std::int64_t> {
 public:
  void set(std::int64_t v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(std::int64_t n = 1) noexcept { add_relaxed(n); }
  void sub(std::int64_t n = 1) noexcept { value_.fetch_sub(n, std::memory_order_relaxed); }
};

class histogram {
 public:
  // Upper bounds, ascending and finite; the +Inf bucket is implicit.
  explicit histogram(std::span<const double> bounds);
  void observe(double value) noexcept;
  // Cumulative counts, one per bound and then +Inf (which is the count of observations).
  std::vector<std::uint64_t> cumulative() const;
  double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }
  std::span<const double> bounds() const noexcept { return bounds_; }

 private:
  std::vector<double> bounds_;
  // Per bucket, not cumulative: one increment per observation. The count is their total, so a
  // scrape never shows a count that disagrees with the +Inf bucket.
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
  std::atomic<double> sum_{0.0};
};

enum class metric_type { counter,
                         gauge,
                         histogram };

class family_base {
 public:
  // Series per family; label sets past it share one series whose label values are all "_overflow"
  // (label values may come from peers, e.g. a server's name).
  static constexpr std::size_t max_series = 1000;
  // Longer label values are cut (at a character boundary).
  static constexpr std::size_t max_label_bytes = 256;

  virtual ~family_base() = default;
  const std::string& name() const noexcept { return name_; }
  void render(std::string& out) const;

 protected:
  family_base(metric_type type, std::string name, std::string help, std::vector<std::string> labels);
  // Label values as exposed: valid UTF-8 (bad bytes become U+FFFD), capped; "_overflow" once full.
  std::vector<std::string> series_key(std::initializer_list<std::string_view> values) const;
  virtual void render_series(std::string& out) const = 0;  // under mutex_

  metric_type type_;
  std::string name_;
  std::string help_;
  std::vector<std::string> labels_;
  mutable std::mutex mutex_;
};

template <typename Metric>
class family final : public family_base {
 public:
  family(metric_type type, std::string name, std::string help, std::vector<std::string> labels,
         std::vector<double> bounds = {})
      : family_base(type, std::move(name), std::move(help), std::move(labels)), bounds_(std::move(bounds)) {}
  // The series for these label values, one per label name, created on first use.
  Metric& with(std::initializer_list<std::string_view> values);

 private:
  void render_series(std::string& out) const override;
  std::vector<double> bounds_;  // histograms only
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> series_;
};

class registry {
 public:
  // Names must be valid metric names and distinct; label names valid and not "le". Mistakes are
  // programming errors: they throw std::invalid_argument (at start-up, where metrics are made).
  family<counter>& counter_family(std::string name, std::string help, std::vector<std::string> labels);
  family<gauge>& gauge_family(std::string name, std::string help, std::vector<std::string> labels);
  family<histogram>& histogram_family(std::string name, std::string help, std::vector<std::string> labels,
                                      std::vector<double> bounds);
  counter& add_counter(std::string name, std::string help) { return counter_family(std::move(name), std::move(help), {}).with({}); }
  gauge& add_gauge(std::string name, std::string help) { return gauge_family(std::move(name), std::move(help), {}).with({}); }

  // Every family in registration order, its series sorted by label values.
  std::string render() const;

 private:
  template <typename Family>
  Family& add(std::unique_ptr<Family> next);
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<family_base>> families_;
};

}  // namespace warden::metrics
