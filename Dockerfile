# One image per function:
#   docker build --build-arg FUNCTION=compose-inference-class -t function-compose-inference-class .
# The runtime stage is distroless Node 20 as non-root (uid 65532); Crossplane's
# package runtime additionally forces uid 2000, so every file is world-readable.
# The script is the ENTRYPOINT so `crossplane render`'s Docker runtime can
# append `--insecure` (it replaces CMD). Node runs with the flags every function
# process runs with (cli/node-flags.ts, which says why; a test keeps the two equal).
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm AS build
ARG FUNCTION
RUN test -n "$FUNCTION" || (echo "--build-arg FUNCTION=<folder under functions/> is required" && exit 1)
WORKDIR /src
COPY package.json package-lock.json ./
# The CEL engine is an npm workspace (packages/cel): npm ci links it.
COPY packages/cel/package.json ./packages/cel/
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY packages ./packages
COPY functions ./functions
COPY cli ./cli
RUN test -f "functions/${FUNCTION}/main.ts" || (echo "no function functions/${FUNCTION}" && exit 1)
RUN npm run build \
 && npm prune --omit=dev \
 && mkdir -p /function \
 && cp -r dist node_modules package.json /function/ \
 && (cd functions && find . -type f ! -name '*.ts' -exec cp --parents {} /function/dist/functions/ \;) \
 && printf "import './dist/functions/%s/main.js';\n" "$FUNCTION" > /function/main.js \
 && chmod -R a+rX /function

FROM gcr.io/distroless/nodejs${NODE_VERSION}-debian12:nonroot AS image
WORKDIR /function
COPY --from=build /function /function
EXPOSE 9443
USER nonroot:nonroot
ENTRYPOINT ["/nodejs/bin/node", "--no-memory-reducer", "--min-semi-space-size=16", "/function/main.js"]
CMD []
