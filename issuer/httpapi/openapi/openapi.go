// Package openapi holds the OpenAPI 3.1 document of the issuer's HTTP API,
// as GET /openapi.json serves it.
//
// The document is the committed file openapi.json, embedded at build time:
// one path item per route of issuer/httpapi under /api, /.well-known,
// /status, /healthz, /metrics, /openapi.json and /mcp, with every parameter and its
// bounds, every request body (additionalProperties false wherever the strict
// decoder refuses unknown members), every response and its schema, the
// problem details schema whose code enum is the whole vocabulary of
// internal/problem, and the bearer key of the authenticated operations.
// Rules JSON Schema cannot state are written beside it as extensions:
// x-maxBytes on a string schema, and x-parameterRules (mutuallyExclusive,
// dependentRequired, sumAtMost) on an operation (SPEC.md §13.7); package
// openapigen generates requests that keep or break each.
// Adding a route means adding its path item to that one file; the tests of
// issuer/httpapi fail until the document and the routes agree, and every
// request and response of their suite is checked against the document
// (see package openapitest).
package openapi

import (
	_ "embed"
)

//go:embed openapi.json
var document []byte

// MediaType is the media type GET /openapi.json answers with.
const MediaType = "application/json"

// Document returns the document's bytes. The caller must not modify them.
func Document() []byte { return document }
