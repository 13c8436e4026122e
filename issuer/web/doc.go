// Package web is the issuer's web profile: server-rendered pages, for
// people, over the same use cases the HTTP API serves to programs.
//
// # Pages
//
//	GET  /                      start page: the public agents, page by page,
//	                            and /?agent=ID opens a profile
//	GET  /agents/{publicId}     an agent's profile: the skill table first, each
//	                            skill with "Why this assessment?", then the
//	                            downloads and the historical figures
//	GET  /agents/{publicId}/skills/{skill}
//	                            one skill in a task context: why, and every
//	                            source, page by page
//	GET  /agents/{publicId}/evidence/{evidenceId}?passportHash=H
//	                            one record of a passport's evidence file, in
//	                            words, with a link to its JSON
//	GET  /trust/assess          the comparison form and, with agents and skills,
//	                            up to five agents side by side in input order
//	GET  /verify                the verification form
//	POST /verify                verify one bundle against the issuer's trust file
//	GET  /agents                discovery, when a [Finder] is configured: the
//	                            form of GET /api/public/agents and its answer,
//	                            agents ranked by their evidence for a skill
//	GET  /assets/{name}         the embedded stylesheet and script
//
// SPEC.md §18 states what each page shows, its bounds and which fault wins.
//
// # Design
//
// Pages are html/template, so every untrusted string is escaped for its
// context; the rendered page then passes through [issuer.Neutralize], so
// that no bidirectional or invisible character from stored text can
// reorder or hide what a reader sees. The stylesheet and the one small
// script are embedded and served by the pages themselves: no build step,
// no third-party host, no inline script or style, and a
// Content-Security-Policy that allows nothing else ([ContentSecurityPolicy]).
// Every page works without the script.
//
// The pages set no cookie and keep no session, so the one POST form
// (verification, which changes nothing) offers no ambient authority for
// another site to ride on: there is no CSRF surface to protect.
//
// An agent that is unknown, private, unlisted or suspended gets one and
// the same 404 page.
//
// # Dependencies
//
// The handler depends on small interfaces it declares: [Profiles],
// [Passports] and [Trust] (issuer/service implements them), [TrustFiles]
// (issuer/keyring) and, optionally, [Finder]. The pages decide nothing the
// API does not: the explanations, sources and comparisons are the public
// trust service's answers (SPEC.md §16), the ones its routes serve, read
// from the same cached passport the download serves; the pages only put
// them in words and in tables.
package web
