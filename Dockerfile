# afftrack as a static binary on a minimal base. The SQLite driver is pure
# Go, so the binary needs no C library and runs on a "static" image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/afftrack ./cmd/afftrack

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/afftrack /usr/local/bin/afftrack
USER nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/afftrack"]
CMD ["serve", "--addr", ":8080"]
