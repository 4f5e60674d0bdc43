// Where whisper.cpp's compute runs: a small set of persistent threads owned by the addon, not the
// libuv pool thread that happens to pick up an AsyncWorker.
//
// Why: ggml parallelises with OpenMP, and OpenMP keeps one "hot" thread team per calling thread.
// Successive calls landing on different libuv threads (the pool has 4) each build and keep a team,
// and those idle teams compete with the working one for the cores: measured 1.42x whisper-cli's time
// on 60 s of audio with 2 threads (`npm run bench -- engine`), against 0.99x when every call came from
// one thread. So every compute call is handed to a persistent thread; the most recently used idle
// one is reused first (its team is hot), and there are only as many as calls ever ran at once.
#pragma once

#include <functional>

namespace svc {

/** Runs `work` on a persistent compute thread and blocks until it returns (rethrowing its exception). */
void RunOnComputeThread(const std::function<void()>& work);

}  // namespace svc
