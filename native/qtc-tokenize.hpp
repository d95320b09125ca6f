// Owns: tokenizing text for training as qtc's runtime tokenizes a prompt (src/runtime/prompt-tokens.ts): the
// added tokens and their spellings, markup split at them, and text cut inside every spelling it holds. A header
// that stands on its own (test/architecture/native-headers.test.ts compiles it alone): it includes what it uses
// and reports a failure by throwing qtc::TokenizeError, which the includer turns into its own error line
// (qtc-finetune.cpp: `internal`). src/training/trainer-build.ts hashes it with the trainer's source.

#pragma once

#include "llama.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace qtc {

// llama.cpp tokenized the same text to two different lengths: a broken vocabulary or build, not bad input.
struct TokenizeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool special) {
    int n = -llama_tokenize(vocab, text.data(), (int32_t) text.size(), nullptr, 0, false, special);
    std::vector<llama_token> t(n);
    if (n > 0 && llama_tokenize(vocab, text.data(), (int32_t) text.size(), t.data(), n, false, special) != n) throw TokenizeError("tokenizer disagreed with itself");
    return t;
}

// Tokenization as qtc's runtime does it (src/runtime/prompt-tokens.ts says why): only the template's own markers
// become added tokens. llama.cpp matches USER_DEFINED added tokens (Qwen3's call, response and think tags) even
// with parse_special off, so a text run is cut inside every added-token spelling it holds, right after the
// spelling's last letter (a pre-tokenizer chunk boundary: the cut changes no merge), and each part is tokenized
// on its own. Runs reach from one marker to the next, markup text and content joined, and also end where the
// trained span starts or stops (the prompt ends there at inference). Each scan is one find per added token over
// the text: linear in the text, however many tags it spells.

// An added token (CONTROL or USER_DEFINED) and its spelling.
struct Added { std::string text; llama_token token; };

// Every added token, longest spelling first (ties by id), as the runtime's token tables sort them.
inline std::vector<Added> added_tokens(const llama_vocab * vocab) {
    std::vector<Added> out;
    const int32_t n = llama_vocab_n_tokens(vocab);
    std::vector<char> buf(256);
    for (llama_token id = 0; id < n; ++id) {
        if (!(llama_vocab_get_attr(vocab, id) & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED))) continue;
        int32_t len = llama_token_to_piece(vocab, id, buf.data(), (int32_t) buf.size(), 0, true);
        if (len < 0) {
            buf.resize((size_t) -len);
            len = llama_token_to_piece(vocab, id, buf.data(), (int32_t) buf.size(), 0, true);
        }
        if (len > 0) out.push_back({std::string(buf.data(), (size_t) len), id});
    }
    std::stable_sort(out.begin(), out.end(), [](const Added & a, const Added & b) {
        return a.text.size() != b.text.size() ? a.text.size() > b.text.size() : a.token < b.token;
    });
    return out;
}

// Where a spelling is cut: after its last letter, else after its first character (ASCII letters: Qwen3's
// spellings are ASCII; a first character of several bytes is kept whole).
inline size_t cut_offset(const std::string & t) {
    for (size_t i = t.size() - 1; i > 0; --i) {
        const unsigned char c = (unsigned char) t[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return i + 1 < t.size() ? i + 1 : 1;
    }
    size_t first = 1;
    while (first < t.size() && ((unsigned char) t[first] & 0xC0) == 0x80) ++first;
    return first;
}

// Plain text's tokens, appended to `out`: never an added token, whatever the text spells.
inline void tokenize_as_text(const llama_vocab * vocab, const std::vector<Added> & added, const std::string & text, std::vector<llama_token> & out) {
    if (text.empty()) return;
    std::vector<size_t> cuts;
    for (const Added & t : added) {
        const size_t off = cut_offset(t.text);
        for (size_t at = text.find(t.text); at != std::string::npos; at = text.find(t.text, at + 1)) cuts.push_back(at + off);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    cuts.push_back(text.size());
    size_t start = 0;
    for (size_t cut : cuts) {
        if (cut <= start) continue;
        for (llama_token t : tokenize(vocab, text.substr(start, cut - start), false)) out.push_back(t);
        start = cut;
    }
}

// One part of markup: text (marker < 0) or a marker token.
struct MarkupPart { std::string text; llama_token marker; };

// Markup split at the added tokens it spells: at each '<' the longest spelling there; spellings that do not
// start with '<' (none in Qwen3) wherever they occur, the first of them by length.
inline std::vector<MarkupPart> split_markup(const std::vector<Added> & added, const std::string & text) {
    std::vector<MarkupPart> parts;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '<') continue;
        const Added * hit = nullptr;
        for (const Added & t : added) {
            if (text.compare(i, t.text.size(), t.text) == 0) { hit = &t; break; }
        }
        if (!hit) continue;
        if (i > start) parts.push_back({text.substr(start, i - start), -1});
        parts.push_back({"", hit->token});
        start = i + hit->text.size();
        i = start - 1;
    }
    if (start < text.size()) parts.push_back({text.substr(start), -1});
    std::vector<MarkupPart> out;
    for (MarkupPart & p : parts) {
        if (p.marker >= 0) { out.push_back(std::move(p)); continue; }
        std::string rest = std::move(p.text);
        while (!rest.empty()) {
            const Added * hit = nullptr;
            for (const Added & t : added) {
                if (t.text[0] != '<' && rest.find(t.text) != std::string::npos) { hit = &t; break; }
            }
            if (!hit) { out.push_back({rest, -1}); break; }
            const size_t at = rest.find(hit->text);
            if (at > 0) out.push_back({rest.substr(0, at), -1});
            out.push_back({"", hit->token});
            rest = rest.substr(at + hit->text.size());
        }
    }
    return out;
}

}  // namespace qtc
