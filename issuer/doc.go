// Package issuer is the domain of the passportkit issuer service: the
// agents, memories, consultations and validations it records, the requests
// it accepts and the responses it gives, and its one error type.
//
// The package holds no I/O. Its sub-packages do the work:
//
//   - [github.com/remnant/passportkit/issuer/service] holds the use cases:
//     scopes, eligibility, idempotency, audit and which change a validation
//     makes, decided over a narrow store interface it declares;
//   - [github.com/remnant/passportkit/issuer/store] implements that
//     interface on PostgreSQL or an embedded SQLite file, data access only,
//     each write in one transaction;
//   - [github.com/remnant/passportkit/issuer/httpapi] serves the use cases
//     over HTTP with RFC 9457 problem details;
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
