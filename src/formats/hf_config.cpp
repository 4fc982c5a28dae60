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

// GPT-2's class names: a config without model_type is read as GPT-2's, so its architectures must say the same.
void require_gpt2_classes(const Json& j) {
    if (const Json* arch = j.find("architectures"); arch && arch->kind != Json::Kind::Null) {
        require(arch->is_array(), kWhere + "architectures must be a list of class names");
        for (const Json& a : arch->array)
            require(a.is_string() && a.string.rfind("GPT2", 0) == 0,
                    kWhere + "architectures " + quoted(a) +
                        " is not supported for model_type gpt2 (GPT2LMHeadModel; a config without model_type is "
                        "read as GPT-2's)");
    }
}

// A checkpoint quantized by another tool: its weights are not the floats the converter reads.
void refuse_quantized(const Json& j) {
    require(!j.find("quantization_config"),
            kWhere +
                "quantization_config is not supported (convert the checkpoint's float weights: arcscope "
                "quantizes them itself, to q8 or q16)");
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
    refuse_quantized(j);
}

// A number (float fields: epsilons, rope theta, rotary fractions), or `fallback` where absent or null.
double number_or(const Json& j, const char* key, double fallback) {
    const Json* v = j.find(key);
    if (!v || v->kind == Json::Kind::Null) return fallback;
    require(v->is_number(), kWhere + key + " must be a number");
    return v->number;
}

// An integer field, or `fallback` where absent or null.
int integer_or(const Json& j, const char* key, int fallback) {
    const Json* v = j.find(key);
    return !v || v->kind == Json::Kind::Null ? fallback : integer(j, {key});
}

// A number under either of two names (an older and a newer transformers' name), which must agree where both are.
double number_of(const Json& j, const char* key, const char* alias, double fallback) {
    const double a = number_or(j, key, NAN), b = number_or(j, alias, NAN);
    require(std::isnan(a) || std::isnan(b) || a == b,
            kWhere + key + " " + std::to_string(a) + " and " + alias + " " + std::to_string(b) + " disagree: give one");
    return !std::isnan(a) ? a : !std::isnan(b) ? b : fallback;
}

// What none of these decoders computes, in any model_type's config: refused by name rather than converted into a
// model that computes something else. (Each is a model type of its own in transformers, or an option of one.)
void refuse_other_computation(const Json& j) {
    require(!flag(j, "use_sliding_window", false),
            kWhere +
                "use_sliding_window true is not supported (sliding-window attention: arcscope attends to every "
                "earlier position)");
    if (const Json* types = j.find("layer_types"); types && types->kind != Json::Kind::Null) {
        require(types->is_array(), kWhere + "layer_types must be a list");
        for (const Json& t : types->array)
            require(t.is_string() && t.string == "full_attention",
                    kWhere + "layer_types " + quoted(t) + " is not supported (supported: full_attention)");
    }
    for (const char* key :
         {"num_experts", "num_local_experts", "num_experts_per_tok", "n_routed_experts", "moe_intermediate_size"}) {
        const Json* v = j.find(key);
        require(!v || v->kind == Json::Kind::Null || (v->is_number() && v->number == 0),
                kWhere + key + " is not supported (mixture-of-experts MLPs)");
    }
    for (const char* key : {"attn_logit_softcapping", "final_logit_softcapping"}) {
        const Json* v = j.find(key);
        require(!v || v->kind == Json::Kind::Null, kWhere + key + " is not supported (Gemma's soft-capping)");
    }
    require_flag(j, "is_encoder_decoder", false, "arcscope runs decoders alone");
    require_flag(j, "add_cross_attention", false, "arcscope runs decoders alone, with no encoder output to attend to");
    refuse_quantized(j);
}

// One rope_scaling object (or transformers 5's rope_parameters): none, "default", or Llama 3's "llama3" on llama.
RopeScaling read_rope_scaling(const Json* s, Arch arch) {
    RopeScaling out;
    if (!s || s->kind == Json::Kind::Null) return out;
    require(s->is_object(), kWhere + "rope_scaling must be an object");
    const Json* type = s->find("rope_type");
    if (!type) type = s->find("type");  // the older key
    const std::string name = type ? (type->is_string() ? type->string : "(not a string)") : "default";
    if (name == "default") return out;
    const bool llama = arch == Arch::llama;  // the one family whose released models scale their rotary
    require(name == "llama3" && llama, kWhere + "rope_scaling.rope_type '" + name + "' is not supported" +
                                           (llama ? "" : std::string(" for ") + arch_name(arch)) +
                                           " (supported: " + (llama ? "default, llama3" : "default") + ")");
    auto field = [&](const char* key) {
        const Json* v = s->find(key);
        require(v && v->is_number(), kWhere + "rope_scaling of rope_type llama3 lacks " + key);
        return v->number;
    };
    out.kind = RopeScaling::Kind::llama3;
    out.factor = field("factor");
    out.low_freq_factor = field("low_freq_factor");
    out.high_freq_factor = field("high_freq_factor");
    out.original_max_position_embeddings = field("original_max_position_embeddings");
    return out;
}

