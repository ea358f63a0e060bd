# crm-proxy: multi-stage build. Stage 1 installs, type-checks and compiles (`npm ci`,
# `npm run typecheck`, `npm run build`, the same commands as a local build); stage 2 prunes its
# node_modules to the production dependencies; the final image runs `node dist/src/cli/index.js
# serve` as a non-root user, with no TypeScript loader, and works on a read-only root file system
# (only /data is written). Build with the classic builder (DOCKER_BUILDKIT=0) where Docker Hub is
# out of reach: it needs no frontend image; `npm run image:check` builds and checks it.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json biome.json ./
COPY scripts ./scripts
COPY src ./src
COPY docs/examples ./docs/examples
COPY sandbox ./sandbox
COPY bin ./bin
# The SDK's sources: test/api/client.test.ts type-checks against them.
COPY packages ./packages
# test/ and bench/ are type-checked with the rest, as locally; only dist/ leaves this stage.
COPY test ./test
COPY bench ./bench
RUN npm run typecheck && npm run build

# Production dependencies: the build stage's, less the dev ones (better-sqlite3 ships its binary).
FROM build AS deps
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    CRM_PROXY_DATA_DIR=/data \
    CRM_PROXY_BEHIND_TLS=true \
    CRM_PROXY_METRICS_PORT=9464 \
    CRM_PROXY_METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# `node` (uid 1000) ships with the base image; /data is the only place written (the SQLite store
# when DATABASE_URL is unset). Mount a volume there; everything else can be read-only.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 9464
# /readyz: 200 when the store answers, 503 while draining; node's fetch, no curl in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: stop accepting, finish in-flight requests (Connection: close on them), then exit.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/cli/index.js", "serve"]
