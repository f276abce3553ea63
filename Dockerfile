# The Ringbase app (control plane). drachtio-server, FreeSWITCH and coturn run from their own public images
# (docker-compose.yml); nothing telephony-specific is built here.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY config ./config
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production RINGBASE_DATA_DIR=/var/lib/ringbase
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
COPY bin ./bin
RUN mkdir -p /var/lib/ringbase && chown node:node /var/lib/ringbase
USER node
VOLUME /var/lib/ringbase
EXPOSE 8080
CMD ["node", "dist/src/main.js"]
