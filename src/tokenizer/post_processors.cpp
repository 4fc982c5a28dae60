// post_processors.cpp: the "single" template of TemplateProcessing (one text; a pair of texts is not encoded here).
#include "post_processors.h"

#include "hf_json.h"

namespace arcscope::hf {
namespace {

class Template : public PostProcessor {
public:
    // Each item: the ids of a special token, or (empty) the text's ids.
    explicit Template(std::vector<std::vector<int>> items) : items_(std::move(items)) {}
    void apply(std::vector<int>& ids) const override {
        std::vector<int> out;
        out.reserve(ids.size() + items_.size());
        for (const auto& item : items_) {
            if (item.empty()) out.insert(out.end(), ids.begin(), ids.end());
            else out.insert(out.end(), item.begin(), item.end());
        }
        ids = std::move(out);
    }

private:
    std::vector<std::vector<int>> items_;
};

class Nothing : public PostProcessor {  // ByteLevel: its trim_offsets touches offsets, which arcscope does not keep
public:
    void apply(std::vector<int>&) const override {}
};

class Sequence : public PostProcessor {
public:
    explicit Sequence(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
    void apply(std::vector<int>& ids) const override {
        for (const auto& step : steps_) step->apply(ids);
    }

private:
    std::vector<std::unique_ptr<PostProcessor>> steps_;
};

std::unique_ptr<PostProcessor> template_processing(const Json& json, const std::string& at) {
    const Json& single = member(json, "single", at);
    const Json& specials = member(json, "special_tokens", at);
    if (!single.is_array()) refuse(at, "'single' must be an array");
    std::vector<std::vector<int>> items;
    bool has_text = false;
    for (const Json& item : single.array) {
        if (const Json* seq = item.find("Sequence")) {
            if (string_field(*seq, "id", at + ": Sequence") != "A") refuse(at, "'single' may only hold sequence A");
            if (has_text) refuse(at, "'single' holds sequence A twice");
            has_text = true;
            items.emplace_back();
        } else if (const Json* special = item.find("SpecialToken")) {
            const std::string name = string_field(*special, "id", at + ": SpecialToken");
            const Json* entry = specials.find(name);
            if (!entry) refuse(at, "special token " + name + " is not in 'special_tokens'");
            const Json& ids = member(*entry, "ids", at + ": " + name);
            if (!ids.is_array() || ids.array.empty()) refuse(at, name + ": 'ids' must be a non-empty array");
            std::vector<int> list;
            for (const Json& id : ids.array) {
                if (!id.is_number() || id.number < 0 || id.number >= (1 << 24) || id.number != int(id.number))
                    refuse(at, name + ": ids must be whole numbers in [0, 2^24)");
                list.push_back(int(id.number));
            }
            items.push_back(std::move(list));
        } else {
            refuse(at, "an item of 'single' is neither Sequence nor SpecialToken");
        }
    }
    if (!has_text) refuse(at, "'single' does not hold the text (sequence A)");
    return std::make_unique<Template>(std::move(items));
}

}  // namespace

std::unique_ptr<PostProcessor> PostProcessor::from_json(const Json& json, const std::string& where, int depth) {
    if (json.kind == Json::Kind::Null) return nullptr;
    if (depth > 8) refuse(where, "Sequence nested deeper than 8");
    const std::string type = type_of(json, where);
    const std::string at = where + ": " + type;
    if (type == "TemplateProcessing") return template_processing(json, at);
    if (type == "ByteLevel") return std::make_unique<Nothing>();
    if (type == "Sequence")
        return std::make_unique<Sequence>(sequence_steps<PostProcessor>(json, "processors", at, depth, from_json));
    refuse(where,
           "post_processor type " + type + " is not supported (supported: TemplateProcessing, ByteLevel, Sequence)");
}

}  // namespace arcscope::hf
