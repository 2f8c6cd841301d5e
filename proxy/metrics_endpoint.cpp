#include "proxy/metrics_endpoint.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/beast/http.hpp>

#include "metrics/registry.hpp"
#include "transports/http_server.hpp"

namespace warden::proxy {

namespace asio = boost::asio;
namespace http = boost::beast::http;

metrics_endpoint::metrics_endpoint(asio::any_io_executor executor, transports::http_listen_options options,
                                   const metrics::registry& registry, std::function<bool()> ready)
    : executor_(executor),
      registry_(registry),
      server_(std::make_shared<transports::http_server>(executor, std::move(options), transports::refusal_style::text)) {
  server_->set_readiness(std::move(ready));
}

metrics_endpoint::~metrics_endpoint() = default;

result<bool> metrics_endpoint::listen() { return server_->listen(); }
std::string metrics_endpoint::url() const { return server_->base_url() + "/metrics"; }
void metrics_endpoint::stop() { server_->stop(); }

void metrics_endpoint::start() {
  // The handler keeps the listener alive: connections may outlive this object until the
  // io_context is destroyed. The registry outlives the io_context (see the header).
  std::shared_ptr<transports::http_server> server = server_;
  const metrics::registry* registry = &registry_;
  auto handler = [server, registry](transports::any_stream& stream, transports::http_request& req) -> asio::awaitable<bool> {
    const std::string_view target = req.target();
    const std::string_view path = target.substr(0, target.find('?'));
    if (path != "/metrics") co_return co_await server->send(stream, server->refusal(req, http::status::not_found, "Not found: try /metrics"));
    if (req.method() != http::verb::get) {
      auto res = server->refusal(req, http::status::method_not_allowed, "Method not allowed");
      res.set(http::field::allow, "GET");
      co_return co_await server->send(stream, std::move(res));
    }
    auto res = transports::make_http_response(req, http::status::ok, registry->render(), metrics::text_format);
    res.set(http::field::cache_control, "no-store");
    co_return co_await server->send(stream, std::move(res));
  };
  asio::co_spawn(executor_, server->run(std::move(handler)), asio::detached);
}

}  // namespace warden::proxy
