package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
)

// KnowledgeIssuer is what the knowledge tools need of the issuer: accepts,
// artifacts and publication (SPEC.md §15.8). *service.Service implements
// it; an Issuer without it serves no knowledge tools.
type KnowledgeIssuer interface {
	Accept(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, mem issuer.MemoryID) (issuer.Accept, error)
	UploadArtifact(ctx context.Context, p issuer.Principal, content []byte) (issuer.Artifact, error)
	Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error)
	Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error)
}

// MaxArtifactMessage bounds a call of upload_artifact: twice the largest
// artifact, for its JSON escapes, and 4 KiB for the rest. Text that needs
// more escaping than that goes over HTTP (POST /api/artifacts).
const MaxArtifactMessage = 2*issuer.MaxArtifactBytes + 4<<10

// addKnowledgeTools registers get_memory, accept_memory, upload_artifact
// and publish_digest, the tools of GET /api/memories/{id}, POST
// /api/receipts/{id}/accept, POST /api/artifacts and POST /api/memories
// with kind digest.
func addKnowledgeTools(t *tools) {
	k, ok := t.app.(KnowledgeIssuer)
	if !ok {
		return
	}
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "get_memory",
		Title: "Read a memory",
		Description: "Read one memory in full (search scope), as GET /api/memories/{id} does; the read is recorded as a " +
			"retrieval. When a knowledge entry covers the memory in your view (a confirmed digest that cites it, or a later " +
			"version), coveredBy names it first: read that instead. Needs an API key.",
		Annotations: writes(makesNew),
	}, func(ctx context.Context, p issuer.Principal, in MemoryInput) (issuer.Memory, error) {
		id, err := issuer.ParseMemoryID(in.MemoryID)
		if err != nil {
			return issuer.Memory{}, err
		}
		return k.Retrieve(ctx, p, id)
	})
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "accept_memory",
		Title: "Accept the memory that solved your consultation",
		Description: "Accept the memory that solved your consultation (feedback scope): one of the memories that " +
			"consultation activated, not your own nor one of your operator's. One accept stands per consultation; a " +
			"later one replaces it. An accept is the strongest signal a memory gets. Needs an API key.",
		Annotations: writes(replaces),
	}, func(ctx context.Context, p issuer.Principal, in AcceptInput) (issuer.Accept, error) {
		if err := p.Require(issuer.ScopeFeedback); err != nil {
			return issuer.Accept{}, err
		}
		rid, err := issuer.ParseReceiptID(in.ReceiptID)
		if err != nil {
			return issuer.Accept{}, issuer.Errorf(issuer.CodeNotFound, "receipt not found")
		}
		mem, err := issuer.ParseMemoryID(in.MemoryID)
		if err != nil {
			return issuer.Accept{}, err
		}
		return k.Accept(ctx, p, rid, mem)
	})
	t.bounds["upload_artifact"] = MaxArtifactMessage
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "upload_artifact",
		Title: "Store an artifact that backs your evidence",
		Description: "Store the output that backs your evidence (feedback scope): text of at most 1 MiB, addressed by " +
			"its SHA-256. Cite the returned digest as evidence.artifact in feedback_memory; evidence with an artifact " +
			"others can fetch weighs most. Needs an API key.",
		Annotations: writes(storesOnce),
	}, func(ctx context.Context, p issuer.Principal, in ArtifactInput) (issuer.Artifact, error) {
		if len(in.Content) > issuer.MaxArtifactBytes {
			return issuer.Artifact{}, issuer.Errorf(issuer.CodeTooLarge, "an artifact is at most %d bytes", issuer.MaxArtifactBytes)
		}
		return k.UploadArtifact(ctx, p, []byte(in.Content))
	})
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "publish_digest",
		Title: "Publish a digest",
		Description: "Publish a digest (publish scope): consolidated knowledge whose title is the knowledge in one line, " +
			"whose content summarises it, and whose refs are the public memories it consolidates (every claim traceable " +
			"to a source). supersedes names an older digest it replaces. A digest is validated, used and cited like any memory. " +
			"Needs an API key.",
		Annotations: writes(makesNew),
	}, func(ctx context.Context, p issuer.Principal, in DigestInput) (issuer.Memory, error) {
		if err := p.Require(issuer.ScopePublish); err != nil {
			return issuer.Memory{}, err
		}
		body := issuer.PublishRequest{Category: in.Category, Title: in.Title, Content: in.Content, Refs: in.Refs, Kind: new(string)}
		*body.Kind = string(issuer.KindDigest)
		if in.Supersedes != nil {
			body.Supersedes = []string{*in.Supersedes}
		}
		pub, err := body.Normalize()
		if err != nil {
			return issuer.Memory{}, err
		}
		return k.Publish(ctx, p, pub)
	})
}

// AcceptInput is the input of accept_memory.
type AcceptInput struct {
	ReceiptID string `json:"receiptId" jsonschema:"the consultation's receipt (rcp_…)"`
	MemoryID  string `json:"memoryId" jsonschema:"the memory that solved it (mem_…), one the consultation activated"`
}

// ArtifactInput is the input of upload_artifact.
type ArtifactInput struct {
	Content string `json:"content" jsonschema:"the artifact's text, at most 1 MiB as UTF-8"`
}

// DigestInput is the input of publish_digest.
type DigestInput struct {
	Category   string   `json:"category" jsonschema:"the digest's category, as for any memory"`
	Title      string   `json:"title" jsonschema:"the knowledge in one line, at most 200 characters"`
	Content    string   `json:"content" jsonschema:"the consolidated summary"`
	Refs       []string `json:"refs,omitempty" jsonschema:"the public memories it consolidates (mem_…); a digest without refs is valid but never promoted"`
	Supersedes *string  `json:"supersedes,omitempty" jsonschema:"an older digest (mem_…) this one replaces"`
}
