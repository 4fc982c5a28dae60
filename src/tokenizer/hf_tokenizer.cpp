// hf_tokenizer.cpp: reading tokenizer.json (everything refused is refused before the vocabulary is built), and the
// encode / decode pipelines in Hugging Face's order.
#include "arcscope/tokenizer/hf_tokenizer.h"

#include <sys/stat.h>

#include "added_tokens.h"
#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/core/json.h"
#include "arcscope/core/utf8.h"
#include "bpe_model.h"
#include "decoders.h"
#include "hf_json.h"
#include "normalizers.h"
#include "post_processors.h"
#include "pre_tokenizers.h"

namespace arcscope {

struct HfTokenizer::Impl {
    std::unique_ptr<hf::Normalizer> normalizer;
    std::unique_ptr<hf::PreTokenizer> pre_tokenizer;
    std::unique_ptr<hf::BpeModel> model;
    std::unique_ptr<hf::PostProcessor> post_processor;
    std::unique_ptr<hf::Decoder> decoder;
    hf::AddedTokenMatcher raw_tokens, normalized_tokens;  // looked for before / after the normalizer
    std::vector<std::string> texts;                       // id -> the token as the file writes it
    std::vector<bool> defined;                            // whether an id has a token
    int bos = -1, eos = -1;
    mutable std::vector<std::string> pieces;

    void check_id(int id) const {
        require(id >= 0 && id < int(texts.size()) && defined[id], "token id " + std::to_string(id) +
                                                                      " is not in this tokenizer's vocabulary (of " +
                                                                      std::to_string(texts.size()) + ")");
    }

