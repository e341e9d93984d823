// Package openapi holds the OpenAPI 3.1 document of afftrack's HTTP
// interface: every function of both views, its parameters, types, enums
// and errors, the conversion and validation calls, the tracking links and
// the operations endpoints. The server serves it at /openapi.json, and a
// test validates real answers against it, so it stays true.
package openapi

import _ "embed"

// Document is the OpenAPI document, JSON.
//
//go:embed openapi.json
var Document []byte
