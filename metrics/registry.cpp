#include "metrics/registry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "base/utf8.hpp"

namespace warden::metrics {

namespace {

bool valid_name(std::string_view name, bool metric) {
  const auto first = [&](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':'); };
  if (name.empty() || !first(name.front())) return false;
  return std::all_of(name.begin() + 1, name.end(), [&](char c) { return first(c) || (c >= '0' && c <= '9'); });
}

void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, ec == std::errc() ? end : buffer);
  }
}

// HELP text escapes backslash and newline; label values also the double quote.
void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (const char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quote) out += "\\\"";
    else out += c;
  }
}

// `{a="x",b="y"}`, with `le` last for histogram buckets; nothing for no labels at all.
void append_labels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view le = {}) {
  if (names.empty() && le.empty()) return;
  out += '{';
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i];
    out += "=\"";
    append_escaped(out, values[i], true);
    out += '"';
  }
  if (!le.empty()) {
    if (!names.empty()) out += ',';
    out += "le=\"";
    out += le;
    out += '"';
  }
  out += '}';
}

std::string label_value(std::string_view raw) {
  std::string out;
  out.reserve(std::min(raw.size(), family_base::max_label_bytes));
  for (std::size_t pos = 0; pos < raw.size();) {
    const std::size_t start = pos;
    const char32_t code_point = base::decode_utf8(raw, pos);
    const std::size_t before = out.size();
    if (code_point == base::invalid_code_point) base::append_utf8(out, 0xFFFD);
    else out.append(raw.substr(start, pos - start));
    if (out.size() > family_base::max_label_bytes) {
      out.resize(before);
      break;
    }
  }
  return out;
}

constexpr std::string_view type_name(metric_type type) {
  switch (type) {
    case metric_type::counter: return "counter";
    case metric_type::gauge: return "gauge";
    case metric_type::histogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

histogram::histogram(std::span<const double> bounds)
    : bounds_(bounds.begin(), bounds.end()), buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i)
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
      throw std::invalid_argument("histogram bounds must be finite and ascending");
}

void histogram::observe(double value) noexcept {
  // A bucket counts the values up to and including its bound.
  const auto index = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::vector<std::uint64_t> histogram::cumulative() const {
  std::vector<std::uint64_t> out(bounds_.size() + 1);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = total += buckets_[i].load(std::memory_order_relaxed);
  return out;
}

family_base::family_base(metric_type type, std::string name, std::string help, std::vector<std::string> labels)
    : type_(type), name_(std::move(name)), help_(std::move(help)), labels_(std::move(labels)) {
  if (!valid_name(name_, true)) throw std::invalid_argument("invalid metric name '" + name_ + "'");
  for (const auto& label : labels_)
    if (!valid_name(label, false) || label.starts_with("__") || label == "le")
      throw std::invalid_argument("invalid label name '" + label + "' in " + name_);
}

std::vector<std::string> family_base::series_key(std::initializer_list<std::string_view> values) const {
  if (values.size() != labels_.size())
    throw std::invalid_argument(name_ + " takes " + std::to_string(labels_.size()) + " label value(s)");
  std::vector<std::string> key;
  key.reserve(values.size());
  for (const auto value : values) key.push_back(label_value(value));
  return key;
}

void family_base::render(std::string& out) const {
  out += "# HELP ";
  out += name_;
  out += ' ';
  append_escaped(out, help_, false);
  out += "\n# TYPE ";
  out += name_;
  out += ' ';
  out += type_name(type_);
  out += '\n';
  std::lock_guard lock(mutex_);
  render_series(out);
}

template <typename Metric>
Metric& family<Metric>::with(std::initializer_list<std::string_view> values) {
  std::vector<std::string> key = series_key(values);
  std::lock_guard lock(mutex_);
  if (auto it = series_.find(key); it != series_.end()) return *it->second;
  if (series_.size() >= max_series) key.assign(labels_.size(), "_overflow");
  auto& slot = series_[std::move(key)];
  if (!slot) {
    if constexpr (std::is_same_v<Metric, histogram>) slot = std::make_unique<histogram>(bounds_);
    else slot = std::make_unique<Metric>();
  }
  return *slot;
}

template <typename Metric>
void family<Metric>::render_series(std::string& out) const {
  for (const auto& [values, metric] : series_) {
    if constexpr (std::is_same_v<Metric, histogram>) {
      const auto counts = metric->cumulative();
      std::string le;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        le.clear();
        if (i < metric->bounds().size()) append_number(le, metric->bounds()[i]);
        else le = "+Inf";
        out += name_;
        out += "_bucket";
        append_labels(out, labels_, values, le);
        out += ' ';
        out += std::to_string(counts[i]);
        out += '\n';
      }
      out += name_;
      out += "_sum";
      append_labels(out, labels_, values);
      out += ' ';
      append_number(out, metric->sum());
      out += '\n';
      out += name_;
      out += "_count";
      append_labels(out, labels_, values);
      out += ' ';
      out += std::to_string(counts.back());
      out += '\n';
    } else {
      out += name_;
      append_labels(out, labels_, values);
      out += ' ';
      out += std::to_string(metric->value());
      out += '\n';
    }
  }
}

template class family<counter>;
template class family<gauge>;
template class family<histogram>;

template <typename Family>
Family& registry::add(std::unique_ptr<Family> next) {
  std::lock_guard lock(mutex_);
  for (const auto& existing : families_)
    if (existing->name() == next->name()) throw std::invalid_argument("metric '" + next->name() + "' registered twice");
  Family& added = *next;
  families_.push_back(std::move(next));
  return added;
}

family<counter>& registry::counter_family(std::string name, std::string help, std::vector<std::string> labels) {
  return add(std::make_unique<family<counter>>(metric_type::counter, std::move(name), std::move(help), std::move(labels)));
}

family<gauge>& registry::gauge_family(std::string name, std::string help, std::vector<std::string> labels) {
  return add(std::make_unique<family<gauge>>(metric_type::gauge, std::move(name), std::move(help), std::move(labels)));
}

family<histogram>& registry::histogram_family(std::string name, std::string help, std::vector<std::string> labels,
                                              std::vector<double> bounds) {
  histogram check(bounds);  // bad bounds fail here, not at the first observation
  return add(std::make_unique<family<histogram>>(metric_type::histogram, std::move(name), std::move(help),
                                                 std::move(labels), std::move(bounds)));
}

std::string registry::render() const {
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& next : families_) next->render(out);
  return out;
}

}  // namespace warden::metrics
