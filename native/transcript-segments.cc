#include "transcript-segments.h"

namespace svc {

SegmentResult ReadSegment(whisper_context* ctx, whisper_state* state, int i, float noSpeechProb) {
  const whisper_token eot = whisper_token_eot(ctx);
  SegmentResult seg;
  seg.t0 = whisper_full_get_segment_t0_from_state(state, i);
  seg.t1 = whisper_full_get_segment_t1_from_state(state, i);
  seg.bytes = whisper_full_get_segment_text_from_state(state, i);
  seg.noSpeechProb = noSpeechProb;
  seg.speakerTurnNext = whisper_full_get_segment_speaker_turn_next_from_state(state, i);
  const int nTokens = whisper_full_n_tokens_from_state(state, i);
  seg.tokens.reserve(nTokens);
  for (int j = 0; j < nTokens; j++) {
    const whisper_token_data d = whisper_full_get_token_data_from_state(state, i, j);
    TokenResult t;
    t.id = d.id;
    t.bytes = whisper_full_get_token_text_from_state(ctx, state, i, j);
    t.p = d.p;
    t.plog = d.plog;
    t.t0 = d.t0;
    t.t1 = d.t1;
    t.tDtw = d.t_dtw;
    t.special = d.id >= eot;
    seg.tokens.push_back(std::move(t));
  }
  return seg;
}

double Seconds(int64_t centiseconds) { return centiseconds < 0 ? -1.0 : static_cast<double>(centiseconds) / 100.0; }

Napi::Buffer<uint8_t> Bytes(Napi::Env env, const std::string& s) {
  return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

Napi::Array SegmentsToJs(Napi::Env env, const std::vector<SegmentResult>& segments) {
  Napi::Array out = Napi::Array::New(env, segments.size());
  for (size_t i = 0; i < segments.size(); i++) {
    const SegmentResult& s = segments[i];
    Napi::Object seg = Napi::Object::New(env);
    seg.Set("t0", Seconds(s.t0));
    seg.Set("t1", Seconds(s.t1));
    seg.Set("bytes", Bytes(env, s.bytes));
    seg.Set("noSpeechProb", s.noSpeechProb);
    seg.Set("speakerTurnNext", s.speakerTurnNext);
    Napi::Array tokens = Napi::Array::New(env, s.tokens.size());
    for (size_t j = 0; j < s.tokens.size(); j++) {
      const TokenResult& t = s.tokens[j];
      Napi::Object tok = Napi::Object::New(env);
      tok.Set("id", t.id);
      tok.Set("bytes", Bytes(env, t.bytes));
      tok.Set("p", t.p);
      tok.Set("plog", t.plog);
      tok.Set("t0", Seconds(t.t0));
      tok.Set("t1", Seconds(t.t1));
      tok.Set("tDtw", Seconds(t.tDtw));
      tok.Set("special", t.special);
      tokens.Set(static_cast<uint32_t>(j), tok);
    }
    seg.Set("tokens", tokens);
    out.Set(static_cast<uint32_t>(i), seg);
  }
  return out;
}

}  // namespace svc
