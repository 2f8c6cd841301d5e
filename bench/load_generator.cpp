// bench_load_generator: an MCP client over stdio that measures what sits behind it.
//
//   bench_load_generator [options] -- COMMAND [ARGS...]
//     --mode latency|throughput|startup   (default latency)
//     --calls N        measured tools/call requests (default 1000)
//     --warmup N       unmeasured calls first (default 100)
//     --window W       requests in flight in throughput mode (default 64)
//     --payload B      echo message size in bytes (default 16)
//     --blob B         call the `blob` tool for a B-byte result instead of `echo`
//     --repeat K       start-ups to time in startup mode (default 20)
//     --label TEXT     echoed in the report line
//     --server-stderr  keep the target's stderr (default: /dev/null)
//
// Spawns COMMAND (the proxy, or the server for a direct baseline), does the MCP handshake, drives
// echo calls and prints one line of key=value pairs: calls/s, latency percentiles (send to
// response, microseconds), and the RSS and CPU time of the direct child (the proxy). Plain
// poll/read/write, non-blocking both ways, so that pipelining cannot deadlock.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_json.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace warden::bench;

struct options {
  std::string mode = "latency";
  long calls = 1000;
  long warmup = 100;
  long window = 64;
  long payload = 16;
  long blob = -1;
  long repeat = 20;
  std::string label;
  bool server_stderr = false;
  std::vector<std::string> command;
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_load_generator: %s\n", why.c_str());
  std::exit(1);
}

double micros(clock_type::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// The target process and our two pipes to it.
class target {
 public:
  target(const std::vector<std::string>& command, bool keep_stderr) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) die("pipe failed");
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int null_fd = keep_stderr ? -1 : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    started_ = clock_type::now();
    pid_ = ::fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      if (null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
      ::execvp(argv[0], argv.data());
      _exit(127);
    }
    if (null_fd >= 0) ::close(null_fd);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    ::fcntl(to_, F_SETFL, O_NONBLOCK);
    ::fcntl(from_, F_SETFL, O_NONBLOCK);
  }

  ~target() { stop(); }

  pid_t pid() const { return pid_; }
  clock_type::time_point started() const { return started_; }

  void queue(std::string_view bytes) { out_.append(bytes); }

  // Writes what it can, reads what is there; calls on_line(line) for each complete line.
  // Returns false at EOF from the target.
  template <typename on_line_t>
  bool pump(on_line_t&& on_line, int timeout_ms = 60000) {
    pollfd fds[2] = {{from_, POLLIN, 0}, {out_sent_ < out_.size() ? to_ : -1, POLLOUT, 0}};
    const int ready = ::poll(fds, 2, timeout_ms);
    if (ready < 0 && errno != EINTR) die("poll failed");
    if (ready == 0) die("the target did not answer within " + std::to_string(timeout_ms) + " ms");
    if (fds[1].revents) flush();
    if (fds[0].revents) {
      for (;;) {
        if (in_.size() - in_end_ < (1 << 16)) in_.resize(std::max<std::size_t>(in_.size() * 2, 1 << 17));
        const std::size_t space = in_.size() - in_end_;
        const ssize_t n = ::read(from_, in_.data() + in_end_, space);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n <= 0) return false;
        in_end_ += static_cast<std::size_t>(n);
        if (static_cast<std::size_t>(n) < space) break;  // drained what was there
      }
      // Hand out complete lines, then move the incomplete tail to the front.
      std::size_t start = 0;
      for (;;) {
        const void* nl = std::memchr(in_.data() + scan_, '\n', in_end_ - scan_);
        if (!nl) {
          scan_ = in_end_;
          break;
        }
        const std::size_t end = static_cast<const char*>(nl) - in_.data();
        on_line(std::string_view(in_.data() + start, end - start));
        start = scan_ = end + 1;
      }
      if (start > 0) {
        std::memmove(in_.data(), in_.data() + start, in_end_ - start);
        in_end_ -= start;
        scan_ -= start;
      }
    }
    return true;
  }

  void flush() {
    while (out_sent_ < out_.size()) {
      const ssize_t n = ::write(to_, out_.data() + out_sent_, out_.size() - out_sent_);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n <= 0) die("the target closed its input");
      out_sent_ += static_cast<std::size_t>(n);
    }
    out_.clear();
    out_sent_ = 0;
  }

  // Closes the target's input and waits for it; SIGKILL after 5 s.
  void stop() {
    if (pid_ <= 0) return;
    if (to_ >= 0) ::close(to_);
    to_ = -1;
    const auto deadline = clock_type::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (clock_type::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      // Drain its output so that it can finish writing and exit.
      char sink[65536];
      while (::read(from_, sink, sizeof sink) > 0) {
      }
      ::usleep(1000);
    }
    ::close(from_);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  clock_type::time_point started_;
  std::string out_;
  std::size_t out_sent_ = 0;
  std::vector<char> in_;
  std::size_t in_end_ = 0;
  std::size_t scan_ = 0;
};

// CPU time of every thread of `pid`, in nanoseconds (schedstat: finer than the tick counts).
double cpu_ns(pid_t pid) {
  double total = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* tasks = ::opendir(dir.c_str());
  if (!tasks) return 0;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + entry->d_name + "/schedstat");
    double ns = 0;
    if (in >> ns) total += ns;
  }
  ::closedir(tasks);
  return total;
}

long status_kb(pid_t pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  return -1;
}

// The id of a response line, or -1 for anything else (notifications, server requests).
long response_id(std::string_view line) {
  const auto id = member(line, "id");
  if (!id || member(line, "method")) return -1;
  return static_cast<long>(to_int(*id).value_or(-1));
}

