#include <doctest/doctest.h>
#include <cctype>
#include <iterator>
#include <random>

#include "analysis/text.hpp"

using namespace warden::analysis;

TEST_CASE("normalize keeps ASCII as is and maps offsets back") {
  auto n = text::normalize("Ignore This");
  CHECK(n.identity());
  CHECK(n.view() == "Ignore This");
  CHECK(n.original_offset(7) == 7);
}

TEST_CASE("normalize folds look-alike spellings for matching") {
  SUBCASE("full-width letters") {
    std::string raw = "\xEF\xBC\xA9\xEF\xBD\x87\xEF\xBD\x8E\xEF\xBD\x8F\xEF\xBD\x92\xEF\xBD\x85";  // Ｉｇｎｏｒｅ
    auto n = text::normalize(raw);
    CHECK(n.view() == "ignore");
    CHECK(n.original_offset(1) == 3);  // second letter starts at byte 3 of the original
  }
  SUBCASE("Cyrillic letters inside a Latin word") {
    auto n = text::normalize("s\xD0\xB5nd");  // Cyrillic е
    CHECK(n.view() == "send");
  }
  SUBCASE("zero-width characters disappear") {
    auto n = text::normalize("ig\xE2\x80\x8Bnore");
    CHECK(n.view() == "ignore");
  }
  SUBCASE("genuine Russian text stays Cyrillic") {
    auto n = text::normalize("\xD0\xBD\xD0\xB5 \xD1\x81\xD0\xBE\xD0\xBE\xD0\xB1\xD1\x89\xD0\xB0\xD0\xB9");  // не сообщай
    CHECK(n.view() == "\xD0\xBD\xD0\xB5 \xD1\x81\xD0\xBE\xD0\xBE\xD0\xB1\xD1\x89\xD0\xB0\xD0\xB9");
  }
}

TEST_CASE("normalize maps each byte of the view back to the start of its character") {
  // "Zwölf ﬁles: à ig<ZWSP>nore – Süd": a folded word, a ligature that grows, a lone accented
  // letter, a skipped invisible character, punctuation kept as it is.
  const std::string raw =
      "Zw\xC3\xB6lf \xEF\xAC\x81les: \xC3\xA0 ig\xE2\x80\x8Bnore \xE2\x80\x93 S\xC3\xBC"
      "d";
  auto n = text::normalize(raw);
  REQUIRE_FALSE(n.identity());
  CHECK(n.view() == "zwolf files: a ignore \xE2\x80\x93 sud");
  CHECK(n.original_offset(2) == 2);    // o of zwolf: the two bytes of ö start at 2
  CHECK(n.original_offset(3) == 4);    // l, after ö
  CHECK(n.original_offset(6) == 7);    // f of the ligature
  CHECK(n.original_offset(7) == 7);    // i of the ligature: the same character
  CHECK(n.original_offset(8) == 10);   // l, after the three bytes of the ligature
  CHECK(n.original_offset(13) == 15);  // a, from à
  CHECK(n.original_offset(17) == 23);  // n, after the zero-width space
  CHECK(n.original_offset(22) == 28);  // first byte of the dash
  CHECK(n.original_offset(23) == 28);  // its second byte maps to its start too
  CHECK(n.original_offset(26) == 32);  // s of Süd
  CHECK(n.original_offset(27) == 33);  // u, from ü
  CHECK(n.original_offset(n.view().size()) == raw.size());
  CHECK(n.original_offset(n.view().size() + 5) == raw.size());

  // Any text: offsets never go back, stay inside the text and land on the start of a character;
  // a view byte taken from an ASCII byte is that byte, lower-cased (ASCII text is its own view).
  const char* pieces[] = {"a", "Q", "7", " ", "-", "\n", "Long ASCII Stretch", "Wordwithoutspaces42", "\xC3\xA9", "\xC3\x89", "\xC3\x9F", "\xD0\xB0", "\xD1\x80", "\xCE\xA9",
                          "\xEF\xAC\x81", "\xC2\xBD", "\xE2\x80\x8B", "\xC2\xAD", "\xFF", "\xC3", "\xE6\x97\xA5", "\xEF\xBC\xA9", "\xC5\xBF"};
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string t;
    for (std::size_t k = rng() % 30; k > 0; --k) t += pieces[rng() % std::size(pieces)];
    auto m = text::normalize(t);
    CAPTURE(t);
    std::size_t last = 0;
    for (std::size_t i = 0; i < m.view().size(); ++i) {
      const std::size_t from = m.original_offset(i);
      REQUIRE(from < t.size());
      CHECK(from >= last);
      CHECK((static_cast<unsigned char>(t[from]) & 0xC0) != 0x80);
      if (static_cast<unsigned char>(t[from]) < 0x80)
        CHECK(m.view()[i] == (m.identity() ? t[from] : static_cast<char>(std::tolower(static_cast<unsigned char>(t[from])))));
      last = from;
    }
    CHECK(m.original_offset(m.view().size()) == t.size());
  }
}

