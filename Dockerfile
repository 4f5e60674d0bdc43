# svc-stt in a container: one image for every role (`serve --role api|worker|all`).
# Build stage: the same build script CI runs (scripts/build.sh: Debian packages, npm ci with the
# native addon and whisper-cli, the TypeScript build, the VAD model), then the dev dependencies go.
# Runtime stage: Node, ffmpeg, the OpenMP runtime the addon links (libgomp1) and the built package,
# as the unprivileged `node` user.
# Model weights are not in the image: mount them and point SVC_MODEL at the file.
# Debian 13 (trixie): its glibc 2.41 loads uWebSockets.js, which serves realtime here (Debian 12's does not).
FROM node:24.21-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json CMakeLists.txt tsconfig.json tsconfig.build.json ./
COPY assets ./assets
COPY bin ./bin
COPY native ./native
COPY scripts ./scripts
COPY src ./src
COPY models/manifest.json ./models/manifest.json
# Portable by default (no -march=native): an image runs on machines other than the one that built
# it. `--build-arg SVC_PORTABLE=0` tunes it for the build machine's SIMD instead.
ARG SVC_PORTABLE=1
ENV SVC_PORTABLE=${SVC_PORTABLE}
# Only the addon (build/Release) is needed at run time; whisper.cpp's sources and objects go.
RUN bash scripts/build.sh && npm prune --omit=dev \
 && mv build/Release /tmp/Release && rm -rf build deps && mkdir build && mv /tmp/Release build/Release

FROM node:24.21-trixie-slim
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg libgomp1 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=root:root /app ./
# The image's smoke test: the realtime listener serves with uWebSockets.js here, or the build fails
# with the reason it could not load (the same sentence the start-up log gives).
RUN node --input-type=module -e "const { uwsUnavailableReason } = await import('/app/dist/realtime/transport/uws-transport.js'); \
  const why = uwsUnavailableReason(); if (why) { console.error(why); process.exit(1); } console.log('realtime transport: uws')"
# Owner-only, as the service makes it (a new named volume takes this mode); else serve warns at start.
RUN install -d -m 0700 -o node -g node /data
USER node
ENV NODE_ENV=production SVC_HOST=0.0.0.0 SVC_PORT=8080 SVC_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:'+(process.env.SVC_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/svc-stt.js"]
CMD ["serve"]
