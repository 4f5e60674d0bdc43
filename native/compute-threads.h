// Where whisper.cpp's compute runs: a small set of persistent threads owned by the addon, not the
// libuv pool thread that happens to pick up an AsyncWorker.
//
// Why: ggml parallelises with OpenMP, and OpenMP keeps one "hot" thread team per calling thread.
// Successive calls landing on different libuv threads (the pool has 4) each build and keep a team,
// and those idle teams compete with the working one for the cores: measured 1.42x whisper-cli's time
// on 60 s of audio with 2 threads (`npm run bench -- engine`), against 0.99x when every call came from
// one thread. So every compute call is handed to a persistent thread; the most recently used idle
// one is reused first (its team is hot), and there are only as many as calls ever ran at once.
//
// Two sets of them: foreground threads at the process's own priority, and background threads that
// lower theirs once, when they start (nice +10 on Linux; their OpenMP teams inherit it). Batch work
// runs in the background: where it shares a core with urgent work (an urgent call started while a
// batch call had not yet reached its hold point, or ffmpeg and the VAD beside them), the kernel gives
// the urgent thread most of the core. A thread never raises its priority again, which needs no privilege.
#pragma once

#include <functional>

namespace svc {

enum class ComputePriority { Foreground, Background };

/** Runs `work` on a persistent compute thread and blocks until it returns (rethrowing its exception). */
void RunOnComputeThread(const std::function<void()>& work, ComputePriority priority = ComputePriority::Foreground);

}  // namespace svc
