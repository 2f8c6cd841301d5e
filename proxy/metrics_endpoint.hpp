#pragma once
// The metrics listener: /metrics (Prometheus text format 0.0.4) plus the probes every listener of
// ours answers (/healthz, /readyz), with serve's TLS, bearer token and Host checks
// (transports::http_server). Single-threaded: runs on the executor given; the registry may be
// updated from any thread and must outlive the endpoint's io_context run.
#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "transports/http_listen.hpp"

namespace warden::metrics {
class registry;
}
namespace warden::transports {
class http_server;
}

namespace warden::proxy {

class metrics_endpoint {
 public:
  // `ready` answers /readyz (200 when true, 503 otherwise).
  metrics_endpoint(boost::asio::any_io_executor executor, transports::http_listen_options options,
                   const metrics::registry& registry, std::function<bool()> ready);
  ~metrics_endpoint();
  metrics_endpoint(const metrics_endpoint&) = delete;
  metrics_endpoint& operator=(const metrics_endpoint&) = delete;

  result<bool> listen();
  std::string url() const;  // e.g. "http://127.0.0.1:9464/metrics", valid after listen()
  // Accepts in the background until stop().
  void start();
  void stop();

 private:
  boost::asio::any_io_executor executor_;
  const metrics::registry& registry_;
  std::shared_ptr<transports::http_server> server_;
};

}  // namespace warden::proxy
