#include "transports/child_process.hpp"

#include <signal.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <sys/syscall.h>

extern char** environ;

namespace warden::transports {

namespace asio = boost::asio;

namespace {

std::vector<std::string> child_environment(const child_spec& spec) {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const std::string name(entry.substr(0, entry.find('=')));
    if (spec.extra_env.count(name)) continue;
    bool dropped = false;
    for (const auto& d : spec.drop_env) dropped = dropped || d == name;
    if (!dropped) entries.emplace_back(entry);
  }
  for (const auto& [name, value] : spec.extra_env) entries.push_back(name + "=" + value);
  return entries;
}

result<std::string> resolve_executable(const std::string& command,
                                       const std::vector<std::string>& env) {
  if (command.empty()) return error{"empty command"};
  if (command.find('/') != std::string::npos) {
    if (::access(command.c_str(), X_OK) != 0)
      return error{"cannot execute '" + command + "': " + std::strerror(errno)};
    return command;
  }
  // PATH as the child will see it (it may come from --env).
  std::string path_value;
  for (const auto& entry : env)
    if (entry.rfind("PATH=", 0) == 0) path_value = entry.substr(5);
  std::string_view rest = path_value;
  while (true) {
    const auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return error{"command not found on PATH: '" + command + "'"};
}

// Completes when the child exits. A pidfd (Linux 5.3+) becomes readable at exit; without one we
// fall back to SIGCHLD, which is only safe because we reap by pid.
class exit_watch {
 public:
  exit_watch(asio::any_io_executor executor, pid_t pid) : pid_(pid), pidfd_(executor), sigchld_(executor) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) pidfd_.assign(fd);
    else sigchld_.add(SIGCHLD);
  }

  // Reaps the child; returns the raw wait status.
  asio::awaitable<int> wait() {
    for (;;) {
      int status = 0;
      const pid_t reaped = ::waitpid(pid_, &status, WNOHANG);
      if (reaped == pid_) co_return status;
      if (reaped < 0 && errno != EINTR) co_return 0;  // someone else reaped it: nothing to report
      error_code ec;
      if (pidfd_.is_open())
        co_await pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                                   asio::redirect_error(asio::use_awaitable, ec));
      else
        co_await sigchld_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted) co_return 0;
    }
  }

 private:
  pid_t pid_;
  asio::posix::stream_descriptor pidfd_;
  asio::signal_set sigchld_;
};

class spawned_child final : public child_process {
 public:
  spawned_child(asio::any_io_executor executor, pid_t pid, int stdin_fd, int stdout_fd,
                std::size_t max_message_bytes)
      : executor_(executor),
        pid_(pid),
        watch_(executor, pid),
        output_(make_fd_reader(executor, stdout_fd, max_message_bytes)),
        input_(make_fd_writer(executor, stdin_fd)) {}

