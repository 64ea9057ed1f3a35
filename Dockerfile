# syntax=docker/dockerfile:1
# Kurate's image: built in one stage, run from a small one with production dependencies only, as a non-root user.
# Every step is bin/container-build.sh, which CI also runs (there is no container engine on the CI machine).
# docs/operations.md says how to run it with compose.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin/container-build.sh bin/
RUN bash bin/container-build.sh install
COPY . .
RUN bash bin/container-build.sh build

FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    KURATE_HOST=0.0.0.0 \
    PORT=3000 \
    KURATE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/views ./views
COPY --from=build /app/public ./public
COPY --from=build /app/bin ./bin
# The embedded database's folder, for a single container without DATABASE_URL; with PostgreSQL it stays empty.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["bash", "bin/container-build.sh", "health"]
CMD ["bash", "bin/container-build.sh", "start"]
