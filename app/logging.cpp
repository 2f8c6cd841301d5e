#include "app/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace warden::app {

result<bool> configure_logging(const std::string& level, const std::string& file) {
  const auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off")
    return error{"unknown log level '" + level + "' (trace, debug, info, warn, error, off)"};
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (file.empty())
      logger = std::make_shared<spdlog::logger>("mcp-warden", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    else
      logger = std::make_shared<spdlog::logger>("mcp-warden",
                                                std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
  } catch (const spdlog::spdlog_ex& e) {
    return error{"cannot open log file '" + file + "': " + e.what()};
  }
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e [mcp-warden %l] %v");
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return true;
}

}  // namespace warden::app
