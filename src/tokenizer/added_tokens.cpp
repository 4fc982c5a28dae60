// added_tokens.cpp: a byte trie over the tokens' contents.
#include "added_tokens.h"

#include <algorithm>

#include "arcscope/core/utf8.h"
#include "hf_regex.h"
#include "unicode_classes.h"

namespace arcscope::hf {

int AddedTokenMatcher::child(int node, unsigned char byte) const {
    const auto& c = nodes_[node].children;
    auto it = std::lower_bound(c.begin(), c.end(), std::make_pair(byte, 0));
    return it != c.end() && it->first == byte ? it->second : -1;
}

void AddedTokenMatcher::add(const AddedToken& token) {
    if (token.content.empty()) return;
    int node = 0;
    for (unsigned char b : token.content) {
        int next = child(node, b);
        if (next < 0) {
            next = int(nodes_.size());
            nodes_.emplace_back();
            auto& c = nodes_[node].children;
            c.insert(std::lower_bound(c.begin(), c.end(), std::make_pair(b, 0)), {b, next});
        }
        node = next;
    }
    if (nodes_[node].token >= 0) return;  // the same content twice: the first one wins
    nodes_[node].token = int(tokens_.size());
    tokens_.push_back(token);
    starts_[static_cast<unsigned char>(token.content[0])] = true;
}

namespace {

// White space (Rust's char::is_whitespace) just before `end` / just after `start`, in bytes.
size_t white_space_before(std::string_view text, size_t floor, size_t end) {
    while (end > floor) {
        size_t start = end - 1;
        while (start > floor && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
        size_t len = 0;
        auto p = reinterpret_cast<const unsigned char*>(text.data());
        if (!is_white_space(decode_utf8(p + start, p + text.size(), len))) break;
        end = start;
    }
    return end;
}
size_t white_space_after(std::string_view text, size_t start) {
    auto p = reinterpret_cast<const unsigned char*>(text.data());
    while (start < text.size()) {
        size_t len = 0;
        if (!is_white_space(decode_utf8(p + start, p + text.size(), len))) break;
        start += len;
    }
    return start;
}

}  // namespace

void AddedTokenMatcher::split(std::string_view text, const std::function<void(std::string_view)>& on_text,
                              const std::function<void(int)>& on_token) const {
    size_t done = 0;  // text before this is handed out
    for (size_t i = 0; i < text.size();) {
        if (!starts_[static_cast<unsigned char>(text[i])]) {
            ++i;
            continue;
        }
        int best = -1;
        size_t best_end = 0;
        for (size_t j = i, node = 0; j < text.size();) {
            int next = child(int(node), static_cast<unsigned char>(text[j]));
            if (next < 0) break;
            node = size_t(next);
            ++j;
            if (nodes_[node].token >= 0) {
                best = nodes_[node].token;
                best_end = j;
            }
        }
        if (best < 0) {
            ++i;
            continue;
        }
        const AddedToken& t = tokens_[best];
        const size_t start = t.lstrip ? white_space_before(text, done, i) : i;
        const size_t end = t.rstrip ? white_space_after(text, best_end) : best_end;
        if (start > done) on_text(text.substr(done, start - done));
        on_token(t.id);
        done = i = end;
    }
    if (done < text.size()) on_text(text.substr(done));
}

}  // namespace arcscope::hf