TEST_CASE("normalize decides a word by a Latin letter anywhere in it, however long") {
  // Cyrillic а folds to a only in a word that also has a Latin letter (or in mostly-Latin text);
  // the letter may come after any number of digits.
  for (std::size_t digits : {0, 14, 15, 16, 17, 31, 32, 40}) {
    std::string tail;
    for (std::size_t k = 0; k < digits; ++k) tail += static_cast<char>('0' + k % 10);
    CAPTURE(digits);
    CHECK(text::normalize("\xD0\xB0" + tail + "X").view() == "a" + tail + "x");
    CHECK(text::normalize("\xD0\xB0" + tail + "X,").view() == "a" + tail + "x,");
    CHECK(text::normalize("\xD0\xB0" + tail).view() == "\xD0\xB0" + tail);
    // A Latin letter after the word's end does not count (the text is mostly Cyrillic).
    const std::string cyrillic_after = " x \xD0\xB6\xD0\xB6\xD0\xB6\xD0\xB6";
    CHECK(text::normalize("\xD0\xB0" + tail + cyrillic_after).view() == "\xD0\xB0" + tail + cyrillic_after);
  }
}

TEST_CASE("normalize counts a long text's letters to decide a lone accented word") {
  // "à" alone is folded to "a" in mostly-Latin text and kept in text that is mostly Cyrillic; the
  // texts are long enough to be counted in many blocks.
  for (std::size_t repeats : {3, 40, 1500}) {
    CAPTURE(repeats);
    std::string latin = "\xC3\xA0 ", cyrillic = "\xC3\xA0 ";
    for (std::size_t k = 0; k < repeats; ++k) {
      latin += "ab \xD0\xB6 ";                     // two Latin letters to one Cyrillic
      cyrillic += "ab \xD0\xB6\xD0\xB6\xD0\xB6 ";  // two to three
    }
    CHECK(text::normalize(latin).view().substr(0, 2) == "a ");
    CHECK(text::normalize(cyrillic).view().substr(0, 3) == "\xC3\xA0 ");
  }
  // Long runs of one kind, counted in lanes that must not overflow: 10,000 Latin letters against
  // 8,000 Cyrillic ones is not mostly Latin, against 6,000 it is.
  std::string run_of_latin;
  for (int k = 0; k < 5000; ++k) run_of_latin += "ab";
  for (auto [cyrillic_letters, folded] : {std::pair{8000, false}, std::pair{6000, true}}) {
    std::string t = "\xC3\xA0 ";
    for (int k = 0; k < cyrillic_letters; ++k) t += "\xD0\xB6";
    CAPTURE(cyrillic_letters);
    CHECK((text::normalize(t + run_of_latin).view().substr(0, 2) == "a ") == folded);
  }
}

TEST_CASE("make_visible never emits raw control, bidi or invisible characters") {
  CHECK(text::make_visible("a\x1b[8mb") == "a\\x1b[8mb");
  CHECK(text::make_visible("x\xE2\x80\xAEy") == "x<U+202E>y");
  CHECK(text::make_visible("line\nnext") == "line\\nnext");
  CHECK(text::make_visible(std::string(20, ' ') + "z") == "<20 spaces>z");
  CHECK(text::make_visible("bad \xFF") == "bad \\xff");
}

TEST_CASE("skeleton equates confusable identifiers") {
  CHECK(text::skeleton("read_fiIe") == text::skeleton("read_file"));
  CHECK(text::skeleton("send_\xD0\xB5mail") == text::skeleton("send_email"));
  CHECK(text::skeleton("read_file") != text::skeleton("write_file"));
}

TEST_CASE("edit_distance stops above its limit") {
  CHECK(text::edit_distance("create_issue", "create_isue", 2) == 1);
  CHECK(text::edit_distance("kitten", "sitting", 3) == 3);
  CHECK(text::edit_distance("a", "abcdefgh", 2) == 3);
}
