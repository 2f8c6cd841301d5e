#pragma once
// A server started as a child process with its stdin/stdout as a message stream. The child gets
// exactly the argv given and the inherited environment edited as asked. It leads a process group
// of its own, so that stopping it also stops what a wrapper (npx, uv, sh -c) started under it, and
// it dies with mcp-warden (PR_SET_PDEATHSIG, SIGKILL) even if mcp-warden itself is killed.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <map>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

#include "base/result.hpp"
#include "transports/server_link.hpp"
#include "transports/stream.hpp"

namespace warden::transports {

// Inherited variables that make a program load or run code chosen by whoever set them. Dropped
// from the server's environment with --scrub-env (an explicit --env still sets them).
inline constexpr const char* code_injection_variables[] = {
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
    "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONINSPECT", "PERL5OPT", "PERL5DB", "RUBYOPT",
    "BASH_ENV", "ENV", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH"};

struct child_spec {
  std::vector<std::string> argv;                 // argv[0] is looked up on PATH unless it has '/'
  std::map<std::string, std::string> extra_env;  // set (or overridden) in the child's environment
  std::vector<std::string> drop_env;             // names removed from the inherited environment
  int stderr_fd = -1;                            // child's stderr; -1: inherit ours
  std::size_t max_message_bytes = 64u << 20;
};

class child_process : public server_link {
 public:
  virtual pid_t pid() const = 0;
};

// Fails with a clear message when the command cannot be found or started.
result<std::unique_ptr<child_process>> spawn_child(boost::asio::any_io_executor executor,
                                                   const child_spec& spec);

// The display form of an argv: words quoted only where needed. For logs and identities.
std::string describe_argv(const std::vector<std::string>& argv);

}  // namespace warden::transports
