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
//   bench_load_generator --http URL [options] -- COMMAND [ARGS...]      (HTTP mode)
//     --http URL       e.g. http://127.0.0.1:{port}/mcp; COMMAND is an HTTP front (the proxy)
//                      that listens there. `{port}` in URL and ARGS becomes a free port.
//     --sessions N     concurrent Streamable HTTP sessions, one thread and one keep-alive
//                      connection each (default 1)
//     --calls N        measured calls in all, split evenly over the sessions
//     --warmup N       unmeasured calls per session first
//
// Spawns COMMAND (the proxy, or the server for a direct baseline), does the MCP handshake, drives
// echo calls and prints one line of key=value pairs: calls/s, latency percentiles (send to
// response, microseconds), and the RSS and CPU time of the direct child (the proxy). Plain
// poll/read/write, non-blocking both ways, so that pipelining cannot deadlock.
//
// HTTP mode starts COMMAND, waits until it accepts connections, then each session does
// initialize (keeping the Mcp-Session-Id it gets), notifications/initialized and sequential
// `tools/call echo` requests; answers may be application/json or text/event-stream. Latency is
// send to the arrival of the JSON-RPC answer. At the end it reads the RSS and CPU time of
// COMMAND's whole process tree (the front and every server it started) from /proc, then stops it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
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
  std::string http_url;
  long sessions = 1;
  std::vector<std::string> command;
};

std::vector<pid_t> process_tree(pid_t root);

// The HTTP front being measured, if any: die() must not leave it (and its servers) running.
std::atomic<pid_t> front_pid_for_cleanup{-1};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "bench_load_generator: %s\n", why.c_str());
  if (const pid_t front = front_pid_for_cleanup.exchange(-1); front > 0) {
    for (const pid_t p : process_tree(front)) ::kill(p, SIGKILL);
    ::kill(-front, SIGKILL);
  }
  std::fflush(nullptr);
  std::_Exit(1);  // other threads may still be running: no static destructors
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
const std::string initialized_notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                                             "\n";

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
    else if (a == "--http" && i + 1 < argc) o.http_url = argv[++i];
    else if (a == "--sessions") o.sessions = number("--sessions");
    else die("unknown option " + std::string(a));
  }
  if (o.command.empty()) die("usage: bench_load_generator [options] -- COMMAND [ARGS...]");
  if (o.mode != "latency" && o.mode != "throughput" && o.mode != "startup") die("unknown mode " + o.mode);
  return o;
}

// ---- HTTP mode ---------------------------------------------------------------------------------

// The process tree under `root` (root included), from the parent ids in /proc/*/stat.
std::vector<pid_t> process_tree(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  DIR* proc = ::opendir("/proc");
  if (!proc) return {root};
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atol(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(entry->d_name) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid) children.emplace(static_cast<pid_t>(ppid), pid);
  }
  ::closedir(proc);
  std::vector<pid_t> tree{root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  return tree;
}

struct tree_usage {
  double front_cpu_ns = 0;  // the process we started
  double tree_cpu_ns = 0;   // it and all its descendants
  long front_rss_kb = 0;
  long front_hwm_kb = 0;
  long tree_rss_kb = 0;
  std::size_t processes = 0;
};

tree_usage measure_tree(pid_t root) {
  tree_usage u;
  const auto tree = process_tree(root);
  u.processes = tree.size();
  for (const pid_t pid : tree) {
    const double cpu = cpu_ns(pid);
    const long rss = status_kb(pid, "VmRSS:");
    u.tree_cpu_ns += cpu;
    if (rss > 0) u.tree_rss_kb += rss;
    if (pid == root) {
      u.front_cpu_ns = cpu;
      u.front_rss_kb = rss;
      u.front_hwm_kb = status_kb(pid, "VmHWM:");
    }
  }
  return u;
}

struct http_url {
  std::string host;
  int port = 0;
  std::string path;
};

