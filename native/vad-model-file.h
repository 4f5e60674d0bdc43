// A Silero VAD model file in whisper.cpp's ggml format, held in memory, and the contexts made from it.
//
// whisper_vad_init_with_params trusts the file: a type-name length or layer count from the file sizes
// its buffers, a tensor header with more than four dimensions writes past a stack array, an unknown
// tensor type indexes past ggml's type table, and a window size of zero divides by zero on the first
// detection. TypeScript checks the file thoroughly before loading it (src/models/vad-model-header.ts,
// with messages for people); this check is the addon's own, of exactly what would crash the process,
// so no caller of the addon can take it down with a bad file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vad-model-registry.h"

namespace svc {

/** The whole file. Throws std::runtime_error when it cannot be read or is implausibly large. */
std::vector<uint8_t> ReadVadModelFile(const std::string& path);

/** Checks the header and every tensor record. Throws std::runtime_error naming the first problem. */
VadModelInfo CheckVadModelBytes(const std::vector<uint8_t>& bytes);

/** A single-threaded VAD context built from checked bytes. Throws std::runtime_error on failure. */
VadContextPtr CreateVadContext(const std::vector<uint8_t>& bytes);

}  // namespace svc