bool is_error(std::string_view line) { return member(line, "error").has_value(); }

const std::string initialize_request =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"bench-load-generator","version":"1.0.0"}}})"
    "\n";
const std::string initialized_notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n";

// Time from fork to the initialize response.
double handshake(target& t) {
  t.queue(initialize_request);
  t.flush();
  bool done = false;
  while (!done) {
    if (!t.pump([&](std::string_view line) { done = done || response_id(line) == 0; }))
      die("the target ended before answering initialize");
  }
  const double elapsed = micros(clock_type::now() - t.started());
  t.queue(initialized_notification);
  return elapsed;
}

std::string make_call(long id, const options& o, const std::string& payload) {
  std::string call = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                     R"(,"method":"tools/call","params":{"name":)";
  if (o.blob >= 0) call += R"("blob","arguments":{"bytes":)" + std::to_string(o.blob) + "}}}\n";
  else call += R"("echo","arguments":{"message":")" + payload + "\"}}}\n";
  return call;
}

struct run_result {
  double seconds = 0;
  std::vector<double> latencies_us;
  long errors = 0;
};

// Drives `count` calls with at most `window` in flight; ids start at `first_id`.
run_result drive(target& t, const options& o, long first_id, long count, long window) {
  const std::string payload(static_cast<std::size_t>(std::max(0L, o.payload)), 'x');
  std::vector<clock_type::time_point> sent(static_cast<std::size_t>(count));
  run_result r;
  r.latencies_us.reserve(static_cast<std::size_t>(count));
  long next = 0, done = 0;
  const auto begin = clock_type::now();
  while (done < count) {
    if (next < count && next - done < window) {
      const auto now = clock_type::now();
      while (next < count && next - done < window) {
        t.queue(make_call(first_id + next, o, payload));
        sent[static_cast<std::size_t>(next++)] = now;
      }
      t.flush();
    }
    const bool alive = t.pump([&](std::string_view line) {
      const long id = response_id(line) - first_id;
      if (id < 0 || id >= count) return;
      r.latencies_us.push_back(micros(clock_type::now() - sent[static_cast<std::size_t>(id)]));
      r.errors += is_error(line);
      ++done;
    });
    if (!alive) die("the target ended after " + std::to_string(done) + " answers");
  }
  r.seconds = std::chrono::duration<double>(clock_type::now() - begin).count();
  return r;
}

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto index = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

options parse(int argc, char** argv) {
  options o;
  int i = 1;
  auto number = [&](const char* name) {
    if (i + 1 >= argc) die(std::string("missing value for ") + name);
    return std::atol(argv[++i]);
  };
  for (; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") {
      for (++i; i < argc; ++i) o.command.emplace_back(argv[i]);
      break;
    }
    if (a == "--mode" && i + 1 < argc) o.mode = argv[++i];
    else if (a == "--calls") o.calls = number("--calls");
    else if (a == "--warmup") o.warmup = number("--warmup");
    else if (a == "--window") o.window = number("--window");
    else if (a == "--payload") o.payload = number("--payload");
    else if (a == "--blob") o.blob = number("--blob");
    else if (a == "--repeat") o.repeat = number("--repeat");
    else if (a == "--label" && i + 1 < argc) o.label = argv[++i];
    else if (a == "--server-stderr") o.server_stderr = true;
    else die("unknown option " + std::string(a));
  }
  if (o.command.empty()) die("usage: bench_load_generator [options] -- COMMAND [ARGS...]");
  if (o.mode != "latency" && o.mode != "throughput" && o.mode != "startup") die("unknown mode " + o.mode);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  const options o = parse(argc, argv);
  std::printf("label=%s mode=%s", o.label.empty() ? "-" : o.label.c_str(), o.mode.c_str());

  if (o.mode == "startup") {
    std::vector<double> startups;
    for (long k = 0; k < o.repeat; ++k) {
      target t(o.command, o.server_stderr);
      startups.push_back(handshake(t));
      t.flush();
      t.stop();
    }
    std::sort(startups.begin(), startups.end());
    std::printf(" repeat=%ld startup_p50_us=%.0f startup_min_us=%.0f startup_max_us=%.0f\n", o.repeat,
                percentile(startups, 0.5), startups.front(), startups.back());
    return 0;
  }

  target t(o.command, o.server_stderr);
  const double startup_us = handshake(t);
  const long window = o.mode == "throughput" ? std::max(1L, o.window) : 1;
  if (o.warmup > 0) drive(t, o, 1, o.warmup, window);
  const double cpu_before = cpu_ns(t.pid());
  run_result r = drive(t, o, 1 + o.warmup, o.calls, window);
  const double cpu_after = cpu_ns(t.pid());
  const long rss = status_kb(t.pid(), "VmRSS:");
  const long hwm = status_kb(t.pid(), "VmHWM:");
  t.stop();

  std::sort(r.latencies_us.begin(), r.latencies_us.end());
  const double cpu_us = (cpu_after - cpu_before) / 1000.0;
  std::printf(" calls=%ld window=%ld seconds=%.4f calls_per_s=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f"
              " max_us=%.1f errors=%ld child_cpu_us_per_call=%.2f child_rss_kb=%ld child_hwm_kb=%ld"
              " startup_us=%.0f\n",
              o.calls, window, r.seconds, static_cast<double>(o.calls) / r.seconds,
              percentile(r.latencies_us, 0.5), percentile(r.latencies_us, 0.9), percentile(r.latencies_us, 0.99),
              r.latencies_us.empty() ? 0.0 : r.latencies_us.back(), r.errors, cpu_us / static_cast<double>(o.calls),
              rss, hwm, startup_us);
  return r.errors == 0 ? 0 : 3;
}
