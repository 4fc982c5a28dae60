// hf_config.cpp: reading config.json as transformers' ModelConfig and modeling_gpt2.py read it. A field the engine does
// not compute as Hugging Face would is refused here, by name, before a byte of the weights is read: a checkpoint that
// converted without it would give other logits and no error.
#include "arcscope/formats/hf_config.h"

#include <cmath>
#include <initializer_list>
#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"

namespace arcscope {

namespace {

const std::string kWhere = "config.json: ";

bool is_integer(const Json& v) {
    return v.is_number() && v.number == std::floor(v.number) && std::fabs(v.number) < 2e9;
}

// A field under any of its names (ModelConfig maps num_hidden_layers to n_layer and so on); two names that disagree
// are refused, since which one a reader takes depends on the reader.
int integer(const Json& j, std::initializer_list<const char*> keys) {
    const char* found = nullptr;
    int value = 0;
    for (const char* k : keys) {
        const Json* v = j.find(k);
        if (!v) continue;
        require(is_integer(*v), kWhere + k + " must be an integer");
        if (!found) {
            found = k, value = int(v->number);
        } else if (int(v->number) != value) {
            throw Error(kWhere + found + " " + std::to_string(value) + " and " + k + " " +
                        std::to_string(int(v->number)) + " disagree: give one");
        }
    }
    require(found, kWhere + "missing " + *keys.begin());
    return value;
}

// A true/false field, or `fallback` where it is absent (null is ModelConfig's default too).
bool flag(const Json& j, const char* key, bool fallback) {
    const Json* v = j.find(key);
    if (!v || v->kind == Json::Kind::Null) return fallback;
    require(v->kind == Json::Kind::Bool, kWhere + key + " must be true or false");
    return v->boolean;
}

// A field that must keep the value arcscope computes; `why` says what arcscope does instead.
void require_flag(const Json& j, const char* key, bool computed, const char* why) {
    const bool given = flag(j, key, computed);
    require(given == computed, kWhere + key + " " + (given ? "true" : "false") + " is not supported (" + why + ")");
}

std::string quoted(const Json& v) {
    return v.is_string() ? "'" + v.string + "'" : "(not a string)";
}

// Only GPT-2: a Llama or GPT-NeoX config would otherwise read as a GPT-2 of the same sizes and fail later on the
// first tensor name it does not know.
void require_gpt2(const Json& j) {
    const char* only = "arcscope converts GPT-2 checkpoints only today (model_type gpt2, GPT2LMHeadModel)";
    if (const Json* type = j.find("model_type"))
        require(type->is_string() && type->string == "gpt2",
                kWhere + "model_type " + quoted(*type) + " is not supported: " + only);
    if (const Json* arch = j.find("architectures"); arch && arch->kind != Json::Kind::Null) {
        require(arch->is_array(), kWhere + "architectures must be a list of class names");
        for (const Json& a : arch->array)
            require(a.is_string() && a.string.rfind("GPT2", 0) == 0,
                    kWhere + "architectures " + quoted(a) + " is not supported: " + only);
    }
}

// The fields of ModelConfig and PretrainedConfig that change the forward pass, other than the sizes.
void require_gpt2_computation(const Json& j, int n_embd) {
    if (const Json* act = j.find("activation_function")) {
        // transformers' gelu_new, gelu_pytorch_tanh, gelu_fast and gelu_accurate are all the tanh approximation the
        // engine computes, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); "gelu" is the exact erf form.
        const bool tanh_gelu = act->is_string() && (act->string == "gelu_new" || act->string == "gelu_pytorch_tanh" ||
                                                    act->string == "gelu_fast" || act->string == "gelu_accurate");
        require(tanh_gelu, kWhere + "activation_function " + quoted(*act) +
                               " is not supported (arcscope computes GPT-2's gelu_new, the tanh approximation)");
    }
    if (const Json* inner = j.find("n_inner"); inner && inner->kind != Json::Kind::Null)
        require(is_integer(*inner) && int(inner->number) == 4 * n_embd,
                kWhere + "n_inner " + (is_integer(*inner) ? std::to_string(int(inner->number)) : "(not an integer)") +
                    " is not supported (arcscope's MLP is 4 * n_embd = " + std::to_string(4 * n_embd) +
                    " wide; null means the same)");
    require_flag(j, "scale_attn_weights", true, "arcscope scales attention scores by 1/sqrt(head size), as GPT-2 does");
    require_flag(j, "scale_attn_by_inverse_layer_idx", false,
                 "arcscope computes GPT-2's attention scaled by 1/sqrt(head size) only");
    // reorder_and_upcast_attn changes only where Hugging Face rounds (it computes q.k in float32 under half
    // precision); arcscope computes attention in float32 throughout, so either value is what it runs.
    flag(j, "reorder_and_upcast_attn", false);
    require_flag(j, "add_cross_attention", false,
                 "arcscope runs GPT-2 as a decoder alone, with no encoder output to attend to");
    require_flag(j, "is_encoder_decoder", false, "arcscope runs GPT-2 as a decoder alone");
    if (const Json* pruned = j.find("pruned_heads"))
        require(pruned->kind == Json::Kind::Null || (pruned->is_object() && pruned->object.empty()),
                kWhere + "pruned_heads is not supported (arcscope's layers all have n_head heads)");
    require(!j.find("quantization_config"),
            kWhere +
                "quantization_config is not supported (convert the checkpoint's float weights: arcscope "
                "quantizes them itself, to q8 or q16)");
}

}  // namespace

ModelConfig config_from_hf_json(std::string_view text) {
    const Json j = Json::parse_object(text, "config.json");
    require_gpt2(j);
    ModelConfig c;
    c.n_layer = integer(j, {"n_layer", "num_hidden_layers"});
    c.n_head = integer(j, {"n_head", "num_attention_heads"});
    c.n_embd = integer(j, {"n_embd", "hidden_size"});
    c.n_ctx = integer(j, {"n_positions", "n_ctx", "max_position_embeddings"});
    c.n_vocab = integer(j, {"vocab_size"});
    if (const Json* eps = j.find("layer_norm_epsilon")) {
        require(eps->is_number(), kWhere + "layer_norm_epsilon must be a number");
        c.norm_eps = float(eps->number);
    }
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", true);
    require_gpt2_computation(j, c.n_embd);
    c.validate();
    return c;
}

}  // namespace arcscope