http_url parse_url(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) die("--http wants http://HOST:PORT/PATH, got " + url);
  const auto slash = url.find('/', scheme.size());
  const std::string authority = url.substr(scheme.size(), slash == std::string::npos ? std::string::npos : slash - scheme.size());
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos) die("--http: no port in " + url);
  http_url u;
  u.host = authority.substr(0, colon);
  u.port = std::atoi(authority.c_str() + colon + 1);
  u.path = slash == std::string::npos ? "/" : url.substr(slash);
  if (u.port <= 0 || u.port > 65535) die("--http: bad port in " + url);
  return u;
}

sockaddr_in socket_address(const http_url& u) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(u.port));
  if (::inet_pton(AF_INET, u.host.c_str(), &address.sin_addr) != 1) die("--http: the host must be an IPv4 address: " + u.host);
  return address;
}

// A port that nothing listens on right now (the kernel's pick; released for the front to take).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    die("cannot find a free port");
  ::close(fd);
  return ntohs(address.sin_port);
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct http_response {
  int status = 0;
  std::string session_id;
  bool close = false;  // the server will not take another request on this connection
  bool event_stream = false;
};

// One keep-alive HTTP/1.1 connection, blocking: a session sends one request at a time.
class http_connection {
 public:
  explicit http_connection(const sockaddr_in& address) : address_(address) { open(); }
  ~http_connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  http_connection(const http_connection&) = delete;
  http_connection& operator=(const http_connection&) = delete;

  void reopen() {
    if (fd_ >= 0) ::close(fd_);
    buffer_.clear();
    pos_ = 0;
    open();
  }

