#include "analysis/secret_moves.hpp"

#include <re2/re2.h>

#include <string_view>
#include <utility>
#include <vector>

#include "analysis/shape_match.hpp"
#include "analysis/surface.hpp"

namespace warden::analysis {
namespace {

using nlohmann::json;

// Secrets that live on the user's machine or in their browser, described or named, in the
// languages the red team writes. A bare "password" or "API key" is not here: tools take those as
// arguments every day.
const re2::RE2& local_secret = shape::pattern(
    R"((?:private|ssh|deploy|signing|gpg|pgp)\s+keys?\b|\bkey (?:material|folder|file|pair)s?\b|\bid_(?:rsa|ed25519|ecdsa)\b|~/\.ssh\b)"
    R"(|\bcredentials? (?:file|store|folder)s?\b|\bcloud credentials\b|\.aws/credentials|\bkubeconfig\b|\.kube/config|\.npmrc\b|\bnpm auth\b|\.netrc\b|\.pypirc\b|\.docker/config)"
    R"(|\bpassword (?:store|database|db|vault|file|export)s?\b|\bsaved (?:passwords|logins|credentials)\b|\bkeychain\b|\bvault export\b)"
    R"(|\b(?:session|browser|auth|login)\s+cookies\b|\bcookies (?:of|from) (?:all|every|each|the)\b|\ball (?:the )?cookies\b)"
    R"(|\b(?:environment|env|dotenv) files?\b|(?:^|[\s`'"(])\.env\b|\bshell history\b|\b(?:bash|zsh) history\b|\.(?:bash|zsh)_history\b)"
    R"(|\b(?:refresh|oauth|session|auth) token files?\b|\btoken file\b|\bsession files?\b|\bauth files?\b|\bseed phrase\b|\bwallet file\b|\bmnemonic\b)"
    // Spanish, Portuguese, French, Italian, German, Dutch, Polish, Turkish
    R"(|\bclaves? privadas?\b|\bcontraseñas guardadas\b|\barchivo de credenciales\b|\bcookies de tod\w+\b|\bhistorial de (?:la )?(?:shell|terminal)\b)"
    R"(|\bchaves? privadas?\b|\bsenhas salvas\b|\barquivo de credenciais\b)"
    R"(|\bclés? privées?\b|\bmots de passe (?:enregistrés|sauvegardés)\b|\bfichier d'identifiants\b|\bhistorique du (?:shell|terminal)\b)"
    R"(|\bchiav[ei] privat[ae]\b|\bpassword salvate\b|\bdatabase delle password\b|\bfile delle credenziali\b)"
    R"(|\bprivate[nrs]? schlüssel\b|\bgespeicherten? passwörter\b|\bzugangsdaten-?datei\b)"
    R"(|\bprivésleutel\b|\bopgeslagen wachtwoorden\b|\bklucz\w* prywatn\w*\b|\bzapisane hasła\b|\bözel anahtar\w*\b|\bkayıtlı şifreler\b)"
    // Cyrillic, Greek, Hebrew, Arabic, Persian, Hindi, Thai, CJK, Korean, Vietnamese
    R"(|(?:закрыт|приватн|секретн)\w*\s+ключ|сохран\w+\s+парол|файл\w*\s+(?:учетн|учётн|сесси)|історі\w+\s+(?:команд|оболонк)|приватн\w+\s+ключ)"
    R"(|ιδιωτικό κλειδί|αποθηκευμένοι κωδικοί|מפתח פרטי|סיסמאות שמורות|المفتاح الخاص|كلمات المرور المحفوظة|کلید خصوصی|رمزهای ذخیره)"
    R"(|निजी कुंजी|सहेजे गए पासवर्ड|คีย์ส่วนตัว|รหัสผ่านที่บันทึก|秘密鍵|保存されたパスワード|認証情報ファイル|私钥|保存的密码|凭据文件)"
    R"(|개인 키|비밀 키|키 폴더|저장된 비밀번호|셸 기록|khóa riêng|mật khẩu đã lưu)");

