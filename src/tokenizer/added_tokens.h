// added_tokens.h: tokenizer.json's "added_tokens" ("<|begin_of_text|>", "<s>", ...), found in the text before the
// normalizer and BPE see it, as Hugging Face does: at each position the longest token that starts there, leftmost
// first; lstrip / rstrip take the white space beside a token into it. Tokens with "normalized": true are looked for in
// the normalized text, the others in the raw text (two AddedTokenMatchers). single_word is refused by name.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace arcscope::hf {

struct AddedToken {
    std::string content;
    int id = -1;
    bool special = false, normalized = false, lstrip = false, rstrip = false;
};

class AddedTokenMatcher {
public:
    void add(const AddedToken& token);
    bool empty() const { return tokens_.empty(); }
    // Cuts `text` into the tokens found and the text between them, in order: text(piece) or token(id).
    void split(std::string_view text, const std::function<void(std::string_view)>& on_text,
               const std::function<void(int)>& on_token) const;

private:
    struct Node {
        std::vector<std::pair<unsigned char, int>> children;  // sorted by byte
        int token = -1;                                       // index into tokens_ of the token ending here
    };
    int child(int node, unsigned char byte) const;
    std::vector<Node> nodes_{Node{}};
    std::vector<AddedToken> tokens_;
    bool starts_[256] = {};  // bytes some token starts with
};

}  // namespace arcscope::hf