  void send(std::string_view request) {
    while (!request.empty()) {
      const ssize_t n = ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die(std::string("HTTP send failed: ") + std::strerror(errno));
      request.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Reads one response; on_message(text) gets every JSON-RPC message of its body: the whole
  // body for application/json, the data of each event for text/event-stream.
  template <typename on_message_t>
  http_response receive(on_message_t&& on_message) {
    std::size_t end;
    while ((end = buffer_.find("\r\n\r\n", pos_)) == std::string::npos)
      if (!fill()) die("the HTTP front closed the connection before answering");
    http_response r;
    std::string_view head(buffer_.data() + pos_, end - pos_);
    const auto first_line_end = head.find("\r\n");
    const std::string_view status_line = head.substr(0, first_line_end);
    if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/") die("bad HTTP status line: " + std::string(status_line));
    r.status = std::atoi(std::string(status_line.substr(9, 3)).c_str());
    r.close = status_line.substr(0, 8) == "HTTP/1.0";
    bool chunked = false;
    long length = -1;
    std::string_view rest = first_line_end == std::string_view::npos ? std::string_view() : head.substr(first_line_end + 2);
    while (!rest.empty()) {
      const auto line_end = rest.find("\r\n");
      const std::string_view line = rest.substr(0, line_end);
      rest = line_end == std::string_view::npos ? std::string_view() : rest.substr(line_end + 2);
      const auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
      if (iequals(name, "content-length")) length = std::atol(std::string(value).c_str());
      else if (iequals(name, "transfer-encoding")) chunked = value.find("chunked") != std::string_view::npos;
      else if (iequals(name, "content-type")) r.event_stream = value.find("text/event-stream") != std::string_view::npos;
      else if (iequals(name, "mcp-session-id")) r.session_id = value;
      else if (iequals(name, "connection")) r.close = iequals(value, "close");
    }
    pos_ = end + 4;
    body_.clear();
    events_.clear();
    if (r.status == 204 || r.status == 304 || r.status / 100 == 1) {
      length = 0;
      chunked = false;
    }
    auto take = [&](std::string_view bytes) {
      if (r.event_stream) feed_events(bytes, on_message);
      else body_.append(bytes);
    };
    if (chunked) {
      for (;;) {
        std::size_t line_end;
        while ((line_end = buffer_.find("\r\n", pos_)) == std::string::npos)
          if (!fill()) die("the HTTP front closed the connection inside a chunked body");
        const std::size_t size = std::strtoul(buffer_.c_str() + pos_, nullptr, 16);
        pos_ = line_end + 2;
        if (size == 0) {  // the last chunk, then trailers up to an empty line
          for (;;) {
            while ((line_end = buffer_.find("\r\n", pos_)) == std::string::npos)
              if (!fill()) die("the HTTP front closed the connection in the trailers");
            const bool empty = line_end == pos_;
            pos_ = line_end + 2;
            if (empty) break;
          }
          break;
        }
        while (buffer_.size() - pos_ < size + 2)
          if (!fill()) die("the HTTP front closed the connection inside a chunk");
        take(std::string_view(buffer_.data() + pos_, size));
        pos_ += size + 2;
      }
    } else if (length >= 0) {
      const auto size = static_cast<std::size_t>(length);
      while (buffer_.size() - pos_ < size)
        if (!fill()) die("the HTTP front closed the connection inside a body");
      take(std::string_view(buffer_.data() + pos_, size));
      pos_ += size;
    } else {  // the body ends with the connection
      while (fill()) {
      }
      take(std::string_view(buffer_.data() + pos_, buffer_.size() - pos_));
      pos_ = buffer_.size();
      r.close = true;
    }
    if (r.event_stream) feed_events("\n\n", on_message);  // an unterminated last event
    else if (!trim(body_).empty()) on_message(std::string_view(body_));
    if (pos_ == buffer_.size()) {
      buffer_.clear();
      pos_ = 0;
    }
    return r;
  }

 private:
  void open() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&address_), sizeof address_) != 0)
      die(std::string("cannot connect to the HTTP front: ") + std::strerror(errno));
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }

  bool fill() {
    if (pos_ > 0 && pos_ == buffer_.size()) {
      buffer_.clear();
      pos_ = 0;
    }
    char chunk[65536];
    for (;;) {
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
  }

  // SSE: `data:` lines of one event joined by newlines; a blank line ends the event.
  template <typename on_message_t>
  void feed_events(std::string_view bytes, on_message_t& on_message) {
    events_.append(bytes);
    std::size_t start = 0;
    for (;;) {
      const auto nl = events_.find('\n', start);
      if (nl == std::string::npos) break;
      std::string_view line(events_.data() + start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      start = nl + 1;
      if (line.empty()) {
        if (!data_.empty()) on_message(std::string_view(data_));
        data_.clear();
        has_data_ = false;
      } else if (line.substr(0, 5) == "data:") {
        line.remove_prefix(5);
        if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        if (has_data_) data_ += '\n';
        data_.append(line);
        has_data_ = true;
      }
    }
    events_.erase(0, start);
  }

  sockaddr_in address_;
  int fd_ = -1;
  std::string buffer_;
  std::size_t pos_ = 0;
  std::string body_;
  std::string events_;
  std::string data_;
  bool has_data_ = false;
};

// One client session over its own connection: handshake, then sequential echo calls.
class http_session {
 public:
  http_session(const sockaddr_in& address, const http_url& url) : connection_(address), url_(url) {}

  void handshake() {
    const std::string init = initialize_request.substr(0, initialize_request.size() - 1);
    bool answered = false;
    const auto r = post(init, [&](std::string_view message) {
      if (response_id(message) == 0) {
        answered = true;
        if (is_error(message)) die("initialize failed: " + std::string(message));
      }
    });
    if (r.status != 200 || !answered) die("initialize: HTTP " + std::to_string(r.status) + " without an answer");
    session_id_ = r.session_id;
    const std::string note = initialized_notification.substr(0, initialized_notification.size() - 1);
    const auto n = post(note, [](std::string_view) {});
    if (n.status / 100 != 2) die("notifications/initialized: HTTP " + std::to_string(n.status));
  }

  // One tools/call echo; returns microseconds from send to the answer; counts errors.
  double call(long id, const std::string& payload, long& errors) {
    std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":")" + payload + "\"}}}";
    clock_type::time_point answered_at{};
    const auto sent = clock_type::now();
    const auto r = post(body, [&](std::string_view message) {
      if (response_id(message) != id) return;
      answered_at = clock_type::now();
      errors += is_error(message);
    });
    if (r.status != 200 || answered_at == clock_type::time_point{})
      die("tools/call " + std::to_string(id) + ": HTTP " + std::to_string(r.status) + " without an answer");
    return micros(answered_at - sent);
  }

 private:
  template <typename on_message_t>
  http_response post(const std::string& body, on_message_t&& on_message) {
    if (reconnect_) connection_.reopen();
    std::string request = "POST " + url_.path + " HTTP/1.1\r\nHost: " + url_.host + ":" + std::to_string(url_.port) +
                          "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    if (!session_id_.empty()) request += "Mcp-Session-Id: " + session_id_ + "\r\nMCP-Protocol-Version: 2025-06-18\r\n";
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    request += body;
    connection_.send(request);
    const auto r = connection_.receive(on_message);
    reconnect_ = r.close;
    return r;
  }

  http_connection connection_;
  const http_url& url_;
  std::string session_id_;
  bool reconnect_ = false;
};

