// Package mcpwire reads JSON-RPC 2.0 frames for the project's MCP servers
// strictly, and answers the ones it cannot read without ending the session.
//
// # Frames
//
// [Decode] turns one frame, the bytes of one JSON-RPC message, into the
// official Go SDK's [jsonrpc.Message] (a request, a notification or a
// response to a server request), or refuses it with a [*Fault] that says how
// to answer. The frame is parsed once with the project's strict JSON parser,
// internal/cjson:
//
//   - a frame that is not JSON text (a syntax error, invalid UTF-8, data
//     after the value, an empty frame) is a parse error, -32700, answered
//     with a null id;
//   - a frame that is JSON but not I-JSON (a member name twice at any
//     depth, a lone surrogate escape, an integer beyond ±(2^53−1), nesting
//     deeper than 32) is an invalid request, -32600, with a null id: the id
//     of such a frame is not trusted;
//   - a frame that is I-JSON but not a valid message is an invalid request,
//     -32600, answered with the frame's id when it is a valid id, and a null
//     id otherwise.
//
// A valid message is a JSON object with the members jsonrpc (exactly "2.0"),
// id, method, params, result and error, names matched exactly, and no other
// member. An id is a string or an integer (which the SDK's float64 ids hold
// exactly within ±(2^53−1)); null, fractions, exponents, objects, arrays and
// booleans are refused. A request's method is a non-empty string and its
// params, when present, an object or an array (null counts as absent). A
// response has an id and exactly one of result and error, an error being an
// object with an integer code, a string message and optional data. Batches
// (JSON arrays) are refused as a whole with one -32600 and a null id: MCP
// removed JSON-RPC batching in its 2025-06-18 revision.
//
// # Standard input and output
//
// [Transport] is an [mcp.Transport] for a stdio server: newline-delimited
// frames read one at a time within [Transport.MaxFrame] bytes, each decoded
// with [Decode]. A refused frame, or one over the bound (discarded as it
// streams, never buffered whole), is answered at once with its fault and the
// session goes on; only the end of input or an I/O error ends it. The end
// of input is reported only once every call read has been answered (or
// [DrainTimeout] has passed): the SDK cancels the calls in flight and
// closes the connection when it learns of the end, which would lose the
// answers of a client that writes its requests and closes its end at once.
// Blank
// lines between frames are skipped, and a carriage return before the newline
// is ignored.
//
// The SDK's own [mcp.StdioTransport] reads through one streaming
// json.Decoder that cannot resynchronise after a syntax error, so one
// garbled frame ends the session (go-sdk issue #1209, open in v1.8.0). Once
// a release carries the fix, check that it answers every case in this
// package's tests and the robustness suites in cmd/passport, then replace
// [Transport] with the SDK's transport; keep [Decode] for the issuer's
// /mcp, which reads a whole body as one frame.
package mcpwire
