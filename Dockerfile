# crm-proxy: the image runs the TypeScript sources with Node's own type stripping, as `npm start`
# does: no build step. The first stage installs the production dependencies only (better-sqlite3
# ships its binary, so no compiler); the final image runs `node bin/crm-proxy.mjs serve` as a
# non-root user and works on a read-only root file system (only /data is written). Build with the
# classic builder (DOCKER_BUILDKIT=0) where Docker Hub is out of reach: it needs no frontend image;
# `npm run image:check` builds and checks it. CI type-checks and lints before it builds the image.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: no production dependency needs one (better-sqlite3 loads its shipped
# binary), and npm would otherwise try node-gyp on better-sqlite3's binding.gyp.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
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
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY sandbox ./sandbox
# The OpenAPI document's examples, read when the app is built.
COPY docs/examples ./docs/examples
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
# V8's young generation capped at 4 MiB per semi-space and the old generation let grow by half of
# what survived a full collection before the next one, as `npm start` does (docs/production.md).
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "bin/crm-proxy.mjs", "serve"]
