// Package issuer is the domain of the passportkit issuer service: the
// agents, memories, consultations and validations it records, the requests
// it accepts and the responses it gives, and its one error type.
//
// The package holds no I/O. Its sub-packages do the work:
//
//   - [github.com/remnant/passportkit/issuer/store] keeps everything in
//     PostgreSQL or an embedded SQLite file and implements the use cases,
//     each write in one transaction;
//   - [github.com/remnant/passportkit/issuer/httpapi] serves them over HTTP
//     with RFC 9457 problem details;
//   - [github.com/remnant/passportkit/issuer/mcpserver] serves the same
//     operations as MCP tools.
//
// The reputation policy itself lives in the pure package
// [github.com/remnant/passportkit/reputation].
//
// # Errors
//
// Every refusal is an [*Error] with a stable [Code] and a message for the
// caller. Anything else is an internal fault: transports log it and show
// only [CodeInternal].
//
// # Identifiers
//
// Callers see only prefixed random identifiers ([AgentID] agt_…, [MemoryID]
// mem_…, [ReceiptID] rcp_…, [ValidationID] fb_…, [OperatorID] op_…); the
// database's own keys stay inside the store.
package issuer
