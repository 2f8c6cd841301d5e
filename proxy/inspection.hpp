#pragma once
// The inspection chain: observers and deciders that see every relayed message once it is parsed.
// Inspectors run on the session's thread, must not block, and must not throw; the session catches
// anything they throw anyway, logs it, counts it and forwards the message unchanged (fail open).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "protocol/jsonrpc.hpp"

namespace warden::proxy {

// The proxy works in the protocol layer's terms (protocol/jsonrpc.hpp): a classified message.
using protocol::message;

enum class direction { client_to_server,
                       server_to_client };

// What the session knows about a message beyond its own bytes.
struct message_context {
  direction from = direction::client_to_server;
  std::string_view raw;  // the original bytes as read
};

struct verdict {
  // ask (client requests only): the session holds the request, sends `question` to the client as
  // the params of an elicitation/create of its own, and applies resume(answer) once the client
  // answers (answer = the client's whole response), or resume(nullptr) after `ask_timeout` or when
  // asking is impossible (e.g. inside a batch). resume must not return ask again.
  enum class action { forward,
                      replace,
                      block,
                      ask };
  struct parts {
    nlohmann::json replacement;                                   // replace: the message to send instead
    nlohmann::json reply;                                         // block of a request: the response sent back to its sender
    nlohmann::json question;                                      // ask: elicitation/create params
    std::function<verdict(const nlohmann::json* answer)> resume;  // ask: the final verdict
    std::chrono::milliseconds ask_timeout{120000};
  };
  action what = action::forward;
  std::string reason;  // for logs and the audit trail

  // The rest, made on first use. Nearly every verdict is a forward that needs none of it, and
  // several are made, moved and dropped per relayed message.
  parts& more() {
    if (!parts_) parts_ = std::make_unique<parts>();
    return *parts_;
  }

  static verdict forward() { return {}; }

 private:
  std::unique_ptr<parts> parts_;
};

class inspector {
 public:
  virtual ~inspector() = default;
  virtual std::string_view name() const = 0;
  virtual verdict inspect(const message& msg, const message_context& context) = 0;
  // Whether inspect() reads msg.doc. A message nobody needs the document of is inspected without
  // it (msg.has_document false; its values can be read from context.raw, see json_text).
  virtual bool needs_document(const message& msg, direction from) const {
    (void)msg;
    (void)from;
    return true;
  }
};

}  // namespace warden::proxy