// rope_scaling, or rope_parameters where transformers 5 writes it; where a config has both, they must agree.
RopeScaling rope_scaling(const Json& j, Arch arch) {
    const Json *s = j.find("rope_scaling"), *p = j.find("rope_parameters");
    const RopeScaling a = read_rope_scaling(s, arch), b = read_rope_scaling(p, arch);
    const bool both = s && s->kind != Json::Kind::Null && p && p->kind != Json::Kind::Null;
    require(!both || (a.kind == b.kind && a.factor == b.factor && a.low_freq_factor == b.low_freq_factor &&
                      a.high_freq_factor == b.high_freq_factor &&
                      a.original_max_position_embeddings == b.original_max_position_embeddings),
            kWhere + "rope_scaling and rope_parameters disagree: give one");
    return s && s->kind != Json::Kind::Null ? a : b;
}

// A rotary number at the top level (`key`) or, as transformers 5 writes it, inside rope_parameters; the two must
// agree where both are given.
double rope_number(const Json& j, const char* key, double fallback) {
    const double top = number_or(j, key, NAN);
    const Json* p = j.find("rope_parameters");
    const double inner = p && p->is_object() ? number_or(*p, key, NAN) : NAN;
    require(std::isnan(top) || std::isnan(inner) || top == inner,
            kWhere + key + " and rope_parameters." + key + " disagree: give one");
    return !std::isnan(top) ? top : !std::isnan(inner) ? inner : fallback;
}

double rope_theta(const Json& j, double fallback) {
    return rope_number(j, "rope_theta", fallback);
}

// The class a checkpoint of this model_type was saved from: its tensors are named after it.
void require_classes(const Json& j, const char* cls, const char* model_type) {
    if (const Json* arch = j.find("architectures"); arch && arch->kind != Json::Kind::Null) {
        require(arch->is_array(), kWhere + "architectures must be a list of class names");
        for (const Json& a : arch->array)
            require(a.is_string() && a.string == cls, kWhere + "architectures " + quoted(a) +
                                                          " is not supported for model_type " + model_type +
                                                          " (supported: " + cls + ")");
    }
}

ModelConfig gpt2_config(const Json& j) {
    require_gpt2_classes(j);
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
    return c;
}

// GPTNeoXConfig and modeling_gpt_neox.py (Pythia): LayerNorms with biases, exact GELU, rotary on the first
// int(head_dim * rotary_pct) dimensions, parallel residual, untied embed_out by default.
ModelConfig gpt_neox_config(const Json& j) {
    require_classes(j, "GPTNeoXForCausalLM", "gpt_neox");
    refuse_other_computation(j);
    ModelConfig c;
    c.arch = Arch::gpt_neox;
    c.n_layer = integer(j, {"num_hidden_layers"});
    c.n_head = integer(j, {"num_attention_heads"});
    c.n_embd = integer(j, {"hidden_size"});
    c.n_vocab = integer(j, {"vocab_size"});
    c.d_mlp = integer(j, {"intermediate_size"});  // GPTNeoXConfig's default (24576) is no model's: required
    c.n_ctx = integer_or(j, "max_position_embeddings", 2048);
    c.norm_eps = float(number_or(j, "layer_norm_eps", 1e-5));
    const std::string act = j.find("hidden_act") ? quoted(*j.find("hidden_act")) : "'gelu'";
    if (act == "'gelu'") {
        c.mlp = MlpKind::gelu_erf;
    } else if (act == "'gelu_new'" || act == "'gelu_pytorch_tanh'" || act == "'gelu_fast'") {
        c.mlp = MlpKind::gelu_tanh;
    } else {
        throw Error(kWhere + "hidden_act " + act +
                    " is not supported for gpt_neox (supported: gelu, and the tanh approximation gelu_new)");
    }
    c.positions = Positions::rotary;
    const double pct =
        number_of(j, "rotary_pct", "partial_rotary_factor", rope_number(j, "partial_rotary_factor", 0.25));
    require(pct > 0 && pct <= 1, kWhere + "rotary_pct " + std::to_string(pct) + " is out of range (0, 1]");
    require(c.n_head > 0 && c.n_embd % c.n_head == 0, kWhere + "hidden_size " + std::to_string(c.n_embd) +
                                                          " is not divisible by num_attention_heads " +
                                                          std::to_string(c.n_head));
    c.rotary_dim = int(c.head_dim() * pct);  // transformers: int(head_size * rotary_pct)
    c.rope_theta = number_of(j, "rotary_emb_base", "rope_theta", rope_theta(j, 10000));
    rope_scaling(j, c.arch);  // refuses any scaling but "default"
    c.parallel_residual = flag(j, "use_parallel_residual", true);
    c.qkv_bias = c.o_bias = flag(j, "attention_bias", true);
    c.mlp_bias = true;
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", false);
    return c;
}

