# evalrun in a container: the image the scale-out examples (docs/SCALE-OUT.md) run.
#
#   docker build -t evalrun .
#   docker run --rm -v "$PWD/data:/data" -w /data evalrun --problems problems --solutions solutions --shard 1/4
#
# isolated-vm is compiled from source during `npm ci`, hence the toolchain in the build stage.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/evalrun
COPY package.json package-lock.json ./
# Scripts are run after the sources are in place: `prepare` builds evalrun itself.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild isolated-vm esbuild
COPY tsconfig.json ./
COPY bin bin
COPY scripts scripts
COPY src src
COPY sandbox sandbox
COPY bench bench
COPY problems problems
COPY test/fixtures/python-self-check test/fixtures/python-self-check
RUN npm run build
# The first Python candidate of an install makes the interpreter's memory
# snapshot (node_modules/.cache/evalrun); making it here saves every shard
# that one-time cost. The set has candidates that fail on purpose, hence `|| true`;
# the check below fails the build if no snapshot was written.
RUN node bin/evalrun.js --problems test/fixtures/python-self-check --out /tmp/warm.json > /dev/null || true \
 && ls node_modules/.cache/evalrun/pyodide-*.snapshot \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /opt/evalrun
COPY --from=build /opt/evalrun/package.json ./
COPY --from=build /opt/evalrun/node_modules node_modules
COPY --from=build /opt/evalrun/dist dist
COPY --from=build /opt/evalrun/bin bin
COPY --from=build /opt/evalrun/sandbox sandbox
COPY --from=build /opt/evalrun/problems problems
RUN ln -s /opt/evalrun/bin/evalrun.js /usr/local/bin/evalrun
# Candidate code is untrusted: run as an unprivileged user.
USER node
WORKDIR /data
ENTRYPOINT ["evalrun"]
CMD ["--help"]