// The HTTP front under test: its own process group, stdin a pipe we hold open (some fronts
// exit when their stdin closes), stdout and stderr to /dev/null unless kept.
class front_process {
 public:
  front_process(const std::vector<std::string>& command, bool keep_stderr) {
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) die("pipe failed");
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    pid_ = ::fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(null_fd, STDOUT_FILENO);
      if (!keep_stderr) ::dup2(null_fd, STDERR_FILENO);
      ::execvp(argv[0], argv.data());
      _exit(127);
    }
    ::close(null_fd);
    ::close(in[0]);
    stdin_ = in[1];
    front_pid_for_cleanup = pid_;
  }
  ~front_process() { stop(); }
  front_process(const front_process&) = delete;
  front_process& operator=(const front_process&) = delete;

  pid_t pid() const { return pid_; }

  // Waits until the front accepts a connection.
  void wait_ready(const sockaddr_in& address, std::chrono::milliseconds timeout) {
    const auto deadline = clock_type::now() + timeout;
    for (;;) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        die("the HTTP front exited before listening");
      }
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const bool up = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
      ::close(fd);
      if (up) return;
      if (clock_type::now() > deadline) die("the HTTP front did not listen within " + std::to_string(timeout.count()) + " ms");
      ::usleep(20000);
    }
  }

  // SIGTERM, up to 5 s for a graceful exit, then SIGKILL; then whatever it started is killed
  // too (servers that outlived it).
  void stop() {
    if (pid_ <= 0) return;
    const auto tree = process_tree(pid_);
    ::kill(pid_, SIGTERM);
    ::close(stdin_);
    const auto deadline = clock_type::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (clock_type::now() > deadline) {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      ::usleep(5000);
    }
    for (const pid_t p : tree)
      if (p != pid_) ::kill(p, SIGKILL);  // a no-op for those already gone
    pid_ = -1;
    front_pid_for_cleanup = -1;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
};