    // A part of the text between added tokens: normalize, look for normalized added tokens, pre-tokenize, BPE.
    void encode_section(std::string_view section, bool first_section, std::vector<int>& ids) const {
        std::string normalized;
        if (normalizer) {
            normalized.assign(section);
            normalizer->apply(normalized);
            section = normalized;
        }
        if (section.empty()) return;
        normalized_tokens.split(
            section,
            [&](std::string_view words) {
                pieces.assign(1, std::string(words));
                if (pre_tokenizer) pre_tokenizer->split(pieces, first_section && words.data() == section.data());
                for (const std::string& w : pieces) model->encode(w, ids);
            },
            [&](int id) { ids.push_back(id); });
    }
};

namespace {

constexpr size_t kMaxTokenizerBytes = size_t(256) << 20;

hf::AddedToken added_token(const Json& t, size_t index) {
    const std::string at = "added_tokens[" + std::to_string(index) + "]";
    hf::AddedToken token;
    token.content = hf::string_field(t, "content", at);
    const Json& id = hf::member(t, "id", at);
    if (!id.is_number() || id.number < 0 || id.number >= (1 << 24) || id.number != double(int(id.number)))
        hf::refuse(at, "'id' must be a whole number in [0, 2^24)");
    token.id = int(id.number);
    token.special = hf::bool_field(t, "special", false, at);
    token.normalized = hf::bool_field(t, "normalized", !token.special, at);
    token.lstrip = hf::bool_field(t, "lstrip", false, at);
    token.rstrip = hf::bool_field(t, "rstrip", false, at);
    if (hf::bool_field(t, "single_word", false, at))
        hf::refuse(at, "'" + token.content + "' has single_word true, which is not supported");
    return token;
}

// bos_token / eos_token of tokenizer_config.json: a string, or an object with "content".
std::string config_token(const Json& config, const char* key) {
    const Json* v = config.find(key);
    if (!v) return {};
    if (v->is_string()) return v->string;
    if (const Json* c = v->find("content"); c && c->is_string()) return c->string;
    return {};
}

bool is_directory(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;
HfTokenizer::~HfTokenizer() = default;

HfTokenizer HfTokenizer::from_json(std::string_view tokenizer_json, std::string_view config_json) {
    require(tokenizer_json.size() <= kMaxTokenizerBytes,
            "tokenizer.json: " + std::to_string(tokenizer_json.size()) + " bytes (at most 256 MB)");
    const Json json = Json::parse_object(tokenizer_json, "tokenizer.json");
    const Json config = config_json.empty() ? Json{} : Json::parse_object(config_json, "tokenizer_config.json");

    // 1. what the file asks for, refused by name before any work
    const Json& model = hf::member(json, "model", "tokenizer.json");
    if (!model.is_object()) hf::refuse("model", "must be an object");
    const Json* type = model.find("type");
    const std::string model_type = type && type->is_string() ? type->string : (model.find("merges") ? "BPE" : "");
    if (model_type != "BPE")
        throw Error("tokenizer.json: model type " + (model_type.empty() ? "(none given)" : model_type) +
                    " is not supported (supported: BPE)");
    if (const Json* t = json.find("truncation"); t && t->kind != Json::Kind::Null)
        hf::refuse("truncation", "is not supported (arcscope encodes whole texts; set it to null)");
    if (const Json* p = json.find("padding"); p && p->kind != Json::Kind::Null)
        hf::refuse("padding", "is not supported (set it to null)");
    auto impl = std::make_unique<Impl>();
    const Json null;
    auto part = [&](const char* key) -> const Json& {
        const Json* v = json.find(key);
        return v ? *v : null;
    };
    impl->normalizer = hf::Normalizer::from_json(part("normalizer"), "normalizer");
    impl->pre_tokenizer = hf::PreTokenizer::from_json(part("pre_tokenizer"), "pre_tokenizer");
    impl->post_processor = hf::PostProcessor::from_json(part("post_processor"), "post_processor");
    impl->decoder = hf::Decoder::from_json(part("decoder"), "decoder");
    std::vector<hf::AddedToken> added;
    if (const Json& list = part("added_tokens"); list.kind != Json::Kind::Null) {
        if (!list.is_array()) hf::refuse("added_tokens", "must be an array");
        for (size_t i = 0; i < list.array.size(); ++i) added.push_back(added_token(list.array[i], i));
    }

    // 2. the model, then every id's text
    impl->model = std::make_unique<hf::BpeModel>(model, impl->pre_tokenizer && impl->pre_tokenizer->byte_level());
    auto define = [&](int id, const std::string& text) {
        if (id >= int(impl->texts.size())) {
            impl->texts.resize(size_t(id) + 1);
            impl->defined.resize(size_t(id) + 1);
        }
        impl->texts[id] = text;
        impl->defined[id] = true;
    };
    for (const auto& [text, id] : impl->model->vocabulary()) define(id, text);
    for (hf::AddedToken& t : added) {
        define(t.id, t.content);
        if (t.normalized && impl->normalizer) {
            impl->normalizer->apply(t.content);
            impl->normalized_tokens.add(t);
        } else {
            impl->raw_tokens.add(t);
        }
    }
    auto id_of = [&](const std::string& text) {
        for (const hf::AddedToken& t : added)
            if (t.content == text) return t.id;
        return text.empty() ? -1 : impl->model->id_of(text);
    };
    impl->bos = id_of(config_token(config, "bos_token"));
    impl->eos = id_of(config_token(config, "eos_token"));
    return HfTokenizer(std::move(impl));
}

HfTokenizer HfTokenizer::load(const std::string& file_or_folder) {
    std::string file = file_or_folder, folder;
    if (is_directory(file_or_folder)) {
        folder = file_or_folder + "/";
        file = folder + "tokenizer.json";
        require(is_file(file), file_or_folder + ": a folder without tokenizer.json (Hugging Face's tokenizer file)");
    } else {
        const size_t slash = file.find_last_of('/');
        folder = slash == std::string::npos ? "" : file.substr(0, slash + 1);
    }
    const std::string config_path = folder + "tokenizer_config.json";
    const std::string text = read_file_text(file);
    const std::string config = is_file(config_path) ? read_file_text(config_path) : std::string();
    try {
        return from_json(text, config);
    } catch (const Error& e) {
        throw Error(file + ": " + e.what());
    }
}

std::vector<int> HfTokenizer::encode(std::string_view text, bool add_special_tokens) const {
    std::string repaired;
    if (!is_valid_utf8(text)) {
        repaired = repair_utf8(text);
        text = repaired;
    }
    std::vector<int> ids;
    ids.reserve(text.size() / 3 + 4);
    const Impl& m = *impl_;
    m.raw_tokens.split(
        text, [&](std::string_view section) { m.encode_section(section, section.data() == text.data(), ids); },
        [&](int id) { ids.push_back(id); });
    if (add_special_tokens && m.post_processor) m.post_processor->apply(ids);
    return ids;
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (int id : ids) {
        impl_->check_id(id);
        tokens.push_back(impl_->texts[id]);
    }
    if (impl_->decoder) impl_->decoder->apply(tokens, true);
    std::string out;
    for (const std::string& t : tokens) out += t;
    return repair_utf8(out);
}

std::string HfTokenizer::token_text(int id) const {
    return repair_utf8(token_bytes(id));
}

std::string HfTokenizer::token_bytes(int id) const {
    impl_->check_id(id);
    // The decoder would turn a lone "<0xE4>" into U+FFFD: its byte is what the token stands for in a text.
    if (const int byte = impl_->model->fallback_byte(id); byte >= 0) return std::string(1, char(byte));
    std::vector<std::string> tokens{impl_->texts[id]};
    if (impl_->decoder) impl_->decoder->apply(tokens, false);
    std::string out;
    for (const std::string& t : tokens) out += t;
    return out;
}

std::vector<TokenSpan> HfTokenizer::token_spans(const std::vector<int>& ids) const {
    std::vector<std::string> pieces;
    pieces.reserve(ids.size());
    for (int id : ids) pieces.push_back(token_bytes(id));
    return spans_of_pieces(pieces);
}

int HfTokenizer::vocab_size() const {
    return int(impl_->texts.size());
}
int HfTokenizer::bos_id() const {
    return impl_->bos;
}
int HfTokenizer::eos_id() const {
    return impl_->eos;
}

}  // namespace arcscope
