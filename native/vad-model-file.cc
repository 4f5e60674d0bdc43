#include "vad-model-file.h"

#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include "ggml.h"

namespace svc {

namespace {

// Silero VAD's model file is 885,098 bytes; anything far larger is not one.
constexpr size_t kMaxFileBytes = 64u << 20;
constexpr int kMaxTypeBytes = 64;
constexpr int kMaxNameBytes = 256;
constexpr int kMaxDims = 4;
// whisper_vad_init_with_params creates exactly this many tensors (STFT basis, 4 x 2 encoder, 4 LSTM,
// 2 final) and builds its graph for Silero's 16 kHz sizes only (its STFT basis is always 256x1x258).
constexpr int kTensorCount = 15;
constexpr int32_t kSileroHparams[] = {
    4,                                                     // encoder layers
    129, 128, 3, 128, 64, 3, 64, 64, 3, 64, 128, 3,         // (in, out, kernel) per encoder layer
    128, 128,                                              // LSTM input and hidden size
    128, 1,                                                // final conv in and out
};
constexpr int32_t kWindowSamples = 512;
constexpr int32_t kContextSamples = 64;

class ByteReader {
 public:
  explicit ByteReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}

  int32_t Int32(const char* what) {
    int32_t value;
    Copy(&value, sizeof value, what);
    return value;
  }
  std::string String(size_t length, const char* what) {
    std::string out(length, '\0');
    Copy(out.data(), length, what);
    return out;
  }
  void Skip(uint64_t length, const char* what) {
    if (length > Remaining()) throw std::runtime_error(std::string("VAD model file is truncated in ") + what);
    pos_ += static_cast<size_t>(length);
  }
  size_t Remaining() const { return bytes_.size() - pos_; }

 private:
  void Copy(void* out, size_t length, const char* what) {
    if (length > Remaining()) throw std::runtime_error(std::string("VAD model file is truncated in ") + what);
    std::memcpy(out, bytes_.data() + pos_, length);
    pos_ += length;
  }

  const std::vector<uint8_t>& bytes_;
  size_t pos_ = 0;
};

// whisper.cpp reads a model through callbacks; this one serves the checked bytes. Like the ifstream
// whisper.cpp uses for files, it reports the end only after a read has run past it.
struct MemoryLoader {
  const std::vector<uint8_t>* bytes;
  size_t pos = 0;
  bool eof = false;

  static size_t Read(void* self, void* output, size_t size) {
    auto* loader = static_cast<MemoryLoader*>(self);
    const size_t available = std::min(size, loader->bytes->size() - loader->pos);
    std::memcpy(output, loader->bytes->data() + loader->pos, available);
    if (available < size) {
      std::memset(static_cast<uint8_t*>(output) + available, 0, size - available);
      loader->eof = true;
    }
    loader->pos += available;
    return size;
  }
  static bool Eof(void* self) { return static_cast<MemoryLoader*>(self)->eof; }
  static void Close(void*) {}
};

}  // namespace

std::vector<uint8_t> ReadVadModelFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open the VAD model file");
  const std::streamoff size = in.tellg();
  if (size < 0) throw std::runtime_error("cannot read the VAD model file");
  if (static_cast<uint64_t>(size) > kMaxFileBytes) throw std::runtime_error("too large to be a Silero VAD model file");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw std::runtime_error("cannot read the VAD model file");
  return bytes;
}

VadModelInfo CheckVadModelBytes(const std::vector<uint8_t>& bytes) {
  ByteReader r(bytes);
  if (static_cast<uint32_t>(r.Int32("the magic number")) != GGML_FILE_MAGIC) {
    throw std::runtime_error("not a whisper.cpp ggml model file (bad magic)");
  }
  VadModelInfo info;
  const int32_t typeLength = r.Int32("the model type");
  if (typeLength < 1 || typeLength > kMaxTypeBytes) throw std::runtime_error("not a VAD model file (bad model type)");
  info.type = r.String(static_cast<size_t>(typeLength), "the model type");
  if (info.type != "silero-16k") throw std::runtime_error("unsupported VAD model type '" + info.type + "'");
  const int32_t major = r.Int32("the version"), minor = r.Int32("the version"), patch = r.Int32("the version");
  info.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  info.frameSamples = r.Int32("the window size");
  info.contextSamples = r.Int32("the context size");
  if (info.frameSamples != kWindowSamples || info.contextSamples != kContextSamples) {
    throw std::runtime_error("VAD model window/context sizes are not Silero's 16 kHz ones");
  }
  for (int32_t expected : kSileroHparams) {
    if (r.Int32("the hyperparameters") != expected) throw std::runtime_error("VAD model hyperparameters are not Silero's");
  }

  std::set<std::string> names;
  while (r.Remaining() > 0) {
    const int32_t nDims = r.Int32("a tensor header");
    const int32_t nameLength = r.Int32("a tensor header");
    const int32_t type = r.Int32("a tensor header");
    if (nDims < 0 || nDims > kMaxDims || nameLength < 1 || nameLength > kMaxNameBytes) {
      throw std::runtime_error("malformed tensor header in the VAD model file");
    }
    if (type != GGML_TYPE_F32 && type != GGML_TYPE_F16) throw std::runtime_error("unexpected tensor type in the VAD model file");
    uint64_t elements = 1;
    for (int i = 0; i < nDims; i++) {
      const int32_t ne = r.Int32("a tensor header");
      if (ne < 1 || ne > (1 << 20)) throw std::runtime_error("malformed tensor dimensions in the VAD model file");
      elements *= static_cast<uint64_t>(ne);
      if (elements > kMaxFileBytes) throw std::runtime_error("malformed tensor dimensions in the VAD model file");
    }
    const std::string name = r.String(static_cast<size_t>(nameLength), "a tensor name");
    if (!names.insert(name).second) throw std::runtime_error("tensor '" + name + "' appears twice in the VAD model file");
    r.Skip(elements * (type == GGML_TYPE_F32 ? 4 : 2), "tensor data");
  }
  if (names.size() != kTensorCount) throw std::runtime_error("VAD model file is truncated (tensors missing)");
  return info;
}

VadContextPtr CreateVadContext(const std::vector<uint8_t>& bytes) {
  whisper_vad_context_params params = whisper_vad_default_context_params();
  // One thread per call, always: measured, multi-threaded VAD collapses on a busy 2-core machine (the
  // graph per 32 ms frame is tiny, so threads spend their time synchronising), and concurrency comes
  // from running calls side by side instead.
  params.n_threads = 1;
  params.use_gpu = false;  // whisper.cpp 1.9.1 forces the CPU for VAD anyway
  MemoryLoader state{&bytes};
  whisper_model_loader loader{&state, &MemoryLoader::Read, &MemoryLoader::Eof, &MemoryLoader::Close};
  whisper_vad_context* ctx = nullptr;
  try {
    ctx = whisper_vad_init_with_params(&loader, params);
  } catch (const std::exception& e) {
    // whisper.cpp's loader throws on allocation failures rather than returning null.
    throw std::runtime_error(std::string("whisper.cpp could not load the VAD model: ") + e.what());
  }
  if (ctx == nullptr) throw std::runtime_error("whisper.cpp could not load the VAD model file");
  return VadContextPtr(ctx);
}

}  // namespace svc