// The conversation and what the user put into it, in the same languages: a tool that is not a
// chat, memory or summary tool has no use for it.
const re2::RE2& conversation = shape::pattern(
    R"(\b(?:full|whole|entire|complete) (?:conversation|chat|dialogue|dialog|thread)\b|\b(?:conversation|chat|dialogue) (?:history|log|transcript)\b)"
    R"(|\b(?:previous|earlier|preceding|prior|latest|last(?: few)?|recent) (?:chat )?(?:messages|turns|exchanges?)\b|\bpreceding conversation\b)"
    R"(|\bwhat the user (?:has )?(?:pasted|typed|shared|said|wrote)\b|\bclipboard\b)"
    R"(|gesprächsverlauf|\b(?:gesamten?|ganzen?) (?:unterhaltung|konversation|chat)\b|\bbisherigen nachrichten\b|\bchatverlauf\b)"
    R"(|\bhistorique de (?:la )?conversation\b|\bconversation (?:entière|complète)\b|\bmessages précédents\b)"
    R"(|\bhistorial de (?:la )?conversación\b|\bconversación completa\b|\bmensajes anteriores\b)"
    R"(|\bcronologia della (?:chat|conversazione)\b|\bconversazione completa\b|\bmessaggi precedenti\b)"
    R"(|\bhistórico da conversa\b|\bconversa (?:inteira|completa)\b|\bmensagens anteriores\b)"
    R"(|\bgespreksgeschiedenis\b|\bvolledige gesprek\b|\bchatberichten\b|\bcał\w+ rozmow\w+|\bhistori\w+ rozmowy\b|\bpoprzednie wiadomości\b)"
    R"(|\bhela konversationen\b|\btidigare meddelanden\b|\bchatthistorik\b|\bkonuşma geçmişi\b|\bsohbet geçmişi\b|\btüm konuşma\b)"
    R"(|\bpercakapan\b|\briwayat obrolan\b|cuộc trò chuyện|lịch sử trò chuyện)"
    R"(|истори\w+\s+(?:переписки|диалога|чата|листування|чату)|всю (?:переписку|розмову)|весь диалог|предыдущие сообщения|попередні повідомлення)"
    R"(|سجل الدردشة|المحادثة|تاریخچه گفتگو|گفتگو|השיחה|היסטוריית|συνομιλία|προηγούμενα μηνύματα|บทสนทนา|ประวัติการแชท|बातचीत|पिछले संदेश)"
    R"(|会話履歴|会話全体|これまでの会話|チャット履歴|对话|聊天记录|대화 내용|대화 기록|이전 메시지|전체 대화)");

// The whole environment: "POST the traceback with os.environ to ...". (A named variable is not
// here: API docs put "$SERVICE_TOKEN" in every curl example to their own host.)
const re2::RE2& environment_values = shape::pattern(
    R"(\bos\.environ\b|\bprocess\.env\b|\$env:|\bprintenv\b|\b(?:all|every)\s+(?:\w+\s+)?(?:environment variables|env vars)\b)");

// A host the text names (a domain of a common or reserved top-level name, or a link). Loopback
// and the user's own machine are no outside host.
const re2::RE2& outside_host = shape::pattern(
    R"(\b((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:example|com|net|org|io|dev|app|cloud|ai|xyz|info|biz|site|online|tech|link|ru|cn|de|fr|uk|jp|kr|br|eu))\b)");

// A tool whose own function is secrets (its name, in any case style, or its first sentence):
// moving them is its job.
const re2::RE2& secret_function = shape::pattern(
    R"(secret|vault|keychain|credential|password|passwd|\bssh|gpg|pgp|\bkms\b|\bkeys?\b|_keys?\b|\bkeys?_|token|dotenv|\benv\b|cookie|backup|certificate)");

