package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/statuslist"
)

// StatusListServer serves the issuer's status list tokens.
// *service.StatusLists implements it.
type StatusListServer interface {
	Token(ctx context.Context, id issuer.StatusListID) (issuer.StatusListToken, error)
}

// routeStatusLists adds the status lists (SPEC.md §19.4):
//
//	GET /status/{list}   the list's signed token (application/statuslist+jwt)
func (s *Server) routeStatusLists(lists StatusListServer) {
	s.mux.Handle("GET /status/{list}", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		id, err := issuer.ParseStatusListID(r.PathValue("list"))
		if err != nil {
			return notFound(err)
		}
		tok, err := lists.Token(r.Context(), id)
		if err != nil {
			return err
		}
		return serveCached(w, r, cached{contentType: statuslist.MediaType, etag: tok.ETag,
			cacheControl: "public, max-age=" + strconv.Itoa(int(tok.MaxAge/time.Second)), body: tok.Token})
	})))
}
