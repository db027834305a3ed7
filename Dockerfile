# syntax=docker/dockerfile:1
# Earshot's container image: the static binary (CGO_ENABLED=0) on
# distroless/static, which holds CA certificates, zoneinfo, /etc/passwd with
# the nonroot user (65532) and /tmp, and no shell. Build for the host or
# several platforms:
#   docker build -t earshot --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker buildx build --platform linux/amd64,linux/arm64 -t earshot .

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS TARGETARCH
ARG VERSION=dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same flags as scripts/release.sh: static, stripped, stamped.
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X earshot/internal/cli.Version=$VERSION -X earshot/internal/cli.Commit=$COMMIT -X earshot/internal/cli.BuildDate=$BUILD_DATE" \
      -o /out/earshot . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/earshot /earshot
COPY --from=build /src/LICENSE /src/NOTICE /usr/share/doc/earshot/
# /data belongs to the non-root user, so a new named volume mounted there
# starts writable for it.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# Listening on every interface of the container; the port is published
# (or not) by docker run -p / compose. EARSHOT_BASE_URL should be set to
# the public URL (https://… behind the proxy).
ENV EARSHOT_DATA=/data \
    EARSHOT_ADDR=0.0.0.0:8080
VOLUME /data
EXPOSE 8080
# earshot healthcheck reads the same EARSHOT_ADDR / EARSHOT_BASE_URL as serve:
# no shell or curl needed.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["/earshot", "healthcheck"]
ENTRYPOINT ["/earshot"]
CMD ["serve"]