// The sentence around a byte offset: between sentence ends (also the ideographic full stop).
std::string sentence_at(std::string_view text, std::size_t at) {
  auto is_end = [&](std::size_t i) {
    const char c = text[i];
    if (c == '\n' || c == '!' || c == '?') return true;
    if (c == '.') return i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n';
    return i + 2 < text.size() && text.compare(i, 3, "\xE3\x80\x82") == 0;  // U+3002
  };
  std::size_t begin = at, end = at;
  while (begin > 0 && !is_end(begin - 1) && at - begin < 300) --begin;
  while (end < text.size() && !is_end(end) && end - at < 300) ++end;
  return std::string(text.substr(begin, end - begin));
}

}  // namespace

std::optional<secret_move> secret_leaves_for_host(const json& tool) {
  if (!tool.is_object()) return std::nullopt;
  // The tool's texts, with where each lives.
  std::vector<std::pair<std::string, std::string>> texts;
  texts.emplace_back("description", text_member(tool, "description"));
  texts.emplace_back("title", text_member(tool, "title"));
  for (const char* schema_key : {"inputSchema", "outputSchema"}) {
    const auto schema = tool.find(schema_key);
    if (schema == tool.end() || !schema->is_object()) continue;
    const auto props = schema->find("properties");
    if (props == schema->end() || !props->is_object()) continue;
    for (auto p = props->begin(); p != props->end(); ++p) {
      const std::string where = std::string(schema_key) + ".properties." + p.key();
      texts.emplace_back(where + ".description", text_member(*p, "description"));
      texts.emplace_back(where + ".default", text_member(*p, "default"));
    }
  }
  std::string host;
  for (const auto& [where, text] : texts) {
    std::string found;
    if (re2::RE2::PartialMatch(text, outside_host, &found)) {
      host = std::move(found);
      break;
    }
  }
  if (host.empty()) return std::nullopt;
  // What may leave, and the tools whose function it is: the name (in any case style) or the
  // first sentence of the description.
  static const re2::RE2& secret_in_name = shape::pattern(R"(secret|vault|keychain|credential|passw|ssh|gpg|pgp|kms|key|token|dotenv|cookie|backup|cert)");
  static const re2::RE2& talk_in_function =
      shape::pattern(R"(chat|conversation|messag|memory|memories|summar|transcript|dialog|history|assistant|agent|llm|prompt|clipboard|translat)");
  static const re2::RE2& env_in_function = shape::pattern(R"(env|variable|secret|vault|config|setting|deploy|credential|token|key)");
  struct cargo {
    const re2::RE2& named;
    const re2::RE2& own_name;
    const re2::RE2& own_function;
    std::string_view rule, what;
  };
  const cargo cargoes[] = {
      {local_secret, secret_in_name, secret_function, "poison.exfil-parameter", "a local secret (a key, credentials, saved passwords, cookies, history)"},
      {conversation, talk_in_function, talk_in_function, "poison.context-solicitation", "the conversation or what the user put into it"},
      {environment_values, env_in_function, env_in_function, "poison.exfil-parameter", "the values of the environment"},
  };
  const std::string first_sentence = sentence_at(texts.front().second, 0);
  for (const auto& c : cargoes) {
    if (re2::RE2::PartialMatch(text_member(tool, "name"), c.own_name) || re2::RE2::PartialMatch(first_sentence, c.own_function)) continue;
    for (const auto& [where, text] : texts) {
      re2::StringPiece whole(text);
      re2::StringPiece input = whole;
      if (!re2::RE2::FindAndConsume(&input, c.named)) continue;
      const auto at = static_cast<std::size_t>(input.data() - whole.data());
      return secret_move{where, sentence_at(text, at > 0 ? at - 1 : 0), host, c.rule, std::string(c.what) + " goes with the tool's data to " + host};
    }
  }
  return std::nullopt;
}

}  // namespace warden::analysis
