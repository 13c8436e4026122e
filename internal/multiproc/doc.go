// Package multiproc runs several `passport-issuer serve` processes over one
// PostgreSQL database, as an issuer is deployed behind a load balancer, and
// checks and measures what they share: cached passports freed by
// notifications, signing keys, idempotency keys and the hourly skill
// history. It holds only tests and benchmarks; they need PostgreSQL
// (PASSPORT_TEST_DATABASE_URL) and are skipped under -short.
package multiproc
