// fuzz_model_file.cpp: libFuzzer target for the .arcs loader. Any bytes must give a validated model or an Error,
// never a crash or an out-of-bounds read (AddressSanitizer watches). What validates is also run, one token.
#include <cstdint>
#include <cstring>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/model/decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A private, exactly sized copy: ASan then flags any read past the end, and f32 data is 4-byte aligned.
    std::vector<uint8_t> bytes(data, data + size);
    for (bool verify : {true, false}) {
        try {
            arcscope::ModelFile file = arcscope::ModelFile::parse(bytes.data(), bytes.size(), verify);
            arcscope::Decoder model(file);
            int ids[2] = {0, file.config().n_vocab - 1};
            model.forward(ids, std::min(2, file.config().n_ctx), ForwardOptions().with_attention().with_all_logits());
            model.reset();
            model.append(ids[1], ForwardOptions().with_attention());
        } catch (const arcscope::Error&) {
        }
    }
    return 0;
}
