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
}

// MaxArtifactMessage bounds a call of upload_artifact: twice the largest
// artifact, for its JSON escapes, and 4 KiB for the rest. Text that needs
// more escaping than that goes over HTTP (POST /api/artifacts).
const MaxArtifactMessage = 2*issuer.MaxArtifactBytes + 4<<10

// addKnowledgeTools registers accept_memory, upload_artifact and
// publish_digest, the tools of POST /api/receipts/{id}/accept, POST
// /api/artifacts and POST /api/memories with kind digest.
func addKnowledgeTools(s *mcp.Server, t *tools) {
	k, ok := t.app.(KnowledgeIssuer)
	if !ok {
		return
	}
	addTool(s, t, &mcp.Tool{
		Name: "accept_memory",
		Description: "Accept the memory that solved your consultation (feedback scope): one of the memories that " +
			"consultation activated, not your own nor one of your operator's. One accept stands per consultation; a " +
			"later one replaces it. An accept is the strongest signal a memory gets.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in AcceptInput) (any, error) {
		p, err := principal(req)
		if err != nil {
			return nil, err
		}
		if err := p.Require(issuer.ScopeFeedback); err != nil {
			return nil, err
		}
		rid, err := issuer.ParseReceiptID(in.ReceiptID)
		if err != nil {
			return nil, issuer.Errorf(issuer.CodeNotFound, "receipt not found")
		}
		mem, err := issuer.ParseMemoryID(in.MemoryID)
		if err != nil {
			return nil, err
		}
		return k.Accept(ctx, p, rid, mem)
	})
	t.bounds["upload_artifact"] = MaxArtifactMessage
	addTool(s, t, &mcp.Tool{
		Name: "upload_artifact",
		Description: "Store the output that backs your evidence (feedback scope): text of at most 1 MiB, addressed by " +
			"its SHA-256. Cite the returned digest as evidence.artifact in feedback_memory; evidence with an artifact " +
			"others can fetch weighs most.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ArtifactInput) (any, error) {
		p, err := principal(req)
		if err != nil {
			return nil, err
		}
		if len(in.Content) > issuer.MaxArtifactBytes {
			return nil, issuer.Errorf(issuer.CodeTooLarge, "an artifact is at most %d bytes", issuer.MaxArtifactBytes)
		}
		return k.UploadArtifact(ctx, p, []byte(in.Content))
	})
	addTool(s, t, &mcp.Tool{
		Name: "publish_digest",
		Description: "Publish a digest (publish scope): consolidated knowledge whose title is the knowledge in one line, " +
			"whose content summarises it, and whose refs are the public memories it consolidates (every claim traceable " +
			"to a source). supersedes names an older digest it replaces. A digest is validated, used and cited like any memory.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DigestInput) (any, error) {
		p, err := principal(req)
		if err != nil {
			return nil, err
		}
		if err := p.Require(issuer.ScopePublish); err != nil {
			return nil, err
		}
		body := issuer.PublishRequest{Category: in.Category, Title: in.Title, Content: in.Content, Refs: in.Refs, Kind: new(string)}
		*body.Kind = string(issuer.KindDigest)
		if in.Supersedes != nil {
			body.Supersedes = []string{*in.Supersedes}
		}
		pub, err := body.Normalize()
		if err != nil {
			return nil, err
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