int run_http(const options& o) {
  std::string url = o.http_url;
  std::vector<std::string> command = o.command;
  if (url.find("{port}") != std::string::npos) {
    const std::string port = std::to_string(free_port());
    url = replace_all(url, "{port}", port);
    for (auto& a : command) a = replace_all(a, "{port}", port);
  }
  const http_url target_url = parse_url(url);
  const sockaddr_in address = socket_address(target_url);
  const long sessions = std::max(1L, o.sessions);
  const long per_session = std::max(1L, (o.calls + sessions - 1) / sessions);
  const std::string payload(static_cast<std::size_t>(std::max(0L, o.payload)), 'x');

  front_process front(command, o.server_stderr);
  const auto started = clock_type::now();
  front.wait_ready(address, std::chrono::seconds(60));
  const double listen_us = micros(clock_type::now() - started);

  // Every session does its handshake and warm-up; then all start measuring together. The
  // barrier's completion steps run while every session waits: the first reads the counters and
  // starts the clock, the second reads them again while every session is still open.
  clock_type::time_point measure_begin;
  tree_usage before, after;
  int phase = 0;
  std::barrier sync(static_cast<std::ptrdiff_t>(sessions), [&]() noexcept {
    if (phase++ == 0) {
      before = measure_tree(front.pid());
      measure_begin = clock_type::now();
    } else {
      after = measure_tree(front.pid());
    }
  });
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(sessions));
  std::vector<clock_type::time_point> finished(static_cast<std::size_t>(sessions));
  std::vector<long> errors(static_cast<std::size_t>(sessions), 0);
  std::vector<double> handshakes(static_cast<std::size_t>(sessions), 0);
  std::vector<std::thread> threads;
  for (long k = 0; k < sessions; ++k) {
    threads.emplace_back([&, k] {
      const auto i = static_cast<std::size_t>(k);
      const auto t0 = clock_type::now();
      http_session client(address, target_url);
      client.handshake();
      handshakes[i] = micros(clock_type::now() - t0);
      long warm_errors = 0;
      for (long c = 0; c < o.warmup; ++c) client.call(1 + c, payload, warm_errors);
      latencies[i].reserve(static_cast<std::size_t>(per_session));
      sync.arrive_and_wait();
      for (long c = 0; c < per_session; ++c) latencies[i].push_back(client.call(1 + o.warmup + c, payload, errors[i]));
      finished[i] = clock_type::now();
      sync.arrive_and_wait();
    });
  }
  for (auto& t : threads) t.join();
  front.stop();

  const auto measure_end = *std::max_element(finished.begin(), finished.end());
  std::vector<double> all;
  all.reserve(static_cast<std::size_t>(per_session * sessions));
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  std::sort(handshakes.begin(), handshakes.end());
  long error_count = 0;
  for (const long e : errors) error_count += e;
  const long calls = per_session * sessions;
  const double seconds = std::chrono::duration<double>(measure_end - measure_begin).count();
  std::printf(
      " sessions=%ld calls=%ld seconds=%.4f calls_per_s=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f"
      " errors=%ld front_cpu_us_per_call=%.2f tree_cpu_us_per_call=%.2f front_rss_kb=%ld front_hwm_kb=%ld"
      " tree_rss_kb=%ld tree_processes=%zu listen_us=%.0f handshake_p50_us=%.0f handshake_max_us=%.0f\n",
      sessions, calls, seconds, static_cast<double>(calls) / seconds, percentile(all, 0.5), percentile(all, 0.9),
      percentile(all, 0.99), all.empty() ? 0.0 : all.back(), error_count,
      (after.front_cpu_ns - before.front_cpu_ns) / 1000.0 / static_cast<double>(calls),
      (after.tree_cpu_ns - before.tree_cpu_ns) / 1000.0 / static_cast<double>(calls), after.front_rss_kb,
      after.front_hwm_kb, after.tree_rss_kb, after.processes, listen_us, percentile(handshakes, 0.5),
      handshakes.back());
  return error_count == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  const options o = parse(argc, argv);
  if (!o.http_url.empty()) {
    std::printf("label=%s mode=http", o.label.empty() ? "-" : o.label.c_str());
    return run_http(o);
  }
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
  std::printf(
      " calls=%ld window=%ld seconds=%.4f calls_per_s=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f"
      " max_us=%.1f errors=%ld child_cpu_us_per_call=%.2f child_rss_kb=%ld child_hwm_kb=%ld"
      " startup_us=%.0f\n",
      o.calls, window, r.seconds, static_cast<double>(o.calls) / r.seconds,
      percentile(r.latencies_us, 0.5), percentile(r.latencies_us, 0.9), percentile(r.latencies_us, 0.99),
      r.latencies_us.empty() ? 0.0 : r.latencies_us.back(), r.errors, cpu_us / static_cast<double>(o.calls),
      rss, hwm, startup_us);
  return r.errors == 0 ? 0 : 3;
}