// LlamaConfig, Qwen2Config, Qwen3Config and their modeling files: RMSNorm, rotary over the whole head, grouped-query
// attention, SwiGLU; Qwen2's q/k/v always biased and its o never; Qwen3's per-head q_norm and k_norm.
ModelConfig llama_like_config(const Json& j, Arch arch) {
    const char* type = arch_name(arch);
    require_classes(j,
                    arch == Arch::llama   ? "LlamaForCausalLM"
                    : arch == Arch::qwen2 ? "Qwen2ForCausalLM"
                                          : "Qwen3ForCausalLM",
                    type);
    refuse_other_computation(j);
    ModelConfig c;
    c.arch = arch;
    c.n_layer = integer(j, {"num_hidden_layers"});
    c.n_head = integer(j, {"num_attention_heads"});
    c.n_embd = integer(j, {"hidden_size"});
    c.n_vocab = integer(j, {"vocab_size"});
    c.d_mlp = integer(j, {"intermediate_size"});
    c.n_ctx = integer_or(j, "max_position_embeddings", arch == Arch::llama ? 2048 : 32768);
    c.n_kv_head = integer_or(j, "num_key_value_heads", c.n_head);
    if (arch == Arch::qwen3) {
        c.d_head = integer_or(j, "head_dim", 128);  // Qwen3Config's default, whatever hidden_size / heads is
    } else {
        c.d_head = integer_or(j, "head_dim", 0);  // 0: hidden_size / num_attention_heads
        if (arch == Arch::qwen2 && c.d_head != 0 && c.n_head > 0 && c.d_head * c.n_head != c.n_embd)
            throw Error(kWhere + "head_dim " + std::to_string(c.d_head) +
                        " is not supported for qwen2 (transformers' Qwen2 reads hidden_size / num_attention_heads = " +
                        std::to_string(c.n_embd / c.n_head) + " in some versions, head_dim in others)");
    }
    c.norm = NormKind::rmsnorm;
    c.norm_eps = float(number_or(j, "rms_norm_eps", 1e-6));
    const std::string act = j.find("hidden_act") ? quoted(*j.find("hidden_act")) : "'silu'";
    require(act == "'silu'", kWhere + "hidden_act " + act + " is not supported for " + type + " (supported: silu)");
    c.mlp = MlpKind::swiglu;
    const double partial = rope_number(j, "partial_rotary_factor", 1);
    require(partial == 1, kWhere + "partial_rotary_factor " + std::to_string(partial) + " is not supported for " +
                              type + " (its rotary covers the whole head)");
    c.positions = Positions::rotary;
    c.rope_theta = rope_theta(j, 10000);
    c.rope_scaling = rope_scaling(j, arch);
    const bool bias = flag(j, "attention_bias", false);
    c.qkv_bias = arch == Arch::qwen2 || bias;  // Qwen2's q/k/v projections always have biases, its o none
    c.o_bias = arch != Arch::qwen2 && bias;
    c.mlp_bias = arch == Arch::llama && flag(j, "mlp_bias", false);
    c.qk_norm = arch == Arch::qwen3;
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", false);
    require(c.head_dim() > 0, kWhere + "head_dim must be positive");
    c.rotary_dim = c.head_dim();
    return c;
}

}  // namespace

ModelConfig config_from_hf_json(std::string_view text) {
    const Json j = Json::parse_object(text, "config.json");
    std::string type =
        "gpt2";  // transformers needs model_type; arcscope has always read a config without it as GPT-2's
    if (const Json* t = j.find("model_type")) {
        require(t->is_string(), kWhere + "model_type must be a string");
        type = t->string;
    }
    ModelConfig c;
    if (type == "gpt2") {
        c = gpt2_config(j);
    } else if (type == "gpt_neox") {
        c = gpt_neox_config(j);
    } else if (type == "llama" || type == "qwen2" || type == "qwen3") {
        c = llama_like_config(j, type == "llama" ? Arch::llama : type == "qwen2" ? Arch::qwen2 : Arch::qwen3);
    } else {
        throw Error(kWhere + "model_type " + quoted(*j.find("model_type")) +
                    " is not supported (supported: gpt2, gpt_neox, llama, qwen2, qwen3)");
    }
    if (c.arch != Arch::gpt2 && c.n_head > 0 && c.kv_heads() > 0 && c.n_head % c.kv_heads() != 0)
        throw Error(kWhere + "num_attention_heads " + std::to_string(c.n_head) + " is not a multiple of " +
                    "num_key_value_heads " + std::to_string(c.kv_heads()));
    c.validate();
    return c;
}

}  // namespace arcscope