  ~spawned_child() override {
    if (!exited_) {
      // Never leave a zombie or an orphan behind.
      ::kill(-pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }

  message_reader& output() override { return *output_; }
  message_writer& input() override { return *input_; }
  pid_t pid() const override { return pid_; }
  std::string describe() const override { return "server process " + std::to_string(pid_); }

  asio::awaitable<int> async_wait_exit() override {
    const int status = co_await watch_.wait();
    exited_ = true;
    if (WIFSIGNALED(status)) co_return 128 + WTERMSIG(status);
    if (WIFEXITED(status)) co_return WEXITSTATUS(status);
    co_return 0;
  }

  // The whole group: the server and anything a wrapper started. The group id stays valid while
  // any member lives, even after the leader was reaped.
  void request_exit() override { ::kill(-pid_, SIGTERM); }
  void kill() override { ::kill(-pid_, SIGKILL); }

  asio::awaitable<void> async_stop_leftovers(std::chrono::milliseconds grace) override {
    if (!group_alive()) co_return;
    ::kill(-pid_, SIGTERM);
    asio::steady_timer poll(executor_);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (group_alive() && std::chrono::steady_clock::now() < deadline) {
      poll.expires_after(std::chrono::milliseconds(20));
      error_code ignored;
      co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    if (group_alive()) ::kill(-pid_, SIGKILL);
  }

 private:
  bool group_alive() const { return ::kill(-pid_, 0) == 0; }

  asio::any_io_executor executor_;
  pid_t pid_;
  exit_watch watch_;
  std::unique_ptr<message_reader> output_;
  std::unique_ptr<message_writer> input_;
  bool exited_ = false;
};

// Between fork and exec only async-signal-safe calls: everything is prepared before the fork.
[[noreturn]] void exec_child(const char* path, char* const* argv, char* const* envp, int stdin_fd,
                             int stdout_fd, int stderr_fd, int error_pipe, pid_t parent) {
  // No orphan even if mcp-warden is killed outright: the pipes close, and the server goes too.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);
  if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(stdout_fd, STDOUT_FILENO) < 0 ||
      (stderr_fd >= 0 && ::dup2(stderr_fd, STDERR_FILENO) < 0)) {
    const int code = errno;
    (void)!::write(error_pipe, &code, sizeof code);
    ::_exit(127);
  }
  // Dispositions we changed must not leak into the server.
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(path, argv, envp);
  const int code = errno;
  (void)!::write(error_pipe, &code, sizeof code);
  ::_exit(127);
}

std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> out;
  out.reserve(words.size() + 1);
  for (auto& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

// execve's ENOENT for a file that exists means its "#!" interpreter does not: say so, instead of
// a "No such file or directory" that seems to contradict itself.
std::string explain_exec_failure(const std::string& path, int exec_errno) {
  std::string reason = "cannot execute '" + path + "': " + std::strerror(exec_errno);
  if (exec_errno != ENOENT) return reason;
  std::ifstream in(path, std::ios::binary);
  std::string first_line;
  if (!in || !std::getline(in, first_line) || !first_line.starts_with("#!")) return reason;
  std::string_view rest = std::string_view(first_line).substr(2);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  const std::string interpreter(rest.substr(0, rest.find_first_of(" \t\r")));
  return reason + " (its interpreter '" + interpreter + "' was not found)";
}

}  // namespace

result<std::unique_ptr<child_process>> spawn_child(asio::any_io_executor executor,
                                                   const child_spec& spec) {
  if (spec.argv.empty()) return error{"no server command given"};
  std::vector<std::string> env = child_environment(spec);
  auto executable = resolve_executable(spec.argv.front(), env);
  if (!executable) return error{executable.error_message()};

  int in_pipe[2], out_pipe[2], error_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return error{std::string("pipe: ") + std::strerror(errno)};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return error{std::string("pipe: ") + std::strerror(errno)};
  }
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) ::close(fd);
    return error{std::string("pipe: ") + std::strerror(errno)};
  }
  std::vector<std::string> argv_words = spec.argv;
  std::vector<char*> argv = c_strings(argv_words);
  std::vector<char*> envp = c_strings(env);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid == 0)
    exec_child(executable->c_str(), argv.data(), envp.data(), in_pipe[0], out_pipe[1], spec.stderr_fd,
               error_pipe[1], parent);
  const int fork_errno = errno;
  if (pid > 0) ::setpgid(pid, pid);  // also here, so the group exists before we may signal it
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(error_pipe[1]);
  if (pid < 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(error_pipe[0]);
    return error{std::string("fork: ") + std::strerror(fork_errno)};
  }
  // exec succeeded when the error pipe closes without a word (CLOEXEC).
  int exec_errno = 0;
  ssize_t n;
  while ((n = ::read(error_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  ::close(error_pipe[0]);
  if (n > 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    return error{explain_exec_failure(*executable, exec_errno)};
  }
  return std::unique_ptr<child_process>(
      std::make_unique<spawned_child>(executor, pid, in_pipe[1], out_pipe[0], spec.max_message_bytes));
}

std::string describe_argv(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& word : argv) {
    if (!text.empty()) text += ' ';
    const bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`*?;&|<>(){}") == std::string::npos;
    if (plain) {
      text += word;
      continue;
    }
    text += '\'';
    for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

}  // namespace warden::transports
