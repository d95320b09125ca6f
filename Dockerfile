# qtc serve on the CPU: Node 24, the locked dependencies, the build; models live in a volume.
#   docker build -t qtc .
#   docker run --rm -p 8080:8080 -v qtc-models:/models qtc --model qwen3-0.6b
FROM node:24-slim

# git, cmake and g++ are not needed: node-llama-cpp's prebuilt CPU binaries ship in its npm packages.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script (tsc) needs the sources, copied below; allowScripts denies the rest anyway.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY grammars ./grammars
COPY templates ./templates
COPY data ./data
COPY native ./native
COPY bench/tasks ./bench/tasks
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

ENV QTC_MODELS_DIR=/models NODE_ENV=production
VOLUME ["/models"]
EXPOSE 8080
ENTRYPOINT ["node", "bin/qtc.js", "serve", "--host", "0.0.0.0", "--port", "8080"]
CMD ["--model", "qwen3-0.6b"]
